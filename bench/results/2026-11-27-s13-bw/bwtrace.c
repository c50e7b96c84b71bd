/* bwtrace.c — osu_bw's loop (window of 64 MPI_Isend / MPI_Irecv on one buffer, Waitall, a 1-byte
 * reply), each window timed on its own, to see whether osu_bw's slow rounds are slow throughout
 * or a few stalled windows: bwtrace SIZE WINDOWS; rank 0 prints percentiles of MB/s per window
 * and the time series (per 1/20 of the run, the MB/s of that slice). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me; MPI_Comm_rank(MPI_COMM_WORLD, &me);
  size_t size = argc > 1 ? strtoul(argv[1], 0, 0) : 65536;
  int n = argc > 2 ? atoi(argv[2]) : 2000, w = 64, skip = 10;
  char *s, *r; posix_memalign((void **)&s, 4096, size); posix_memalign((void **)&r, 4096, size);
  memset(s, 'a', size); memset(r, 'b', size);
  double *t = malloc(sizeof(double) * n);
  MPI_Request req[64];
  for (int i = -skip; i < n; i++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (me == 0) {
      for (int j = 0; j < w; j++) MPI_Isend(s, (int)size, MPI_CHAR, 1, 100, MPI_COMM_WORLD, &req[j]);
      MPI_Waitall(w, req, MPI_STATUSES_IGNORE);
      MPI_Recv(r, 1, MPI_CHAR, 1, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      for (int j = 0; j < w; j++) MPI_Irecv(r, (int)size, MPI_CHAR, 0, 100, MPI_COMM_WORLD, &req[j]);
      MPI_Waitall(w, req, MPI_STATUSES_IGNORE);
      MPI_Send(s, 1, MPI_CHAR, 0, 101, MPI_COMM_WORLD);
    }
    if (i >= 0) t[i] = MPI_Wtime() - t0;
  }
  if (me == 0) {
    printf("%zu B x %d windows: series (MB/s per 1/20):", size, n);
    for (int k = 0; k < 20; k++) {
      double sum = 0; for (int i = k * n / 20; i < (k + 1) * n / 20; i++) sum += t[i];
      printf(" %.0f", size * w * (double)(n / 20) / sum / 1e6);
    }
    double tot = 0; for (int i = 0; i < n; i++) tot += t[i];
    qsort(t, n, sizeof(double), cmp);
    printf("\n  overall %.0f MB/s; per window MB/s p10 %.0f p50 %.0f p90 %.0f min %.0f\n", size * w * (double)n / tot / 1e6,
           size * w / t[n * 9 / 10] / 1e6, size * w / t[n / 2] / 1e6, size * w / t[n / 10] / 1e6, size * w / t[n - 1] / 1e6);
  }
  MPI_Finalize();
  return 0;
}
