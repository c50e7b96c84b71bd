/* tests/smp/smp_deadlock.c — every rank receives from its partner (rank ^ 1) before sending: a
 * deadlock, which the job must report ("deadlock", each rank blocked in MPI_Recv) and end with a
 * failure, whether the ranks share a PE or live on PEs (threads) of one or several processes. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, v = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Recv(&v, 1, MPI_INT, (rank ^ 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  printf("NOT REACHED\n");
  MPI_Finalize();
  return 0;
}
