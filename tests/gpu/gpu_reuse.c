/* tests/gpu/gpu_reuse.c — the pointer cache never gives a stale answer when an address changes
 * kind: rank r < size/2 sends from a buffer, frees it, gets new memory of another kind at the same
 * address and sends from it again; rank r + size/2 receives into host memory and checks every byte.
 * Cases: device -> (freed) -> host at the same address (CUDA virtual memory management, then
 * mmap), host -> device at the same address (munmap, then a CUDA reservation at that address,
 * when the driver grants it), and cudaFree/cudaMalloc reuse. Exits 77 where there is no GPU. */
#define _GNU_SOURCE
#include "gpu_test.h"

#include <mpi.h>

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#define N 4096

static int failures;

static void fill_host(unsigned char *p, unsigned seed) {
  for (int i = 0; i < N; ++i)
    p[i] = (unsigned char)(i * 7 + seed);
}

/* From pageable memory, cuMemcpyHtoD returns once the data is staged, before the DMA lands
 * (CUDA's documented behaviour), and ampi's or UCX's copies of the buffer run on non-blocking
 * streams that do not wait for the legacy stream: without the synchronize, the VMM cases sent
 * zeros in 1 of 4 runs on H100 whenever other processes kept the GPU busy (ctest -j4). */
static void to_device(CUdeviceptr d, const unsigned char *host) {
  GPU_CHECK(cu.MemcpyHtoD(d, host, N));
  GPU_CHECK(cu.CtxSynchronize());
}

/* Sender: sends N bytes at p. Receiver: receives and checks them against seed. */
static void exchange(int sender, int peer, void *p, unsigned seed, const char *what) {
  if (sender) {
    MPI_Send(p, N, MPI_BYTE, peer, (int)seed, MPI_COMM_WORLD);
  } else {
    unsigned char got[N], want[N];
    MPI_Recv(got, N, MPI_BYTE, peer, (int)seed, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    fill_host(want, seed);
    if (memcmp(got, want, N) != 0) {
      ++failures;
      int first = 0;
      while (got[first] == want[first])
        ++first;
      fprintf(stderr,
              "gpu_reuse: %s (seed %u): wrong data received from byte %d on (got %u, want %u; "
              "seed %u's byte would be %u)\n",
              what, seed, first, got[first], want[first], seed - 1,
              (unsigned char)(first * 7 + seed - 1));
    }
  }
}

int main(int argc, char **argv) {
  if (gpu_init() != 0) {
    printf("SKIPPED gpu_reuse: no GPU\n");
    return 77;
  }
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int half = size / 2, sender = rank < half, peer = sender ? rank + half : rank - half;
  unsigned char host[N];
  int skipped_h2d = 0;

  /* 1. cuMemAlloc, cuMemFree, cuMemAlloc again (usually the same address, a new buffer). */
  if (sender) {
    for (unsigned round = 1; round <= 3; ++round) {
      CUdeviceptr d;
      GPU_CHECK(cu.MemAlloc(&d, N));
      fill_host(host, round);
      to_device(d, host);
      exchange(1, peer, (void *)d, round, "cudaMalloc reuse");
      GPU_CHECK(cu.MemFree(d));
    }
  } else {
    for (unsigned round = 1; round <= 3; ++round)
      exchange(0, peer, NULL, round, "cudaMalloc reuse");
  }

  /* 2. Device memory at a reserved address, freed, then host memory mapped at that address. */
  CUmemAllocationProp prop;
  memset(&prop, 0, sizeof prop);
  prop.type = 1;
  prop.location.type = 1;
  prop.location.id = gpu_device;
  size_t gran = 0;
  GPU_CHECK(cu.MemGetAllocationGranularity(&gran, &prop, 0));
  if (sender) {
    CUdeviceptr va;
    CUmemGenericAllocationHandle h;
    CUmemAccessDesc acc = {{1, gpu_device}, 3};
    GPU_CHECK(cu.MemAddressReserve(&va, gran, 0, 0, 0));
    GPU_CHECK(cu.MemCreate(&h, gran, &prop, 0));
    GPU_CHECK(cu.MemMap(va, gran, 0, h, 0));
    GPU_CHECK(cu.MemSetAccess(va, gran, &acc, 1));
    fill_host(host, 10);
    to_device(va, host);
    exchange(1, peer, (void *)va, 10, "device memory (VMM)");
    GPU_CHECK(cu.MemUnmap(va, gran));
    GPU_CHECK(cu.MemRelease(h));
    GPU_CHECK(cu.MemAddressFree(va, gran));
    void *p = mmap((void *)va, gran, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    int replaced = 0;
    if (p == MAP_FAILED && errno == EEXIST) {
      /* The driver keeps freed device addresses reserved (an inaccessible mapping of its own), so
       * an allocator cannot land there by itself; a program (or allocator) that maps over the
       * freed range is the remaining case: map host memory over exactly that range. */
      p = mmap((void *)va, gran, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
               -1, 0);
      replaced = 1;
    }
    if (p != (void *)va) {
      fprintf(stderr, "gpu_reuse: cannot map host memory at the freed device address %p\n",
              (void *)va);
      ++failures;
      p = mmap(NULL, gran, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    }
    fill_host(p, 11);
    exchange(1, peer, p, 11, "host memory where device memory was");
    /* 3. And back: host memory unmapped, device memory reserved at that address. */
    if (replaced) /* give the driver its inaccessible reservation back */
      mmap(p, gran, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
    else
      munmap(p, gran);
    CUdeviceptr va2 = 0;
    GPU_CHECK(cu.MemAddressReserve(&va2, gran, 0, (CUdeviceptr)p, 0));
    GPU_CHECK(cu.MemCreate(&h, gran, &prop, 0));
    GPU_CHECK(cu.MemMap(va2, gran, 0, h, 0));
    GPU_CHECK(cu.MemSetAccess(va2, gran, &acc, 1));
    skipped_h2d = va2 != (CUdeviceptr)p;
    fill_host(host, 12);
    to_device(va2, host);
    exchange(1, peer, (void *)va2, 12, "device memory where host memory was");
    GPU_CHECK(cu.MemUnmap(va2, gran));
    GPU_CHECK(cu.MemRelease(h));
    GPU_CHECK(cu.MemAddressFree(va2, gran));
  } else {
    for (unsigned seed = 10; seed <= 12; ++seed)
      exchange(0, peer, NULL, seed, "VMM reuse");
  }
  int total = 0, skipped = 0;
  MPI_Reduce(&failures, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&skipped_h2d, &skipped, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    if (total == 0)
      printf("ok gpu_reuse (%d ranks%s)\n", size,
             skipped ? "; the driver did not reserve the former host address, host->device "
                       "reuse not exercised"
                     : "");
    else
      printf("FAILED gpu_reuse: %d wrong\n", total);
  }
  MPI_Finalize();
  /* Where a multi-process run stops after the "ok" line, this tells finalize from exit. */
  fprintf(stderr, "rank %d: finalized\n", rank);
  return total == 0 ? 0 : 1;
}
