/* RSS growth of process 0 as it sends one message to every other process (one endpoint each). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
static long rss_kb(void) {
  FILE *f = fopen("/proc/self/status", "r"); char line[256]; long kb = -1;
  while (fgets(line, sizeof line, f)) if (!strncmp(line, "VmRSS:", 6)) kb = atol(line + 6);
  fclose(f); return kb;
}
int main(int argc, char **argv) {
  int rank, size, x = 1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Barrier(MPI_COMM_WORLD); /* endpoints to the barrier's peers: counted in `before` */
  if (rank == 0) {
    long before = rss_kb();
    for (int p = 1; p < size; ++p) MPI_Send(&x, 1, MPI_INT, p, 0, MPI_COMM_WORLD);
    for (int p = 1; p < size; ++p) MPI_Recv(&x, 1, MPI_INT, p, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    long after = rss_kb();
    printf("np %d: rss before %ld kB after %ld kB: %.1f kB per new endpoint (upper bound)\n", size, before, after, (after - before) / (double)(size - 1));
  } else {
    MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
