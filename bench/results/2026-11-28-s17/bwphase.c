/* bench/results/2026-11-28-s17/bwphase.c — bwwin.c's osu_bw pattern (8 B, window 64) with each
 * side's phases timed per window: the sender's 64 MPI_Isend calls and its wait for the answer,
 * the receiver's 64 MPI_Irecv calls and its MPI_Waitall. Prints, per block of windows, the mean of
 * each phase in ns per message. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#define W 64
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  int n = argc > 1 ? atoi(argv[1]) : 3000, block = argc > 2 ? atoi(argv[2]) : 100;
  char buf[8 * W], ack[4] = {0};
  MPI_Request req[W];
  double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < n; ++i) {
    double t0 = now();
    if (r == 0) {
      for (int k = 0; k < W; ++k)
        MPI_Isend(buf + 8 * k, 8, MPI_CHAR, 1, 100, MPI_COMM_WORLD, &req[k]);
      MPI_Waitall(W, req, MPI_STATUSES_IGNORE);
      double t1 = now();
      MPI_Recv(ack, 4, MPI_CHAR, 1, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      a[i] = (t1 - t0) / W;
      b[i] = (now() - t1) / W;
    } else {
      for (int k = 0; k < W; ++k)
        MPI_Irecv(buf + 8 * k, 8, MPI_CHAR, 0, 100, MPI_COMM_WORLD, &req[k]);
      double t1 = now();
      MPI_Waitall(W, req, MPI_STATUSES_IGNORE);
      double t2 = now();
      MPI_Send(ack, 4, MPI_CHAR, 0, 101, MPI_COMM_WORLD);
      a[i] = (t1 - t0) / W;
      b[i] = (t2 - t1) / W;
    }
  }
  double *oa = malloc(sizeof(double) * n), *ob = malloc(sizeof(double) * n);
  if (r == 1) {
    MPI_Send(a, n, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD);
    MPI_Send(b, n, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD);
  } else {
    MPI_Recv(oa, n, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(ob, n, MPI_DOUBLE, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("block: sender isends, sender ack wait | receiver irecvs, receiver waitall (ns/msg)\n");
    for (int s = 0; s < n; s += block) {
      double x[4] = {0};
      int e = s + block < n ? s + block : n;
      for (int i = s; i < e; ++i) {
        x[0] += a[i];
        x[1] += b[i];
        x[2] += oa[i];
        x[3] += ob[i];
      }
      printf("%5d: %6.1f %6.1f | %6.1f %6.1f  total %6.1f\n", s, x[0] / (e - s), x[1] / (e - s),
             x[2] / (e - s), x[3] / (e - s), (x[0] + x[1]) / (e - s));
    }
  }
  MPI_Finalize();
  return 0;
}
