/* tests/p2p/protocol_debug.c — sends one message per protocol class from rank 0 to rank 1 (8 B,
 * 1 MiB, and an 8 B MPI_Ssend), so that AMPI_DEBUG_PROTOCOL=1 has something to print: the test
 * (tests/p2p/CMakeLists.txt) checks which back-end and protocol stderr names for each. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int big = 1 << 20;
  char *buf = calloc(big, 1);
  if (size >= 2 && rank == 0) {
    MPI_Send(buf, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
    MPI_Send(buf, big, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
    MPI_Ssend(buf, 8, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
  } else if (size >= 2 && rank == 1) {
    MPI_Recv(buf, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(buf, big, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(buf, 8, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
