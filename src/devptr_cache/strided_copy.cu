// src/devptr_cache/strided_copy.cu — the device kernels that copy between two strided layouts
// (DevPtrCache::Rect, as device_pack.hpp builds them from a datatype): a datatype's blocks
// gathered into a contiguous buffer (packing), scattered from one (unpacking), or copied straight
// from a sender's layout into a receiver's (ranks of one process: no packed copy at all). One
// launch per segment that lies within one rectangle of each side (strided_copy.cpp plans them).
// Compiled into the embedded fatbin with the reduction kernels (device_kernels.cu).
//
// Why kernels and not the copy engines' 2-D/3-D copies: a face of a 256^3 grid of doubles across
// the fastest dimension is 65536 rows of 8 bytes, and cuMemcpy3DAsync of it took most of the
// 47.7 us that packing and unpacking it took on an H100, against 10.2 us for the same bytes
// contiguous (bench/results/2026-11-26-gpu2/run1).
#include <cstddef>
#include <cstdint>

namespace {

// One side of a segment, in units of the copy (1, 2, 4, 8 or 16 bytes): `base` is the address of
// the rectangle's first unit, `offset` the segment's first unit in the rectangle's packed order.
struct Side {
  std::uint64_t base;
  std::uint64_t width, height; // units per row, rows per slab
  std::uint64_t pitch, slab;   // units between rows, between slabs
  std::uint64_t offset;
};

template <class T> __device__ T *at(const Side &s, std::uint64_t i) {
  const std::uint64_t p = s.offset + i;
  T *b = reinterpret_cast<T *>(s.base);
  if (s.height == 1 && p < s.width) return b + p; // one run (a contiguous side)
  const std::uint64_t row = p / s.width, x = p - row * s.width;
  const std::uint64_t z = row / s.height, y = row - z * s.height;
  return b + z * s.slab + y * s.pitch + x;
}

template <class T> __device__ void copy(Side dst, Side src, std::uint64_t n) {
  const std::uint64_t step = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += step)
    *at<T>(dst, i) = *at<const T>(src, i);
}

// With `done` (a word of mapped host memory): the last block to finish sets it, so that the host
// learns of the copy's end without a driver call, and without one more operation queued after
// the kernel (a queued operation held the context's launch lock: cuStreamWriteValue32 took
// 4.4 us, the launches 8.7 us, 8 PEs of one process, H200, bench/results/2026-11-28-s19-gpu).
// `arrived`: the blocks' count, device memory of the launch's stream (zero between launches:
// the last block resets it before the stream's next kernel can start).
__device__ void finish(unsigned *arrived, unsigned *done) {
  if (!done) return;
  __threadfence(); // this thread's stores before the block's count
  __syncthreads();
  if (threadIdx.x != 0 || atomicAdd(arrived, 1u) != gridDim.x - 1) return;
  *arrived = 0;
  __threadfence_system(); // every block's stores (seen through the count) before the word
  *reinterpret_cast<volatile unsigned *>(done) = 1;
}

struct alignas(16) U16 {
  std::uint64_t a, b;
};

} // namespace

#define AMPI_STRIDED(bytes, T)                                                                     \
  extern "C" __global__ void ampi_strided_copy_##bytes(Side dst, Side src, std::uint64_t n,        \
                                                       unsigned *arrived, unsigned *done) {        \
    copy<T>(dst, src, n);                                                                          \
    finish(arrived, done);                                                                         \
  }
AMPI_STRIDED(1, std::uint8_t)
AMPI_STRIDED(2, std::uint16_t)
AMPI_STRIDED(4, std::uint32_t)
AMPI_STRIDED(8, std::uint64_t)
AMPI_STRIDED(16, U16)
#undef AMPI_STRIDED
