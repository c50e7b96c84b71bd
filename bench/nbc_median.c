/* bench/nbc_median.c — OSU's pure-communication loop for one collective (8 B), non-blocking (the
 * call + MPI_Wait) or blocking, timed per iteration: prints the mean over ranks of each rank's
 * median window, and the mean OSU would print. The median ignores the windows that an OS
 * preemption of the PE lands in (milliseconds each), which dominate OSU's mean on a loaded
 * machine (bench/results/nbc-s4/preemption.txt).
 *   nbc_median OP NB ITERS    OP: allreduce barrier bcast reduce allgather; NB: 1 or 0 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void one(const char *op, int nb, double *s, double *r) {
  MPI_Request q = MPI_REQUEST_NULL;
  if (!strcmp(op, "allreduce")) {
    if (nb)
      MPI_Iallreduce(s, r, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &q);
    else
      MPI_Allreduce(s, r, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  } else if (!strcmp(op, "barrier")) {
    if (nb)
      MPI_Ibarrier(MPI_COMM_WORLD, &q);
    else
      MPI_Barrier(MPI_COMM_WORLD);
  } else if (!strcmp(op, "bcast")) {
    if (nb)
      MPI_Ibcast(s, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD, &q);
    else
      MPI_Bcast(s, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  } else if (!strcmp(op, "reduce")) {
    if (nb)
      MPI_Ireduce(s, r, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD, &q);
    else
      MPI_Reduce(s, r, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  } else { /* allgather: 8 B per rank */
    if (nb)
      MPI_Iallgather(s, 1, MPI_DOUBLE, r, 1, MPI_DOUBLE, MPI_COMM_WORLD, &q);
    else
      MPI_Allgather(s, 1, MPI_DOUBLE, r, 1, MPI_DOUBLE, MPI_COMM_WORLD);
  }
  if (nb) MPI_Wait(&q, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *op = argc > 1 ? argv[1] : "allreduce";
  const int nb = argc > 2 ? atoi(argv[2]) : 1, iters = argc > 3 ? atoi(argv[3]) : 10000;
  double *w = malloc(sizeof(double) * (size_t)iters), s[1] = {1},
         *r = malloc(sizeof(double) * (size_t)size);
  for (int i = 0; i < 200; ++i)
    one(op, nb, s, r);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < iters; ++i) {
    const double t = MPI_Wtime();
    one(op, nb, s, r);
    w[i] = (MPI_Wtime() - t) * 1e6;
    MPI_Barrier(MPI_COMM_WORLD);
  }
  double sum = 0;
  for (int i = 0; i < iters; ++i)
    sum += w[i];
  qsort(w, (size_t)iters, sizeof(double), cmp);
  double v[2] = {w[iters / 2], sum / iters}, t[2];
  MPI_Reduce(v, t, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("%.3f %.3f\n", t[0] / size, t[1] / size);
  free(w), free(r);
  MPI_Finalize();
  return 0;
}
