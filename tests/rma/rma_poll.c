/* tests/rma/rma_poll.c — a passive-target polling loop that calls nothing but one-sided
 * operations and MPI_Win_flush gives the other ranks of its PE their turn: ranks take turns in a
 * ring by polling a counter in rank 0's window with MPI_Fetch_and_op(MPI_NO_OP) and
 * MPI_Win_flush only (as MPICH's linked-list benchmarks poll a list), and each adds one when the
 * counter shows its turn. Where operations on a window of the same process finish at once, such
 * a loop never blocked, and a waiting rank kept the PE from the rank it waited for (the job spun
 * at 100% CPU until its time limit). */
#include "../mpi/mpitest.h"

#define ROUNDS 20

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long *counter = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(rank == 0 ? (MPI_Aint)sizeof(long) : 0, sizeof(long), MPI_INFO_NULL,
                             MPI_COMM_WORLD, &counter, &win));
  if (rank == 0) *counter = 0;
  MPI_Barrier(MPI_COMM_WORLD);

  CHECK_MPI(MPI_Win_lock_all(0, win));
  const long one = 1, none = 0;
  for (int round = 0; round < ROUNDS; ++round) {
    const long turn = (long)round * size + rank;
    long seen = -1;
    for (;;) {
      CHECK_MPI(MPI_Fetch_and_op(&none, &seen, MPI_LONG, 0, 0, MPI_NO_OP, win));
      CHECK_MPI(MPI_Win_flush(0, win));
      CHECK(seen <= turn, "counter %ld passed this rank's turn %ld", seen, turn);
      if (seen == turn) break;
    }
    CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_SUM, win));
    CHECK_MPI(MPI_Win_flush(0, win));
  }
  CHECK_MPI(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    CHECK(*counter == (long)ROUNDS * size, "counter %ld, expected %ld", *counter,
          (long)ROUNDS * size);
  CHECK_MPI(MPI_Win_free(&win));
  mt_ok("rma_poll");
  MPI_Finalize();
  return 0;
}
