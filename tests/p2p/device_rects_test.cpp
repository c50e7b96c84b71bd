// tests/p2p/device_rects_test.cpp — the strided rectangles that device-side packing hands the copy
// engines (src/p2p/device_rects.cpp), on the host without a GPU: for types of every constructor,
// one element and several, the rectangles expanded row by row must be exactly the memory runs
// that the datatype engine walks (datatype::for_each_run), in packed order; the halo shapes must
// come out as one copy each (a vector as one 2-D rectangle, a subarray's face as one 3-D one),
// whatever their count; and types past kMaxRects copies are refused (host staging).
#include "datatype/layout.hpp"
#include "p2p/device_pack.hpp"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

using namespace ampi;
using Runs = std::vector<std::pair<std::ptrdiff_t, std::size_t>>;

namespace {

void add(Runs &r, std::ptrdiff_t at, std::size_t n) {
  if (!r.empty() && r.back().first + static_cast<std::ptrdiff_t>(r.back().second) == at)
    r.back().second += n;
  else
    r.emplace_back(at, n);
}

Runs engine_runs(const datatype::Type &t, std::size_t count) {
  Runs r;
  datatype::for_each_run(t, count, 0, t.size * count,
                         [&](std::ptrdiff_t at, std::size_t n) { add(r, at, n); });
  return r;
}

Runs rect_runs(const std::vector<p2p::Rect> &rects) {
  Runs r;
  for (const p2p::Rect &x : rects)
    for (std::size_t z = 0; z < x.depth; ++z)
      for (std::size_t y = 0; y < x.height; ++y)
        add(r,
            x.disp + static_cast<std::ptrdiff_t>(z * x.slab) +
                static_cast<std::ptrdiff_t>(y * x.pitch),
            x.width);
  return r;
}

datatype::Input in(MPI_Datatype t) {
  return datatype::predefined_input(t);
}
datatype::Input in(const std::shared_ptr<datatype::Derived> &d) {
  return datatype::derived_input(MPI_DATATYPE_NULL, d);
}

// Checks the rectangles of (t, count) against the engine; returns how many there are.
std::size_t check(const datatype::Derived &d, std::size_t count) {
  std::vector<p2p::Rect> rects;
  EXPECT_TRUE(p2p::rects_of(d.type, count, rects));
  EXPECT_EQ(rect_runs(rects), engine_runs(d.type, count));
  for (const p2p::Rect &x : rects) {
    if (x.height > 1) {
      EXPECT_GE(x.pitch, x.width);
    }
    if (x.depth > 1) {
      EXPECT_EQ(x.slab % x.pitch, 0u);
      EXPECT_GE(x.slab / x.pitch, x.height);
    }
  }
  return rects.size();
}

} // namespace

TEST(DeviceRects, VectorIsOne2DCopy) {
  auto v = datatype::make_hvector(16, 16, 40 * 4, in(MPI_INT));
  EXPECT_EQ(check(*v, 1), 1u);
  std::vector<p2p::Rect> r;
  ASSERT_TRUE(p2p::rects_of(v->type, 1, r));
  EXPECT_EQ(r[0].width, 64u);
  EXPECT_EQ(r[0].height, 16u);
  EXPECT_EQ(r[0].pitch, 160u);
  check(*v, 3);
}

TEST(DeviceRects, ColumnOfDoublesIsOne2DCopy) {
  // A 256^3 grid's x face (bench/gpu_halo.c): 65536 rows of 8 bytes.
  auto v = datatype::make_hvector(256 * 256, 1, 256 * 8, in(MPI_DOUBLE));
  EXPECT_EQ(check(*v, 1), 1u);
  std::vector<p2p::Rect> r;
  ASSERT_TRUE(p2p::rects_of(v->type, 1, r));
  EXPECT_EQ(r[0].width, 8u);
  EXPECT_EQ(r[0].height, 65536u);
}

TEST(DeviceRects, SubarrayFacesAreOneCopyEach) {
  const int sizes[3] = {10, 12, 14};
  const int sub[3][3] = {{8, 10, 1}, {8, 1, 12}, {1, 10, 12}};
  const int at[3][3] = {{1, 1, 12}, {1, 0, 1}, {8, 1, 1}};
  for (int f = 0; f < 3; ++f) {
    auto s = datatype::make_subarray(3, sizes, sub[f], at[f], MPI_ORDER_C, in(MPI_DOUBLE));
    ASSERT_TRUE(s);
    EXPECT_EQ(check(*s, 1), 1u) << "face " << f;
    check(*s, 3);
  }
  // Jacobi3D's 256^3 block with ghosts, x face: one 3-D copy of 256 x 256 rows of 8 bytes.
  const int big[3] = {258, 258, 258}, xs[3] = {256, 256, 1}, xa[3] = {1, 1, 256};
  auto x = datatype::make_subarray(3, big, xs, xa, MPI_ORDER_C, in(MPI_DOUBLE));
  EXPECT_EQ(check(*x, 1), 1u);
}

TEST(DeviceRects, EveryConstructorMatchesTheEngine) {
  const int bl[3] = {2, 1, 3};
  const MPI_Aint disp[3] = {0, 5 * 4, 9 * 4};
  auto idx = datatype::make_hindexed(3, bl, disp, in(MPI_INT));
  check(*idx, 1);
  check(*idx, 4);
  const int bl2[4] = {2, 2, 2, 2};
  const MPI_Aint d2[4] = {8, 32, 80, 160};
  auto blk = datatype::make_hindexed(4, bl2, d2, in(MPI_DOUBLE));
  check(*blk, 2);
  const int sbl[3] = {1, 4, 2};
  const MPI_Aint sd[3] = {0, 16, 48};
  const datatype::Input ints[3] = {in(MPI_INT), in(MPI_INT), in(MPI_INT)};
  auto st = datatype::make_struct(3, sbl, sd, ints);
  check(*st, 1);
  check(*st, 5);
  auto v = datatype::make_hvector(4, 2, 5 * 4, in(MPI_INT));
  auto rs = datatype::make_resized(in(v), -8, 96);
  check(*rs, 1);
  check(*rs, 3);
  auto neg = datatype::make_hvector(6, 1, -24, in(MPI_DOUBLE)); // a negative stride
  check(*neg, 2);
  auto nested = datatype::make_hvector(3, 2, 1000, in(v)); // a vector of vectors
  check(*nested, 2);
}

TEST(DeviceRects, ScatteredBlocksBeyondTheLimitAreRefused) {
  std::vector<int> bl(1000, 1);
  std::vector<MPI_Aint> d(1000);
  for (std::size_t i = 0; i < d.size(); ++i)
    d[i] = static_cast<MPI_Aint>(i * i * 8); // no two gaps alike: nothing folds
  auto idx = datatype::make_hindexed(1000, bl.data(), d.data(), in(MPI_DOUBLE));
  std::vector<p2p::Rect> r;
  EXPECT_FALSE(p2p::rects_of(idx->type, 1, r));
}
