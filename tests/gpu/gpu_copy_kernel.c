/* tests/gpu/gpu_copy_kernel.c — contiguous device-to-device messages between ranks that share a
 * GPU, the sizes and alignments that the PE's resident copy kernel takes
 * (src/devptr_cache/copy_service.cpp: up to AMPI_GPU_COPY_KERNEL bytes) and those just past it,
 * each checked byte for byte against what was sent:
 * - each size at three source and destination offsets (aligned to 16, to 8, odd);
 * - a burst of 300 messages in flight at once from each sender, more than the kernel's ring holds
 *   (256: the rest go to the copy engines, and the ring's slots are reused);
 * - the same exchange repeated, so that a kernel that exited between rounds (CTest runs it with
 *   AMPI_GPU_COPY_KERNEL_IDLE=1, one microsecond, too) is launched again and resumes;
 * - strided messages, which the kernel copies straight from the sender's layout into the
 *   receiver's between ranks of one process, one descriptor per segment: each face of a 3-D grid
 *   (with ghosts) as a subarray, from the grid into the opposite ghost layer of the receiver's,
 *   for elements of 1, 2, 4, 8 and 16 bytes (the kernel takes rows of at least 32 elements; faces
 *   across x, narrower rows and faces past AMPI_GPU_COPY_KERNEL go to launched kernels), and an
 *   indexed type of uneven blocks into a vector; each receiver's whole grid is checked (the ghost
 *   face holds what was sent, every other byte is what it was).
 * Rank r sends to rank (r + size/2) % size; every buffer is distinct. */
#include "gpu_mpi_test.h"

#include <stdlib.h>
#include <string.h>

enum { kBurst = 300, kBurstBytes = 1000, kRounds = 3 };

static unsigned char pattern(int round, int msg, size_t i, int from) {
  return (unsigned char)(i * 131 + (size_t)msg * 7 + (size_t)round * 29 + (size_t)from * 17 + 1);
}

static int to_rank(void) {
  return (rank + size / 2) % size;
}
static int from_rank(void) {
  return (rank - size / 2 + size) % size;
}

static void *dev_bytes(size_t n) {
  CUdeviceptr d = 0;
  GPU_CHECK(cu.MemAlloc(&d, n ? n : 1));
  return (void *)d;
}

/* Byte i of rank `who`'s grid in strided round `round` (its initial content). */
static unsigned char grid_byte(int round, size_t i, int who) {
  return (unsigned char)(i * 7 + (size_t)round * 13 + (size_t)who * 101 + 5);
}

/* Sends face f of a grid of n[0] x n[1] x n[2] elements of `elem` (C order, a ghost layer
 * around an interior) as a subarray, and receives the sender's into ghost layer f ^ 1; returns
 * the wrong bytes of the whole receiving grid. */
static size_t face_round(int round, const int n[3], MPI_Datatype elem, int f) {
  int esize;
  MPI_Type_size(elem, &esize);
  const size_t cells = (size_t)n[0] * n[1] * n[2], bytes = cells * (size_t)esize;
  const int d = f / 2, hi = f % 2;
  int sub[3] = {n[0] - 2, n[1] - 2, n[2] - 2}, at_s[3] = {1, 1, 1}, at_r[3] = {1, 1, 1};
  sub[d] = 1;
  at_s[d] = hi ? n[d] - 2 : 1; /* the interior layer next to face f */
  at_r[d] = hi ? 0 : n[d] - 1; /* the ghost layer of the opposite face */
  MPI_Datatype st, rt;
  MPI_Type_create_subarray(3, n, sub, at_s, MPI_ORDER_C, elem, &st);
  MPI_Type_create_subarray(3, n, sub, at_r, MPI_ORDER_C, elem, &rt);
  MPI_Type_commit(&st);
  MPI_Type_commit(&rt);
  unsigned char *mine = malloc(bytes), *theirs = malloc(bytes), *got = malloc(bytes);
  if (!mine || !theirs || !got) abort();
  for (size_t i = 0; i < bytes; ++i) {
    mine[i] = grid_byte(round * 6 + f, i, rank);
    theirs[i] = grid_byte(round * 6 + f, i, from_rank());
  }
  void *sg = dev_bytes(bytes), *rg = dev_bytes(bytes);
  to_dev_bytes(sg, mine, bytes);
  to_dev_bytes(rg, mine, bytes);
  MPI_Request rq[2];
  MPI_Irecv(rg, 1, rt, from_rank(), 2000 + f, MPI_COMM_WORLD, &rq[0]);
  MPI_Isend(sg, 1, st, to_rank(), 2000 + f, MPI_COMM_WORLD, &rq[1]);
  MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
  from_dev_bytes(got, rg, bytes);
  /* Expected: our grid, with the sender's face f (its interior layer) in our ghost layer f ^ 1. */
  size_t bad = 0;
  for (int z = 0; z < n[0]; ++z)
    for (int y = 0; y < n[1]; ++y)
      for (int x = 0; x < n[2]; ++x) {
        const int c[3] = {z, y, x};
        int in_face = 1, src[3] = {z, y, x};
        for (int k = 0; k < 3; ++k) {
          if (k == d)
            in_face &= c[k] == at_r[d];
          else
            in_face &= c[k] >= 1 && c[k] <= n[k] - 2;
        }
        src[d] = at_s[d];
        const size_t cell = ((size_t)z * n[1] + y) * n[2] + x;
        const size_t from_cell = ((size_t)src[0] * n[1] + src[1]) * n[2] + src[2];
        for (int b = 0; b < esize; ++b) {
          const unsigned char want = in_face ? theirs[from_cell * (size_t)esize + (size_t)b]
                                             : mine[cell * (size_t)esize + (size_t)b];
          bad += got[cell * (size_t)esize + (size_t)b] != want;
        }
      }
  dev_free(sg);
  dev_free(rg);
  free(mine);
  free(theirs);
  free(got);
  MPI_Type_free(&st);
  MPI_Type_free(&rt);
  return bad;
}

/* An indexed type of uneven blocks of ints into a vector of the same total: several segments. */
static size_t indexed_round(int round) {
  enum { kBlocks = 9, kInts = 4096 };
  int len[kBlocks], disp[kBlocks], total = 0;
  for (int b = 0; b < kBlocks; ++b) {
    len[b] = 32 + 5 * b;
    disp[b] = b * 300 + (b % 3);
    total += len[b];
  }
  /* total = 468 = 4 x 117: a vector of 4 blocks of 117 ints, stride 130 */
  MPI_Datatype st, rt;
  MPI_Type_indexed(kBlocks, len, disp, MPI_INT, &st);
  MPI_Type_vector(4, 117, 130, MPI_INT, &rt);
  MPI_Type_commit(&st);
  MPI_Type_commit(&rt);
  const size_t bytes = kInts * sizeof(int);
  int *mine = malloc(bytes), *theirs = malloc(bytes), *got = malloc(bytes);
  if (!mine || !theirs || !got) abort();
  for (int i = 0; i < kInts; ++i) {
    mine[i] = rank * 100000 + round * 10000 + i;
    theirs[i] = from_rank() * 100000 + round * 10000 + i;
  }
  void *sg = dev_bytes(bytes), *rg = dev_bytes(bytes);
  to_dev_bytes(sg, mine, bytes);
  to_dev_bytes(rg, mine, bytes);
  MPI_Request rq[2];
  MPI_Irecv(rg, 1, rt, from_rank(), 3000, MPI_COMM_WORLD, &rq[0]);
  MPI_Isend(sg, 1, st, to_rank(), 3000, MPI_COMM_WORLD, &rq[1]);
  MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
  from_dev_bytes(got, rg, bytes);
  int *want = malloc(bytes);
  if (!want) abort();
  memcpy(want, mine, bytes);
  int b = 0, j = 0; /* the next int sent: block b, j-th of it */
  for (int v = 0; v < 4; ++v)
    for (int e = 0; e < 117; ++e) {
      want[v * 130 + e] = theirs[disp[b] + j];
      if (++j == len[b]) j = 0, ++b;
    }
  size_t bad = 0;
  for (int i = 0; i < kInts; ++i)
    bad += got[i] != want[i];
  dev_free(sg);
  dev_free(rg);
  free(mine);
  free(theirs);
  free(got);
  free(want);
  MPI_Type_free(&st);
  MPI_Type_free(&rt);
  return bad;
}

int main(int argc, char **argv) {
  if (gpu_init() != 0) {
    printf("SKIPPED gpu_copy_kernel: no GPU\n");
    return 77;
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int to = to_rank(), from = from_rank();
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

    /* Strided: faces of grids of 1-16 byte elements, then several segments in one message. */
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
    MPI_Type_commit(&pair);
    const struct {
      MPI_Datatype type;
      int n[3];
    } grids[] = {/* rows of at least 32 units of the copy (odd rows keep the
                    unit the element's size): the kernel's, but across x */
                 {MPI_CHAR, {6, 5, 43}},
                 {MPI_SHORT, {5, 6, 37}},
                 {MPI_FLOAT, {5, 5, 35}},
                 {MPI_DOUBLE, {34, 34, 35}},
                 {pair, {4, 5, 34}},
                 /* narrower rows (launched kernels) */
                 {MPI_CHAR, {13, 11, 17}},
                 {MPI_DOUBLE, {9, 10, 11}},
                 /* faces across z past 256 KiB (launched kernels) */
                 {MPI_DOUBLE, {8, 234, 234}}};
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; ++g)
      for (int f = 0; f < 6; ++f) {
        const size_t wrong = face_round(round, grids[g].n, grids[g].type, f);
        EXPECT(wrong == 0, "round %d: grid %zu (%dx%dx%d), face %d: %zu bytes wrong", round, g,
               grids[g].n[0], grids[g].n[1], grids[g].n[2], f, wrong);
      }
    MPI_Type_free(&pair);
    const size_t wrong = indexed_round(round);
    EXPECT(wrong == 0, "round %d: indexed into vector: %zu ints wrong", round, wrong);
  }
  dev_free(sbuf);
  dev_free(rbuf);
  free(host);
  free(chk);
  return finish("gpu_copy_kernel");
}
