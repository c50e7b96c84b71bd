/* tests/p2p/shm_sigkill.c — for shm_sigkill.sh: rank 0 sends rank 1 one small message (through
 * the same-host rings), then each rank writes its pid to $SHM_SIGKILL_DIR/pid.<rank> and waits
 * to be killed. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, v = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
  if (rank == 1) MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
  const char *dir = getenv("SHM_SIGKILL_DIR");
  char path[4096], tmp[4096];
  snprintf(path, sizeof path, "%s/pid.%d", dir ? dir : ".", rank);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) return 1;
  fprintf(f, "%d\n", (int)getpid());
  fclose(f);
  rename(tmp, path); /* appears whole */
  for (;;)
    pause(); /* until SIGKILL */
}
