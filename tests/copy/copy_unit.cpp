// tests/copy/copy_unit.cpp — copy::copy() and the loops of copy/kernels.hpp copy exactly the bytes
// asked for, at every size 0..4200 and many source and destination alignments (the relative
// offsets 1-31 past the source modulo 4 KiB among them, where glibc's rep movsb is slow), never
// touching a byte outside the destination; and large copies, non-temporal ones included.
#include "copy/copy.hpp"
#include "copy/kernels.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {

using Fn = void (*)(void *, const void *, std::size_t);

constexpr std::size_t kGuard = 64;

// Copies n bytes from a pattern at src_off to dst_off (both within a 4 KiB page plus the given
// page distance) and checks the destination and the guard bytes on both sides.
struct Arena {
  std::vector<std::uint8_t> src, dst;
  explicit Arena(std::size_t max) : src(max + 2 * 4096), dst(max + 2 * 4096 + 2 * kGuard) {
    for (std::size_t i = 0; i < src.size(); ++i)
      src[i] = static_cast<std::uint8_t>(i * 131 + (i >> 8) * 7 + 1);
  }
  ::testing::AssertionResult check(Fn fn, std::size_t n, std::size_t src_off, std::size_t dst_off) {
    const std::size_t lo = kGuard + dst_off, hi = lo + n;
    std::memset(dst.data(), 0xA5, hi + kGuard);
    const std::uint8_t *s = src.data() + src_off;
    std::uint8_t *d = dst.data() + lo;
    fn(d, s, n);
    if (std::memcmp(d, s, n) != 0)
      return ::testing::AssertionFailure()
             << n << " bytes (src+" << src_off << ", dst+" << dst_off << ") differ";
    for (std::size_t i : {std::size_t{0}, hi})
      for (std::size_t end = i == 0 ? lo : hi + kGuard; i < end; ++i)
        if (dst[i] != 0xA5)
          return ::testing::AssertionFailure() << "wrote outside a destination of " << n << " at "
                                               << (static_cast<long>(i) - static_cast<long>(lo));
    return ::testing::AssertionSuccess();
  }
};

struct Named {
  const char *name;
  Fn fn;
  std::size_t min_n; // the vector loops need n >= 64
};

std::vector<Named> routines() {
  std::vector<Named> r{
      {"copy", [](void *d, const void *s, std::size_t n) { ampi::copy::copy(d, s, n); }, 0},
      {"copy_large", ampi::copy::copy_large, 0},
      {"rep_movsb", ampi::copy::kernels::rep_movsb, 0}};
  if (ampi::copy::kernels::cpu_has_avx2()) {
    r.push_back({"avx2_unaligned", ampi::copy::kernels::avx2_unaligned, 64});
    r.push_back({"avx2_forward", ampi::copy::kernels::avx2_forward, 64});
    r.push_back({"avx2_backward", ampi::copy::kernels::avx2_backward, 64});
    r.push_back({"avx2_stream", ampi::copy::kernels::avx2_stream, 64});
  }
  return r;
}

// Every size 0..4200 at offset pairs that cover aligned, misaligned and the relative offsets
// 1-31 past the source.
TEST(Copy, EverySizeAtSeveralAlignments) {
  Arena a(4200);
  const std::pair<std::size_t, std::size_t> offsets[] = {{0, 0},  {0, 1},  {16, 17}, {16, 47},
                                                         {3, 30}, {7, 0},  {31, 1},  {5, 4095},
                                                         {0, 32}, {9, 64}, {33, 2}};
  for (const Named &r : routines())
    for (std::size_t n = r.min_n; n <= 4200; ++n)
      for (auto [so, dof] : offsets)
        ASSERT_TRUE(a.check(r.fn, n, so, dof)) << r.name;
}

// All 64 x 64 source/destination alignments at sizes around the loops' edges.
TEST(Copy, AllAlignmentsAtEdgeSizes) {
  Arena a(8192);
  const std::size_t sizes[] = {64,  65,  95,  96,   127,  128,  129,  160,
                               161, 255, 256, 2047, 2048, 2049, 4096, 8191};
  for (const Named &r : routines())
    for (std::size_t n : sizes)
      if (n >= r.min_n)
        for (std::size_t so = 0; so < 64; ++so)
          for (std::size_t dof = 0; dof < 64; ++dof)
            ASSERT_TRUE(a.check(r.fn, n, so, dof)) << r.name;
}

// Sizes around half of a 32 or 48 KiB L1d, where an Intel plan changes from `rep movsb` (or the
// backward loop at 1-63 bytes past the source) to the loops, and an AMD plan without the
// `rep movsb` trap from the loops to `rep movsb` (or the forward loop at 32 bytes past the
// source): both sides of each edge, at relative offsets inside and outside each band.
TEST(Copy, AroundTheL1Edge) {
  Arena a(24576 + 64);
  const std::size_t sizes[] = {12288 + 7, 16383, 16384, 16385, 24575, 24576, 24577};
  for (std::size_t n : sizes)
    for (std::size_t so : {0, 16})
      for (std::size_t rel : {0, 1, 31, 32, 62, 63, 64, 65, 200, 2047, 2048, 4095})
        ASSERT_TRUE(
            a.check([](void *d, const void *s, std::size_t k) { ampi::copy::copy(d, s, k); }, n, so,
                    so + rel));
}

// Large copies: the plain loop's (or `rep movsb`'s) sizes, either side of 4 MiB (a plan's edge),
// with the destination 32 bytes past the source among them (a plan's exception), and the
// non-temporal path's (from stream_threshold()).
TEST(Copy, LargeAndStreaming) {
  const std::size_t stream = ampi::copy::stream_threshold();
  std::vector<std::size_t> sizes{65536 + 13, (1u << 20) + 5, (4u << 20) - 1, (4u << 20) + 3};
  if (stream < (std::size_t{64} << 20)) sizes.push_back(stream + 37);
  Arena a(*std::max_element(sizes.begin(), sizes.end()));
  for (std::size_t n : sizes)
    for (auto [so, dof] :
         {std::pair<std::size_t, std::size_t>{16, 17}, {0, 0}, {5, 4090}, {3, 35}, {0, 2048}})
      ASSERT_TRUE(a.check([](void *d, const void *s, std::size_t k) { ampi::copy::copy(d, s, k); },
                          n, so, dof));
}

TEST(Copy, StrategyIsNamed) {
  const char *s = ampi::copy::strategy();
  ASSERT_NE(s, nullptr);
  EXPECT_GT(std::strlen(s), 0u);
  if (ampi::copy::kernels::cpu_has_avx2()) EXPECT_NE(std::strstr(s, "AVX2"), nullptr);
  if (ampi::copy::kernels::cpu_has_avx2() && ampi::copy::kernels::cpu_has_erms() &&
      __builtin_cpu_is("intel"))
    EXPECT_NE(std::strstr(s, "rep movsb"), nullptr);
}

} // namespace
