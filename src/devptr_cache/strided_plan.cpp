// src/devptr_cache/strided_plan.cpp — the plan of a copy between two strided layouts (see
// strided_plan.hpp): walks both lists of rectangles in packed order and cuts where either side
// moves to its next rectangle.
#include "devptr_cache/strided_plan.hpp"

#include <algorithm>

namespace ampi::gpu {

namespace {

std::size_t bytes_of(const Rect &r) {
  return r.width * r.height * r.depth;
}

// The bits of everything a side's addresses are made of, for the common unit.
std::uint64_t bits_of(std::uintptr_t base, const Rect &r, std::size_t offset) {
  std::uint64_t b = (base + static_cast<std::uintptr_t>(r.disp)) | r.width | offset;
  if (r.height > 1) b |= r.pitch;
  if (r.depth > 1) b |= r.slab;
  return b;
}

StridedSide side_of(std::uintptr_t base, const Rect &r, std::size_t offset, std::size_t unit) {
  StridedSide s;
  s.base = base + static_cast<std::uintptr_t>(r.disp); // a multiple of the unit
  s.width = r.width / unit;
  s.height = r.height;
  s.pitch = r.height > 1 ? r.pitch / unit : 0;
  s.slab = r.depth > 1 ? r.slab / unit : 0;
  s.offset = offset / unit;
  return s;
}

} // namespace

std::size_t plan_strided_copy(std::uintptr_t dst_base, const Rect *dst, std::size_t nd,
                              std::uintptr_t src_base, const Rect *src, std::size_t ns,
                              std::size_t n, std::size_t max_segments,
                              std::vector<StridedSegment> &out) {
  out.clear();
  struct Cut {
    std::size_t d, d_off, s, s_off, len;
  };
  std::vector<Cut> cuts;
  std::size_t d = 0, s = 0, d_off = 0, s_off = 0;
  std::uint64_t bits = 16;
  for (std::size_t left = n; left > 0;) {
    while (d < nd && d_off == bytes_of(dst[d]))
      ++d, d_off = 0;
    while (s < ns && s_off == bytes_of(src[s]))
      ++s, s_off = 0;
    if (d == nd || s == ns || cuts.size() == max_segments) return 0;
    const std::size_t len = std::min({left, bytes_of(dst[d]) - d_off, bytes_of(src[s]) - s_off});
    cuts.push_back({d, d_off, s, s_off, len});
    bits |= bits_of(dst_base, dst[d], d_off) | bits_of(src_base, src[s], s_off) | len;
    d_off += len;
    s_off += len;
    left -= len;
  }
  const std::size_t unit = static_cast<std::size_t>(bits & (~bits + 1)); // the lowest set bit
  for (const Cut &c : cuts)
    out.push_back({side_of(dst_base, dst[c.d], c.d_off, unit),
                   side_of(src_base, src[c.s], c.s_off, unit), c.len / unit});
  return unit;
}

} // namespace ampi::gpu
