/* bench/rma_pingpong.c — one-sided latency and bandwidth between ranks 0 and 1, in the manner of
 * the OSU benchmarks (osu_put_latency, osu_get_latency, osu_put_bw, osu_get_bw with the
 * lock + flush synchronisation): plain MPI-3, builds with any MPI's mpicc.
 *
 *   rma_pingpong [max_bytes [iterations]]     (defaults: 4194304, 1000)
 *
 * Rank 0 locks rank 1's window once (MPI_Win_lock shared), then
 *   latency:   per iteration one MPI_Put (MPI_Get) of `size` bytes and MPI_Win_flush;
 *   bandwidth: per iteration 64 MPI_Puts (MPI_Gets) of `size` bytes, then one MPI_Win_flush.
 * Prints: size, put latency (us), get latency (us), put bandwidth (MB/s), get bandwidth (MB/s).
 * Other ranks, if any, only take part in window creation and the barriers. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 64

static int iters_for(long size, int iters) {
  if (size >= 1 << 20) return iters / 20 > 10 ? iters / 20 : 10;
  if (size >= 1 << 16) return iters / 4 > 10 ? iters / 4 : 10;
  return iters;
}

static double latency(int put, char *buf, long size, int iters, MPI_Win win) {
  const int warm = iters / 10 + 1;
  double t0 = 0;
  for (int i = 0; i < iters + warm; ++i) {
    if (i == warm) t0 = MPI_Wtime();
    if (put)
      MPI_Put(buf, (int)size, MPI_CHAR, 1, 0, (int)size, MPI_CHAR, win);
    else
      MPI_Get(buf, (int)size, MPI_CHAR, 1, 0, (int)size, MPI_CHAR, win);
    MPI_Win_flush(1, win);
  }
  return (MPI_Wtime() - t0) * 1e6 / iters;
}

static double bandwidth(int put, char *buf, long size, int iters, MPI_Win win) {
  const int warm = iters / 10 + 1;
  double t0 = 0;
  for (int i = 0; i < iters + warm; ++i) {
    if (i == warm) t0 = MPI_Wtime();
    for (int k = 0; k < WINDOW; ++k) {
      if (put)
        MPI_Put(buf, (int)size, MPI_CHAR, 1, 0, (int)size, MPI_CHAR, win);
      else
        MPI_Get(buf, (int)size, MPI_CHAR, 1, 0, (int)size, MPI_CHAR, win);
    }
    MPI_Win_flush(1, win);
  }
  const double t = MPI_Wtime() - t0;
  return (double)size * WINDOW * iters / t / 1e6;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long max = argc > 1 ? atol(argv[1]) : 4194304;
  const int iters = argc > 2 ? atoi(argv[2]) : 1000;
  if (size < 2) {
    if (rank == 0) fprintf(stderr, "rma_pingpong needs at least 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char *mem = NULL;
  MPI_Win win;
  MPI_Win_allocate(rank <= 1 ? max : 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  char *buf = malloc((size_t)max);
  memset(buf, rank + 1, (size_t)max);
  if (rank <= 1) memset(mem, 0, (size_t)max);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    printf("# ampi/MPI one-sided: lock once, flush per operation (latency) or per %d (bandwidth)\n",
           WINDOW);
    printf("# %10s %12s %12s %14s %14s\n", "bytes", "put_us", "get_us", "put_MB/s", "get_MB/s");
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    for (long s = 1; s <= max; s *= 2) {
      const int n = iters_for(s, iters);
      const double pl = latency(1, buf, s, n, win);
      const double gl = latency(0, buf, s, n, win);
      const int nb = n / 10 > 2 ? n / 10 : 2;
      const double pb = bandwidth(1, buf, s, nb, win);
      const double gb = bandwidth(0, buf, s, nb, win);
      printf("%12ld %12.3f %12.3f %14.1f %14.1f\n", s, pl, gl, pb, gb);
      fflush(stdout);
    }
    MPI_Win_unlock(1, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  free(buf);
  MPI_Finalize();
  return 0;
}
