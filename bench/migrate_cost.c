/* bench/migrate_cost.c — what one MPIX_Migrate costs (issue 22): the median time of ITERS calls
 * under the strategy STRATEGY (hint ampi_lb: "none", a synchronisation point; "rotate", every
 * movable rank moves to the next PE of its process), each rank touching BYTES of its own memory
 * between calls (its working set, which the next PE's caches do not hold yet).
 * Usage: ampirun -np P --vp V --pes-per-process T migrate_cost STRATEGY [ITERS] [BYTES]
 * Prints: "migrate <strategy> ranks <V> us <median> moved <rank moves per call>". */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *strategy = argc > 1 ? argv[1] : "rotate";
  const int iters = argc > 2 ? atoi(argv[2]) : 50;
  const size_t bytes = argc > 3 ? (size_t)atol(argv[3]) : 64 * 1024;
  MPI_Info hints;
  MPI_Info_create(&hints);
  MPI_Info_set(hints, "ampi_lb", strategy);
  char *work = malloc(bytes);
  memset(work, 1, bytes);
  double *t = malloc(sizeof(double) * (size_t)iters);
  int moves = 0;
  MPIX_Migrate(hints); /* the first call makes the private communicator */
  for (int i = 0; i < iters; ++i) {
    for (size_t b = 0; b < bytes; b += 64)
      work[b]++;
    int before, after;
    MPIX_Get_pe(&before);
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    MPIX_Migrate(hints);
    double dt = MPI_Wtime() - t0, slowest = 0;
    MPI_Allreduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    t[i] = slowest;
    MPIX_Get_pe(&after);
    moves += after != before;
  }
  int all_moves = 0;
  MPI_Reduce(&moves, &all_moves, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  qsort(t, (size_t)iters, sizeof *t, cmp);
  if (rank == 0)
    printf("migrate %s ranks %d us %.1f moved %.1f\n", strategy, size, t[iters / 2] * 1e6,
           (double)all_moves / iters);
  free(t);
  free(work);
  MPI_Info_free(&hints);
  MPI_Finalize();
  return 0;
}
