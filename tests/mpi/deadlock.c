/* deadlock: every rank first receives from its partner (rank ^ 1, or itself without one), so
 * nobody ever sends. The job must end by itself (no hang) with a non-zero status and a report on
 * stderr that says "deadlock" and names MPI_Recv (checked by the CTest properties and
 * expect_run.sh). */
#include "mpitest.h"

int main(int argc, char **argv) {
  int rank, size, peer, buf = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  peer = (rank ^ 1) < size ? rank ^ 1 : rank;
  MPI_Recv(&buf, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Send(&buf, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
  fprintf(stderr, "deadlock: NOT REACHED: rank %d received\n", rank);
  MPI_Finalize();
  return 0;
}
