/* bench/results/2026-11-28-s16/pp.c — an 8-byte ping-pong between ranks 0 and 1 that times every
 * iteration and prints the slow ones (> 3 us) with their iteration number and time since the start:
 * how the ring pages' first-touch cost showed up as two slow iterations in every 64.
 *   mpicc -O2 pp.c -o pp && ampirun -np 2 ./pp 40000 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  int n = argc > 1 ? atoi(argv[1]) : 20000;
  char buf[8] = {0};
  double *t = malloc(sizeof(double) * n), *at = malloc(sizeof(double) * n);
  MPI_Barrier(MPI_COMM_WORLD);
  double t00 = MPI_Wtime();
  for (int i = 0; i < n; ++i) {
    double t0 = MPI_Wtime();
    if (r == 0) {
      MPI_Send(buf, 8, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
      MPI_Recv(buf, 8, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf, 8, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, 8, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
    }
    t[i] = (MPI_Wtime() - t0) * 1e6 / 2;
    at[i] = (t0 - t00) * 1e3;
  }
  if (r == 0) {
    int slow = 0;
    for (int i = 0; i < n; ++i)
      if (t[i] > 3) {
        if (slow < 70) printf("iter %6d at %8.3f ms: %7.2f us\n", i, at[i], t[i]);
        ++slow;
      }
    printf("slow (>3us): %d of %d\n", slow, n);
  }
  MPI_Finalize();
}
