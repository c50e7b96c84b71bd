// src/datatype/reduce.cpp — kernels of the predefined reduction operations (MPI_SUM, MPI_MAXLOC,
// ...) for each predefined type the standard allows them on.
#include "datatype/datatype.hpp"

#include <complex>
#include <cstdint>

namespace ampi::datatype {

namespace {

enum class OpId : unsigned {
  Max = 1,
  Min,
  Sum,
  Prod,
  Land,
  Band,
  Lor,
  Bor,
  Lxor,
  Bxor,
  Minloc,
  Maxloc
};

template <class T, OpId op> void kernel(const void *in_, void *inout_, std::size_t n) {
  const T *in = static_cast<const T *>(in_);
  T *io = static_cast<T *>(inout_);
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (op == OpId::Sum)
      io[i] = in[i] + io[i];
    else if constexpr (op == OpId::Prod)
      io[i] = in[i] * io[i];
    else if constexpr (op == OpId::Max)
      io[i] = in[i] > io[i] ? in[i] : io[i];
    else if constexpr (op == OpId::Min)
      io[i] = in[i] < io[i] ? in[i] : io[i];
    else if constexpr (op == OpId::Land)
      io[i] = static_cast<T>(in[i] && io[i]);
    else if constexpr (op == OpId::Lor)
      io[i] = static_cast<T>(in[i] || io[i]);
    else if constexpr (op == OpId::Lxor)
      io[i] = static_cast<T>(!in[i] != !io[i]);
    else if constexpr (op == OpId::Band)
      io[i] = static_cast<T>(in[i] & io[i]);
    else if constexpr (op == OpId::Bor)
      io[i] = static_cast<T>(in[i] | io[i]);
    else if constexpr (op == OpId::Bxor)
      io[i] = static_cast<T>(in[i] ^ io[i]);
    else if constexpr (op == OpId::Minloc) {
      if (in[i].value < io[i].value || (in[i].value == io[i].value && in[i].index < io[i].index))
        io[i] = in[i];
    } else if constexpr (op == OpId::Maxloc) {
      if (in[i].value > io[i].value || (in[i].value == io[i].value && in[i].index < io[i].index))
        io[i] = in[i];
    }
  }
}

template <class T> ReduceFn integer_op(OpId op) {
  switch (op) {
  case OpId::Max:
    return kernel<T, OpId::Max>;
  case OpId::Min:
    return kernel<T, OpId::Min>;
  case OpId::Sum:
    return kernel<T, OpId::Sum>;
  case OpId::Prod:
    return kernel<T, OpId::Prod>;
  case OpId::Land:
    return kernel<T, OpId::Land>;
  case OpId::Lor:
    return kernel<T, OpId::Lor>;
  case OpId::Lxor:
    return kernel<T, OpId::Lxor>;
  case OpId::Band:
    return kernel<T, OpId::Band>;
  case OpId::Bor:
    return kernel<T, OpId::Bor>;
  case OpId::Bxor:
    return kernel<T, OpId::Bxor>;
  default:
    return nullptr;
  }
}

template <class T> ReduceFn float_op(OpId op) {
  switch (op) {
  case OpId::Max:
    return kernel<T, OpId::Max>;
  case OpId::Min:
    return kernel<T, OpId::Min>;
  case OpId::Sum:
    return kernel<T, OpId::Sum>;
  case OpId::Prod:
    return kernel<T, OpId::Prod>;
  default:
    return nullptr;
  }
}

template <class T> ReduceFn complex_op(OpId op) {
  switch (op) {
  case OpId::Sum:
    return kernel<T, OpId::Sum>;
  case OpId::Prod:
    return kernel<T, OpId::Prod>;
  default:
    return nullptr;
  }
}

template <class T> ReduceFn logical_op(OpId op) {
  switch (op) {
  case OpId::Land:
    return kernel<T, OpId::Land>;
  case OpId::Lor:
    return kernel<T, OpId::Lor>;
  case OpId::Lxor:
    return kernel<T, OpId::Lxor>;
  default:
    return nullptr;
  }
}

template <class T> ReduceFn byte_op(OpId op) {
  switch (op) {
  case OpId::Band:
    return kernel<T, OpId::Band>;
  case OpId::Bor:
    return kernel<T, OpId::Bor>;
  case OpId::Bxor:
    return kernel<T, OpId::Bxor>;
  default:
    return nullptr;
  }
}

template <class T> ReduceFn pair_op(OpId op) {
  switch (op) {
  case OpId::Minloc:
    return kernel<T, OpId::Minloc>;
  case OpId::Maxloc:
    return kernel<T, OpId::Maxloc>;
  default:
    return nullptr;
  }
}

template <class T> ReduceFn char_op(OpId) {
  return nullptr;
} // MPI_CHAR is not for reductions
template <class T> ReduceFn none_op(OpId) {
  return nullptr;
}
template <class T> ReduceFn uint_op(OpId op) {
  return integer_op<T>(op);
}
template <class T> ReduceFn int_op(OpId op) {
  return integer_op<T>(op);
}

#define Char char_op
#define Int int_op
#define Uint uint_op
#define Float float_op
#define Logical logical_op
#define Byte byte_op
#define Complex complex_op
#define Pair pair_op
#define None none_op
ReduceFn lookup(unsigned type_index, OpId op) {
  switch (type_index) {
#define AMPI_BUILTIN_TYPE(name, index, ctype, category)                                            \
  case index:                                                                                      \
    return category<ctype>(op);
#include "datatype/builtin_types.def"
#undef AMPI_BUILTIN_TYPE
  default:
    return nullptr;
  }
}
#undef Char
#undef Int
#undef Uint
#undef Float
#undef Logical
#undef Byte
#undef Complex
#undef Pair
#undef None

constexpr const char *kOpNames[] = {nullptr,      "MPI_MAX",     "MPI_MIN",  "MPI_SUM",
                                    "MPI_PROD",   "MPI_LAND",    "MPI_BAND", "MPI_LOR",
                                    "MPI_BOR",    "MPI_LXOR",    "MPI_BXOR", "MPI_MINLOC",
                                    "MPI_MAXLOC", "MPI_REPLACE", "MPI_NO_OP"};
constexpr unsigned kOpKind = 0x58000000;

} // namespace

ReduceFn reduction(MPI_Op op, MPI_Datatype type) noexcept {
  const unsigned o = static_cast<unsigned>(op) ^ kOpKind;
  const unsigned t = static_cast<unsigned>(type) ^ static_cast<unsigned>(kBuiltinKind);
  if (o < 1 || o > static_cast<unsigned>(OpId::Maxloc) || t < 1 ||
      t >= static_cast<unsigned>(kBuiltinCount))
    return nullptr;
  return lookup(t, static_cast<OpId>(o));
}

const char *op_name(MPI_Op op) noexcept {
  const unsigned o = static_cast<unsigned>(op) ^ kOpKind;
  return o >= 1 && o < std::size(kOpNames) ? kOpNames[o] : nullptr;
}

} // namespace ampi::datatype
