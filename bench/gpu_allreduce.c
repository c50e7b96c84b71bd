/* bench/gpu_allreduce.c — MPI_Allreduce (MPI_SUM of floats) of device buffers, 4 B to 16 MiB by
 * factors of 4: the time per call in microseconds (the median of 5 rounds of about 0.1 s each,
 * the slowest rank's time of each round). How the library reduces is the run's setting:
 * AMPI_GPU_DEVICE_REDUCE=1 (CUDA kernels, the data stays on the device; the default) or 0 (host
 * staging: every buffer copied to host memory and back); the program prints it. The CUDA driver
 * is loaded with dlopen (exit 77 without a GPU), so any MPI builds this file.
 * Usage: gpu_allreduce [MAX_BYTES]   (bench/results/2026-11-26-gpu3/device_run.sh runs it). */
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef int CUresult;
typedef uintptr_t CUdeviceptr;
typedef struct CUctx_st *CUcontext;
static struct {
  CUresult (*Init)(unsigned);
  CUresult (*DeviceGetCount)(int *);
  CUresult (*DeviceGet)(int *, int);
  CUresult (*DevicePrimaryCtxRetain)(CUcontext *, int);
  CUresult (*CtxSetCurrent)(CUcontext);
  CUresult (*MemAlloc)(CUdeviceptr *, size_t);
  CUresult (*MemFree)(CUdeviceptr);
  CUresult (*MemsetD32)(CUdeviceptr, unsigned, size_t);
  CUresult (*CtxSynchronize)(void);
} cu;

static int gpu_init(void) {
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (!h) return -1;
#define SYM(f, n)                                                                                  \
  if (!(*(void **)&cu.f = dlsym(h, n))) return -1;
  SYM(Init, "cuInit") SYM(DeviceGetCount, "cuDeviceGetCount") SYM(DeviceGet, "cuDeviceGet");
  SYM(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") SYM(CtxSetCurrent, "cuCtxSetCurrent");
  SYM(MemAlloc, "cuMemAlloc_v2") SYM(MemFree, "cuMemFree_v2") SYM(MemsetD32, "cuMemsetD32_v2");
  SYM(CtxSynchronize, "cuCtxSynchronize");
  int n = 0, dev = 0;
  CUcontext ctx;
  const char *lr = getenv("LOCAL_RANK");
  if (cu.Init(0) || cu.DeviceGetCount(&n) || n == 0 ||
      cu.DeviceGet(&dev, (lr ? atoi(lr) : 0) % n) || cu.DevicePrimaryCtxRetain(&ctx, dev) ||
      cu.CtxSetCurrent(ctx))
    return -1;
  return 0;
}

static int cmp(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  if (gpu_init() != 0) {
    printf("no GPU: skipped\n");
    return 77;
  }
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t max = argc > 1 ? strtoull(argv[1], NULL, 0) : (size_t)16 << 20;
  CUdeviceptr s = 0, r = 0;
  if (cu.MemAlloc(&s, max) || cu.MemAlloc(&r, max) || cu.MemsetD32(s, 0x3f800000u, max / 4) ||
      cu.CtxSynchronize()) {
    fprintf(stderr, "gpu_allreduce: cannot allocate %zu bytes of device memory\n", max);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const char *setting = getenv("AMPI_GPU_DEVICE_REDUCE");
  if (rank == 0)
    printf(
        "# MPI_Allreduce MPI_SUM MPI_FLOAT, device buffers, %d ranks; AMPI_GPU_DEVICE_REDUCE=%s\n"
        "# bytes us_per_call\n",
        size, setting ? setting : "(default 1)");
  for (size_t bytes = 4; bytes <= max; bytes *= 4) {
    const int count = (int)(bytes / 4);
    MPI_Allreduce((void *)s, (void *)r, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_Allreduce((void *)s, (void *)r, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    double one = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &one, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int n = one > 0 ? (int)(0.1 / one) : 1000;
    n = n < 3 ? 3 : n > 20000 ? 20000 : n;
    double t[5];
    for (int k = 0; k < 5; ++k) {
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = MPI_Wtime();
      for (int i = 0; i < n; ++i)
        MPI_Allreduce((void *)s, (void *)r, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      double el = (MPI_Wtime() - t0) / n;
      MPI_Allreduce(&el, &t[k], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    qsort(t, 5, sizeof t[0], cmp);
    if (rank == 0) printf("%zu %.2f\n", bytes, t[2] * 1e6);
  }
  /* The result: size ones summed. */
  float got = 0;
  typedef CUresult (*dtoh_t)(void *, CUdeviceptr, size_t);
  dtoh_t dtoh = (dtoh_t)dlsym(RTLD_DEFAULT, "cuMemcpyDtoH_v2");
  if (dtoh && dtoh(&got, r, sizeof got) == 0 && got != (float)size && rank == 0)
    printf("# WRONG RESULT: %g, want %d\n", got, size);
  cu.MemFree(s);
  cu.MemFree(r);
  MPI_Finalize();
  return 0;
}
