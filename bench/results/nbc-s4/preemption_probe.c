/* OSU-like pure-communication loop (1000 iterations): mean of the per-rank means, as OSU prints,
   with the median window and the PE thread's involuntary context switches during the loop. */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int nb = atoi(argv[1]), iters = atoi(argv[2]);
  double *w = malloc(sizeof(double) * iters);
  double s = 1, r;
  MPI_Request q;
  struct rusage a, b;
  for (int i = 0; i < 100; ++i) {
    MPI_Iallreduce(&s, &r, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Allreduce(&s, &r, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  getrusage(RUSAGE_THREAD, &a);
  for (int i = 0; i < iters; ++i) {
    double t = MPI_Wtime();
    if (nb) {
      MPI_Iallreduce(&s, &r, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &q);
      MPI_Wait(&q, MPI_STATUS_IGNORE);
    } else
      MPI_Allreduce(&s, &r, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    w[i] = (MPI_Wtime() - t) * 1e6;
    MPI_Barrier(MPI_COMM_WORLD);
  }
  getrusage(RUSAGE_THREAD, &b);
  double sum = 0, big = 0;
  for (int i = 0; i < iters; ++i) {
    sum += w[i];
    if (w[i] > 100) big += w[i];
  }
  qsort(w, iters, sizeof(double), cmp);
  double v[3] = {sum / iters, w[iters / 2], big / iters}, t[3];
  MPI_Reduce(v, t, 3, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("%s mean %.2f median %.2f from-windows>100us %.2f ivcsw %ld\n", nb ? "I" : "B",
           t[0] / size, t[1] / size, t[2] / size, b.ru_nivcsw - a.ru_nivcsw);
  MPI_Finalize();
}
