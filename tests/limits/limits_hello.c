/* tests/limits/limits_hello.c — the program of the limit tests: says hello from rank 0; with
   argument "overflow KIB", rank 1 first goes KIB KiB deep into its stack (touching every frame)
   and comes back, so that a stack smaller than that overflows. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int dig(long bytes) {
  volatile char frame[1024];
  frame[0] = (char)bytes;
  frame[sizeof frame - 1] = (char)bytes;
  if (bytes > (long)sizeof frame) return dig(bytes - (long)sizeof frame) + frame[0];
  return frame[0];
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 2 && strcmp(argv[1], "overflow") == 0 && rank == 1)
    printf("dug %d\n", dig(atol(argv[2]) * 1024));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("hello from %d ranks\n", size);
  MPI_Finalize();
  return 0;
}
