/* bench/gpu_halo.c — a non-contiguous device halo between two ranks: one face of a 256^3 grid of
 * doubles in device memory, sent as a vector datatype and received into the same face of the
 * peer's grid (ping-pong; the time is one way), against the same bytes sent contiguous (a device
 * buffer of 256 * 256 doubles) in the same run. Faces:
 *   x  MPI_Type_vector(65536, 1, 256, MPI_DOUBLE)   65536 rows of 8 bytes (the worst case)
 *   y  MPI_Type_vector(256, 256, 65536, MPI_DOUBLE) 256 rows of 2 KiB
 * How the library packs is the run's setting: AMPI_GPU_DEVICE_PACK=1 (the copy engines, the
 * default) or 0 (host staging, as before device packing); the program prints it. The CUDA
 * driver is loaded with dlopen (exit 77 without a GPU), so any MPI builds this file.
 * Usage: gpu_halo [x|y ...] [-t SECONDS]   (default: both faces, 0.5 s a measurement). */
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  CUresult (*MemsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*CtxSynchronize)(void);
} cu;

#define N 256

static int gpu_init(void) {
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (!h) return -1;
#define SYM(f, n)                                                                                  \
  if (!(*(void **)&cu.f = dlsym(h, n))) return -1;
  SYM(Init, "cuInit") SYM(DeviceGetCount, "cuDeviceGetCount") SYM(DeviceGet, "cuDeviceGet");
  SYM(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") SYM(CtxSetCurrent, "cuCtxSetCurrent");
  SYM(MemAlloc, "cuMemAlloc_v2") SYM(MemFree, "cuMemFree_v2") SYM(MemsetD8, "cuMemsetD8_v2");
  SYM(CtxSynchronize, "cuCtxSynchronize");
  int n = 0, dev = 0;
  CUcontext ctx;
  if (cu.Init(0) || cu.DeviceGetCount(&n) || n == 0 || cu.DeviceGet(&dev, 0) ||
      cu.DevicePrimaryCtxRetain(&ctx, dev) || cu.CtxSetCurrent(ctx))
    return -1;
  return 0;
}

static void round_trip(void *buf, int count, MPI_Datatype t, int rank) {
  if (rank == 0) {
    MPI_Send(buf, count, t, 1, 0, MPI_COMM_WORLD);
    MPI_Recv(buf, count, t, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (rank == 1) {
    MPI_Recv(buf, count, t, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(buf, count, t, 0, 0, MPI_COMM_WORLD);
  }
}

/* One-way time in microseconds of `count` elements of `t` at `buf` between ranks 0 and 1: two
 * round trips of warm-up (the second one timed to choose the count), then about `secs` seconds
 * of round trips with nothing else in the loop. */
static double pingpong(void *buf, int count, MPI_Datatype t, double secs, int rank, int *iters) {
  round_trip(buf, count, t, rank);
  double t0 = MPI_Wtime();
  round_trip(buf, count, t, rank);
  double one = MPI_Wtime() - t0;
  MPI_Bcast(&one, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  int n = one > 0 ? (int)(secs / one) : 10000;
  n = n < 3 ? 3 : n > 10000 ? 10000 : n;
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  for (int i = 0; i < n; ++i)
    round_trip(buf, count, t, rank);
  double us = (MPI_Wtime() - t0) / n / 2 * 1e6;
  MPI_Bcast(&us, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  *iters = n;
  return us;
}

int main(int argc, char **argv) {
  if (gpu_init() != 0) {
    printf("no GPU: skipped\n");
    return 77;
  }
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double secs = 0.5;
  const char *faces[4];
  int nf = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "-t") && i + 1 < argc)
      secs = atof(argv[++i]);
    else if ((!strcmp(argv[i], "x") || !strcmp(argv[i], "y")) && nf < 4)
      faces[nf++] = argv[i];
  }
  if (nf == 0) faces[nf++] = "x", faces[nf++] = "y";
  if (size < 2) {
    if (rank == 0) fprintf(stderr, "gpu_halo: needs 2 ranks\n");
    MPI_Finalize();
    return 1;
  }
  const size_t grid = (size_t)N * N * N * sizeof(double), face = (size_t)N * N * sizeof(double);
  CUdeviceptr g = 0, c = 0;
  if (cu.MemAlloc(&g, grid) || cu.MemAlloc(&c, face) || cu.MemsetD8(g, 1, grid) ||
      cu.MemsetD8(c, 2, face) || cu.CtxSynchronize()) {
    fprintf(stderr, "gpu_halo: rank %d: device allocation failed\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const char *pack = getenv("AMPI_GPU_DEVICE_PACK");
  const char *mode = pack && !strcmp(pack, "0") ? "host-staging" : "device-pack";
  for (int f = 0; f < nf; ++f) {
    MPI_Datatype t;
    if (faces[f][0] == 'x')
      MPI_Type_vector(N * N, 1, N, MPI_DOUBLE, &t);
    else
      MPI_Type_vector(N, N, N * N, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    int it_typed = 0, it_contig = 0;
    const double typed = pingpong((void *)g, 1, t, secs, rank, &it_typed);
    const double contig = pingpong((void *)c, N * N, MPI_DOUBLE, secs, rank, &it_contig);
    if (rank == 0)
      printf("bench face=%s ranks=%d mode=%s bytes=%zu typed_us=%.1f contig_us=%.1f "
             "typed/contig=%.2f (iterations %d, %d)\n",
             faces[f], size, mode, face, typed, contig, typed / contig, it_typed, it_contig);
    fflush(stdout);
    MPI_Type_free(&t);
  }
  cu.MemFree(g), cu.MemFree(c);
  MPI_Finalize();
  return 0;
}
