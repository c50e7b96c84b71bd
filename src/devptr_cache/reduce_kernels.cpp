// src/devptr_cache/reduce_kernels.cpp — device-side reductions: the kernels of
// reduce_kernels.cu, embedded in libampi.so as a fatbin when nvcc was found at build time
// (src/CMakeLists.txt, AMPI_DEVICE_REDUCE), loaded into each context with cuModuleLoadData on
// first use and launched with cuLaunchKernel (the driver API: libampi.so links no CUDA library).
// A module and its functions are objects of their context: forget_context() drops them with
// it, and the destructor unloads those of contexts still alive.
#include "devptr_cache/devptr_cache.hpp"

#include <algorithm>

#if defined(AMPI_REDUCE_FATBIN)
extern "C" const unsigned char ampi_reduce_fatbin[];
#endif

namespace ampi::gpu {

namespace {

// A grid-stride kernel: 256 threads a block, at most this many blocks (a 16 MiB float SUM is 4M
// elements: 16384 blocks would each do one element; 1024 blocks of 16 iterations keep the H100's
// 132 SMs full).
constexpr unsigned kThreads = 256;
constexpr std::size_t kMaxBlocks = 1024;

} // namespace

bool DevPtrCache::can_reduce() const noexcept {
#if defined(AMPI_REDUCE_FATBIN)
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
#if defined(AMPI_REDUCE_FATBIN)
  if (!can_reduce()) return kCudaErrorNotFound;
  if (n == 0) return kCudaSuccess;
  const Driver &d = driver();
  const CUcontext ctx = current_context(inout);
  CUfunction fn = nullptr;
  auto k = std::find_if(kernels_.begin(), kernels_.end(),
                        [&](const Kernel &x) { return x.ctx == ctx && x.name == name; });
  if (k != kernels_.end()) {
    fn = k->fn;
  } else {
    auto m = std::find_if(modules_.begin(), modules_.end(),
                          [ctx](const auto &x) { return x.first == ctx; });
    if (m == modules_.end()) {
      CUmodule mod = nullptr;
      // A GPU older than the embedded code (sm_90 + compute_90 PTX) cannot load it: no kernels
      // in this context then (recorded as a null module, never asked again).
      if (d.cuModuleLoadData(&mod, ampi_reduce_fatbin) != kCudaSuccess) mod = nullptr;
      modules_.emplace_back(ctx, mod);
      m = modules_.end() - 1;
    }
    if (m->second && d.cuModuleGetFunction(&fn, m->second, name) != kCudaSuccess) fn = nullptr;
    kernels_.push_back(Kernel{ctx, name, fn});
  }
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
