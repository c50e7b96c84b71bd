// src/datatype/type.cpp — the Type records and layouts of the predefined datatypes (the padded
// value-index pairs, e.g. MPI_SHORT_INT: 2-byte value, 2 padding bytes, 4-byte index, pack to
// their data bytes only), and packing in pieces: contiguous types in one copy, others through
// their Layout (prefix sums find the block a piece starts in; then a cursor walks the blocks).
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
    layout->blocks.push_back({0, s.value_size});
    if (s.index_size) {
      if (s.index_offset == s.value_size)
        layout->blocks[0].len += s.index_size;
      else
        layout->blocks.push_back({static_cast<std::ptrdiff_t>(s.index_offset), s.index_size});
    }
    layout->prefix = {0};
    for (const Block &blk : layout->blocks)
      layout->prefix.push_back(layout->prefix.back() + blk.len);
    t.size = b.size;
    t.extent = static_cast<std::ptrdiff_t>(b.extent);
    const Block &last = layout->blocks.back();
    t.true_extent = last.disp + static_cast<std::ptrdiff_t>(last.len);
    t.contiguous = layout->blocks.size() == 1 && b.size == b.extent;
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

// Copies between the packed form [offset, offset + len) and `count` elements at `buf`.
template <bool Pack>
std::size_t copy_layout(const Type &t, const Layout &l, std::byte *buf, std::size_t count,
                        std::size_t offset, std::byte *packed, std::size_t len) {
  const std::size_t total = t.size * count;
  if (offset >= total) return 0;
  len = std::min(len, total - offset);
  std::size_t elem = offset / t.size;
  const std::size_t in = offset % t.size;
  const std::size_t nblocks = l.blocks.size();
  // The block that holds packed byte `in`: the last prefix <= in.
  std::size_t i =
      static_cast<std::size_t>(std::upper_bound(l.prefix.begin(), l.prefix.end() - 1, in) -
                               l.prefix.begin()) -
      1;
  std::size_t within = in - l.prefix[i];
  std::size_t done = 0;
  std::byte *base = buf + static_cast<std::ptrdiff_t>(elem) * t.extent;
  while (done < len) {
    const Block &b = l.blocks[i];
    const std::size_t n = std::min(b.len - within, len - done);
    std::byte *mem = base + b.disp + static_cast<std::ptrdiff_t>(within);
    if constexpr (Pack)
      copy::copy(packed + done, mem, n);
    else
      copy::copy(mem, packed + done, n);
    done += n;
    within = 0;
    if (++i == nblocks) {
      i = 0;
      ++elem;
      base += t.extent;
    }
  }
  return done;
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

std::size_t pack(const Type &t, const void *buf, std::size_t count, std::size_t offset, void *out,
                 std::size_t len) {
  const std::size_t total = t.size * count;
  if (offset >= total) return 0;
  len = std::min(len, total - offset);
  if (t.contiguous) {
    copy::copy(out, static_cast<const char *>(data_start(t, buf)) + offset, len);
    return len;
  }
  return copy_layout<true>(t, *t.layout,
                           const_cast<std::byte *>(static_cast<const std::byte *>(buf)), count,
                           offset, static_cast<std::byte *>(out), len);
}

std::size_t unpack(const Type &t, const void *in, std::size_t len, std::size_t offset, void *buf,
                   std::size_t count) {
  const std::size_t total = t.size * count;
  if (offset >= total) return 0;
  len = std::min(len, total - offset);
  if (t.contiguous) {
    copy::copy(static_cast<char *>(data_start(t, buf)) + offset, in, len);
    return len;
  }
  return copy_layout<false>(t, *t.layout, static_cast<std::byte *>(buf), count, offset,
                            const_cast<std::byte *>(static_cast<const std::byte *>(in)), len);
}

} // namespace ampi::datatype
