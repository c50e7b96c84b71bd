/* exit_code: rank 0 returns 3 from main after MPI_Finalize, the others return 0; ampirun must
 * exit with status 3 (checked by expect_run.sh -s 3). */
#include "mpitest.h"

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  if (rank == 0) {
    printf("exit_code: rank 0 returns 3\n");
    return 3;
  }
  return 0;
}
