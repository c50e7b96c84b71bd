/* bench/nbc_latency.c — the cost of a non-blocking collective against its blocking form, side by
 * side in one run so that both see the same machine load: per batch, `iters` calls of
 * MPI_Allreduce, then `iters` of MPI_Iallreduce + MPI_Wait, then (MPI-4) `iters` of MPI_Start +
 * MPI_Wait on one MPI_Allreduce_init request; prints the median and the minimum per-call time of
 * each over the batches, and the ratios of the medians. Short batches, many of them: on a loaded
 * machine a batch that the OS preempted is an outlier the median ignores (a 2000-call batch was
 * preempted most of the time on the 2-core VM shared by six builds: 0.3 CPUs utilized).
 * Plain MPI (MPI-4 for the persistent form: -DNO_PERSISTENT without it).
 *   usage: nbc_latency [bytes [iters [batches]]]  (default 8 B, 200 calls, 201 batches) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int bytes = argc > 1 ? atoi(argv[1]) : 8;
  const int iters = argc > 2 ? atoi(argv[2]) : 200;
  int batches = argc > 3 ? atoi(argv[3]) : 201;
  if (batches > 1000) batches = 1000;
  if (batches < 1) batches = 1;
  const int n = bytes / (int)sizeof(int) > 0 ? bytes / (int)sizeof(int) : 1;
  int *in = calloc((size_t)n, sizeof(int)), *out = calloc((size_t)n, sizeof(int));
  /* (on the heap: ranks may be threads of one process) */
  double *blocking = malloc(sizeof(double) * (size_t)batches),
         *nonblocking = malloc(sizeof(double) * (size_t)batches),
         *persistent = malloc(sizeof(double) * (size_t)batches);
#ifndef NO_PERSISTENT
  MPI_Request preq;
  MPI_Allreduce_init(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &preq);
#endif
  for (int b = -1; b < batches; ++b) { /* batch -1 warms up */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; ++i)
      MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    double t1 = MPI_Wtime();
    MPI_Barrier(MPI_COMM_WORLD);
    double t2 = MPI_Wtime();
    for (int i = 0; i < iters; ++i) {
      MPI_Request r;
      MPI_Iallreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    double t3 = MPI_Wtime();
    MPI_Barrier(MPI_COMM_WORLD);
    double t4 = MPI_Wtime();
#ifndef NO_PERSISTENT
    for (int i = 0; i < iters; ++i) {
      MPI_Start(&preq);
      MPI_Wait(&preq, MPI_STATUS_IGNORE);
    }
#endif
    double t5 = MPI_Wtime();
    if (b >= 0) {
      blocking[b] = (t1 - t0) * 1e6 / iters;
      nonblocking[b] = (t3 - t2) * 1e6 / iters;
      persistent[b] = (t5 - t4) * 1e6 / iters;
    }
  }
#ifndef NO_PERSISTENT
  MPI_Request_free(&preq);
#endif
  if (rank == 0) {
    double mb = median(blocking, batches), mn = median(nonblocking, batches),
           mp = median(persistent, batches); /* (sorted now: [0] is the minimum) */
    printf("# ranks %d, %d B, %d batches of %d calls, us per call: median (min)\n", size, n * 4,
           batches, iters);
    printf("allreduce %.3f (%.3f) iallreduce+wait %.3f (%.3f) ratio %.2f", mb, blocking[0], mn,
           nonblocking[0], mn / mb);
#ifndef NO_PERSISTENT
    printf(" allreduce_init:start+wait %.3f (%.3f) ratio %.2f", mp, persistent[0], mp / mb);
#endif
    printf("\n");
  }
  free(in);
  free(out);
  free(blocking);
  free(nonblocking);
  free(persistent);
  MPI_Finalize();
  return 0;
}
