/* bench/results/2026-11-28-s17/bwwin.c — osu_bw's pattern (rank 0 posts a window of 64 MPI_Isend
 * of `size` bytes, rank 1 64 MPI_Irecv, both MPI_Waitall, rank 1 answers with 4 bytes), timing
 * every window from the job's start: how the cost per message evolves over the job's first
 * milliseconds, where OSU's default iterations measure the small sizes.
 *   mpicc -O2 bwwin.c -o bwwin && ampirun -np 2 ./bwwin 8 3000 100 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#define W 64
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  int size = argc > 1 ? atoi(argv[1]) : 8;
  int n = argc > 2 ? atoi(argv[2]) : 3000;
  int block = argc > 3 ? atoi(argv[3]) : 100;
  char *buf = malloc((size_t)size * W + 64);
  char ack[4] = {0};
  MPI_Request req[W];
  double *t = malloc(sizeof(double) * n), *at = malloc(sizeof(double) * n);
  MPI_Barrier(MPI_COMM_WORLD);
  double t00 = MPI_Wtime();
  for (int i = 0; i < n; ++i) {
    double t0 = MPI_Wtime();
    if (r == 0) {
      for (int k = 0; k < W; ++k)
        MPI_Isend(buf + (size_t)k * size, size, MPI_CHAR, 1, 100, MPI_COMM_WORLD, &req[k]);
      MPI_Waitall(W, req, MPI_STATUSES_IGNORE);
      MPI_Recv(ack, 4, MPI_CHAR, 1, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (r == 1) {
      for (int k = 0; k < W; ++k)
        MPI_Irecv(buf + (size_t)k * size, size, MPI_CHAR, 0, 100, MPI_COMM_WORLD, &req[k]);
      MPI_Waitall(W, req, MPI_STATUSES_IGNORE);
      MPI_Send(ack, 4, MPI_CHAR, 0, 101, MPI_COMM_WORLD);
    }
    t[i] = (MPI_Wtime() - t0) * 1e9 / W; /* ns per message */
    at[i] = (t0 - t00) * 1e3;
  }
  if (r == 0 && getenv("BWWIN_HIST")) {
    const double edges[] = {110, 120, 130, 140, 160, 180, 200, 250, 300, 500, 1000, 1e30};
    int cnt[12] = {0};
    for (int i = 0; i < n; ++i) {
      int k = 0;
      while (t[i] > edges[k]) ++k;
      ++cnt[k];
    }
    for (int k = 0; k < 12; ++k)
      printf("<= %6.0f ns/msg: %5d windows\n", edges[k], cnt[k]);
  } else if (r == 0) {
    for (int b = 0; b < n; b += block) {
      double sum = 0, mn = 1e30;
      int e = b + block < n ? b + block : n;
      for (int i = b; i < e; ++i) {
        sum += t[i];
        if (t[i] < mn) mn = t[i];
      }
      printf("windows %5d-%5d from %8.3f ms: mean %7.1f ns/msg, min %7.1f\n", b, e - 1, at[b],
             sum / (e - b), mn);
    }
  }
  MPI_Finalize();
  return 0;
}
