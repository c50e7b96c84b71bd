/* busy_sender.c — a split copy must not make the receiver wait for a sender that is busy outside
 * MPI: rank 0 posts MPI_Isend of SIZE bytes, computes for 20 ms, then waits; rank 1 times its
 * MPI_Recv (median of 20). With the receiver doing the whole copy when the sender never comes to
 * its half, the time is one copy's, not 20 ms. busy_sender SIZE */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me; MPI_Comm_rank(MPI_COMM_WORLD, &me);
  size_t n = argc > 1 ? strtoul(argv[1], 0, 0) : 1 << 20;
  char *b = malloc(n); memset(b, me, n);
  double t[20];
  for (int i = 0; i < 20; i++) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
      MPI_Request r;
      MPI_Isend(b, (int)n, MPI_CHAR, 1, 0, MPI_COMM_WORLD, &r);
      double t0 = MPI_Wtime();
      volatile double x = 0;
      while (MPI_Wtime() - t0 < 0.02) x += 1;
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else {
      double t0 = MPI_Wtime();
      MPI_Recv(b, (int)n, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      t[i] = MPI_Wtime() - t0;
      if (b[0] != 0 || b[n - 1] != 0) printf("wrong data\n");
    }
  }
  if (me == 1) { qsort(t, 20, sizeof(double), cmp); printf("%zu B: receive with the sender busy, median %.1f us, max %.1f us\n", n, t[10] * 1e6, t[19] * 1e6); }
  MPI_Finalize();
  return 0;
}
