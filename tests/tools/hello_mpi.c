/* tests/tools/hello_mpi.c — the smallest MPI program, used by the compiler-wrapper tests.
 * Valid C and C++. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank = -1, size = -1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  printf("hello from rank %d of %d\n", rank, size);
  MPI_Finalize();
  return 0;
}
