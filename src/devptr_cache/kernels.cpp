// src/devptr_cache/kernels.cpp — the embedded device kernels (device_kernels.cu: reductions and
// strided copies), a fatbin inside libampi.so when nvcc was found at build time
// (src/CMakeLists.txt, AMPI_DEVICE_REDUCE), loaded into each context with cuModuleLoadData on
// first use; kernels are looked up by name and launched with cuLaunchKernel (the driver API:
// libampi.so links no CUDA library). A module and its functions are objects of their context:
// forget_context() drops them with it, and the destructor unloads those of contexts still alive.
#include "devptr_cache/devptr_cache.hpp"

#include <algorithm>

#if defined(AMPI_KERNELS_FATBIN)
extern "C" const unsigned char ampi_kernels_fatbin[];
#endif

namespace ampi::gpu {

CUfunction DevPtrCache::kernel(const char *name) {
#if defined(AMPI_KERNELS_FATBIN)
  if (!cuda_loaded()) return nullptr;
  const Driver &d = driver();
  if (!d.cuModuleLoadData || !d.cuModuleUnload || !d.cuModuleGetFunction || !d.cuLaunchKernel)
    return nullptr;
  const CUcontext ctx = current_;
  auto k = std::find_if(kernels_.begin(), kernels_.end(),
                        [&](const Kernel &x) { return x.ctx == ctx && x.name == name; });
  if (k != kernels_.end()) return k->fn;
  auto m = std::find_if(modules_.begin(), modules_.end(),
                        [ctx](const auto &x) { return x.first == ctx; });
  if (m == modules_.end()) {
    CUmodule mod = nullptr;
    // A GPU older than the embedded code (sm_90 + compute_90 PTX) cannot load it: no kernels in
    // this context then (recorded as a null module, never asked again).
    if (d.cuModuleLoadData(&mod, ampi_kernels_fatbin) != kCudaSuccess) mod = nullptr;
    modules_.emplace_back(ctx, mod);
    m = modules_.end() - 1;
  }
  CUfunction fn = nullptr;
  if (m->second && d.cuModuleGetFunction(&fn, m->second, name) != kCudaSuccess) fn = nullptr;
  kernels_.push_back(Kernel{ctx, name, fn});
  return fn;
#else
  static_cast<void>(name);
  return nullptr;
#endif
}

} // namespace ampi::gpu
