// src/copy/copy.cpp — the copy routine for copies of kMinChosen bytes and more, chosen once per
// process by CPU vendor and features (cpuid) and the cache sizes (sysfs):
//  - AVX2: a loop of 32-byte loads and destination-aligned stores (kernels.hpp; backward, or
//    forward when the destination lies just below the source) up to a quarter of the L3 cache,
//    non-temporal stores above. Measured on this project's AMD Zen 3 VM
//    (bench/copy_bench, bench/results/copy/): glibc's memcpy (`rep movsb` from 2 KiB to ~512 KiB)
//    falls to 1.4-2.9 GB/s when dst - src mod 4096 is 1-31, the AVX2 loop stays at 34-51 GB/s at
//    64 KiB over all 4096 relative offsets (median 42.7 against memcpy's 36.0) and is as fast as
//    memcpy at aligned offsets from 2 KiB to 4 MiB; non-temporal stores win from 8 MiB (18.5
//    against 6.4 GB/s: the copy no longer fits the cache and streaming skips the reads for
//    ownership) and lose below (21 against 28-32 GB/s at 4 MiB).
//  - Intel with ERMS: the same, except that while source and destination fit L1d together
//    (up to L1d/2 bytes) `rep movsb` copies, or the backward loop where the destination lies
//    1-63 bytes past the source (the 4K-aliasing distance of a forward copy). On the project's
//    Intel Xeon VM (Cascade Lake, 32 KiB L1d) the loops reached only 0.51-0.74 of the best
//    routine's rate at the same offset at 4-16 KiB (medians over 94 offsets; `rep movsb` moved
//    16 KiB at 100-160 GB/s against 65-85 for the loops), this choice 0.90-0.95 (over 255);
//    from 32 KiB the loops are as fast as anything there (`copy_bench goal`,
//    bench/results/2026-11-27-s15).
//  - no AVX2: glibc's memcpy.
// The choice is made on first use (a function-local constant, thread-safe initialisation), so
// the library holds no mutable global state for it.
#include "copy/copy.hpp"

#include "copy/kernels.hpp"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <string>
#include <unistd.h>

namespace ampi::copy {

namespace {

struct Plan {
  bool avx2 = false;
  std::size_t movsb_to = 0;                  // `rep movsb` up to this size (bytes, inclusive)
  std::size_t stream_from = ~std::size_t{0}; // non-temporal stores from this size
  const char *name = "glibc memcpy (no AVX2)";
};

// The size in bytes of cpu0's cache of `level` and `type` ("Data", "Unified") as sysfs lists it
// (what the kernel read from cpuid), else `dflt`.
std::size_t cache_bytes(int level, const char *type, std::size_t dflt) {
  for (int i = 0; i < 8; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    std::ifstream lf(dir + "level"), tf(dir + "type"), sf(dir + "size");
    int l = 0;
    std::string t;
    if (!(lf >> l)) break;
    if (l != level || !(tf >> t) || t != type) continue;
    std::size_t v = 0;
    char unit = 0;
    if (sf >> v) {
      if (sf >> unit) v *= unit == 'K' ? 1024 : unit == 'M' ? 1024 * 1024 : 1;
      if (v) return v;
    }
  }
  return dflt;
}

Plan choose() {
  Plan p;
  if (!kernels::cpu_has_avx2()) return p;
  p.avx2 = true;
  // A quarter of L3: the copy's source and destination together then take half of it.
  const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  p.stream_from = std::max<std::size_t>(
      cache_bytes(3, "Unified", l3 > 0 ? static_cast<std::size_t>(l3) : std::size_t{32} << 20) / 4,
      std::size_t{1} << 20);
  p.name = "AVX2 loops, destination-aligned stores, direction by relative offset; non-temporal "
           "stores from L3/4";
  if (__builtin_cpu_is("intel") && kernels::cpu_has_erms()) {
    // Source and destination together within L1d.
    p.movsb_to = cache_bytes(1, "Data", std::size_t{32} << 10) / 2;
    p.name = "rep movsb up to L1d/2 (AVX2 backward loop where the destination lies 1-63 bytes past "
             "the source); AVX2 loops, destination-aligned stores, direction by relative offset; "
             "non-temporal stores from L3/4";
  }
  return p;
}

const Plan &plan() {
  static const Plan p = choose();
  return p;
}

} // namespace

void copy_large(void *dst, const void *src, std::size_t n) noexcept {
  const Plan &p = plan();
  const auto rel =
      (reinterpret_cast<std::uintptr_t>(dst) - reinterpret_cast<std::uintptr_t>(src)) & 4095;
  if (!p.avx2 || n < 64) // (the loops need 64 bytes; copy() sends only kMinChosen and more)
    std::memcpy(dst, src, n);
  else if (n <= p.movsb_to) {
    if (rel - 1 < 63)
      kernels::avx2_backward(dst, src, n);
    else
      kernels::rep_movsb(dst, src, n);
  } else if (n < p.stream_from) {
    // Each direction has a 4K-aliasing dip (loads of the next steps meeting recent stores modulo
    // 4 KiB): forward when dst lies 120-170 bytes past src (64 KiB: 32.5 GB/s), backward when it
    // lies 40-160 bytes before it (34 GB/s); each is at 44-51 GB/s where the other dips. Backward
    // unless dst is up to 256 bytes below src modulo 4 KiB.
    if (rel >= 4096 - 256)
      kernels::avx2_forward(dst, src, n);
    else
      kernels::avx2_backward(dst, src, n);
  } else
    kernels::avx2_stream(dst, src, n);
}

const char *strategy() noexcept {
  return plan().name;
}

std::size_t stream_threshold() noexcept {
  return plan().stream_from;
}

} // namespace ampi::copy
