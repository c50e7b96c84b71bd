// src/copy/copy.cpp — the copy routine for copies of kMinChosen bytes and more, chosen once per
// process by CPU vendor and features (cpuid), the cache sizes (sysfs, else sysconf) and one
// timing of `rep movsb` at start-up (its trap on CPUs other than Intel, its band on Intel):
//  - AVX2, `rep movsb` trapped (or no ERMS): a loop of 32-byte loads and destination-aligned
//    stores (kernels.hpp; backward, or forward when the destination lies just below the source)
//    up to a quarter of the L3 cache, non-temporal stores above. Measured on this project's AMD
//    Zen 3 VM (bench/copy_bench, bench/results/copy/): glibc's memcpy (`rep movsb` from 2 KiB to
//    ~512 KiB) falls to 1.4-2.9 GB/s when dst - src mod 4096 is 1-31, the AVX2 loop stays at
//    34-51 GB/s at 64 KiB over all 4096 relative offsets (median 42.7 against memcpy's 36.0) and
//    is as fast as memcpy at aligned offsets from 2 KiB to 4 MiB; non-temporal stores win from
//    8 MiB (18.5 against 6.4 GB/s: the copy no longer fits the cache and streaming skips the
//    reads for ownership) and lose below (21 against 28-32 GB/s at 4 MiB).
//  - Intel with ERMS whose `rep movsb` is as fast as the backward loop where the destination lies
//    just past the source (timed at start-up, movsb_fast_in_band() below): `rep movsb` up to the
//    non-temporal stores (Emerald Rapids).
//  - Other Intel with ERMS: the same as the first, except that while source and destination fit
//    L1d together (up to L1d/2 bytes) `rep movsb` copies, or the backward loop where the
//    destination lies 1-63 bytes past the source (the 4K-aliasing distance of a forward copy). On
//    the project's Intel Xeon VM (Cascade Lake, 32 KiB L1d) the loops reached only 0.51-0.74 of the
//    best routine's rate at the same offset at 4-16 KiB (medians over 94 offsets; `rep movsb` moved
//    16 KiB at 100-160 GB/s against 65-85 for the loops), this choice 0.90-0.95 (over 255);
//    from 32 KiB the loops are as fast as anything there (`copy_bench goal`,
//    bench/results/2026-11-27-s15).
//  - Other AVX2 CPUs with ERMS whose `rep movsb` is not trapped (movsb_trapped() below): the
//    loops up to 7/16 of L1d, backward when the destination lies up to 2 KiB past the source and
//    forward otherwise; `rep movsb` above, below 4 MiB (the forward loop where the destination
//    lies 32 bytes past the source, the backward loop where it lies 1-63 bytes past it and the
//    copy exceeds L2/2); the loops again from 4 MiB. On the project's AMD
//    Zen 5 VM (EPYC, family 26, 48 KiB L1d) the backward loop dipped to 0.38-0.65 of the best at
//    4-16 KiB where the destination lies up to ~880 bytes below the source and the forward loop
//    where it lies up to ~850 bytes past it; from 32 KiB both loops fell to 0.5-0.7 of
//    `rep movsb` at most offsets (64 KiB: 57 and 86 GB/s against 111), while `rep movsb` stayed
//    at 0.74-1.0 of the best at every offset from 32 KiB to 4 MiB (copy_bench offsets,
//    bench/results/2026-11-28-s16/copy).
//  - no AVX2: glibc's memcpy.
// The choice is made on first use (a function-local constant, thread-safe initialisation), so
// the library holds no mutable global state for it.
#include "copy/copy.hpp"

#include "copy/kernels.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fcntl.h>
#include <memory>
#include <optional>
#include <string>
#include <unistd.h>

namespace ampi::copy {

namespace {

// Which routine copies what: copy_large() tries the ranges in this order (bytes, bounds
// inclusive). "The band": the destination lies 1-63 bytes past the source modulo 4 KiB.
struct Plan {
  bool avx2 = false;
  std::size_t stream_from = ~std::size_t{0}; // non-temporal stores from this size
  std::size_t loops_first_to = 0;            // the loops up to this size
  std::size_t movsb_to = 0;                  // `rep movsb` up to this (the band: backward loop)
  std::size_t movsb_above_to = 0;            // `rep movsb` up to this (see movsb_band_to)...
  std::size_t movsb_band_to = 0;             // ...the band: backward loop above this size
  std::size_t forward_from = 4096 - 256;     // the loops go forward from this dst - src mod 4096
                                             // (else backward); above every range: the loops
  bool forward_at_32 = true; // in the movsb_above_to range, the forward loop at exactly 32 past
  const char *name = "glibc memcpy (no AVX2)";
};

// The first line of a small sysfs file, "" if it cannot be read. POSIX reads: the first
// std::ifstream of a process took 0.4-4.7 ms on the Zen 5 VM (locale set-up), open() 40 us.
std::string first_line(const std::string &path) {
  char buf[64];
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  const ssize_t got = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (got <= 0) return {};
  std::string line(buf, static_cast<std::size_t>(got));
  return line.substr(0, line.find('\n'));
}

// The size in bytes of cpu0's cache of `level` and `type` ("Data", "Unified") as sysfs lists it
// (what the kernel read from cpuid), else sysconf's `sc_name` (glibc reads cpuid: some VMs have no
// cache folder in sysfs), else `dflt`.
std::size_t cache_bytes(int level, const char *type, int sc_name, std::size_t dflt) {
  for (int i = 0; i < 8; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    const std::string l = first_line(dir + "level");
    if (l.empty()) break;
    if (std::atoi(l.c_str()) != level || first_line(dir + "type") != type) continue;
    const std::string sz = first_line(dir + "size"); // "48K", "1024K", "32M"
    char *unit = nullptr;
    std::size_t v = std::strtoull(sz.c_str(), &unit, 10);
    v *= *unit == 'K' ? 1024 : *unit == 'M' ? 1024 * 1024 : 1;
    if (v) return v;
  }
  const long v = sysconf(sc_name);
  return v > 0 ? static_cast<std::size_t>(v) : dflt;
}

// The start-up timings below: two ways of copying kProbeBytes within one scratch block (two halves
// of kProbeBytes and a page; its first kProbeBytes + 16 bytes set to 1, the rest 0), copy(k,
// block) doing one copy the k-th way (k = 0, 1). The best of 5 timings of four copies each way,
// interleaved (another process's burst does not decide), after one round that warms the caches;
// nullopt when the block cannot be allocated.
constexpr std::size_t kProbeBytes = 8 << 10;
using Clock = std::chrono::steady_clock;
template <class Copy> std::optional<std::array<Clock::duration, 2>> best_of_5(Copy &&copy) {
  constexpr std::size_t kPage = 4096;
  const std::unique_ptr<std::byte, decltype(&std::free)> mem(
      static_cast<std::byte *>(std::aligned_alloc(kPage, 2 * kProbeBytes + kPage)), &std::free);
  if (!mem) return std::nullopt;
  std::memset(mem.get(), 1, kProbeBytes + 16);
  std::memset(mem.get() + kProbeBytes + 16, 0, kProbeBytes + kPage - 16);
  std::array<Clock::duration, 2> best = {Clock::duration::max(), Clock::duration::max()};
  for (int round = 0; round < 6; ++round)
    for (int k = 0; k < 2; ++k) {
      const auto t0 = Clock::now();
      for (int i = 0; i < 4; ++i)
        copy(k, mem.get());
      const auto t = Clock::now() - t0;
      if (round) best[static_cast<std::size_t>(k)] = std::min(best[static_cast<std::size_t>(k)], t);
    }
  return best;
}

// Whether `rep movsb` has Zen 3's trap: copying 4 KiB to a destination 1 or 16 bytes past the
// source modulo 4 KiB ran at 1.9 GB/s against 53 at the same alignment there (28x as long); on
// Zen 5 8 KiB took 1.4-1.7x as long (0.10 against 0.07 us), 64 KiB 1.05-1.35x. 8 KiB to 0 and to
// 16 bytes past the source (best_of_5); trapped at 4x or more. About 60-120 us on the Zen 5 VM,
// nearly all of it the first touch of the buffers' five pages; once per process.
bool movsb_trapped() {
  const auto t = best_of_5([](int k, std::byte *block) {
    kernels::rep_movsb(block + kProbeBytes + (k ? 16 : 0), block, kProbeBytes);
  });
  if (!t) return true; // no memory to measure with: keep the loops, safe everywhere
  return (*t)[1] >= 4 * (*t)[0];
}

// Whether `rep movsb` copies at least as fast as the backward loop where the destination lies in
// the band (31 bytes past the source, both 16 bytes into a block as malloc places them; 8 KiB,
// best_of_5). On the lent GPU hosts' Intel Xeons (Emerald Rapids, 48 KiB L1d) `rep movsb` kept
// 80-106 GB/s in the band at 4-16 KiB, where the backward loop fell to 46-70, and above L1d/2
// that loop fell to 0.55-0.6 of the rest at 31, 32 and 48 bytes past (256 KiB: 19.5 against 34
// GB/s; bench/results/2026-11-28-s21/copy-intel). On the Cascade Lake VM of session 15 the band
// was the backward loop's (the plan below keeps that where this answers false).
bool movsb_fast_in_band() {
  const auto t = best_of_5([](int k, std::byte *block) {
    const std::byte *src = block + 16;
    std::byte *dst = block + kProbeBytes + 16 + 31;
    if (k)
      kernels::avx2_backward(dst, src, kProbeBytes);
    else
      kernels::rep_movsb(dst, src, kProbeBytes);
  });
  if (!t) return false; // no memory to measure with: keep the plan measured on Cascade Lake
  return (*t)[0] <= (*t)[1];
}

Plan choose() {
  Plan p;
  if (!kernels::cpu_has_avx2()) return p;
  p.avx2 = true;
  // A quarter of L3: the copy's source and destination together then take half of it.
  p.stream_from = std::max<std::size_t>(
      cache_bytes(3, "Unified", _SC_LEVEL3_CACHE_SIZE, std::size_t{32} << 20) / 4,
      std::size_t{1} << 20);
  // Source and destination together within L1d.
  const std::size_t l1_half =
      cache_bytes(1, "Data", _SC_LEVEL1_DCACHE_SIZE, std::size_t{32} << 10) / 2;
  p.name = "AVX2 loops, destination-aligned stores, direction by relative offset; non-temporal "
           "stores from L3/4";
  if (!kernels::cpu_has_erms()) return p;
  if (__builtin_cpu_is("intel") && movsb_fast_in_band()) {
    // `rep movsb` at every offset up to where the non-temporal stores start. On Emerald Rapids
    // (copy_bench goal, 255 offsets a size, against the best candidate at each): p5 0.80-0.88
    // and medians 0.92-0.99 at 4 KiB-1 MiB, where the plan below gave p5 0.59-0.85 (64 KiB-1
    // MiB: 0.59-0.64); 4 MiB p5 0.70 (0.62-0.65), where non-temporal stores were the best.
    p.movsb_above_to = p.stream_from - 1;
    p.movsb_band_to = ~std::size_t{0};
    p.forward_at_32 = false;
    p.name = "rep movsb (timed at start-up: as fast as the AVX2 backward loop where the "
             "destination lies 31 bytes past the source); non-temporal stores from L3/4";
  } else if (__builtin_cpu_is("intel")) {
    p.movsb_to = l1_half;
    p.name = "rep movsb up to L1d/2 (AVX2 backward loop where the destination lies 1-63 bytes past "
             "the source); AVX2 loops, destination-aligned stores, direction by relative offset; "
             "non-temporal stores from L3/4";
  } else if (!movsb_trapped()) {
    // The loops at every offset only while the copy leaves an eighth of L1d to the rest of the
    // program: at 22-26 KiB they averaged 0.65-0.92 of the best rate over 241 offsets, `rep
    // movsb` 0.97-1.0; at 20 KiB the loops 0.99, `rep movsb` 0.97 (copy_bench offsets SIZE 17,
    // two runs each). Where the destination lies 1-63 bytes past the source the backward loop
    // stays best up to L1d/2 (22-24 KiB: `rep movsb` 0.75-0.79 of it; 26-28 KiB: 1.0, the
    // loop 0.86-0.90).
    p.loops_first_to = l1_half * 7 / 8;
    p.movsb_to = l1_half;
    // Zen 5's `rep movsb` writes around the cache from exactly 4 MiB (4194303 B: 58 GB/s there
    // and back, 4194304 B: 32-36; the loops 45-58), so a message of 4 MiB was then read from
    // memory: bench/pingpong's 4 MiB took 1.37-1.48x as long with it.
    p.movsb_above_to = (std::size_t{4} << 20) - 1;
    // Where the destination lies 1-63 bytes past the source, once source and destination no
    // longer fit L2 together: bench/pingpong with that skew moved 1 and 2 MiB in 20.1 and 44.4 us
    // with `rep movsb`, 16.5 and 36.3 with the backward loop (6 rounds each, medians).
    p.movsb_band_to = cache_bytes(2, "Unified", _SC_LEVEL2_CACHE_SIZE, std::size_t{1} << 20) / 2;
    p.forward_from = 2048;
    p.name = "AVX2 loops up to 7/16 L1d (backward where the destination lies up to 2 KiB past the "
             "source, else forward); rep movsb above, below 4 MiB (timed at start-up: no alignment "
             "trap; backward loop up to L1d/2 and from L2/2 where the destination lies 1-63 bytes "
             "past the source); the loops from 4 MiB; non-temporal stores from L3/4";
  }
  return p;
}

const Plan &plan() {
  static const Plan p = choose();
  return p;
}

// "The band" (Plan): the destination lies 1-63 bytes past the source modulo 4 KiB.
bool in_band(std::size_t rel) noexcept {
  return rel - 1 < 63;
}

void loops(const Plan &p, std::size_t rel, void *dst, const void *src, std::size_t n) noexcept {
  // Each direction has a 4K-aliasing dip (loads of the next steps meeting recent stores modulo
  // 4 KiB). Zen 3: forward when dst lies 120-170 bytes past src (64 KiB: 32.5 GB/s), backward
  // when it lies 40-160 bytes before it (34 GB/s); each is at 44-51 GB/s where the other dips:
  // backward unless dst is up to 256 bytes below src. Zen 5's dips are ~880 bytes wide (above):
  // backward up to 2 KiB past src.
  if (rel >= p.forward_from)
    kernels::avx2_forward(dst, src, n);
  else
    kernels::avx2_backward(dst, src, n);
}

} // namespace

void copy_large(void *dst, const void *src, std::size_t n) noexcept {
  const Plan &p = plan();
  const auto rel =
      (reinterpret_cast<std::uintptr_t>(dst) - reinterpret_cast<std::uintptr_t>(src)) & 4095;
  if (!p.avx2 || n < 64) // (the loops need 64 bytes; copy() sends only kMinChosen and more)
    std::memcpy(dst, src, n);
  else if (n >= p.stream_from)
    kernels::avx2_stream(dst, src, n);
  else if (n <= p.loops_first_to)
    loops(p, rel, dst, src, n);
  else if (n <= p.movsb_to) {
    if (in_band(rel))
      kernels::avx2_backward(dst, src, n);
    else
      kernels::rep_movsb(dst, src, n);
  } else if (n <= p.movsb_above_to) {
    // Zen 5's `rep movsb` slows where the destination lies 1-63 bytes past the source (28 KiB:
    // 86 GB/s against 110-150 elsewhere); the forward loop is no faster there (72-88), except
    // at exactly 32 bytes, where its loads and stores are both aligned: 110-135 GB/s (256 KiB:
    // 114 against 98); beyond L2 the backward loop is faster there (choose() above).
    if (rel == 32 && p.forward_at_32)
      kernels::avx2_forward(dst, src, n);
    else if (in_band(rel) && n > p.movsb_band_to)
      kernels::avx2_backward(dst, src, n);
    else
      kernels::rep_movsb(dst, src, n);
  } else
    loops(p, rel, dst, src, n);
}

const char *strategy() noexcept {
  return plan().name;
}

std::size_t stream_threshold() noexcept {
  return plan().stream_from;
}

} // namespace ampi::copy
