/* bench/results/limits/hello.c — the smallest MPI program: the launch-time and rank-count probe
   (ampirun --vp N ./hello). */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) printf("hello from %d ranks\n", size);
  MPI_Finalize();
  return 0;
}
