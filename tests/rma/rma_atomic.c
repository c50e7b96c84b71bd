/* tests/rma/rma_atomic.c — MPI's accumulate atomicity under contention: every rank accumulates
 * (MPI_SUM, ints and doubles) into the same locations of rank 0 many times; Fetch_and_op tickets
 * are all distinct; a spin lock built with Compare_and_swap guards a non-atomic
 * get-increment-put, which loses no update. */
#include "../mpi/mpitest.h"

#define ROUNDS 50
#define WIDTH 4

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long *mem = NULL;
  MPI_Win win;
  /* Layout (longs): [0..WIDTH) sums, [WIDTH..2WIDTH) double sums, 2WIDTH ticket counter,
   * 2WIDTH+1 lock word, 2WIDTH+2 guarded counter, then MAX, BXOR and PROD targets. */
  const int n = 2 * WIDTH + 6;
  CHECK_MPI(MPI_Win_allocate(rank == 0 ? n * (MPI_Aint)sizeof(long) : 0, sizeof(long),
                             MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  if (rank == 0) memset(mem, 0, n * sizeof(long));
  MPI_Barrier(MPI_COMM_WORLD);

  CHECK_MPI(MPI_Win_lock_all(0, win));
  long add[WIDTH];
  double dadd[WIDTH];
  for (int i = 0; i < WIDTH; ++i)
    add[i] = (rank + 1) * (i + 1), dadd[i] = 0.5 * (rank + 1);
  long tickets[ROUNDS];
  for (int k = 0; k < ROUNDS; ++k) {
    CHECK_MPI(MPI_Accumulate(add, WIDTH, MPI_LONG, 0, 0, WIDTH, MPI_LONG, MPI_SUM, win));
    CHECK_MPI(MPI_Accumulate(dadd, WIDTH, MPI_DOUBLE, 0, WIDTH, WIDTH, MPI_DOUBLE, MPI_SUM, win));
    const long one = 1;
    CHECK_MPI(MPI_Fetch_and_op(&one, &tickets[k], MPI_LONG, 0, 2 * WIDTH, MPI_SUM, win));
    CHECK_MPI(MPI_Win_flush(0, win));
  }
  /* The CAS lock around a plain read-modify-write. */
  for (int k = 0; k < ROUNDS / 5; ++k) {
    const long zero = 0, me = rank + 1;
    long seen = -1;
    for (;;) {
      CHECK_MPI(MPI_Compare_and_swap(&me, &zero, &seen, MPI_LONG, 0, 2 * WIDTH + 1, win));
      CHECK_MPI(MPI_Win_flush(0, win));
      if (seen == 0) break;
    }
    long v = -1;
    CHECK_MPI(MPI_Get(&v, 1, MPI_LONG, 0, 2 * WIDTH + 2, 1, MPI_LONG, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    ++v;
    CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, 0, 2 * WIDTH + 2, 1, MPI_LONG, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    long back = -1;
    CHECK_MPI(MPI_Fetch_and_op(&zero, &back, MPI_LONG, 0, 2 * WIDTH + 1, MPI_REPLACE, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    CHECK(back == me, "lock word held %ld while this rank (%ld) owned it", back, me);
  }
  /* MAX, BXOR and PROD from everyone (CAS loops or atomic instructions where atomics apply). */
  const long mx = (rank * 7919L) % 1009, bx = (rank + 1) * 2654435761L, pr = rank % 2 ? -1 : 1;
  if (rank == 0) { /* PROD starts at 1 */
    const long one = 1;
    CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, 0, 2 * WIDTH + 5, 1, MPI_LONG, MPI_REPLACE, win));
  }
  CHECK_MPI(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Win_lock_all(0, win));
  CHECK_MPI(MPI_Accumulate(&mx, 1, MPI_LONG, 0, 2 * WIDTH + 3, 1, MPI_LONG, MPI_MAX, win));
  CHECK_MPI(MPI_Accumulate(&bx, 1, MPI_LONG, 0, 2 * WIDTH + 4, 1, MPI_LONG, MPI_BXOR, win));
  CHECK_MPI(MPI_Accumulate(&pr, 1, MPI_LONG, 0, 2 * WIDTH + 5, 1, MPI_LONG, MPI_PROD, win));
  CHECK_MPI(MPI_Win_unlock_all(win));

  /* Tickets: each of 0 .. size*ROUNDS-1 exactly once. Rank 0 collects them. */
  if (rank == 0) {
    const long total = (long)size * ROUNDS;
    char *seen = calloc((size_t)total, 1);
    for (int k = 0; k < ROUNDS; ++k)
      seen[tickets[k]]++;
    long buf[ROUNDS];
    for (int r = 1; r < size; ++r) {
      MPI_Recv(buf, ROUNDS, MPI_LONG, r, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (int k = 0; k < ROUNDS; ++k) {
        CHECK(buf[k] >= 0 && buf[k] < total, "ticket %ld out of range", buf[k]);
        seen[buf[k]]++;
      }
    }
    for (long t = 0; t < total; ++t)
      CHECK(seen[t] == 1, "ticket %ld seen %d times", t, seen[t]);
    free(seen);
  } else {
    MPI_Send(tickets, ROUNDS, MPI_LONG, 0, 7, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    const long ranksum = (long)size * (size + 1) / 2;
    for (int i = 0; i < WIDTH; ++i)
      CHECK(mem[i] == ROUNDS * ranksum * (i + 1), "sum[%d]=%ld expected %ld", i, mem[i],
            ROUNDS * ranksum * (i + 1));
    for (int i = 0; i < WIDTH; ++i) {
      double dv;
      memcpy(&dv, &mem[WIDTH + i], sizeof dv);
      CHECK(dv == 0.5 * ROUNDS * ranksum, "double sum[%d]=%g", i, dv);
    }
    CHECK(mem[2 * WIDTH] == (long)size * ROUNDS, "ticket counter %ld", mem[2 * WIDTH]);
    CHECK(mem[2 * WIDTH + 1] == 0, "lock word left at %ld", mem[2 * WIDTH + 1]);
    CHECK(mem[2 * WIDTH + 2] == (long)size * (ROUNDS / 5), "guarded counter %ld expected %ld",
          mem[2 * WIDTH + 2], (long)size * (ROUNDS / 5));
    long emx = 0, ebx = 0, epr = 1;
    for (int r = 0; r < size; ++r) {
      if ((r * 7919L) % 1009 > emx) emx = (r * 7919L) % 1009;
      ebx ^= (r + 1) * 2654435761L;
      epr *= r % 2 ? -1 : 1;
    }
    CHECK(mem[2 * WIDTH + 3] == emx, "max %ld expected %ld", mem[2 * WIDTH + 3], emx);
    CHECK(mem[2 * WIDTH + 4] == ebx, "bxor %ld expected %ld", mem[2 * WIDTH + 4], ebx);
    CHECK(mem[2 * WIDTH + 5] == epr, "prod %ld expected %ld", mem[2 * WIDTH + 5], epr);
  }
  /* The char types take arithmetic in accumulates (as in Open MPI and MPICH; osu_acc_latency
   * defaults to MPI_SUM on MPI_CHAR): every rank adds 1 to each of 16 chars of rank 0 and takes
   * a ticket from an unsigned char counter; the sum wraps modulo 256. */
  {
    char *cmem = NULL;
    MPI_Win cwin;
    CHECK_MPI(MPI_Win_allocate(rank == 0 ? 17 : 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &cmem, &cwin));
    if (rank == 0) memset(cmem, 0, 17);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_lock_all(0, cwin));
    char ones[16];
    memset(ones, 1, sizeof ones);
    CHECK_MPI(MPI_Accumulate(ones, 16, MPI_CHAR, 0, 0, 16, MPI_CHAR, MPI_SUM, cwin));
    const unsigned char inc = 1;
    unsigned char ticket = 0;
    CHECK_MPI(MPI_Fetch_and_op(&inc, &ticket, MPI_UNSIGNED_CHAR, 0, 16, MPI_SUM, cwin));
    CHECK_MPI(MPI_Win_unlock_all(cwin));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      for (int i = 0; i < 16; ++i)
        CHECK(cmem[i] == (char)size, "MPI_SUM on MPI_CHAR accumulate [%d]=%d want %d", i, cmem[i],
              (char)size);
      CHECK((unsigned char)cmem[16] == (unsigned char)size, "MPI_UNSIGNED_CHAR ticket counter %u",
            (unsigned char)cmem[16]);
    }
    CHECK(size > 255 || ticket < size, "ticket %u out of range", ticket);
    CHECK_MPI(MPI_Win_free(&cwin));
  }
  CHECK_MPI(MPI_Win_free(&win));
  mt_ok("rma_atomic");
  MPI_Finalize();
  return 0;
}
