/* stdout_lines: every rank prints 100 numbered lines to stdout, interleaved with the other ranks
 * (a barrier every 10 lines), without flushing; expect_run.sh counts size * 100 distinct
 * well-formed lines. */
#include "mpitest.h"

int main(int argc, char **argv) {
  int rank, size, i;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (i = 0; i < 100; ++i) {
    printf("line rank=%d i=%d of size=%d\n", rank, i, size);
    if (i % 10 == 9) MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  mt_ok("stdout_lines");
  MPI_Finalize();
  return 0;
}
