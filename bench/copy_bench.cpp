// bench/copy_bench.cpp — copy rate (GB/s) of glibc's memcpy and of src/copy's candidate loops and
// chosen routine, per size and relative alignment (dst - src mod 4096), cache-hot as in-process
// message copies are. Links src/copy's objects, so it measures the library's own code.
//   copy_bench table [sizes...]        every candidate at a few relative offsets (the table of
//                                      bench/results/copy/); sizes in bytes, default 4 KiB-4 MiB
//   copy_bench sweep SIZE [which]      one routine (default "chosen") at every offset 0..4095
//                                      min/median/max of the rate and the worst offsets
//   copy_bench offsets SIZE [STEP [FROM TO]]  every candidate at offsets FROM, FROM + STEP...
//   copy_bench goal [sizes...]         issue 17's measure: at each size and at 255 relative
//                                      offsets (every 17th and the table's), the chosen routine's
//                                      rate over the best candidate's at the same offset; prints
//                                      min/p5/median of that ratio and the worst offsets (goal:
//                                      at least 0.8 everywhere); three interleaved rounds, each
//                                      routine keeping its best (a shared machine), and six more
//                                      of the two for a cell below 0.8
//   copy_bench goal --there-and-back [sizes...]  the same, each copy going back the way the one
//                                      before came (ping-pong's pattern; see there_and_back)
// The rate of one cell is the best of 5 timed batches of ~32 MiB copied each.
#include "copy/copy.hpp"
#include "copy/kernels.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using Fn = void (*)(void *, const void *, std::size_t);
struct Candidate {
  const char *name;
  Fn fn;
  bool avx2;
};
void libc(void *d, const void *s, std::size_t n) {
  std::memcpy(d, s, n);
}
void chosen(void *d, const void *s, std::size_t n) {
  ampi::copy::copy(d, s, n);
}
const Candidate kCandidates[] = {
    {"memcpy", libc, false},
    {"movsb",
     [](void *d, const void *s, std::size_t n) { ampi::copy::kernels::rep_movsb(d, s, n); }, false},
    {"avx2u",
     [](void *d, const void *s, std::size_t n) { ampi::copy::kernels::avx2_unaligned(d, s, n); },
     true},
    {"avx2fwd",
     [](void *d, const void *s, std::size_t n) { ampi::copy::kernels::avx2_forward(d, s, n); },
     true},
    {"avx2bwd",
     [](void *d, const void *s, std::size_t n) { ampi::copy::kernels::avx2_backward(d, s, n); },
     true},
    {"avx2nt",
     [](void *d, const void *s, std::size_t n) { ampi::copy::kernels::avx2_stream(d, s, n); },
     true},
    {"chosen", chosen, false},
};

struct Buffers {
  std::byte *a, *b;
  explicit Buffers(std::size_t max) {
    a = static_cast<std::byte *>(std::aligned_alloc(4096, max + 8192));
    b = static_cast<std::byte *>(std::aligned_alloc(4096, max + 8192));
    std::memset(a, 1, max + 8192);
    std::memset(b, 2, max + 8192);
  }
  ~Buffers() {
    std::free(a);
    std::free(b);
  }
};

// GB/s of fn copying n bytes from a + 16 (as malloc places a block) to b + 16 + rel; with
// there_and_back (`goal --there-and-back`), a -> b and b -> a in turn, each copy reading what
// the one before wrote, as a ping-pong's messages do. (One-way copies of one source reward
// routines that write around the cache: on the Zen 5 VM `rep movsb` of 4 MiB and more did, and
// there and back it moved 4 MiB at 32 GB/s against the loops' 45.)
double rate(Fn fn, const Buffers &buf, std::size_t n, std::size_t rel,
            bool there_and_back = false) {
  std::byte *const src = buf.a + 16;
  std::byte *const dst = buf.b + 16 + rel;
  const std::size_t reps = std::max<std::size_t>(4, (32u << 20) / n) & ~std::size_t{1};
  fn(dst, src, n); // warm
  if (there_and_back) fn(src, dst, n);
  double best = 0;
  for (int r = 0; r < 5; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < reps; ++i) {
      if (there_and_back && (i & 1))
        fn(src, dst, n);
      else
        fn(dst, src, n);
      asm volatile("" : : "r"(dst) : "memory");
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, static_cast<double>(n) * static_cast<double>(reps) / s / 1e9);
  }
  return best;
}

// The relative offsets of the table (and among the goal's): aligned, the 1-31 band past the
// source where rep movsb is slow on AMD Zen 3, and some just below the source.
constexpr std::size_t kTableRels[] = {0, 1, 8, 16, 31, 32, 48, 63, 64, 65, 256, 2048, 4064, 4095};

// A table's header, and one row: every candidate this CPU runs at size n and offset rel.
void print_header(bool avx2) {
  std::printf("%-9s %5s", "bytes", "rel");
  for (const Candidate &c : kCandidates)
    if (!c.avx2 || avx2) std::printf(" %8s", c.name);
  std::printf("   (GB/s, best of 5)\n");
}
void print_row(const Buffers &buf, std::size_t n, std::size_t rel, bool avx2) {
  std::printf("%-9zu %5zu", n, rel);
  for (const Candidate &c : kCandidates)
    if (!c.avx2 || avx2) std::printf(" %8.1f", rate(c.fn, buf, n, rel));
  std::printf("\n");
  std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv) {
  const std::string mode = argc > 1 ? argv[1] : "table";
  const bool avx2 = ampi::copy::kernels::cpu_has_avx2();
  std::printf("# chosen: %s (non-temporal from %zu B)\n", ampi::copy::strategy(),
              ampi::copy::stream_threshold());
  if (mode == "sweep") {
    const std::size_t n = argc > 2 ? std::strtoull(argv[2], nullptr, 0) : 65536;
    const std::string which = argc > 3 ? argv[3] : "chosen";
    const Candidate *c = nullptr;
    for (const Candidate &k : kCandidates)
      if (which == k.name) c = &k;
    if (!c || (c->avx2 && !avx2)) {
      std::fprintf(stderr, "copy_bench: no routine %s here\n", which.c_str());
      return 1;
    }
    Buffers buf(n);
    std::vector<std::pair<double, std::size_t>> r;
    for (std::size_t rel = 0; rel < 4096; ++rel)
      r.emplace_back(rate(c->fn, buf, n, rel), rel);
    // The machine is shared: a slow cell may be another process's burst. The 64 slowest
    // offsets are measured again and keep the better of their two figures.
    std::vector<std::pair<double, std::size_t>> sorted = r;
    std::sort(sorted.begin(), sorted.end());
    for (int i = 0; i < 64; ++i)
      sorted[i].first = std::max(sorted[i].first, rate(c->fn, buf, n, sorted[i].second));
    std::sort(sorted.begin(), sorted.end());
    std::printf("sweep %s %zu B over offsets 0..4095: min %.1f p1 %.1f median %.1f max %.1f GB/s\n",
                c->name, n, sorted.front().first, sorted[40].first, sorted[2048].first,
                sorted.back().first);
    std::printf("worst offsets:");
    for (int i = 0; i < 8; ++i)
      std::printf(" %zu (%.1f)", sorted[i].second, sorted[i].first);
    std::printf("\n");
    return 0;
  }
  if (mode == "offsets") { // every candidate at offsets 0, STEP, 2 STEP, ... 4095
    const std::size_t n = argc > 2 ? std::strtoull(argv[2], nullptr, 0) : 65536;
    const std::size_t step = argc > 3 ? std::strtoull(argv[3], nullptr, 0) : 32;
    const std::size_t from = argc > 4 ? std::strtoull(argv[4], nullptr, 0) : 0;
    const std::size_t to = argc > 5 ? std::strtoull(argv[5], nullptr, 0) : 4096;
    Buffers buf(n);
    print_header(avx2);
    for (std::size_t rel = from; rel < to && rel < 4096; rel += step)
      print_row(buf, n, rel, avx2);
    return 0;
  }
  if (mode == "goal") {
    std::vector<std::size_t> sizes;
    int first = 2;
    const bool back = argc > 2 && std::string(argv[2]) == "--there-and-back";
    if (back) ++first;
    for (int i = first; i < argc; ++i)
      sizes.push_back(std::strtoull(argv[i], nullptr, 0));
    if (sizes.empty()) sizes = {4096, 8192, 16384, 65536, 262144, 1048576, 4194304};
    std::vector<std::size_t> rels(std::begin(kTableRels), std::end(kTableRels));
    for (std::size_t rel = 17; rel < 4096; rel += 17)
      rels.push_back(rel);
    const Candidate *mine = nullptr;       // the library's own choice
    std::vector<const Candidate *> others; // every other candidate this CPU runs
    for (const Candidate &c : kCandidates)
      if (std::string(c.name) == "chosen")
        mine = &c;
      else if (!c.avx2 || avx2)
        others.push_back(&c);
    const Candidate &chosen_one = *mine;
    Buffers buf(*std::max_element(sizes.begin(), sizes.end()));
    std::printf("%-9s %6s %6s %6s   worst offsets: rel ratio (best routine there)\n", "bytes",
                "min", "p5", "median");
    for (std::size_t n : sizes) {
      struct Cell {
        double mine, best;
        std::size_t rel;
        const Candidate *who; // the fastest routine at this offset
        double ratio() const { return mine / best; }
      };
      std::vector<Cell> cells;
      for (std::size_t rel : rels) {
        // Three interleaved rounds, each routine keeping its best: the VM has slow phases of
        // 100-300 ms that a routine measured all at once could fall into alone.
        Cell c{0, 0, rel, &chosen_one};
        std::vector<double> best_of(others.size(), 0.0);
        for (int round = 0; round < 3; ++round) {
          c.mine = std::max(c.mine, rate(chosen_one.fn, buf, n, rel, back));
          for (std::size_t k = 0; k < others.size(); ++k)
            best_of[k] = std::max(best_of[k], rate(others[k]->fn, buf, n, rel, back));
        }
        c.best = c.mine;
        for (std::size_t k = 0; k < others.size(); ++k)
          if (best_of[k] > c.best) c.best = best_of[k], c.who = others[k];
        // Below 0.8: six more alternating rounds of the two (the same code measured twice can
        // differ by 1.4x here in one round: glibc's memcpy against itself at 1 MiB).
        for (int round = 0; round < 6 && c.ratio() < 0.8; ++round) {
          c.mine = std::max(c.mine, rate(chosen_one.fn, buf, n, rel, back));
          c.best = std::max({c.best, c.mine, rate(c.who->fn, buf, n, rel, back)});
        }
        cells.push_back(c);
      }
      std::vector<Cell> sorted = cells;
      std::sort(sorted.begin(), sorted.end(),
                [](const Cell &a, const Cell &b) { return a.ratio() < b.ratio(); });
      std::printf("%-9zu %6.2f %6.2f %6.2f  ", n, sorted.front().ratio(),
                  sorted[sorted.size() / 20].ratio(), sorted[sorted.size() / 2].ratio());
      for (int i = 0; i < 5; ++i)
        std::printf(" %zu %.2f (%s)", sorted[i].rel, sorted[i].ratio(), sorted[i].who->name);
      std::printf("\n");
      std::fflush(stdout);
    }
    return 0;
  }
  std::vector<std::size_t> sizes;
  for (int i = 2; i < argc; ++i)
    sizes.push_back(std::strtoull(argv[i], nullptr, 0));
  if (sizes.empty()) sizes = {4096, 16384, 65536, 262144, 1048576, 4194304};
  Buffers buf(*std::max_element(sizes.begin(), sizes.end()));
  print_header(avx2);
  for (std::size_t n : sizes)
    for (std::size_t rel : kTableRels)
      print_row(buf, n, rel, avx2);
  return 0;
}
