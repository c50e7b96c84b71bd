/* failure_modes: one way for a job to go wrong per mode (argv[1]); the job must end promptly with
 * the right status and message, and leave no process behind (tests/mpi/no_survivors.sh checks).
 * argv[2] is a token that only this test's processes carry, so the check finds exactly them.
 *   crash        the last rank dies of SIGSEGV after a barrier; the others wait in a receive
 *   abort        the last rank calls MPI_Abort(MPI_COMM_WORLD, 9); the others wait in a receive
 *   nofinalize   the last rank returns from main without MPI_Finalize; the others finalize
 *   exit         the last rank calls exit(5) between MPI_Init and MPI_Finalize
 *   deadlock     every rank receives from its partner first (across processes)
 *   hang         every rank sleeps in a loop without calling MPI (for ampirun --timeout) */
#include "mpitest.h"

#include <signal.h>
#include <unistd.h>

int main(int argc, char **argv) {
  int rank, size, buf = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *mode = argc > 1 ? argv[1] : "";
  const int last = rank == size - 1;
  if (strcmp(mode, "crash") == 0 || strcmp(mode, "abort") == 0) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (last) {
      if (mode[0] == 'c') raise(SIGSEGV);
      MPI_Abort(MPI_COMM_WORLD, 9);
    }
    MPI_Recv(&buf, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (strcmp(mode, "nofinalize") == 0) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (last) return 0;
  } else if (strcmp(mode, "exit") == 0) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (last) exit(5);
    MPI_Recv(&buf, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (strcmp(mode, "deadlock") == 0) {
    const int peer = (rank ^ 1) < size ? rank ^ 1 : rank;
    MPI_Recv(&buf, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (strcmp(mode, "hang") == 0) {
    for (;;)
      sleep(1);
  } else {
    fprintf(stderr, "failure_modes: unknown mode '%s'\n", mode);
    return 2;
  }
  fprintf(stderr, "failure_modes: NOT REACHED (rank %d, mode %s)\n", rank, mode);
  MPI_Finalize();
  return 0;
}
