/* abort_code: the last rank calls MPI_Abort(MPI_COMM_WORLD, 7) while the others wait in
 * MPI_Barrier; the job must end with status 7 (checked by expect_run.sh -s 7). */
#include "mpitest.h"

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == size - 1) {
    printf("abort_code: rank %d calls MPI_Abort(MPI_COMM_WORLD, 7)\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 7);
    fprintf(stderr, "abort_code: NOT REACHED: MPI_Abort returned\n");
    return 0;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  fprintf(stderr, "abort_code: NOT REACHED: rank %d left the barrier\n", rank);
  MPI_Finalize();
  return 0;
}
