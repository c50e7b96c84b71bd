// src/devptr_cache/reduce_kernels.cu — the device kernels of the predefined reduction operations
// (MPI_SUM ... MPI_MAXLOC) on the C types of the predefined datatypes, for reductions whose
// buffers are device memory (collectives and MPI_Reduce_local, src/mpi/coll.cpp). nvcc compiles
// this file at build time into a fatbin (sm_90 cubin + compute_90 PTX) that is embedded in
// libampi.so (src/CMakeLists.txt); reduce_kernels.cpp loads it with cuModuleLoadData on first use
// and launches the kernels with cuLaunchKernel, so libampi.so never links the CUDA runtime.
// Each kernel is extern "C" `ampi_reduce_<op>_<type>(const T *in, T *inout, size_t n)`:
// inout[i] = in[i] op inout[i], as datatype/reduce.cpp's host kernels (MINLOC/MAXLOC: the lower
// index on ties); datatype::device_reduction() names the kernel of an (operation, type) pair.
#include <cstddef>
#include <cstdint>

namespace {

template <class V, class I> struct Pair {
  V value;
  I index;
};

struct Sum {
  template <class T> __device__ static T f(T a, T b) { return a + b; }
};
struct Prod {
  template <class T> __device__ static T f(T a, T b) { return a * b; }
};
struct Max {
  template <class T> __device__ static T f(T a, T b) { return a > b ? a : b; }
};
struct Min {
  template <class T> __device__ static T f(T a, T b) { return a < b ? a : b; }
};
struct Land {
  template <class T> __device__ static T f(T a, T b) { return static_cast<T>(a && b); }
};
struct Lor {
  template <class T> __device__ static T f(T a, T b) { return static_cast<T>(a || b); }
};
struct Lxor {
  template <class T> __device__ static T f(T a, T b) { return static_cast<T>(!a != !b); }
};
struct Band {
  template <class T> __device__ static T f(T a, T b) { return static_cast<T>(a & b); }
};
struct Bor {
  template <class T> __device__ static T f(T a, T b) { return static_cast<T>(a | b); }
};
struct Bxor {
  template <class T> __device__ static T f(T a, T b) { return static_cast<T>(a ^ b); }
};
struct Minloc {
  template <class T> __device__ static T f(T a, T b) {
    return (a.value < b.value || (a.value == b.value && a.index < b.index)) ? a : b;
  }
};
struct Maxloc {
  template <class T> __device__ static T f(T a, T b) {
    return (a.value > b.value || (a.value == b.value && a.index < b.index)) ? a : b;
  }
};

// A grid-stride loop: the launcher sizes the grid for the count (at most 65535 x 256 threads).
template <class Op, class T>
__device__ void apply(const T *__restrict__ in, T *__restrict__ io, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    io[i] = Op::f(in[i], io[i]);
}

} // namespace

#define AMPI_K(op, Op, tname, T)                                                                   \
  extern "C" __global__ void ampi_reduce_##op##_##tname(const T *in, T *io, std::size_t n) {       \
    apply<Op>(in, io, n);                                                                          \
  }

// Integers: every operation but MINLOC/MAXLOC.
#define AMPI_INT(tname, T)                                                                         \
  AMPI_K(sum, Sum, tname, T)                                                                       \
  AMPI_K(prod, Prod, tname, T)                                                                     \
  AMPI_K(max, Max, tname, T)                                                                       \
  AMPI_K(min, Min, tname, T)                                                                       \
  AMPI_K(land, Land, tname, T)                                                                     \
  AMPI_K(lor, Lor, tname, T)                                                                       \
  AMPI_K(lxor, Lxor, tname, T)                                                                     \
  AMPI_K(band, Band, tname, T)                                                                     \
  AMPI_K(bor, Bor, tname, T)                                                                       \
  AMPI_K(bxor, Bxor, tname, T)
#define AMPI_FLOAT(tname, T)                                                                       \
  AMPI_K(sum, Sum, tname, T)                                                                       \
  AMPI_K(prod, Prod, tname, T)                                                                     \
  AMPI_K(max, Max, tname, T)                                                                       \
  AMPI_K(min, Min, tname, T)
#define AMPI_PAIR(tname, T)                                                                        \
  AMPI_K(minloc, Minloc, tname, T)                                                                 \
  AMPI_K(maxloc, Maxloc, tname, T)

AMPI_INT(i8, std::int8_t)
AMPI_INT(u8, std::uint8_t)
AMPI_INT(i16, std::int16_t)
AMPI_INT(u16, std::uint16_t)
AMPI_INT(i32, std::int32_t)
AMPI_INT(u32, std::uint32_t)
AMPI_INT(i64, std::int64_t)
AMPI_INT(u64, std::uint64_t)
AMPI_FLOAT(f32, float)
AMPI_FLOAT(f64, double)
// MPI_C_BOOL: the logical operations on one-byte bools.
AMPI_K(land, Land, b8, bool)
AMPI_K(lor, Lor, b8, bool)
AMPI_K(lxor, Lxor, b8, bool)
// The pair types of MINLOC/MAXLOC whose packed form is their C layout (MPI_FLOAT_INT, MPI_2INT,
// MPI_2INTEGER: 8 bytes, no padding). The padded ones (MPI_DOUBLE_INT: 12 bytes packed, 16 in C)
// are widened on the host (coll::Reducer), so their device buffers stage through host memory.
using FloatInt = Pair<float, int>;
using IntInt = Pair<int, int>;
AMPI_PAIR(float_int, FloatInt)
AMPI_PAIR(2int, IntInt)
