/* tests/gpu/gpu_pingpong.c — ping-pong timing between ranks 0 and 1 with device buffers, for
 * scripts/gpu_measure.sh (not a test). Modes: "direct" passes the device buffers to MPI;
 * "staging" copies to pinned host memory, sends that, and copies back (what a program without a
 * GPU-aware MPI does); "copy" times one cuMemcpyAsync + synchronize device-to-device in one
 * process (the reference for same-process latency); "stream" measures bandwidth like osu_bw and
 * ucx_perftest's tag_bw: rank 0 sends a window of WINDOW messages back to back (MPI_Isend of
 * device buffers), rank 1 receives them (MPI_Irecv), then acknowledges. Prints one line per size:
 *   <mode> <bytes> <one-way latency us (stream: time per message)> <bandwidth GB/s>
 * Usage: gpu_pingpong direct|staging|copy|stream [sizes...] */
#include "gpu_test.h"

#include <mpi.h>

#include <string.h>
#include <time.h>

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int iterations(size_t n) {
  return n <= 65536 ? 2000 : n <= (4u << 20) ? 300 : 40;
}

int main(int argc, char **argv) {
  if (gpu_init() != 0) {
    printf("SKIPPED gpu_pingpong: no GPU\n");
    return 77;
  }
  const char *mode = argc > 1 ? argv[1] : "direct";
  size_t sizes[16] = {8, 65536, 4u << 20, 64u << 20};
  int nsizes = 4;
  if (argc > 2) {
    nsizes = 0;
    for (int i = 2; i < argc && nsizes < 16; ++i)
      sizes[nsizes++] = strtoull(argv[i], NULL, 10);
  }
  size_t maxn = 8;
  for (int i = 0; i < nsizes; ++i)
    if (sizes[i] > maxn) maxn = sizes[i];

  if (strcmp(mode, "copy") == 0) {
    CUdeviceptr a, b;
    GPU_CHECK(cu.MemAlloc(&a, maxn));
    GPU_CHECK(cu.MemAlloc(&b, maxn));
    CUresult (*copy_async)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
    CUresult (*stream_create)(CUstream *, unsigned);
    void *h = dlopen("libcuda.so.1", RTLD_NOW);
    *(void **)&copy_async = dlsym(h, "cuMemcpyAsync");
    *(void **)&stream_create = dlsym(h, "cuStreamCreate");
    CUstream s;
    GPU_CHECK(stream_create(&s, 1));
    for (int k = 0; k < nsizes; ++k) {
      const size_t n = sizes[k];
      const int it = iterations(n);
      for (int i = 0; i < 20; ++i) {
        copy_async(b, a, n, s);
        cu.StreamSynchronize(s);
      }
      const double t0 = now_us();
      for (int i = 0; i < it; ++i) {
        GPU_CHECK(copy_async(b, a, n, s));
        GPU_CHECK(cu.StreamSynchronize(s));
      }
      const double us = (now_us() - t0) / it;
      printf("copy %zu %.2f %.2f\n", n, us, n / us / 1e3);
    }
    return 0;
  }

  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int staging = strcmp(mode, "staging") == 0;
  CUdeviceptr d;
  GPU_CHECK(cu.MemAlloc(&d, maxn));
  GPU_CHECK(cu.MemsetD8(d, (unsigned char)rank, maxn));
  void *h = NULL;
  GPU_CHECK(cu.MemAllocHost(&h, maxn));
  void *buf = staging ? h : (void *)d;
  const int peer = 1 - rank;
  if (strcmp(mode, "stream") == 0) {
    enum { WINDOW = 16 };
    MPI_Request reqs[WINDOW];
    for (int k = 0; k < nsizes; ++k) {
      const size_t n = sizes[k];
      const int it = iterations(n) / 8 + 3, warm = 2;
      double t0 = 0;
      MPI_Barrier(MPI_COMM_WORLD);
      for (int i = 0; i < warm + it; ++i) {
        if (i == warm) {
          MPI_Barrier(MPI_COMM_WORLD);
          t0 = now_us();
        }
        if (rank > 1) continue;
        int ack = 0;
        for (int w = 0; w < WINDOW; ++w) {
          if (rank == 0)
            MPI_Isend(buf, (int)n, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &reqs[w]);
          else
            MPI_Irecv(buf, (int)n, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &reqs[w]);
        }
        MPI_Waitall(WINDOW, reqs, MPI_STATUSES_IGNORE);
        if (rank == 0)
          MPI_Recv(&ack, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else
          MPI_Send(&ack, 1, MPI_INT, peer, 3, MPI_COMM_WORLD);
      }
      const double us = (now_us() - t0) / it / WINDOW;
      if (rank == 0) printf("%s %zu %.2f %.2f\n", mode, n, us, n / us / 1e3);
      fflush(stdout);
    }
    MPI_Finalize();
    return 0;
  }
  for (int k = 0; k < nsizes; ++k) {
    const size_t n = sizes[k];
    const int it = iterations(n), warm = it / 10 + 2;
    double t0 = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < warm + it; ++i) {
      if (i == warm) {
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = now_us();
      }
      if (rank > 1) continue;
      if (rank == 0) {
        if (staging) GPU_CHECK(cu.MemcpyDtoH(h, d, n));
        MPI_Send(buf, (int)n, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
        MPI_Recv(buf, (int)n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (staging) GPU_CHECK(cu.MemcpyHtoD(d, h, n));
      } else {
        MPI_Recv(buf, (int)n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (staging) {
          GPU_CHECK(cu.MemcpyHtoD(d, h, n));
          GPU_CHECK(cu.MemcpyDtoH(h, d, n));
        }
        MPI_Send(buf, (int)n, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
      }
    }
    const double us = (now_us() - t0) / it / 2;
    if (rank == 0) printf("%s %zu %.2f %.2f\n", mode, n, us, n / us / 1e3);
    fflush(stdout);
  }
  MPI_Finalize();
  return 0;
}
