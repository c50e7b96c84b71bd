/* bench/pingpong.c — one-way latency of a blocking ping-pong between ranks 0 and 1, for a range
 * of message sizes: the median of several timed batches, so one noisy batch does not decide.
 * Plain MPI: builds with any MPI's mpicc, so the same source compares libraries side by side.
 *   usage: pingpong [min_bytes [max_bytes [batches]]]  (default 8 .. 4 MiB, 9 batches)
 * PINGPONG_SKEW=N: rank 1's buffer starts N bytes further into its allocation, so that between
 * ranks of one process the receive buffer lies N bytes past the send buffer modulo 4 KiB (two
 * large malloc'ed buffers otherwise share their offset within a page): N in 1-31 is where
 * glibc's rep movsb is slow on AMD Zen 3 (bench/results/copy/). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    if (rank == 0) fprintf(stderr, "pingpong needs at least 2 ranks\n");
    MPI_Finalize();
    return 1;
  }
  long min = argc > 1 ? atol(argv[1]) : 8;
  long max = argc > 2 ? atol(argv[2]) : 4L << 20;
  int batches = argc > 3 ? atoi(argv[3]) : 9;
  if (batches > 64) batches = 64;
  const char *skew_env = getenv("PINGPONG_SKEW");
  const size_t skew = rank == 1 && skew_env ? (size_t)atol(skew_env) % 4096 : 0;
  char *base = malloc((size_t)max + 1 + skew);
  char *buf = base + skew;
  memset(buf, 'x', (size_t)max + 1);
  if (rank == 0) printf("# %-10s %14s %14s\n", "bytes", "latency_us", "bandwidth_MB/s");
  for (long n = min; n <= max; n = n ? n * 2 : 1) {
    int iters = n <= 4096 ? 200000 : n <= (1L << 20) ? 2000 : 200;
    iters /= batches > 0 ? 1 : 1;
    double t[64];
    for (int b = 0; b < batches; ++b) {
      int per = iters / batches > 10 ? iters / batches : 10;
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      for (int i = 0; i < per; ++i) {
        if (rank == 0) {
          MPI_Send(buf, (int)n, MPI_CHAR, 1, 7, MPI_COMM_WORLD);
          MPI_Recv(buf, (int)n, MPI_CHAR, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
          MPI_Recv(buf, (int)n, MPI_CHAR, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send(buf, (int)n, MPI_CHAR, 0, 7, MPI_COMM_WORLD);
        }
      }
      t[b] = (MPI_Wtime() - t0) / per / 2 * 1e6;
    }
    qsort(t, (size_t)batches, sizeof t[0], cmp);
    double med = t[batches / 2];
    if (rank == 0) printf("  %-10ld %14.3f %14.1f\n", n, med, n / med);
    if (n == 0 && max == 0) break;
  }
  free(base);
  MPI_Finalize();
  return 0;
}
