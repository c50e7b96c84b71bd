/* tests/privatize/priv_fallback.c — a program run without per-rank copies (built with -fPIE, so
 * it reaches optarg through a copy relocation; or with AMPI_PRIVATIZE=off): it still runs, its
 * constructor runs exactly once, from the library, before the ranks start, and getopt works.
 * fallback_test.sh checks the start-up warning. */
#include <mpi.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

int constructed; /* one copy for all ranks here */

__attribute__((constructor)) static void construct(void) {
  ++constructed;
}

int main(int argc, char **argv) {
  int c, n = 0;
  while ((c = getopt(argc, argv, "n:")) != -1)
    if (c == 'n') n = atoi(optarg);
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Finalize();
  if (rank == 0) printf("fallback ok constructed=%d n=%d\n", constructed, n);
  return 0;
}
