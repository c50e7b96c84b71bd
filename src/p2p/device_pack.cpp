// src/p2p/device_pack.cpp — packing by the copy engines on the PE's device copies (see
// device_pack.hpp; the rectangles: device_rects.cpp).
#include "p2p/device_pack.hpp"

#include "core/pe.hpp"

namespace ampi::p2p {

bool device_pack(const datatype::Type &t, void *buf, std::size_t count, void *out, bool pack) {
  gpu::DevPtrCache &mem = Pe::get().devptrs();
  if (!mem.can_copy_rects()) return false;
  std::vector<Rect> rects;
  if (!rects_of(t, count, rects)) return false;
  return mem.copy_rects(out, buf, rects.data(), rects.size(), pack);
}

} // namespace ampi::p2p
