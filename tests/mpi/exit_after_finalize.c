/* exit_after_finalize: every rank calls exit(0) after MPI_Finalize (rank 0 prints "ok" first).
 * The job must end cleanly with status 0 and nothing on stderr about exit. */
#include "mpitest.h"

int main(int argc, char **argv) {
  int rank, size, finalized = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  MPI_Finalized(&finalized);
  if (!finalized) {
    fprintf(stderr, "FAIL [rank %d]: MPI_Finalized is false after MPI_Finalize\n", rank);
    return 1;
  }
  if (rank == 0) {
    printf("ok exit_after_finalize (%d ranks)\n", size);
    fflush(stdout);
  }
  exit(0);
  fprintf(stderr, "exit_after_finalize: NOT REACHED: rank %d returned from exit(0)\n", rank);
  return 1;
}
