// src/devptr_cache/copy_service.cu — the resident copy kernel (included by device_kernels.cu).
// One block reads the descriptors of its PE's ring (copy_ring.h) from page-locked host memory
// and copies each one device to device (contiguous bytes, or a segment between two strided
// layouts: a face of a subarray sent from a rank's grid into another rank's ghost layer), in
// order, writing the count finished back to the ring; it exits once no descriptor came for
// `idle_ns` (or at the host's stop), and the host launches it again when one comes. A copy thus
// costs the PE no driver call: with 8 PEs of one process, cuMemcpyAsync took 10.9 us and each
// cuEventQuery 4.5 us on average, against 4.4 and 1.6 us on one PE, the driver's locks contended
// (CUPTI, H100, bench/results/2026-11-27-s13-gpu/run1).
#include "copy_ring.h"

namespace {

__device__ __forceinline__ unsigned long long ring_now() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ unsigned long long load_acquire_sys(const unsigned long long *p) {
  unsigned long long v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

// The block copies n bytes; loads and stores bypass L1 (the block lives on while other kernels
// write the memory it reads, and L1 is not coherent with them).
// Eight loads in flight per thread: one block moves what it has in flight per memory latency
// (four: a 512 KiB copy took 41 us against 19 us on the copy engines, H100, gpu_halo y face).
template <class T>
__device__ __forceinline__ void copy_units(T *d, const T *s, unsigned long long n) {
  constexpr int kFlight = 8;
  const unsigned long long stride = blockDim.x;
  unsigned long long i = threadIdx.x;
  for (; i + (kFlight - 1) * stride < n; i += kFlight * stride) {
    T v[kFlight];
#pragma unroll
    for (int k = 0; k < kFlight; ++k)
      v[k] = __ldcg(s + i + k * stride);
#pragma unroll
    for (int k = 0; k < kFlight; ++k)
      __stcg(d + i + k * stride, v[k]);
  }
  for (; i < n; i += stride)
    __stcg(d + i, __ldcg(s + i));
}

__device__ void copy_block(unsigned long long dst, unsigned long long src, unsigned long long n) {
  unsigned long long head = 0;
  if (((dst | src) & 15) == 0) {
    copy_units(reinterpret_cast<uint4 *>(dst), reinterpret_cast<const uint4 *>(src), n / 16);
    head = n & ~15ull;
  } else if (((dst | src) & 7) == 0) {
    copy_units(reinterpret_cast<unsigned long long *>(dst),
               reinterpret_cast<const unsigned long long *>(src), n / 8);
    head = n & ~7ull;
  }
  copy_units(reinterpret_cast<unsigned char *>(dst + head),
             reinterpret_cast<const unsigned char *>(src + head), n - head);
}

// Quotients by a divisor fixed for a whole segment, without the GPU's 64-bit integer division
// (a sequence of some 70 instructions): the product with a double reciprocal is within one of
// the quotient for every p below 2^51, and one comparison corrects it.
struct Divisor {
  unsigned long long d;
  double inv;
};

__device__ __forceinline__ unsigned long long quotient(unsigned long long p, const Divisor &v) {
  unsigned long long q = static_cast<unsigned long long>(static_cast<double>(p) * v.inv);
  if (q * v.d > p)
    --q;
  else if ((q + 1) * v.d <= p)
    ++q;
  return q;
}

// One side of a strided segment as the block walks it (copy_ring.h's ampi_copy_side, with the
// address of the rectangle's first unit): the address of its packed unit `i` (strided_copy.cu's
// kernels compute the same).
struct Walk {
  unsigned long long base, pitch, slab, offset;
  Divisor width, height;
  bool run; // one row: the units are contiguous
};

__device__ __forceinline__ unsigned long long unit_at(const Walk &w, unsigned long long i) {
  const unsigned long long p = w.offset + i;
  if (w.run) return p;
  const unsigned long long row = quotient(p, w.width), x = p - row * w.width.d;
  const unsigned long long z = quotient(row, w.height), y = row - z * w.height.d;
  return z * w.slab + y * w.pitch + x;
}

// The block copies `n` units of T from one strided side to the other, eight loads in flight per
// thread. (The host hands over only segments whose rows are at least a warp wide: a row of one
// unit, a face across the fastest dimension, makes each warp's access 32 separate ones, and one
// block took 124 us for a 512 KiB face of doubles, against 19 us launched over many blocks, H100.)
template <class T>
__device__ __forceinline__ void copy_walk(const Walk &dst, const Walk &src, unsigned long long n) {
  constexpr int kFlight = 8;
  T *d = reinterpret_cast<T *>(dst.base);
  const T *s = reinterpret_cast<const T *>(src.base);
  const unsigned long long stride = blockDim.x;
  for (unsigned long long i = threadIdx.x; i < n; i += kFlight * stride) {
    T v[kFlight];
#pragma unroll
    for (int k = 0; k < kFlight; ++k)
      if (i + k * stride < n) v[k] = __ldcg(s + unit_at(src, i + k * stride));
#pragma unroll
    for (int k = 0; k < kFlight; ++k)
      if (i + k * stride < n) __stcg(d + unit_at(dst, i + k * stride), v[k]);
  }
}

__device__ Walk walk(unsigned long long base, const unsigned long long *side,
                     unsigned long long n) {
  // side: width, height, pitch, slab, offset (ampi_copy_side)
  Walk w;
  w.base = base;
  w.pitch = side[2];
  w.slab = side[3];
  w.offset = side[4];
  w.width = {side[0], 1.0 / static_cast<double>(side[0])};
  w.height = {side[1], 1.0 / static_cast<double>(side[1])};
  w.run = side[1] == 1 && side[4] + n <= side[0];
  return w;
}

__device__ void copy_strided(const unsigned long long *job) {
  const unsigned long long n = job[2];
  const Walk dst = walk(job[1], job + 4, n), src = walk(job[0], job + 9, n);
  switch (job[3]) {
  case 1:
    copy_walk<unsigned char>(dst, src, n);
    break;
  case 2:
    copy_walk<unsigned short>(dst, src, n);
    break;
  case 4:
    copy_walk<unsigned>(dst, src, n);
    break;
  case 8:
    copy_walk<unsigned long long>(dst, src, n);
    break;
  default:
    copy_walk<uint4>(dst, src, n);
    break;
  }
}

} // namespace

extern "C" __global__ void __launch_bounds__(512)
    ampi_copy_service(ampi_copy_ring *ring, unsigned long long pos, unsigned long long gen,
                      unsigned long long idle_ns) {
  __shared__ unsigned long long job[AMPI_COPY_SLOT_FIELDS];
  __shared__ int go;
  unsigned long long since = ring_now();
  for (;;) {
    if (threadIdx.x == 0) {
      ampi_copy_slot *s = &ring->slot[pos % AMPI_COPY_RING_SLOTS];
      int found = 0;
      for (;;) {
        if (load_acquire_sys(&s->seq) == pos + 1) {
          found = 1;
          break;
        }
        if (*(volatile unsigned long long *)&ring->stop || ring_now() - since > idle_ns) break;
        __nanosleep(100);
      }
      go = found;
    }
    __syncthreads();
    if (!go) break;
    // The descriptor's words, one a thread (each a read across PCIe: in parallel, not one after
    // another). They follow thread 0's acquiring load of `seq` through the barrier.
    if (threadIdx.x < AMPI_COPY_SLOT_FIELDS)
      job[threadIdx.x] = reinterpret_cast<volatile unsigned long long *>(
          &ring->slot[pos % AMPI_COPY_RING_SLOTS])[threadIdx.x];
    __syncthreads();
    if (job[3] == 0)
      copy_block(job[1], job[0], job[2]);
    else
      copy_strided(job);
    __syncthreads();
    ++pos;
    if (threadIdx.x == 0) {
      __threadfence_system(); // the data before the count, for every observer
      *(volatile unsigned long long *)&ring->done = pos;
      since = ring_now();
    }
  }
  if (threadIdx.x == 0) {
    __threadfence_system();
    *(volatile unsigned long long *)&ring->exited = gen;
  }
}
