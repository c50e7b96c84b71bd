// src/devptr_cache/cuda_driver.hpp — the CUDA driver API as far as ampi uses it, loaded at run
// time (dlopen of libcuda.so.1) so that one build runs with or without a GPU. Owns the
// process-wide answer to "is CUDA in this process at all" (cuda_loaded(): near-zero cost, no
// CUDA call, never loads the driver itself) and the table of driver entry points, filled once
// when CUDA first appears. The types below are the driver's own ABI (cuda.h), spelled out so
// that building needs no CUDA toolkit.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace ampi::gpu {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = std::uintptr_t;
using CUcontext = struct CUctx_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;

inline constexpr CUresult kCudaSuccess = 0;
inline constexpr CUresult kCudaErrorNotInitialized = 3;
inline constexpr CUresult kCudaErrorInvalidValue = 1;
inline constexpr CUresult kCudaErrorNotReady = 600;
inline constexpr CUresult kCudaErrorNotFound = 500;
inline constexpr CUresult kCudaErrorAlreadyMapped = 208;
inline constexpr CUresult kCudaErrorPeerAccessAlreadyEnabled = 704;
inline constexpr unsigned kEventDisableTiming = 2;
// CUpointer_attribute
inline constexpr int kAttrContext = 1;
inline constexpr int kAttrMemoryType = 2;
inline constexpr int kAttrBufferId = 7;
inline constexpr int kAttrIsManaged = 8;
inline constexpr int kAttrDeviceOrdinal = 9;
inline constexpr int kAttrIsLegacyIpcCapable = 10; // a cuMemAlloc allocation (not pool, not VMM)
inline constexpr int kAttrRangeStart = 11;
inline constexpr int kAttrRangeSize = 12;
inline constexpr int kAttrAccessFlags = 16; // what the current context's device may do with it
// CUDA_POINTER_ATTRIBUTE_ACCESS_FLAGS
inline constexpr unsigned kAccessReadWrite = 3;
// CUmemorytype
inline constexpr unsigned kMemoryTypeHost = 1;
inline constexpr unsigned kMemoryTypeDevice = 2;
inline constexpr unsigned kMemoryTypeUnified = 4;
inline constexpr unsigned kStreamNonBlocking = 1;
inline constexpr unsigned kIpcLazyEnablePeerAccess = 1;
inline constexpr unsigned kMemHostAllocPortable = 1;
inline constexpr unsigned kMemHostAllocDeviceMap = 2;
inline constexpr unsigned kStreamWaitValueGeq = 0;

// CUipcMemHandle: an exported allocation, 64 opaque bytes (passed by value).
struct IpcMemHandle {
  char reserved[64];
};

// CUDA_MEMCPY2D and CUDA_MEMCPY3D (the _v2 ABI, cuda.h): strided copies that the copy engines do
// in one operation (device-side packing, p2p/data.cpp).
struct Memcpy2D {
  std::size_t srcXInBytes, srcY;
  unsigned srcMemoryType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  void *srcArray;
  std::size_t srcPitch;
  std::size_t dstXInBytes, dstY;
  unsigned dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  void *dstArray;
  std::size_t dstPitch;
  std::size_t WidthInBytes, Height;
};
struct Memcpy3D {
  std::size_t srcXInBytes, srcY, srcZ, srcLOD;
  unsigned srcMemoryType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  void *srcArray;
  void *reserved0;
  std::size_t srcPitch, srcHeight;
  std::size_t dstXInBytes, dstY, dstZ, dstLOD;
  unsigned dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  void *dstArray;
  void *reserved1;
  std::size_t dstPitch, dstHeight;
  std::size_t WidthInBytes, Height, Depth;
};

// The driver entry points ampi calls (exported names, with their ABI versions).
struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuPointerGetAttribute)(void *, int, CUdeviceptr);
  CUresult (*cuPointerGetAttributes)(unsigned, int *, void **, CUdeviceptr);
  CUresult (*cuMemcpyAsync)(CUdeviceptr, CUdeviceptr, std::size_t, CUstream);
  CUresult (*cuStreamCreate)(CUstream *, unsigned);
  // Our copy streams at the context's greatest priority: their kernels' blocks are dispatched
  // before those of kernels already queued (nullptr where the driver lacks them).
  CUresult (*cuStreamCreateWithPriority)(CUstream *, unsigned, int);
  CUresult (*cuCtxGetStreamPriorityRange)(int *, int *);
  CUresult (*cuStreamDestroy)(CUstream);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuCtxGetCurrent)(CUcontext *);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuDevicePrimaryCtxGetState)(CUdevice, unsigned *, int *);
  CUresult (*cuCtxGetDevice)(CUdevice *);
  // CUDA 12.0+ (nullptr with older drivers): a context's id, unique for the process's life, so
  // that a context destroyed and made again at the same handle (cudaDeviceReset) is told apart.
  CUresult (*cuCtxGetId)(CUcontext, unsigned long long *);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuIpcGetMemHandle)(IpcMemHandle *, CUdeviceptr);
  CUresult (*cuIpcOpenMemHandle)(CUdeviceptr *, IpcMemHandle, unsigned);
  CUresult (*cuIpcCloseMemHandle)(CUdeviceptr);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventQuery)(CUevent);
  CUresult (*cuEventDestroy)(CUevent);
  // Stream-ordered MPI (MPIX_*_enqueue, src/mpi/stream.cpp): a stream waits for a word of mapped
  // host memory that the PE writes. nullptr where the driver lacks them.
  CUresult (*cuStreamWaitValue32)(CUstream, CUdeviceptr, std::uint32_t, unsigned);
  // The end of a copy or of a watched stream's work, written by the stream into such a word
  // (DevPtrCache::track), and the stream's state when the word is long in coming (an error).
  // nullptr where the driver lacks them (then events tell).
  CUresult (*cuStreamWriteValue32)(CUstream, CUdeviceptr, std::uint32_t, unsigned);
  CUresult (*cuStreamQuery)(CUstream);
  CUresult (*cuMemHostAlloc)(void **, std::size_t, unsigned);
  CUresult (*cuMemHostGetDevicePointer)(CUdeviceptr *, void *, unsigned);
  CUresult (*cuMemFreeHost)(void *);
  // Device-side packing of non-contiguous datatypes (p2p/data.cpp): strided copies and the
  // device staging buffers they pack into. nullptr where the driver lacks them (then packing
  // stages through host memory).
  CUresult (*cuMemcpy2DAsync)(const Memcpy2D *, CUstream);
  CUresult (*cuMemcpy3DAsync)(const Memcpy3D *, CUstream);
  CUresult (*cuMemAlloc)(CUdeviceptr *, std::size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, std::size_t, CUstream);
  // Device-side reductions (reduce_kernels.cpp): the embedded kernels' module and their launch.
  // nullptr where the driver lacks them (then reductions stage through host memory).
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, CUstream, void **, void **);
  // Kernels of one GPU that read another GPU's memory (ranks of one process on two GPUs,
  // DevPtrCache::reachable). nullptr where the driver lacks them.
  CUresult (*cuDeviceCanAccessPeer)(int *, CUdevice, CUdevice);
  CUresult (*cuCtxEnablePeerAccess)(CUcontext, unsigned);
};

namespace detail {
// The address of the l_next field of the last object of the dynamic loader's list that we have
// looked at (that object is pinned: never unloaded). A newly loaded object hangs off it; only
// then can libcuda have appeared. nullptr before the first look.
extern std::atomic<void *const *> loader_tail_next;
extern std::atomic<bool> cuda_present;
bool cuda_loaded_slow() noexcept;
} // namespace detail

// True once libcuda.so.1 is loaded in this process (by the program, the CUDA runtime or UCX).
// While it is not, no memory can be device memory. Costs two loads when nothing was dlopen'ed
// since the last call; never calls CUDA and never loads it.
inline bool cuda_loaded() noexcept {
  if (detail::cuda_present.load(std::memory_order_acquire)) return true;
  void *const *next = detail::loader_tail_next.load(std::memory_order_acquire);
  if (next && __atomic_load_n(next, __ATOMIC_ACQUIRE) == nullptr) return false;
  return detail::cuda_loaded_slow();
}

// Loads libcuda.so.1 (and initialises it) when it is not loaded yet: for a process that must
// open another process's device memory (CUDA IPC) though it never used CUDA itself. False when
// there is no usable driver.
bool load_cuda() noexcept;

// The driver table; only valid after cuda_loaded() returned true.
const Driver &driver() noexcept;

// "cuXxx failed: <driver's message>" for error reports.
const char *cuda_error_string(CUresult r) noexcept;

// The calling OS thread's current context: nullptr when it has none or CUDA is not loaded (two
// loads then, no CUDA call). The current context (the CUDA runtime's current device) is state of
// a thread, and a virtual rank is a thread to its program: the PE saves a rank's context when it
// switches out and makes it current again when it resumes (core/pe.cpp), or a rank on GPU 0
// resumes on another rank's GPU 1 and launches its kernels there (8 ranks of one process over two
// H100s, each rank cudaSetDevice(its GPU): illegal memory accesses, bench/results/
// 2026-11-27-s11-gpu).
inline CUcontext thread_context() noexcept {
  CUcontext c = nullptr;
  if (cuda_loaded() && driver().cuCtxGetCurrent(&c) != 0) c = nullptr;
  return c;
}
// Makes `c` current on this thread if it is not (nothing for nullptr).
inline void restore_thread_context(CUcontext c) noexcept {
  if (c == nullptr) return;
  CUcontext now = nullptr;
  const Driver &d = driver();
  if (d.cuCtxGetCurrent(&now) == 0 && now != c) static_cast<void>(d.cuCtxSetCurrent(c));
}

} // namespace ampi::gpu
