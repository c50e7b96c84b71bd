/* tests/migrate/migrate_state.c — what may and may not move at MPIX_Migrate (issue 22), under the
 * "rotate" strategy (hint ampi_lb) with PES PEs per process (argument).
 *
 * Before each migration every rank sends its right neighbour a small message (eager: its data
 * travels with it) and, on the odd rounds, a large one (its data stays in the sender's buffer
 * until the receiver reads it), both received only after the migration. The sender of the large
 * one has a send in progress, and its receiver an unexpected message whose data is still in that
 * buffer: neither may move, and each must still get the right data afterwards. On the even
 * rounds, ranks with rank % 4 == 1 hold an open window (MPI_COMM_SELF): they stay too. The others
 * (but each PE's leader) move. Checked: every payload, that no rank with such state changed PE,
 * and that some did move. Last, an MPI_Iallreduce of the even ranks in progress across the point
 * keeps every rank where it is. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "rank %d: FAILED %s: ", rank, #cond);                                        \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fprintf(stderr, "\n");                                                                       \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                \
    }                                                                                              \
  } while (0)

enum { kLarge = 1 << 20, kRounds = 4 }; /* above every eager limit */

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int per = argc > 1 ? atoi(argv[1]) : 1;
  MPI_Info hints;
  MPI_Info_create(&hints);
  MPI_Info_set(hints, "ampi_lb", "rotate");
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int *big = malloc(kLarge), *got = malloc(kLarge);
  int moved = 0, stayed_ok = 0;
  for (int round = 0; round < kRounds; ++round) {
    for (int i = 0; i < kLarge / (int)sizeof(int); ++i)
      big[i] = rank * 7919 + round * 31 + i;
    int small = rank * 10 + round, small_in = -1;
    MPI_Request sreq[2];
    MPI_Isend(&small, 1, MPI_INT, right, 1, MPI_COMM_WORLD, &sreq[0]);
    const int with_large = round % 2 == 1;
    if (with_large)
      MPI_Isend(big, kLarge / (int)sizeof(int), MPI_INT, right, 2, MPI_COMM_WORLD, &sreq[1]);
    MPI_Win win = MPI_WIN_NULL;
    int wbuf = 0;
    const int with_window = round % 2 == 0 && rank % 4 == 1;
    if (with_window) MPI_Win_create(&wbuf, sizeof wbuf, 1, MPI_INFO_NULL, MPI_COMM_SELF, &win);
    /* every message of this round has been handled at its destination before anyone migrates:
       the small one sits as unexpected, the large one as a note naming the sender's buffer */
    int before, after;
    MPIX_Get_pe(&before);
    MPIX_Migrate(hints);
    MPIX_Get_pe(&after);
    CHECK(after / per == before / per, "round %d: left its process (PE %d -> %d)", round, before,
          after);
    if (with_large || with_window) {
      CHECK(after == before, "round %d: moved (PE %d -> %d) with %s", round, before, after,
            with_large ? "a large send in progress" : "an open window");
      ++stayed_ok;
    }
    moved += after != before;
    MPI_Recv(&small_in, 1, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(small_in == left * 10 + round, "round %d: small message %d", round, small_in);
    if (with_large) {
      MPI_Status st;
      MPI_Recv(got, kLarge / (int)sizeof(int), MPI_INT, left, 2, MPI_COMM_WORLD, &st);
      int n = 0;
      MPI_Get_count(&st, MPI_INT, &n);
      CHECK(n == kLarge / (int)sizeof(int), "round %d: large message of %d ints", round, n);
      for (int i = 0; i < n; ++i)
        CHECK(got[i] == left * 7919 + round * 31 + i, "round %d: large message [%d] = %d", round, i,
              got[i]);
    }
    MPI_Waitall(with_large ? 2 : 1, sreq, MPI_STATUSES_IGNORE);
    if (with_window) MPI_Win_free(&win);
  }
  /* A non-blocking collective in progress across the point, on the even ranks only, keeps every
   * rank in place (the odd ones too: the layout of a communicator they may share with the even
   * ones is in its schedule), and completes after it. */
  {
    MPI_Comm evens;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &evens);
    int before, after, sum = -1;
    MPI_Request r = MPI_REQUEST_NULL;
    if (rank % 2 == 0) MPI_Iallreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, evens, &r);
    MPIX_Get_pe(&before);
    MPIX_Migrate(hints);
    MPIX_Get_pe(&after);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(after == before, "moved (PE %d -> %d) with a non-blocking collective in progress", before,
          after);
    int want = 0;
    for (int i = 0; i < size; i += 2)
      want += i;
    CHECK(rank % 2 != 0 || sum == want, "Iallreduce across the migration point: %d, not %d", sum,
          want);
    MPI_Comm_free(&evens);
  }
  int moved_all = 0;
  MPI_Allreduce(&moved, &moved_all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (per > 1) CHECK(moved_all > 0, "nobody moved in %d rounds", kRounds);
  free(big);
  free(got);
  MPI_Info_free(&hints);
  if (rank == 0) printf("ok migrate_state: %d moves\n", moved_all);
  MPI_Finalize();
  return 0;
}
