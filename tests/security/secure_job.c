/* tests/security/secure_job.c — the job that tests/security/*.sh attack or kill.
 *
 *   secure_job wait    every rank prints "ready rank R pid P" (then a barrier); rank 0 then reads
 * one line from the standard input (the test's go-ahead, once its attacks are over), broadcasts it,
 * and every rank adds its rank in an MPI_Allreduce; rank 0 prints "sum S of N ranks: <line>"
 *   secure_job hang    every rank prints "ready rank R pid P" (then a barrier), then all wait in a
 *                      barrier that
 *                      rank 0 never enters (until the test kills something)
 *   secure_job segv R  rank R writes through a bad pointer (0x10), after a barrier
 *   secure_job overflow R   rank R recurses until its stack overflows
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int recurse(volatile char *previous, int depth) {
  volatile char frame[4096];
  frame[0] = (char)depth;
  frame[4095] = previous ? previous[0] : 0;
  return recurse(frame, depth + 1) + frame[1];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *mode = argc > 1 ? argv[1] : "wait";
  if (strcmp(mode, "wait") == 0 || strcmp(mode, "hang") == 0) {
    printf("ready rank %d pid %ld\n", rank, (long)getpid());
    fflush(stdout);
    /* Ranks are user-level threads: rank 0 blocked in read() or pause() holds up its process's
     * other ranks, so every rank says it is ready first. */
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (strcmp(mode, "wait") == 0) {
    char line[128] = "";
    if (rank == 0 && fgets(line, sizeof line, stdin) == NULL) strcpy(line, "(no line)\n");
    MPI_Bcast(line, sizeof line, MPI_CHAR, 0, MPI_COMM_WORLD);
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("sum %d of %d ranks: %s", sum, size, line);
  } else if (strcmp(mode, "hang") == 0) {
    if (rank != 0)
      MPI_Barrier(MPI_COMM_WORLD);
    else
      for (;;)
        pause();
  } else if (strcmp(mode, "segv") == 0 && argc > 2) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == atoi(argv[2])) *(volatile int *)(size_t)0x10 = 1;
    MPI_Barrier(MPI_COMM_WORLD);
  } else if (strcmp(mode, "overflow") == 0 && argc > 2) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == atoi(argv[2])) printf("%d\n", recurse(NULL, 0));
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
