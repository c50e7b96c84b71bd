// src/devptr_cache/strided_plan.hpp — strided memory as rectangles (Rect: what device_pack.hpp
// builds from a datatype) and the plan of a copy between two lists of them: the segments that
// each lie within one rectangle of either side, in the unit (1-16 bytes) that every address,
// row and offset is a multiple of. strided_copy.cu's kernels run one segment per launch;
// strided_plan.cpp is pure host code (tests/p2p's unit test runs plans on the host).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ampi::gpu {

// A strided block of memory from `disp` on: `depth` slabs `slab` bytes apart, each `height` rows
// of `width` bytes `pitch` apart (height 1: one run; depth 1: 2-D). Packed, it is
// width * height * depth bytes, slab by slab, row by row.
struct Rect {
  std::ptrdiff_t disp = 0;
  std::size_t width = 0, height = 1, depth = 1;
  std::size_t pitch = 0, slab = 0;
};

// One side of a segment in units of the copy: the address of its rectangle's first unit, the
// rectangle's shape in units, and the segment's first unit in the rectangle's packed order. The
// kernels' parameter (strided_copy.cu's Side): keep the two alike.
struct StridedSide {
  std::uint64_t base = 0;
  std::uint64_t width = 0, height = 1;
  std::uint64_t pitch = 0, slab = 0;
  std::uint64_t offset = 0;
};

struct StridedSegment {
  StridedSide dst, src;
  std::uint64_t units = 0;
};

// Plans the copy of packed bytes [0, n) of the rectangles `src` (displacements from `src_base`)
// into packed bytes [0, n) of `dst` (from `dst_base`). Returns the unit in bytes (1, 2, 4, 8 or
// 16) with the segments in `out`, or 0 when it takes more than `max_segments` segments or the
// rectangles hold fewer than n bytes.
std::size_t plan_strided_copy(std::uintptr_t dst_base, const Rect *dst, std::size_t nd,
                              std::uintptr_t src_base, const Rect *src, std::size_t ns,
                              std::size_t n, std::size_t max_segments,
                              std::vector<StridedSegment> &out);

} // namespace ampi::gpu
