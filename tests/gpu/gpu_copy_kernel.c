/* tests/gpu/gpu_copy_kernel.c — contiguous device-to-device messages between ranks that share a
 * GPU, the sizes and alignments that the PE's resident copy kernel takes
 * (src/devptr_cache/copy_service.cpp: up to AMPI_GPU_COPY_KERNEL bytes) and those just past it,
 * each checked byte for byte against what was sent:
 * - each size at three source and destination offsets (aligned to 16, to 8, odd);
 * - a burst of 300 messages in flight at once from each sender, more than the kernel's ring holds
 *   (256: the rest go to the copy engines, and the ring's slots are reused);
 * - the same exchange repeated, so that a kernel that exited between rounds (CTest runs it with
 *   AMPI_GPU_COPY_KERNEL_IDLE=1, one microsecond, too) is launched again and resumes.
 * Rank r sends to rank (r + size/2) % size; every buffer is distinct. */
#include "gpu_mpi_test.h"

#include <stdlib.h>
#include <string.h>

enum { kBurst = 300, kBurstBytes = 1000, kRounds = 3 };

static unsigned char pattern(int round, int msg, size_t i, int from) {
  return (unsigned char)(i * 131 + (size_t)msg * 7 + (size_t)round * 29 + (size_t)from * 17 + 1);
}

static void *dev_bytes(size_t n) {
  CUdeviceptr d = 0;
  GPU_CHECK(cu.MemAlloc(&d, n ? n : 1));
  return (void *)d;
}

int main(int argc, char **argv) {
  if (gpu_init() != 0) {
    printf("SKIPPED gpu_copy_kernel: no GPU\n");
    return 77;
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int to = (rank + size / 2) % size, from = (rank - size / 2 + size) % size;
  static const size_t sizes[] = {1, 7, 8, 16, 1000, 4099, 131072, 262144, 262145, 1 << 20};
  static const size_t offsets[] = {0, 8, 3};
  const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
  const size_t cap = (1 << 20) + 64;
  unsigned char *host = malloc(cap), *chk = malloc(cap);
  void *sbuf = dev_bytes(cap), *rbuf = dev_bytes(cap);
  if (!host || !chk) abort();

  for (int round = 0; round < kRounds; ++round) {
    /* Sizes and offsets, one message at a time. */
    for (int s = 0; s < nsizes; ++s)
      for (int o = 0; o < 3; ++o) {
        const size_t n = sizes[s], off = offsets[o];
        const int id = s * 3 + o;
        for (size_t i = 0; i < n; ++i)
          host[i] = pattern(round, id, i, rank);
        to_dev_bytes((char *)sbuf + off, host, n);
        GPU_CHECK(cu.MemsetD8((CUdeviceptr)rbuf, 0, cap));
        GPU_CHECK(cu.CtxSynchronize());
        MPI_Request rq[2];
        MPI_Irecv((char *)rbuf + off, (int)n, MPI_BYTE, from, id, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend((char *)sbuf + off, (int)n, MPI_BYTE, to, id, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        from_dev_bytes(chk, rbuf, n + off + 16);
        size_t bad = 0;
        for (size_t i = 0; i < n; ++i)
          bad += chk[off + i] != pattern(round, id, i, from);
        for (size_t i = 0; i < off; ++i)
          bad += chk[i] != 0; /* nothing before the receive buffer... */
        for (size_t i = off + n; i < off + n + 16; ++i)
          bad += chk[i] != 0; /* ...nor after it */
        EXPECT(bad == 0, "round %d: %zu bytes at offset %zu: %zu bytes wrong", round, n, off, bad);
      }
    /* A burst: kBurst messages of kBurstBytes in flight from each sender at once. */
    char *sb = dev_bytes((size_t)kBurst * kBurstBytes),
         *rb = dev_bytes((size_t)kBurst * kBurstBytes);
    unsigned char *hb = malloc((size_t)kBurst * kBurstBytes);
    if (!hb) abort();
    for (int m = 0; m < kBurst; ++m)
      for (size_t i = 0; i < kBurstBytes; ++i)
        hb[(size_t)m * kBurstBytes + i] = pattern(round, 1000 + m, i, rank);
    to_dev_bytes(sb, hb, (size_t)kBurst * kBurstBytes);
    MPI_Request *rq = malloc(2 * kBurst * sizeof *rq);
    if (!rq) abort();
    for (int m = 0; m < kBurst; ++m)
      MPI_Irecv(rb + (size_t)m * kBurstBytes, kBurstBytes, MPI_BYTE, from, 1000 + m, MPI_COMM_WORLD,
                &rq[m]);
    MPI_Barrier(MPI_COMM_WORLD); /* every receive posted: the copies start as the sends come */
    for (int m = 0; m < kBurst; ++m)
      MPI_Isend(sb + (size_t)m * kBurstBytes, kBurstBytes, MPI_BYTE, to, 1000 + m, MPI_COMM_WORLD,
                &rq[kBurst + m]);
    MPI_Waitall(2 * kBurst, rq, MPI_STATUSES_IGNORE);
    from_dev_bytes(hb, rb, (size_t)kBurst * kBurstBytes);
    size_t bad = 0;
    for (int m = 0; m < kBurst; ++m)
      for (size_t i = 0; i < kBurstBytes; ++i)
        bad += hb[(size_t)m * kBurstBytes + i] != pattern(round, 1000 + m, i, from);
    EXPECT(bad == 0, "round %d: burst of %d messages: %zu bytes wrong", round, kBurst, bad);
    free(rq);
    free(hb);
    dev_free(sb);
    dev_free(rb);
  }
  dev_free(sbuf);
  dev_free(rbuf);
  free(host);
  free(chk);
  return finish("gpu_copy_kernel");
}
