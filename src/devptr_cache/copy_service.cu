// src/devptr_cache/copy_service.cu — the resident copy kernel (included by device_kernels.cu).
// One block reads the descriptors of its PE's ring (copy_ring.h) from page-locked host memory
// and copies each one's bytes device to device, in order, writing the count finished back to
// the ring; it exits once no descriptor came for `idle_ns` (or at the host's stop), and the host
// launches it again when one comes. A copy thus costs the PE no driver call: with 8 PEs of one
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

// The block copies n bytes; loads and stores bypass L1 (the block lives on while other kernels
// write the memory it reads, and L1 is not coherent with them).
template <class T>
__device__ __forceinline__ void copy_units(T *d, const T *s, unsigned long long n) {
  const unsigned long long stride = blockDim.x;
  unsigned long long i = threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const T a = __ldcg(s + i), b = __ldcg(s + i + stride), c = __ldcg(s + i + 2 * stride),
            e = __ldcg(s + i + 3 * stride);
    __stcg(d + i, a);
    __stcg(d + i + stride, b);
    __stcg(d + i + 2 * stride, c);
    __stcg(d + i + 3 * stride, e);
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

} // namespace

extern "C" __global__ void __launch_bounds__(512)
    ampi_copy_service(ampi_copy_ring *ring, unsigned long long pos, unsigned long long gen,
                      unsigned long long idle_ns) {
  __shared__ unsigned long long job[3];
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
      if (found) {
        job[0] = *(volatile unsigned long long *)&s->src;
        job[1] = *(volatile unsigned long long *)&s->dst;
        job[2] = *(volatile unsigned long long *)&s->bytes;
      }
      go = found;
    }
    __syncthreads();
    if (!go) break;
    copy_block(job[1], job[0], job[2]);
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
