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
  /* 4-byte integers, which the UCX mode sends as network atomics for sum, replace and
   * compare-and-swap (the bitwise operations take the accumulate lock): each rank takes ROUNDS
   * tickets from an int counter, sets its bit in a BOR word and clears it in a BAND word, flips a
   * BXOR word, swaps its rank into a REPLACE word and claims an unsigned flag with Compare_and_swap
   * exactly once among all ranks. */
  {
    int *imem = NULL;
    MPI_Win iwin;
    CHECK_MPI(MPI_Win_allocate(rank == 0 ? 6 * sizeof(int) : 0, sizeof(int), MPI_INFO_NULL,
                               MPI_COMM_WORLD, &imem, &iwin));
    if (rank == 0) {
      memset(imem, 0, 6 * sizeof(int));
      imem[2] = -1;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_lock_all(0, iwin));
    const int one = 1, bit = 1 << (rank % 31), clear = ~(1 << (rank % 31));
    int prev = -1, last = -1;
    for (int k = 0; k < ROUNDS; ++k) {
      CHECK_MPI(MPI_Fetch_and_op(&one, &prev, MPI_INT, 0, 0, MPI_SUM, iwin));
      CHECK(prev >= 0 && prev < ROUNDS * size, "int ticket %d out of range", prev);
    }
    CHECK_MPI(MPI_Accumulate(&bit, 1, MPI_INT, 0, 1, 1, MPI_INT, MPI_BOR, iwin));
    CHECK_MPI(MPI_Accumulate(&clear, 1, MPI_INT, 0, 2, 1, MPI_INT, MPI_BAND, iwin));
    CHECK_MPI(MPI_Accumulate(&bit, 1, MPI_INT, 0, 3, 1, MPI_INT, MPI_BXOR, iwin));
    CHECK_MPI(MPI_Fetch_and_op(&rank, &last, MPI_INT, 0, 4, MPI_REPLACE, iwin));
    /* The word starts at 0 and each rank swaps its rank in once: no rank but 0 sees its own. */
    CHECK(last >= 0 && last < size && (last != rank || rank == 0), "replace fetched %d", last);
    const unsigned want = 0, mine = (unsigned)rank + 1;
    unsigned seen = 99;
    CHECK_MPI(MPI_Compare_and_swap(&mine, &want, &seen, MPI_UNSIGNED, 0, 5, iwin));
    CHECK(seen == 0 || (seen >= 1 && seen <= (unsigned)size && seen != mine),
          "compare_and_swap saw %u", seen);
    CHECK_MPI(MPI_Win_unlock_all(iwin));
    /* Exactly one rank saw 0 (it claimed the flag). */
    int claimed = seen == 0, claims = 0;
    MPI_Allreduce(&claimed, &claims, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(claims == 1, "%d ranks claimed the compare_and_swap flag", claims);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      int ebor = 0, ebxor = 0;
      for (int r = 0; r < size; ++r) {
        ebor |= 1 << (r % 31);
        ebxor ^= 1 << (r % 31);
      }
      CHECK(imem[0] == ROUNDS * size, "int ticket counter %d want %d", imem[0], ROUNDS * size);
      CHECK(imem[1] == ebor, "bor %#x want %#x", (unsigned)imem[1], (unsigned)ebor);
      CHECK(imem[2] == ~ebor, "band %#x want %#x", (unsigned)imem[2], (unsigned)~ebor);
      CHECK(imem[3] == ebxor, "bxor %#x want %#x", (unsigned)imem[3], (unsigned)ebxor);
      CHECK(imem[4] >= 0 && imem[4] < size, "replace left %d", imem[4]);
      CHECK(imem[5] >= 1 && imem[5] <= size, "compare_and_swap flag %d", imem[5]);
    }
    CHECK_MPI(MPI_Win_free(&iwin));
  }
  CHECK_MPI(MPI_Win_free(&win));
  mt_ok("rma_atomic");
  MPI_Finalize();
  return 0;
}
