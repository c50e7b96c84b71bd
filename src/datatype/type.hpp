// src/datatype/type.hpp — a datatype as point-to-point, collective and one-sided code see it: its
// size and bounds, whether its data is one contiguous run of bytes, the predefined type its data
// is made of (for reductions and accumulates), and packing to and from contiguous bytes.
//
// Every layer above src/datatype works through this interface only: contiguous types are used in
// place (`data_start`), others are packed and unpacked, possibly in pieces (`offset`, `len`).
#pragma once

#include "datatype/datatype.hpp"

#include <mpi.h>

#include <array>
#include <cstddef>
#include <memory>

namespace ampi::datatype {

struct Layout; // the flattened description of a derived type (src/datatype), opaque here

struct Type {
  std::size_t size = 0;  // MPI_Type_size: bytes of data in one element
  std::ptrdiff_t lb = 0; // MPI_Type_get_extent
  std::ptrdiff_t extent = 0;
  std::ptrdiff_t true_lb = 0; // MPI_Type_get_true_extent
  std::ptrdiff_t true_extent = 0;
  // `count` elements hold exactly the size*count bytes that start at buf + true_lb.
  bool contiguous = true;
  // The one predefined type all the data is made of (e.g. MPI_DOUBLE for a vector of doubles),
  // or MPI_DATATYPE_NULL when it mixes types. Reductions and accumulates work on packed data as
  // `basic_count * count` elements of `basic`. (The padded pair types, e.g. MPI_SHORT_INT, pack to
  // their data bytes only: their packed form is not their C struct layout.)
  MPI_Datatype basic = MPI_DATATYPE_NULL;
  std::size_t basic_count = 0;
  bool committed = true;                // predefined types are always committed
  std::shared_ptr<const Layout> layout; // null for contiguous types (src/datatype/layout.hpp)
};

namespace detail {
// The records of the predefined types by index (type.cpp); entry 0 is unused.
extern const std::array<Type, kBuiltinCount> kPredefinedTypes;
} // namespace detail

// The predefined type behind a handle, or nullptr.
inline const Type *predefined(MPI_Datatype t) noexcept {
  const unsigned i = static_cast<unsigned>(t) ^ static_cast<unsigned>(kBuiltinKind);
  return i - 1u < static_cast<unsigned>(kBuiltinCount - 1) ? &detail::kPredefinedTypes[i] : nullptr;
}

// Where the data of a contiguous type starts.
inline const void *data_start(const Type &t, const void *buf) noexcept {
  return static_cast<const char *>(buf) + t.true_lb;
}
inline void *data_start(const Type &t, void *buf) noexcept {
  return static_cast<char *>(buf) + t.true_lb;
}

// Copies bytes [offset, offset + len) of the packed form of `count` elements at `buf` into `out`.
// Returns the bytes copied (less than len at the end of the data).
std::size_t pack(const Type &t, const void *buf, std::size_t count, std::size_t offset, void *out,
                 std::size_t len);
// The reverse: scatters `len` packed bytes, which start at `offset` of the packed form, into the
// `count` elements at `buf`. Returns the bytes consumed.
std::size_t unpack(const Type &t, const void *in, std::size_t len, std::size_t offset, void *buf,
                   std::size_t count);

} // namespace ampi::datatype
