/* tests/gpu/gpu_test.h — the CUDA driver API for the GPU tests, loaded with dlopen so that the
 * tests build everywhere and report "skipped" (exit 77, before MPI_Init) where there is no GPU.
 * The declarations follow cuda.h's ABI (checked against CUDA 13.0). */
#ifndef AMPI_TESTS_GPU_TEST_H
#define AMPI_TESTS_GPU_TEST_H

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef int CUresult;
typedef uintptr_t CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUmemGenericAllocationHandle;
typedef struct {
  int type; /* CU_MEM_LOCATION_TYPE_DEVICE = 1 */
  int id;
} CUmemLocation;
typedef struct {
  int type;                 /* CU_MEM_ALLOCATION_TYPE_PINNED = 1 */
  int requestedHandleTypes; /* 0 */
  CUmemLocation location;
  void *win32HandleMetaData;
  struct {
    unsigned char compressionType, gpuDirectRDMACapable;
    unsigned short usage;
    unsigned char reserved[4];
  } allocFlags;
} CUmemAllocationProp;
typedef struct {
  CUmemLocation location;
  int flags; /* CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3 */
} CUmemAccessDesc;

static struct {
  CUresult (*Init)(unsigned);
  CUresult (*DeviceGetCount)(int *);
  CUresult (*DeviceGet)(int *, int);
  CUresult (*DevicePrimaryCtxRetain)(CUcontext *, int);
  CUresult (*CtxSetCurrent)(CUcontext);
  CUresult (*MemAlloc)(CUdeviceptr *, size_t);
  CUresult (*MemFree)(CUdeviceptr);
  CUresult (*MemAllocManaged)(CUdeviceptr *, size_t, unsigned);
  CUresult (*MemAllocHost)(void **, size_t);
  CUresult (*MemFreeHost)(void *);
  CUresult (*MemAllocAsync)(CUdeviceptr *, size_t, CUstream);
  CUresult (*MemFreeAsync)(CUdeviceptr, CUstream);
  CUresult (*StreamSynchronize)(CUstream);
  CUresult (*CtxSynchronize)(void);
  CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*MemsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*MemGetAllocationGranularity)(size_t *, const CUmemAllocationProp *, int);
  CUresult (*MemAddressReserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
  CUresult (*MemAddressFree)(CUdeviceptr, size_t);
  CUresult (*MemCreate)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *,
                        unsigned long long);
  CUresult (*MemRelease)(CUmemGenericAllocationHandle);
  CUresult (*MemMap)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
  CUresult (*MemUnmap)(CUdeviceptr, size_t);
  CUresult (*MemSetAccess)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
} cu;
static int gpu_device;

#define GPU_CHECK(call)                                                                            \
  do {                                                                                             \
    CUresult r_ = (call);                                                                          \
    if (r_ != 0) {                                                                                 \
      fprintf(stderr, "%s:%d: %s failed: CUDA error %d\n", __FILE__, __LINE__, #call, r_);         \
      abort();                                                                                     \
    }                                                                                              \
  } while (0)

/* Loads the driver, picks a GPU (the local process index modulo the GPU count) and makes its
 * primary context current. 0 on success, -1 where there is no usable GPU. */
static int gpu_init(void) {
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (!h) return -1;
#define GPU_SYM(field, name)                                                                       \
  do {                                                                                             \
    *(void **)&cu.field = dlsym(h, name);                                                          \
    if (!cu.field) return -1;                                                                      \
  } while (0)
  GPU_SYM(Init, "cuInit");
  GPU_SYM(DeviceGetCount, "cuDeviceGetCount");
  GPU_SYM(DeviceGet, "cuDeviceGet");
  GPU_SYM(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  GPU_SYM(CtxSetCurrent, "cuCtxSetCurrent");
  GPU_SYM(MemAlloc, "cuMemAlloc_v2");
  GPU_SYM(MemFree, "cuMemFree_v2");
  GPU_SYM(MemAllocManaged, "cuMemAllocManaged");
  GPU_SYM(MemAllocHost, "cuMemAllocHost_v2");
  GPU_SYM(MemFreeHost, "cuMemFreeHost");
  GPU_SYM(MemAllocAsync, "cuMemAllocAsync");
  GPU_SYM(MemFreeAsync, "cuMemFreeAsync");
  GPU_SYM(StreamSynchronize, "cuStreamSynchronize");
  GPU_SYM(CtxSynchronize, "cuCtxSynchronize");
  GPU_SYM(MemcpyHtoD, "cuMemcpyHtoD_v2");
  GPU_SYM(MemcpyDtoH, "cuMemcpyDtoH_v2");
  GPU_SYM(MemsetD8, "cuMemsetD8_v2");
  GPU_SYM(MemGetAllocationGranularity, "cuMemGetAllocationGranularity");
  GPU_SYM(MemAddressReserve, "cuMemAddressReserve");
  GPU_SYM(MemAddressFree, "cuMemAddressFree");
  GPU_SYM(MemCreate, "cuMemCreate");
  GPU_SYM(MemRelease, "cuMemRelease");
  GPU_SYM(MemMap, "cuMemMap");
  GPU_SYM(MemUnmap, "cuMemUnmap");
  GPU_SYM(MemSetAccess, "cuMemSetAccess");
#undef GPU_SYM
  int n = 0;
  if (cu.Init(0) != 0 || cu.DeviceGetCount(&n) != 0 || n == 0) return -1;
  const char *lr = getenv("LOCAL_RANK");
  int dev = 0;
  GPU_CHECK(cu.DeviceGet(&dev, (lr ? atoi(lr) : 0) % n));
  gpu_device = dev;
  CUcontext ctx;
  GPU_CHECK(cu.DevicePrimaryCtxRetain(&ctx, dev));
  GPU_CHECK(cu.CtxSetCurrent(ctx));
  return 0;
}

#endif
