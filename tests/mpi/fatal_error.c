/* fatal_error: MPI_Send to an invalid rank under the default error handler,
 * MPI_ERRORS_ARE_FATAL. The job must end with a non-zero status and a message on stderr that
 * names MPI_Send and MPI_ERR_RANK (checked by the CTest properties and expect_run.sh). Rank 0
 * makes the bad call; the other ranks wait in MPI_Barrier, which it never reaches. */
#include "mpitest.h"

int main(int argc, char **argv) {
  int rank, size, buf = 42, rc;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    printf("fatal_error: rank 0 sends to rank %d of %d\n", size, size);
    fflush(stdout);
    rc = MPI_Send(&buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    /* Not reached with MPI_ERRORS_ARE_FATAL. */
    fprintf(stderr, "fatal_error: NOT REACHED: MPI_Send returned %d\n", rc);
    MPI_Finalize();
    return 0;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  fprintf(stderr, "fatal_error: NOT REACHED: rank %d left the barrier\n", rank);
  MPI_Finalize();
  return 0;
}
