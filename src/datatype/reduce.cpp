// src/datatype/reduce.cpp — kernels of the predefined reduction operations (MPI_SUM, MPI_MAXLOC,
// ...) for each predefined type the standard allows them on.
//
// The element loops must be vectorised: at -O2 GCC 12 left them scalar (one movss/addss/movss per
// float), and that loop was 46% of MPI_Allreduce's time among 64 ranks of one PE at 64 KiB (perf,
// bench/results/pe_allreduce/). This file is compiled with -O3 (src/CMakeLists.txt: the cost
// model that versions a loop for possible aliasing of `in` and `inout`), and each kernel exists
// twice: for the x86-64 baseline (SSE2) and for AVX2, chosen once per process by cpuid.
#include "datatype/datatype.hpp"

#include "copy/kernels.hpp"

#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>

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

template <class T, OpId op>
[[gnu::always_inline]] inline void kernel_body(const void *in_, void *inout_, std::size_t n) {
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

template <class T, OpId op> void kernel(const void *in, void *inout, std::size_t n) {
  kernel_body<T, op>(in, inout, n);
}
#if defined(__x86_64__)
template <class T, OpId op>
[[gnu::target("avx2")]] void kernel_avx2(const void *in, void *inout, std::size_t n) {
  kernel_body<T, op>(in, inout, n);
}
#endif

// Whether the AVX2 kernels may run (cpuid, asked once: a function-local constant).
bool use_avx2() {
#if defined(__x86_64__)
  static const bool yes = copy::kernels::cpu_has_avx2();
  return yes;
#else
  return false;
#endif
}

// The operations each category of predefined type allows (MPI 3.1, section 5.9.2), as bit masks.
constexpr unsigned bit(OpId o) {
  return 1u << static_cast<unsigned>(o);
}
constexpr unsigned kOrdered = bit(OpId::Max) | bit(OpId::Min);
constexpr unsigned kArithmetic = bit(OpId::Sum) | bit(OpId::Prod);
constexpr unsigned kLogical = bit(OpId::Land) | bit(OpId::Lor) | bit(OpId::Lxor);
constexpr unsigned kBitwise = bit(OpId::Band) | bit(OpId::Bor) | bit(OpId::Bxor);
constexpr unsigned kLocation = bit(OpId::Minloc) | bit(OpId::Maxloc);

// The kernel of `op` on T if `Allowed` contains it (kernels exist only for allowed pairs).
template <class T, unsigned Allowed> ReduceFn select(OpId op) {
  ReduceFn f = nullptr;
  auto pick = [&]<OpId O>() {
    if constexpr ((Allowed & bit(O)) != 0)
      if (op == O) {
#if defined(__x86_64__)
        if (use_avx2()) {
          f = kernel_avx2<T, O>;
          return;
        }
#endif
        f = kernel<T, O>;
      }
  };
  pick.template operator()<OpId::Max>();
  pick.template operator()<OpId::Min>();
  pick.template operator()<OpId::Sum>();
  pick.template operator()<OpId::Prod>();
  pick.template operator()<OpId::Land>();
  pick.template operator()<OpId::Band>();
  pick.template operator()<OpId::Lor>();
  pick.template operator()<OpId::Bor>();
  pick.template operator()<OpId::Lxor>();
  pick.template operator()<OpId::Bxor>();
  pick.template operator()<OpId::Minloc>();
  pick.template operator()<OpId::Maxloc>();
  return f;
}

template <class T> ReduceFn int_op(OpId op) {
  return select<T, kOrdered | kArithmetic | kLogical | kBitwise>(op);
}
template <class T> ReduceFn uint_op(OpId op) {
  return int_op<T>(op);
}
template <class T> ReduceFn float_op(OpId op) {
  return select<T, kOrdered | kArithmetic>(op);
}
template <class T> ReduceFn complex_op(OpId op) {
  return select<T, kArithmetic>(op);
}
template <class T> ReduceFn logical_op(OpId op) {
  return select<T, kLogical>(op);
}
template <class T> ReduceFn byte_op(OpId op) {
  return select<T, kBitwise>(op);
}
template <class T> ReduceFn pair_op(OpId op) {
  return select<T, kLocation>(op);
}
// MPI_WCHAR and MPI_CHARACTER are text: no predefined operation applies. (MPI_CHAR is not here:
// Open MPI and MPICH treat it as a C integer, and the OSU reduction benchmarks default to
// MPI_SUM on MPI_CHAR.)
template <class T> ReduceFn char_op(OpId) {
  return nullptr;
}
template <class T> ReduceFn none_op(OpId) {
  return nullptr;
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
constexpr unsigned kOpKind = handles::kind::builtin_op.prefix; // MPI_MAX is kOpKind | 1

// The element name of T in the device kernels' names (reduce_kernels.cu), or nullptr: the C
// types that have kernels there.
template <class T> constexpr const char *device_elem() {
  if constexpr (std::is_same_v<T, bool>)
    return "b8";
  else if constexpr (std::is_integral_v<T>) {
    constexpr bool s = std::is_signed_v<T>;
    if constexpr (sizeof(T) == 1) return s ? "i8" : "u8";
    if constexpr (sizeof(T) == 2) return s ? "i16" : "u16";
    if constexpr (sizeof(T) == 4) return s ? "i32" : "u32";
    if constexpr (sizeof(T) == 8) return s ? "i64" : "u64";
    return nullptr;
  } else if constexpr (std::is_same_v<T, float>)
    return "f32";
  else if constexpr (std::is_same_v<T, double>)
    return "f64";
  else if constexpr (std::is_same_v<T, ValueIndex<float>>)
    return "float_int";
  else if constexpr (std::is_same_v<T, ValueIndex<int>>)
    return "2int";
  else
    return nullptr;
}

const char *device_elem_of(unsigned type_index) {
  switch (type_index) {
#define AMPI_BUILTIN_TYPE(name, index, ctype, category)                                            \
  case index:                                                                                      \
    return device_elem<ctype>();
#include "datatype/builtin_types.def"
#undef AMPI_BUILTIN_TYPE
  default:
    return nullptr;
  }
}

// The kernels' operation names, by OpId.
constexpr const char *kDeviceOps[] = {nullptr, "max", "min",  "sum",  "prod",   "land",  "band",
                                      "lor",   "bor", "lxor", "bxor", "minloc", "maxloc"};

} // namespace

std::string device_reduction(MPI_Op op, MPI_Datatype type) {
  if (!reduction(op, type)) return {}; // not defined for the type (or not predefined)
  const unsigned o = static_cast<unsigned>(op) ^ kOpKind;
  const unsigned t = static_cast<unsigned>(type) ^ static_cast<unsigned>(kBuiltinKind);
  const char *elem = device_elem_of(t);
  if (!elem) return {};
  return std::string("ampi_reduce_") + kDeviceOps[o] + "_" + elem;
}

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
