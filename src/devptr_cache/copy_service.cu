// src/devptr_cache/copy_service.cu — the resident copy kernel (included by device_kernels.cu).
// Its block 0 reads the descriptors of its PE's ring (copy_ring.h) from page-locked host memory,
// and all its blocks (AMPI_GPU_COPY_KERNEL_BLOCKS) share each copy device to device (contiguous
// bytes, or a segment between two strided layouts: a face of a subarray sent from a rank's grid
// into another rank's ghost layer), in order; the last block to finish one writes the count
// finished back to the ring. It exits once no descriptor came for `idle_ns` (or at the host's
// stop), and the host launches it again when one comes. (Blocks: a 512 KiB face of 2 KiB rows
// took 39 us with one, 26 with two, 14 with eight or launched over the GPU, H200,
// bench/results/2026-11-28-s18-gpu.) A copy thus costs the PE no driver call: with 8 PEs of one
// process, cuMemcpyAsync took 10.9 us and each cuEventQuery 4.5 us on average, against 4.4 and
// 1.6 us on one PE, the driver's locks contended (CUPTI, H100,
// bench/results/2026-11-27-s13-gpu/run1).
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

// The kernel's threads (every block's: each takes its share) copy n bytes; loads and stores bypass
// L1 (the block lives on while other kernels write the memory it reads, and L1 is not coherent with
// them). Eight loads in flight per thread: one block moves what it has in flight per memory latency
// (four: a 512 KiB copy took 41 us against 19 us on the copy engines, H100, gpu_halo y face).
template <class T>
__device__ __forceinline__ void copy_units(T *d, const T *s, unsigned long long n) {
  constexpr int kFlight = 8;
  const unsigned long long stride = gridDim.x * blockDim.x;
  unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x;
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

// The kernel's threads copy `n` units of T from one strided side to the other, eight loads in
// flight per thread. (The host hands over only segments whose rows are at least a warp wide: a row
// of one unit, a face across the fastest dimension, makes each warp's access 32 separate ones, and
// one block took 124 us for a 512 KiB face of doubles, against 19 us launched over many blocks,
// H100.)
template <class T>
__device__ __forceinline__ void copy_walk(const Walk &dst, const Walk &src, unsigned long long n) {
  constexpr int kFlight = 8;
  T *d = reinterpret_cast<T *>(dst.base);
  const T *s = reinterpret_cast<const T *>(src.base);
  const unsigned long long stride = gridDim.x * blockDim.x;
  for (unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += kFlight * stride) {
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

// Block 0's thread 0: waits for descriptor `pos` in the host ring; false when none came for
// `idle_ns` since `since`, or the host asked the kernel to stop.
__device__ bool await_slot(ampi_copy_ring *ring, unsigned long long pos, unsigned long long since,
                           unsigned long long idle_ns) {
  ampi_copy_slot *s = &ring->slot[pos % AMPI_COPY_RING_SLOTS];
  for (;;) {
    if (load_acquire_sys(&s->seq) == pos + 1) return true;
    if (*(volatile unsigned long long *)&ring->stop || ring_now() - since > idle_ns) return false;
    __nanosleep(100);
  }
}

constexpr unsigned long long kPosMask = (1ull << 39) - 1, kGenMask = (1ull << 24) - 1;

__device__ __forceinline__ unsigned long long load_acquire_gpu(const unsigned long long *p) {
  unsigned long long v;
  asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void store_release_gpu(unsigned long long *p, unsigned long long v) {
  asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

// The other blocks' thread 0: waits for block 0's word on descriptor `pos` of generation `gen`:
// true, copy your share (block 0 may already be further on: a later descriptor's word means this
// one is to be copied too); false, the launch ends at `pos`.
__device__ bool await_word(const ampi_copy_grid *grid, unsigned long long gen,
                           unsigned long long pos) {
  for (;;) {
    const unsigned long long c = load_acquire_gpu(&grid->cmd);
    if ((c >> 40) == (gen & kGenMask)) {
      const unsigned long long p = (c >> 1) & kPosMask;
      if (p > pos) return true;
      if (p == pos) return !(c & 1);
    }
    __nanosleep(32);
  }
}

// Thread 0 of a block that has copied its share of descriptor `pos`: whether it was the last
// block to (then it clears the count for the slot's next use, and writes `done`).
__device__ bool finished_last(ampi_copy_grid *grid, unsigned long long pos) {
  __threadfence(); // this block's copies before its count
  unsigned long long *n = &grid->arrived[pos % AMPI_COPY_RING_SLOTS];
  if (atomicAdd(n, 1ull) != gridDim.x - 1) return false;
  atomicExch(n, 0ull);
  return true;
}

} // namespace

// `grid`: null with one block; with several, zeroed device memory kept for the service's life
// (each launch has the same number of blocks).
extern "C" __global__ void __launch_bounds__(512)
    ampi_copy_service(ampi_copy_ring *ring, ampi_copy_grid *grid, unsigned long long pos,
                      unsigned long long gen, unsigned long long idle_ns) {
  __shared__ unsigned long long job[AMPI_COPY_SLOT_FIELDS];
  __shared__ int go;
  const bool lead = blockIdx.x == 0, many = gridDim.x > 1;
  unsigned long long since = ring_now();
  for (;;) {
    const unsigned slot = pos % AMPI_COPY_RING_SLOTS;
    if (threadIdx.x == 0)
      go = lead ? await_slot(ring, pos, since, idle_ns) : await_word(grid, gen, pos);
    __syncthreads();
    if (!go) {
      if (lead && many && threadIdx.x == 0)
        store_release_gpu(&grid->cmd, (gen & kGenMask) << 40 | (pos & kPosMask) << 1 | 1);
      break;
    }
    if (lead) {
      // The descriptor's words, one a thread (each a read across PCIe: in parallel, not one after
      // another). They follow thread 0's acquiring load of `seq` through the barrier.
      if (threadIdx.x < AMPI_COPY_SLOT_FIELDS) {
        job[threadIdx.x] =
            reinterpret_cast<volatile unsigned long long *>(&ring->slot[slot])[threadIdx.x];
        if (many) grid->job[slot][threadIdx.x] = job[threadIdx.x];
      }
      __syncthreads();
      if (many && threadIdx.x == 0) {
        __threadfence(); // the block's copies of the words before the word that names them
        store_release_gpu(&grid->cmd, (gen & kGenMask) << 40 | (pos & kPosMask) << 1);
      }
    } else {
      // From device memory: block 0 wrote them before its word, which thread 0 acquired.
      if (threadIdx.x < AMPI_COPY_SLOT_FIELDS)
        job[threadIdx.x] = __ldcg(&grid->job[slot][threadIdx.x]);
      __syncthreads();
    }
    if (job[3] == 0)
      copy_block(job[1], job[0], job[2]);
    else
      copy_strided(job);
    __syncthreads();
    if (threadIdx.x == 0) {
      if (!many || finished_last(grid, pos)) {
        __threadfence_system(); // the data before the count, for every observer
        *(volatile unsigned long long *)&ring->done = pos + 1;
      }
      since = ring_now();
    }
    ++pos;
  }
  if (threadIdx.x == 0 && (!many || atomicAdd(&grid->exits, 1ull) == gen * gridDim.x - 1)) {
    __threadfence_system();
    *(volatile unsigned long long *)&ring->exited = gen;
  }
}
