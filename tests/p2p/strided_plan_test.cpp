// tests/p2p/strided_plan_test.cpp — the plan of a copy from one datatype's device layout into
// another's (src/devptr_cache/strided_plan.cpp, what strided_copy.cu's kernels run), on the host
// without a GPU: each segment is run here unit by unit with the kernels' address arithmetic, and
// the destination must equal what the datatype engine gives (the source's elements packed, then
// unpacked into the destination's), with the gaps between the destination's elements untouched;
// for sending pairs of every constructor, whole and truncated, at several alignments. Also: the
// unit is the widest that every address, row and offset allows, Jacobi3D's faces are one
// segment, and plans past the segment limit are refused.
#include "datatype/layout.hpp"
#include "devptr_cache/strided_plan.hpp"
#include "p2p/device_pack.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

using namespace ampi;

namespace {

datatype::Input in(MPI_Datatype t) {
  return datatype::predefined_input(t);
}
datatype::Input in(const std::shared_ptr<datatype::Derived> &d) {
  return datatype::derived_input(MPI_DATATYPE_NULL, d);
}

// strided_copy.cu's address of unit i of a side, in bytes.
std::uintptr_t at(const gpu::StridedSide &s, std::uint64_t i, std::size_t unit) {
  const std::uint64_t p = s.offset + i;
  const std::uint64_t row = p / s.width, x = p - row * s.width;
  const std::uint64_t z = row / s.height, y = row - z * s.height;
  return static_cast<std::uintptr_t>(s.base + (z * s.slab + y * s.pitch + x) * unit);
}

// The bytes below and above a list of rectangles' displacement 0 that they touch.
std::pair<std::size_t, std::size_t> reach(const std::vector<p2p::Rect> &rects) {
  std::ptrdiff_t lo = 0, hi = 0;
  for (const p2p::Rect &r : rects) {
    lo = std::min(lo, r.disp);
    hi = std::max(hi, r.disp + static_cast<std::ptrdiff_t>((r.depth - 1) * r.slab +
                                                           (r.height - 1) * r.pitch + r.width));
  }
  return {static_cast<std::size_t>(-lo), static_cast<std::size_t>(hi)};
}

// A buffer with room for `below` bytes under its base (negative displacements) and `above` over
// it, its base `shift` bytes past a 16-byte boundary.
struct Buffer {
  std::vector<std::byte> mem;
  std::byte *at;
  Buffer(std::pair<std::size_t, std::size_t> room, std::size_t shift, unsigned char fill)
      : mem(room.first + room.second + 64) {
    for (std::size_t i = 0; i < mem.size(); ++i)
      mem[i] = std::byte(static_cast<unsigned char>(fill + i * 7));
    const auto p = reinterpret_cast<std::uintptr_t>(mem.data()) + room.first + 16;
    at = reinterpret_cast<std::byte *>((p & ~std::uintptr_t{15}) + shift);
  }
  std::byte *base() { return at; }
};

// Copies n packed bytes of (st, sc) into (dt, dc) with the plan and with the engine; both agree.
void check(const datatype::Type &st, std::size_t sc, const datatype::Type &dt, std::size_t dc,
           std::size_t n, std::size_t s_shift = 0, std::size_t d_shift = 0) {
  std::vector<p2p::Rect> src, dst;
  ASSERT_TRUE(p2p::rects_of(st, sc, src));
  ASSERT_TRUE(p2p::rects_of(dt, dc, dst));
  Buffer s(reach(src), s_shift, 1), d(reach(dst), d_shift, 200), want(reach(dst), d_shift, 200);
  // The engine: pack the source, unpack into the expected destination.
  std::vector<std::byte> packed(n);
  datatype::pack(st, s.base(), sc, 0, packed.data(), n);
  datatype::unpack(dt, packed.data(), n, 0, want.base(), dc);
  std::vector<gpu::StridedSegment> plan;
  const std::size_t unit = gpu::plan_strided_copy(
      reinterpret_cast<std::uintptr_t>(d.base()), dst.data(), dst.size(),
      reinterpret_cast<std::uintptr_t>(s.base()), src.data(), src.size(), n, 256, plan);
  ASSERT_NE(unit, 0u);
  std::uint64_t units = 0;
  for (const gpu::StridedSegment &g : plan) {
    for (std::uint64_t i = 0; i < g.units; ++i)
      std::memcpy(reinterpret_cast<void *>(at(g.dst, i, unit)),
                  reinterpret_cast<const void *>(at(g.src, i, unit)), unit);
    units += g.units;
  }
  EXPECT_EQ(units * unit, n);
  EXPECT_EQ(d.at - d.mem.data(), want.at - want.mem.data()); // same alignment
  EXPECT_TRUE(d.mem == want.mem) << "n " << n << " unit " << unit;
}

} // namespace

TEST(StridedPlan, JacobiFaceToGhostLayerIsOneSegmentOfDoubles) {
  // A 34^3 block of doubles with ghosts: the sender's last interior x plane into the receiver's
  // ghost plane x = 0 (as jacobi3d_cuda --datatypes with 8 PEs).
  const int big[3] = {34, 34, 34}, face[3] = {32, 32, 1};
  const int from[3] = {1, 1, 32}, to[3] = {1, 1, 0};
  auto s = datatype::make_subarray(3, big, face, from, MPI_ORDER_C, in(MPI_DOUBLE));
  auto d = datatype::make_subarray(3, big, face, to, MPI_ORDER_C, in(MPI_DOUBLE));
  std::vector<p2p::Rect> sr, dr;
  ASSERT_TRUE(p2p::rects_of(s->type, 1, sr));
  ASSERT_TRUE(p2p::rects_of(d->type, 1, dr));
  std::vector<gpu::StridedSegment> plan;
  alignas(16) static double a[8], b[8];
  EXPECT_EQ(gpu::plan_strided_copy(reinterpret_cast<std::uintptr_t>(b), dr.data(), dr.size(),
                                   reinterpret_cast<std::uintptr_t>(a), sr.data(), sr.size(),
                                   s->type.size, 64, plan),
            8u);
  EXPECT_EQ(plan.size(), 1u);
  check(s->type, 1, d->type, 1, s->type.size);
  // y faces: rows of 32 doubles (256 bytes): 16-byte units where the bases allow it.
  const int yface[3] = {32, 1, 32}, yfrom[3] = {1, 32, 1}, yto[3] = {1, 0, 1};
  auto ys = datatype::make_subarray(3, big, yface, yfrom, MPI_ORDER_C, in(MPI_DOUBLE));
  auto yd = datatype::make_subarray(3, big, yface, yto, MPI_ORDER_C, in(MPI_DOUBLE));
  check(ys->type, 1, yd->type, 1, ys->type.size);
  check(ys->type, 1, yd->type, 1, ys->type.size, 8, 0); // only 8-byte units then
}

TEST(StridedPlan, ContiguousSideTakesTheOthersShape) {
  auto v = datatype::make_hvector(64, 3, 40, in(MPI_INT));
  auto c = datatype::make_contiguous(64 * 3, in(MPI_INT));
  check(v->type, 1, c->type, 1, v->type.size);       // packing
  check(c->type, 1, v->type, 1, v->type.size);       // unpacking
  check(v->type, 1, c->type, 1, v->type.size, 1, 2); // odd bases: byte units
}

TEST(StridedPlan, PairsOfEveryConstructorAgreeWithTheEngine) {
  std::vector<std::pair<std::shared_ptr<datatype::Derived>, std::size_t>> types;
  const int bl[3] = {2, 1, 3};
  const MPI_Aint disp[3] = {0, 5 * 4, 9 * 4};
  types.emplace_back(datatype::make_hindexed(3, bl, disp, in(MPI_INT)), 4); // 24 ints
  const int sbl[3] = {1, 4, 1};
  const MPI_Aint sd[3] = {0, 16, 48};
  const datatype::Input ints[3] = {in(MPI_INT), in(MPI_INT), in(MPI_INT)};
  types.emplace_back(datatype::make_struct(3, sbl, sd, ints), 4); // 24 ints
  auto v = datatype::make_hvector(4, 2, 5 * 4, in(MPI_INT));
  types.emplace_back(datatype::make_resized(in(v), -8, 96), 3);           // 24 ints
  types.emplace_back(datatype::make_hvector(24, 1, -12, in(MPI_INT)), 1); // a negative stride
  types.emplace_back(datatype::make_hvector(3, 1, 1000, in(v)), 1);       // vectors of vectors
  types.emplace_back(datatype::make_contiguous(24, in(MPI_INT)), 1);
  const int sz[2] = {8, 9}, sub[2] = {4, 6}, st[2] = {2, 1};
  types.emplace_back(datatype::make_subarray(2, sz, sub, st, MPI_ORDER_C, in(MPI_INT)), 1);
  for (auto &[a, ac] : types)
    for (auto &[b, bc] : types) {
      ASSERT_EQ(a->type.size * ac, 96u);
      ASSERT_EQ(b->type.size * bc, 96u);
      check(a->type, ac, b->type, bc, 96);
      check(a->type, ac, b->type, bc, 52);       // truncated: the first 13 ints
      check(a->type, ac, b->type, bc, 96, 4, 8); // other alignments
    }
}

TEST(StridedPlan, TooManySegmentsOrTooFewBytesAreRefused) {
  // 200 doubles at distinct gaps: rects_of folds them two by two at best, into about 100
  // rectangles, each its own segment against a contiguous side.
  std::vector<int> bl(200, 1);
  std::vector<MPI_Aint> d(200);
  for (std::size_t i = 0; i < d.size(); ++i)
    d[i] = static_cast<MPI_Aint>(i * i * 8);
  auto idx = datatype::make_hindexed(200, bl.data(), d.data(), in(MPI_DOUBLE));
  auto c = datatype::make_contiguous(200, in(MPI_DOUBLE));
  std::vector<p2p::Rect> ir, cr;
  ASSERT_TRUE(p2p::rects_of(idx->type, 1, ir));
  ASSERT_TRUE(p2p::rects_of(c->type, 1, cr));
  ASSERT_GT(ir.size(), 64u);
  std::vector<gpu::StridedSegment> plan;
  EXPECT_EQ(
      gpu::plan_strided_copy(0, cr.data(), cr.size(), 0, ir.data(), ir.size(), 1600, 64, plan), 0u);
  EXPECT_EQ(
      gpu::plan_strided_copy(0, cr.data(), cr.size(), 0, ir.data(), ir.size(), 1600, 256, plan),
      8u);
  EXPECT_EQ(plan.size(), ir.size());
  check(idx->type, 1, c->type, 1, 1600);
  // More bytes than the layouts hold.
  EXPECT_EQ(
      gpu::plan_strided_copy(0, cr.data(), cr.size(), 0, ir.data(), ir.size(), 1608, 256, plan),
      0u);
}
