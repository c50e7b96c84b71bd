// src/p2p/device_rects.cpp — a datatype's layout as strided rectangles for the copy engines
// (device_pack.hpp). Pure host code on the datatype module alone (tests/p2p's unit test compiles
// it in).
#include "datatype/layout.hpp"
#include "p2p/device_pack.hpp"

namespace ampi::p2p {

namespace {

// The largest pitch a copy takes (CU_DEVICE_ATTRIBUTE_MAX_PITCH is 2^31 - 1 on the GPUs we know;
// a larger one makes the driver refuse the copy, and we stage through the host then anyway).
constexpr std::size_t kMaxPitch = (std::size_t{1} << 31) - 1;
// Repeats walked one by one before giving up on the device path (merging keeps the list short,
// but a count of 10^7 tiny elements is better packed on the host than walked here).
constexpr std::size_t kMaxSteps = 1u << 16;

struct Builder {
  std::vector<Rect> &v;
  std::size_t steps = 0;
  bool ok = true;

  // Appends `r`, merged into the last rectangle where it continues it.
  void add(const Rect &r) {
    if (!ok) return;
    if (++steps > kMaxSteps) {
      ok = false;
      return;
    }
    if (!v.empty() && merge(v.back(), r)) return;
    if (v.size() == kMaxRects) {
      ok = false;
      return;
    }
    v.push_back(r);
  }

  static bool merge(Rect &p, const Rect &r) {
    const std::ptrdiff_t gap = r.disp - p.disp;
    if (p.depth == 1 && p.height == 1 && r.depth == 1 && r.height == 1) {
      if (gap == static_cast<std::ptrdiff_t>(p.width)) { // adjacent runs: one run
        p.width += r.width;
        return true;
      }
      if (r.width == p.width && gap > 0 && static_cast<std::size_t>(gap) >= p.width &&
          static_cast<std::size_t>(gap) <= kMaxPitch) { // a second row
        p.pitch = static_cast<std::size_t>(gap);
        p.height = 2;
        return true;
      }
      return false;
    }
    if (p.depth == 1 && r.depth == 1 && r.height == 1 && r.width == p.width &&
        gap == static_cast<std::ptrdiff_t>(p.height * p.pitch)) { // one more row
      ++p.height;
      return true;
    }
    if (r.depth != 1 || r.height != p.height || r.width != p.width || r.pitch != p.pitch ||
        p.height < 2)
      return false;
    if (p.depth == 1) { // a second slab: its distance a multiple of the pitch, past the first
      if (gap <= 0 || static_cast<std::size_t>(gap) % p.pitch ||
          static_cast<std::size_t>(gap) < p.height * p.pitch)
        return false;
      p.slab = static_cast<std::size_t>(gap);
      p.depth = 2;
      return true;
    }
    if (gap != static_cast<std::ptrdiff_t>(p.depth * p.slab)) return false;
    ++p.depth;
    return true;
  }

  // `count` copies of the rectangles `child` (displacements from 0), `stride` apart, from `base`.
  void repeat(const std::vector<Rect> &child, std::size_t count, std::ptrdiff_t stride,
              std::ptrdiff_t base) {
    if (!ok) return;
    if (child.size() == 1 && count > 1 && stride > 0) {
      // One rectangle repeated: one rectangle of one more dimension when the copies stack.
      Rect r = child[0];
      r.disp += base;
      const auto s = static_cast<std::size_t>(stride);
      if (r.height == 1 && r.depth == 1 && s == r.width) {
        r.width *= count;
        return add(r);
      }
      if (r.height == 1 && r.depth == 1 && s >= r.width && s <= kMaxPitch) {
        r.height = count;
        r.pitch = s;
        return add(r);
      }
      if (r.depth == 1 && r.height > 1 && s % r.pitch == 0 && s >= r.height * r.pitch) {
        r.depth = count;
        r.slab = s;
        return add(r);
      }
    }
    for (std::size_t j = 0; j < count && ok; ++j)
      for (const Rect &c : child) {
        Rect r = c;
        r.disp += base + static_cast<std::ptrdiff_t>(j) * stride;
        add(r);
      }
  }

  void layout(const datatype::Layout &l, std::ptrdiff_t base) {
    for (const datatype::Piece &p : l.pieces) {
      if (!ok) return;
      if (!p.child) {
        const std::vector<Rect> one{Rect{0, p.len, 1, 1, p.len, 0}};
        repeat(one, p.count, p.stride, base + p.disp);
        continue;
      }
      std::vector<Rect> child;
      Builder b{child};
      b.layout(*p.child, 0);
      steps += b.steps;
      if (!b.ok || steps > kMaxSteps) {
        ok = false;
        return;
      }
      repeat(child, p.count, p.stride, base + p.disp);
    }
  }
};

} // namespace

bool rects_of(const datatype::Type &t, std::size_t count, std::vector<Rect> &out) {
  out.clear();
  if (count == 0 || t.size == 0) return true;
  if (t.contiguous || !t.layout) {
    out.push_back(Rect{t.true_lb, t.size * count, 1, 1, t.size * count, 0});
    return true;
  }
  std::vector<Rect> element;
  Builder e{element};
  e.layout(*t.layout, 0);
  if (!e.ok) return false;
  Builder b{out};
  b.steps = e.steps;
  b.repeat(element, count, t.extent, 0);
  return b.ok;
}

} // namespace ampi::p2p
