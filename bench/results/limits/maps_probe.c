/* bench/results/limits/maps_probe.c — counts the process's memory mappings once all ranks are up:
   run with --vp 10 and --vp 210 to see what one rank costs (stack, copy of the program). */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    FILE *f = fopen("/proc/self/maps", "r");
    int c, n = 0;
    while ((c = fgetc(f)) != EOF)
      n += c == '\n';
    fclose(f);
    printf("%d ranks: %d maps\n", size, n);
  }
  MPI_Finalize();
  return 0;
}
