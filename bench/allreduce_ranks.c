/* bench/allreduce_ranks.c — MPI_Allreduce (MPI_FLOAT, MPI_SUM) latency per message size, one
 * program that builds unchanged with our mpicc, Charm++'s ampicc and Open MPI's mpicc, so that
 * ranks of one process (ours: ampirun --vp N; Charm++'s AMPI: +p1 +vpN) and N processes of Open
 * MPI run the same timing loop (bench/allreduce_ranks.sh runs them side by side).
 *
 *   allreduce_ranks [min_bytes [max_bytes [rounds [max_iters]]]]   (defaults 8, 1 MiB, 7, 2000)
 *
 * Sizes go 8 B, 64 B, 512 B, 4 KiB, 16 KiB, 64 KiB, 256 KiB, 1 MiB (x8 to 4 KiB, then x4). Per
 * size: a warm-up, then `rounds` timed rounds of `iters` calls; a round's time is the slowest
 * rank's (MAX over ranks, outside the timing). Printed by rank 0, one line per size: bytes ranks
 * iters wall_us cpu_us wall_us: median over rounds of the time per call. cpu_us: the same for the
 * calling OS thread's CPU time (CLOCK_THREAD_CPUTIME_ID), meaningful where all ranks are user-level
 * threads of one OS thread (ours and AMPI with one PE): it does not grow when other processes take
 * the core, so it compares builds on a loaded machine. For Open MPI's processes it counts their
 * busy polling. Each size's result is checked once (every element must be the sum of the ranks'
 * values).
 *
 * No mutable globals and no getopt: with Charm++'s AMPI, the virtual ranks of one process share
 * the program's globals unless privatised. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Calls per round: many for small sizes (the clock's resolution, per-call noise), fewer for large
 * ones (a round of 64 ranks x 1 MiB moves ~64 MiB per call). */
static int iters_for(long bytes, int ranks, int max_iters) {
  long it = (64L << 20) / (bytes * ranks);
  if (it > max_iters) it = max_iters;
  if (it < 10) it = 10 < max_iters ? 10 : max_iters;
  return (int)it;
}

static long next_size(long b) {
  return b < 4096 ? b * 8 : b * 4;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long min_bytes = argc > 1 ? strtol(argv[1], NULL, 10) : 8;
  const long max_bytes = argc > 2 ? strtol(argv[2], NULL, 10) : 1L << 20;
  const int rounds = argc > 3 ? atoi(argv[3]) : 7;
  /* (Open MPI with 64 processes on 2 cores takes ~50 ms per call: fewer calls there.) */
  const int max_iters = argc > 4 ? atoi(argv[4]) : 2000;
  if (min_bytes < 4 || max_bytes < min_bytes || rounds < 1 || rounds > 1000 || max_iters < 1) {
    if (rank == 0)
      fprintf(stderr, "usage: allreduce_ranks [min_bytes [max_bytes [rounds [max_iters]]]]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  /* Separate malloc'ed buffers per rank, as an application has them (their relative alignment
   * is whatever malloc gives). */
  float *in = malloc((size_t)max_bytes);
  float *out = malloc((size_t)max_bytes);
  double *wall = malloc(sizeof(double) * (size_t)rounds);
  double *cpu = malloc(sizeof(double) * (size_t)rounds);
  if (!in || !out || !wall || !cpu) MPI_Abort(MPI_COMM_WORLD, 3);
  if (rank == 0) printf("# bytes ranks iters wall_us cpu_us\n");
  for (long bytes = min_bytes; bytes <= max_bytes; bytes = next_size(bytes)) {
    const int count = (int)(bytes / (long)sizeof(float));
    for (int i = 0; i < count; ++i)
      in[i] = (float)(rank + i % 7);
    /* Check: element i is sum over ranks of (rank + i % 7), exact in float for these sizes. */
    MPI_Allreduce(in, out, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    int bad = 0;
    for (int i = 0; i < count; ++i) {
      const double want = (double)size * (size - 1) / 2 + (double)size * (i % 7);
      if ((double)out[i] != want) {
        bad = 1;
        break;
      }
    }
    int anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (anybad) {
      if (rank == 0) fprintf(stderr, "allreduce_ranks: wrong result at %ld bytes\n", bytes);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const int iters = iters_for(bytes, size, max_iters);
    for (int i = 0; i < iters / 10 + 2; ++i)
      MPI_Allreduce(in, out, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    for (int r = 0; r < rounds; ++r) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime(), c0 = cpu_now();
      for (int i = 0; i < iters; ++i)
        MPI_Allreduce(in, out, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      double mine[2] = {MPI_Wtime() - t0, cpu_now() - c0}, worst[2];
      MPI_Reduce(mine, worst, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      wall[r] = worst[0] / iters * 1e6;
      cpu[r] = worst[1] / iters * 1e6;
    }
    if (rank == 0)
      printf("%ld %d %d %.3f %.3f\n", bytes, size, iters, median(wall, rounds),
             median(cpu, rounds));
    fflush(stdout);
  }
  free(in);
  free(out);
  free(wall);
  free(cpu);
  MPI_Finalize();
  return 0;
}
