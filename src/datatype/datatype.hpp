// src/datatype/datatype.hpp — the predefined datatypes (names, sizes, extents) and the predefined
// reduction operations on them.
#pragma once

#include "handles/handle.hpp"

#include <mpi.h>

#include <cstddef>
#include <string>

namespace ampi {
// The C layouts of MPI's value-index pair types (MPI_DOUBLE_INT, MPI_2INT, MPI_2REAL, ...).
template <class T> struct ValueIndex {
  T value;
  int index;
};
template <class T> struct ValueIndexSame {
  T value;
  T index;
};
} // namespace ampi

namespace ampi::datatype {

enum class Category : unsigned char { None, Char, Int, Uint, Float, Logical, Byte, Complex, Pair };

struct Builtin {
  const char *name;
  std::size_t size;   // MPI_Type_size: the bytes of data
  std::size_t extent; // the bytes one element spans in memory (padding of pair types included)
  Category category;
};

// Predefined datatypes are kBuiltinKind | index (handles::kind::builtin_datatype).
inline constexpr int kBuiltinKind = static_cast<int>(handles::kind::builtin_datatype.prefix);
// One past the largest index of builtin_types.def (index 0 is no type): counted from the list
// itself, so adding a line there is the whole change.
#define AMPI_BUILTIN_TYPE(name, index, ctype, category) +1
inline constexpr int kBuiltinCount = 1
#include "datatype/builtin_types.def"
    ;
#undef AMPI_BUILTIN_TYPE

extern const Builtin kBuiltinTable[kBuiltinCount];

// The predefined type behind a handle, or nullptr.
inline const Builtin *builtin(MPI_Datatype t) noexcept {
  const unsigned i = static_cast<unsigned>(t) ^ static_cast<unsigned>(kBuiltinKind);
  return i >= 1 && i < static_cast<unsigned>(kBuiltinCount) ? &kBuiltinTable[i] : nullptr;
}

// inout[i] = in[i] op inout[i] for i < count.
using ReduceFn = void (*)(const void *in, void *inout, std::size_t count);
// The kernel of a predefined operation on a predefined type; nullptr when the standard does not
// define the operation for the type (MPI_ERR_OP).
ReduceFn reduction(MPI_Op op, MPI_Datatype type) noexcept;
// The name of a predefined operation ("MPI_SUM"), or nullptr.
const char *op_name(MPI_Op op) noexcept;

// The name of the device kernel of a predefined operation on a predefined datatype
// (src/devptr_cache/reduce_kernels.cu: "ampi_reduce_sum_f64"), or an empty string where there
// is none (long double, complex, the padded pair types, MPI_2REAL...: reductions of device
// buffers of those stage through host memory).
std::string device_reduction(MPI_Op op, MPI_Datatype type);

} // namespace ampi::datatype
