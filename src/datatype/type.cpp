// src/datatype/type.cpp — the Type records and layouts of the predefined datatypes (the padded
// value-index pairs, e.g. MPI_SHORT_INT: 2-byte value, 2 padding bytes, 4-byte index, pack to
// their data bytes only), and packing in pieces: contiguous types in one copy, others element by
// element over their Layout's pieces (a partial first or last element through layout.hpp's
// for_each_run), which never expands the type.
#include "datatype/type.hpp"

#include "copy/copy.hpp"
#include "datatype/datatype.hpp"
#include "datatype/layout.hpp"

#include <algorithm>
#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ampi::datatype {

namespace {

struct PredefinedShape {
  std::size_t align;
  std::size_t value_size; // pair types: the value; others: the whole type
  std::size_t index_offset;
  std::size_t index_size; // 0 for types that are not pairs
};

template <class T> constexpr PredefinedShape shape_of() {
  if constexpr (requires(T t) { t.index; })
    return {alignof(T), sizeof(T::value), offsetof(T, index), sizeof(T::index)};
  else
    return {alignof(T), sizeof(T), 0, 0};
}

#define AMPI_BUILTIN_TYPE(name, index, ctype, category) shape_of<ctype>(),
constexpr PredefinedShape kShapes[kBuiltinCount] = {
    {1, 0, 0, 0},
#include "datatype/builtin_types.def"
};
#undef AMPI_BUILTIN_TYPE

struct PredefinedSet {
  std::array<Type, kBuiltinCount> types{};
  std::array<std::shared_ptr<const Layout>, kBuiltinCount> layouts{};
};

PredefinedSet make_predefined() {
  PredefinedSet set;
  for (int i = 1; i < kBuiltinCount; ++i) {
    const Builtin &b = kBuiltinTable[i];
    const PredefinedShape &s = kShapes[i];
    Type &t = set.types[i];
    auto layout = std::make_shared<Layout>();
    layout->pieces.push_back({0, 1, 0, s.value_size, nullptr});
    if (s.index_size) {
      if (s.index_offset == s.value_size)
        layout->pieces[0].len += s.index_size;
      else
        layout->pieces.push_back(
            {static_cast<std::ptrdiff_t>(s.index_offset), 1, 0, s.index_size, nullptr});
    }
    layout->prefix = {0};
    for (const Piece &p : layout->pieces)
      layout->prefix.push_back(layout->prefix.back() + p.len);
    t.size = b.size;
    t.extent = static_cast<std::ptrdiff_t>(b.extent);
    const Piece &last = layout->pieces.back();
    t.true_extent = last.disp + static_cast<std::ptrdiff_t>(last.len);
    t.contiguous = layout->pieces.size() == 1 && b.size == b.extent;
    t.basic = static_cast<MPI_Datatype>(kBuiltinKind | i);
    t.basic_count = 1;
    if (!t.contiguous) t.layout = layout;
    set.layouts[i] = std::move(layout);
  }
  return set;
}

const PredefinedSet kPredefined = make_predefined();

unsigned index_of(MPI_Datatype t) noexcept {
  return static_cast<unsigned>(t) ^ static_cast<unsigned>(kBuiltinKind);
}

} // namespace

// (After kPredefined: one translation unit initializes in order.)
const std::array<Type, kBuiltinCount> detail::kPredefinedTypes = kPredefined.types;

const Layout *predefined_layout(MPI_Datatype t) noexcept {
  const unsigned i = index_of(t);
  return i >= 1 && i < static_cast<unsigned>(kBuiltinCount) ? kPredefined.layouts[i].get()
                                                            : nullptr;
}

std::size_t pair_value_size(MPI_Datatype t) noexcept {
  const unsigned i = index_of(t);
  return i >= 1 && i < static_cast<unsigned>(kBuiltinCount) && kShapes[i].index_size
             ? kShapes[i].value_size
             : 0;
}

std::size_t predefined_align(MPI_Datatype t) noexcept {
  const unsigned i = index_of(t);
  return i >= 1 && i < static_cast<unsigned>(kBuiltinCount) ? kShapes[i].align : 1;
}

namespace {

// One run of a partial element's walk: the sizes of single predefined elements are copied inline
// instead of through memcpy's call.
template <bool Pack>
[[gnu::always_inline]] inline void copy_run(std::byte *mem, std::byte *packed,
                                            std::size_t n) noexcept {
  std::byte *dst = Pack ? packed : mem;
  const std::byte *src = Pack ? mem : packed;
  switch (n) {
  case 1:
    *dst = *src;
    return;
  case 2:
    std::memcpy(dst, src, 2);
    return;
  case 4:
    std::memcpy(dst, src, 4);
    return;
  case 8:
    std::memcpy(dst, src, 8);
    return;
  case 16:
    std::memcpy(dst, src, 16);
    return;
  default:
    copy::copy(dst, src, n);
  }
}

// `count` runs of N bytes, `stride` apart in memory, to or from consecutive packed bytes. The
// state lives in locals (registers): stores through std::byte may alias anything reachable, so a
// walker whose cursor sat in memory reloaded it after every copy (single-double vectors and
// two-field structs packed 1.3x slower than main's flat block list that way).
template <bool Pack, std::size_t N>
[[gnu::always_inline]] inline std::byte *
strided(std::byte *mem, std::size_t count, std::ptrdiff_t stride, std::byte *packed) noexcept {
  for (std::size_t i = 0; i < count; ++i, mem += stride, packed += N) {
    if constexpr (Pack)
      std::memcpy(packed, mem, N);
    else
      std::memcpy(mem, packed, N);
  }
  return packed;
}

template <bool Pack>
std::byte *move_element(const Layout &l, std::byte *mem, std::byte *packed) noexcept;

// One piece of an element at `mem`, all its copies; returns the packed cursor after it.
template <bool Pack>
[[gnu::always_inline]] inline std::byte *move_piece(const Piece &p, std::byte *mem,
                                                    std::byte *packed) noexcept {
  std::byte *at = mem + p.disp;
  const std::size_t n = p.count, len = p.len;
  const std::ptrdiff_t stride = p.stride;
  if (p.child) [[unlikely]] {
    const Layout &c = *p.child;
    for (std::size_t i = 0; i < n; ++i, at += stride)
      packed = move_element<Pack>(c, at, packed);
    return packed;
  }
  if (n == 1) {
    copy_run<Pack>(at, packed, len);
    return packed + len;
  }
  switch (len) {
  case 1:
    return strided<Pack, 1>(at, n, stride, packed);
  case 2:
    return strided<Pack, 2>(at, n, stride, packed);
  case 4:
    return strided<Pack, 4>(at, n, stride, packed);
  case 8:
    return strided<Pack, 8>(at, n, stride, packed);
  case 16:
    return strided<Pack, 16>(at, n, stride, packed);
  default:
    for (std::size_t i = 0; i < n; ++i, at += stride, packed += len)
      copy::copy(Pack ? packed : at, Pack ? at : packed, len);
    return packed;
  }
}

// One whole element of `l` at `mem`.
template <bool Pack>
std::byte *move_element(const Layout &l, std::byte *mem, std::byte *packed) noexcept {
  for (const Piece &p : l.pieces)
    packed = move_piece<Pack>(p, mem, packed);
  return packed;
}

// Packed bytes [offset, offset + len) of `count` elements at `mem` to or from `packed`: whole
// elements through move_element (no bounds to check inside one), a partial first or last
// element through the general walk (layout.hpp: for_each_run).
template <bool Pack>
std::size_t move(const Type &t, std::byte *mem, std::size_t count, std::size_t offset,
                 std::byte *packed, std::size_t len) noexcept {
  const std::size_t total = t.size * count;
  if (offset >= total || !len) return 0;
  len = std::min(len, total - offset);
  if (t.contiguous || !t.layout) {
    std::byte *at = mem + t.true_lb + static_cast<std::ptrdiff_t>(offset);
    copy::copy(Pack ? packed : at, Pack ? at : packed, len);
    return len;
  }
  auto partial = [&](std::size_t from, std::size_t n) {
    std::byte *cur = packed + (from - offset);
    for_each_run(t, count, from, n, [&](std::ptrdiff_t disp, std::size_t k) {
      copy_run<Pack>(mem + disp, cur, k);
      cur += k;
    });
  };
  std::size_t done = 0;
  std::size_t elem = offset / t.size;
  if (const std::size_t skip = offset % t.size) {
    done = std::min(len, t.size - skip);
    partial(offset, done);
    ++elem;
  }
  const std::size_t whole = (len - done) / t.size;
  const Layout &l = *t.layout;
  const std::ptrdiff_t extent = t.extent; // (a local: t could alias the bytes written)
  std::byte *base = mem + static_cast<std::ptrdiff_t>(elem) * extent;
  std::byte *cur = packed + done;
  // Every piece one run of bytes (count 1, no child), as in a struct or an irregular indexed
  // type: walked as a plain block list, with no repeat or child to check per piece. (Checked per
  // call, a pass over at most the pieces the elements' copies walk anyway.)
  const bool single_runs =
      whole && l.depth == 1 &&
      std::all_of(l.pieces.begin(), l.pieces.end(), [](const Piece &p) { return p.count == 1; });
  if (single_runs && l.pieces.size() == 1) {
    // One run per element (a resized or padded type, a struct of one field): `whole` runs one
    // extent apart, the strided copy of a vector.
    const Piece &p = l.pieces[0];
    move_piece<Pack>({p.disp, whole, extent, p.len, nullptr}, base, cur);
  } else if (single_runs) {
    // A block list (struct, irregular indexed): per element only the blocks' copies, no call.
    const Piece *const first = l.pieces.data(), *const last = first + l.pieces.size();
    for (std::size_t k = 0; k < whole; ++k, base += extent)
      for (const Piece *p = first; p != last; ++p) {
        const std::size_t n = p->len;
        copy_run<Pack>(base + p->disp, cur, n);
        cur += n;
      }
  } else {
    for (std::size_t k = 0; k < whole; ++k, base += extent)
      cur = move_element<Pack>(l, base, cur);
  }
  done += whole * t.size;
  if (done < len) partial(offset + done, len - done);
  return len;
}

} // namespace

std::size_t pack(const Type &t, const void *buf, std::size_t count, std::size_t offset, void *out,
                 std::size_t len) {
  return move<true>(t, const_cast<std::byte *>(static_cast<const std::byte *>(buf)), count, offset,
                    static_cast<std::byte *>(out), len);
}

std::size_t unpack(const Type &t, const void *in, std::size_t len, std::size_t offset, void *buf,
                   std::size_t count) {
  return move<false>(t, static_cast<std::byte *>(buf), count, offset,
                     const_cast<std::byte *>(static_cast<const std::byte *>(in)), len);
}

} // namespace ampi::datatype
