// src/devptr_cache/cuda_driver.cpp — finding out whether libcuda.so.1 is in the process (without
// loading it) and, once it is, filling the driver table from it. This is the only process-wide
// state of the GPU support: it describes the process (which libraries the loader holds), not a
// PE, and it only ever moves from "no CUDA" to "CUDA" once.
#include "devptr_cache/cuda_driver.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace ampi::gpu {

namespace detail {
std::atomic<void *const *> loader_tail_next{nullptr};
std::atomic<bool> cuda_present{false};
} // namespace detail

namespace {

std::mutex &slow_mutex() {
  static std::mutex m;
  return m;
}

Driver &table() {
  static Driver d{};
  return d;
}

template <class F> void load(void *h, F &f, const char *name) {
  f = reinterpret_cast<F>(dlsym(h, name));
  if (!f) {
    std::fprintf(stderr, "ampi: libcuda.so.1 lacks %s; the CUDA driver is too old\n", name);
    std::abort();
  }
}

void fill(void *h) {
  Driver &d = table();
  load(h, d.cuInit, "cuInit");
  load(h, d.cuPointerGetAttribute, "cuPointerGetAttribute");
  load(h, d.cuPointerGetAttributes, "cuPointerGetAttributes");
  load(h, d.cuMemcpyAsync, "cuMemcpyAsync");
  load(h, d.cuStreamCreate, "cuStreamCreate");
  load(h, d.cuStreamDestroy, "cuStreamDestroy_v2");
  load(h, d.cuStreamSynchronize, "cuStreamSynchronize");
  load(h, d.cuCtxGetCurrent, "cuCtxGetCurrent");
  load(h, d.cuCtxSetCurrent, "cuCtxSetCurrent");
  load(h, d.cuDeviceGet, "cuDeviceGet");
  load(h, d.cuDeviceGetCount, "cuDeviceGetCount");
  load(h, d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  load(h, d.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
  load(h, d.cuDevicePrimaryCtxGetState, "cuDevicePrimaryCtxGetState");
  load(h, d.cuCtxGetDevice, "cuCtxGetDevice");
  d.cuCtxGetId = reinterpret_cast<decltype(d.cuCtxGetId)>(dlsym(h, "cuCtxGetId"));
  load(h, d.cuGetErrorString, "cuGetErrorString");
  load(h, d.cuIpcGetMemHandle, "cuIpcGetMemHandle");
  load(h, d.cuIpcOpenMemHandle, "cuIpcOpenMemHandle_v2");
  load(h, d.cuIpcCloseMemHandle, "cuIpcCloseMemHandle");
  load(h, d.cuEventCreate, "cuEventCreate");
  load(h, d.cuEventRecord, "cuEventRecord");
  load(h, d.cuEventQuery, "cuEventQuery");
  load(h, d.cuEventDestroy, "cuEventDestroy_v2");
  d.cuStreamWaitValue32 =
      reinterpret_cast<decltype(d.cuStreamWaitValue32)>(dlsym(h, "cuStreamWaitValue32_v2"));
  if (!d.cuStreamWaitValue32)
    d.cuStreamWaitValue32 =
        reinterpret_cast<decltype(d.cuStreamWaitValue32)>(dlsym(h, "cuStreamWaitValue32"));
  d.cuStreamWriteValue32 =
      reinterpret_cast<decltype(d.cuStreamWriteValue32)>(dlsym(h, "cuStreamWriteValue32_v2"));
  if (!d.cuStreamWriteValue32)
    d.cuStreamWriteValue32 =
        reinterpret_cast<decltype(d.cuStreamWriteValue32)>(dlsym(h, "cuStreamWriteValue32"));
  d.cuStreamQuery = reinterpret_cast<decltype(d.cuStreamQuery)>(dlsym(h, "cuStreamQuery"));
  d.cuStreamCreateWithPriority = reinterpret_cast<decltype(d.cuStreamCreateWithPriority)>(
      dlsym(h, "cuStreamCreateWithPriority"));
  d.cuCtxGetStreamPriorityRange = reinterpret_cast<decltype(d.cuCtxGetStreamPriorityRange)>(
      dlsym(h, "cuCtxGetStreamPriorityRange"));
  d.cuMemHostAlloc = reinterpret_cast<decltype(d.cuMemHostAlloc)>(dlsym(h, "cuMemHostAlloc"));
  d.cuMemHostGetDevicePointer = reinterpret_cast<decltype(d.cuMemHostGetDevicePointer)>(
      dlsym(h, "cuMemHostGetDevicePointer_v2"));
  d.cuMemFreeHost = reinterpret_cast<decltype(d.cuMemFreeHost)>(dlsym(h, "cuMemFreeHost"));
  d.cuMemcpy2DAsync = reinterpret_cast<decltype(d.cuMemcpy2DAsync)>(dlsym(h, "cuMemcpy2DAsync_v2"));
  d.cuMemcpy3DAsync = reinterpret_cast<decltype(d.cuMemcpy3DAsync)>(dlsym(h, "cuMemcpy3DAsync_v2"));
  d.cuMemAlloc = reinterpret_cast<decltype(d.cuMemAlloc)>(dlsym(h, "cuMemAlloc_v2"));
  d.cuMemFree = reinterpret_cast<decltype(d.cuMemFree)>(dlsym(h, "cuMemFree_v2"));
  d.cuMemsetD8Async = reinterpret_cast<decltype(d.cuMemsetD8Async)>(dlsym(h, "cuMemsetD8Async"));
  d.cuModuleLoadData = reinterpret_cast<decltype(d.cuModuleLoadData)>(dlsym(h, "cuModuleLoadData"));
  d.cuModuleUnload = reinterpret_cast<decltype(d.cuModuleUnload)>(dlsym(h, "cuModuleUnload"));
  d.cuModuleGetFunction =
      reinterpret_cast<decltype(d.cuModuleGetFunction)>(dlsym(h, "cuModuleGetFunction"));
  d.cuLaunchKernel = reinterpret_cast<decltype(d.cuLaunchKernel)>(dlsym(h, "cuLaunchKernel"));
  d.cuDeviceCanAccessPeer =
      reinterpret_cast<decltype(d.cuDeviceCanAccessPeer)>(dlsym(h, "cuDeviceCanAccessPeer"));
  d.cuCtxEnablePeerAccess =
      reinterpret_cast<decltype(d.cuCtxEnablePeerAccess)>(dlsym(h, "cuCtxEnablePeerAccess"));
}

} // namespace

bool detail::cuda_loaded_slow() noexcept {
  std::lock_guard lock(slow_mutex());
  if (cuda_present.load(std::memory_order_relaxed)) return true;
  // RTLD_NOLOAD: only a handle to a libcuda that is already there (it also keeps it there).
  if (void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD)) {
    fill(h);
    cuda_present.store(true, std::memory_order_release);
    return true;
  }
  // Remember the loader's last object: objects loaded later are appended after it. Pin it (one
  // more reference) so that its link_map stays valid while we read its l_next.
  link_map *last = _r_debug.r_map;
  while (last && last->l_next)
    last = last->l_next;
  void *const *next = nullptr;
  if (last) {
    const bool main_or_vdso = !last->l_name || !*last->l_name;
    if (main_or_vdso || dlopen(last->l_name, RTLD_NOW | RTLD_NOLOAD))
      next = reinterpret_cast<void *const *>(&last->l_next);
  }
  loader_tail_next.store(next, std::memory_order_release); // nullptr: ask again next time
  return false;
}

bool load_cuda() noexcept {
  if (cuda_loaded()) return true;
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (!h) return false;
  if (!cuda_loaded()) return false;
  return table().cuInit(0) == kCudaSuccess;
}

const Driver &driver() noexcept {
  return table();
}

const char *cuda_error_string(CUresult r) noexcept {
  const char *s = nullptr;
  if (cuda_loaded() && table().cuGetErrorString && table().cuGetErrorString(r, &s) == 0 && s)
    return s;
  return "unknown CUDA error";
}

} // namespace ampi::gpu
