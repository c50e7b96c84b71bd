// src/devptr_cache/reduce_kernels.cpp — device-side reductions: the kernels of
// reduce_kernels.cu (embedded and loaded by kernels.cpp), launched with cuLaunchKernel.
#include "devptr_cache/devptr_cache.hpp"

#include <algorithm>

namespace ampi::gpu {

namespace {

// A grid-stride kernel: 256 threads a block, at most this many blocks (a 16 MiB float SUM is 4M
// elements: 16384 blocks would each do one element; 1024 blocks of 16 iterations keep the H100's
// 132 SMs full).
constexpr unsigned kThreads = 256;
constexpr std::size_t kMaxBlocks = 1024;

} // namespace

bool DevPtrCache::can_reduce() const noexcept {
#if defined(AMPI_KERNELS_FATBIN)
  if (!device_reduce_ || !cuda_loaded()) return false;
  const Driver &d = driver();
  return d.cuModuleLoadData && d.cuModuleUnload && d.cuModuleGetFunction && d.cuLaunchKernel &&
         d.cuMemAlloc && d.cuMemFree;
#else
  return false;
#endif
}

CUresult DevPtrCache::reduce(const char *name, const void *in, void *inout, std::size_t n,
                             CUstream stream) {
#if defined(AMPI_KERNELS_FATBIN)
  if (!can_reduce()) return kCudaErrorNotFound;
  if (n == 0) return kCudaSuccess;
  const Driver &d = driver();
  static_cast<void>(current_context(inout));
  CUfunction fn = kernel(name);
  if (!fn) return kCudaErrorNotFound;
  const std::size_t blocks = std::min(kMaxBlocks, (n + kThreads - 1) / kThreads);
  CUdeviceptr a = reinterpret_cast<CUdeviceptr>(in), b = reinterpret_cast<CUdeviceptr>(inout);
  std::size_t count = n;
  void *args[] = {&a, &b, &count};
  return d.cuLaunchKernel(fn, static_cast<unsigned>(blocks), 1, 1, kThreads, 1, 1, 0, stream, args,
                          nullptr);
#else
  static_cast<void>(name);
  static_cast<void>(in);
  static_cast<void>(inout);
  static_cast<void>(n);
  static_cast<void>(stream);
  return kCudaErrorNotFound;
#endif
}

} // namespace ampi::gpu
