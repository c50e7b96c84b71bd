// src/datatype/type.cpp — the Type records and layouts of the predefined datatypes (the padded
// value-index pairs, e.g. MPI_SHORT_INT: 2-byte value, 2 padding bytes, 4-byte index, pack to
// their data bytes only), and packing in pieces: contiguous types in one copy, others by walking
// their Layout's runs (layout.hpp: for_each_run), which never expands the type.
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

// One run of a walk: the sizes of single predefined elements (a vector of bytes, ints or doubles
// walks runs of 1, 4 or 8 bytes, 2^30 of them for the largest types) are copied inline instead
// of through memcpy's call.
[[gnu::always_inline]] inline void copy_run(std::byte *dst, const std::byte *src,
                                            std::size_t n) noexcept {
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

} // namespace

std::size_t pack(const Type &t, const void *buf, std::size_t count, std::size_t offset, void *out,
                 std::size_t len) {
  const auto *from = static_cast<const std::byte *>(buf);
  auto *to = static_cast<std::byte *>(out);
  return for_each_run(t, count, offset, len, [&](std::ptrdiff_t disp, std::size_t n) {
    copy_run(to, from + disp, n);
    to += n;
  });
}

std::size_t unpack(const Type &t, const void *in, std::size_t len, std::size_t offset, void *buf,
                   std::size_t count) {
  const auto *from = static_cast<const std::byte *>(in);
  auto *to = static_cast<std::byte *>(buf);
  return for_each_run(t, count, offset, len, [&](std::ptrdiff_t disp, std::size_t n) {
    copy_run(to + disp, from, n);
    from += n;
  });
}

} // namespace ampi::datatype
