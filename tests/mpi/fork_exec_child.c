/* tests/mpi/fork_exec_child.c — a program that a rank starts with fork and exec (as HDF5's
 * t_cache_image runs a serial copy of itself) inherits the job's environment (AMPI_VP, the PMIx
 * variables) but is not a process of the job: it must start as a singleton of one rank. Rank 0
 * runs this program again with the argument "child"; the child checks that MPI_COMM_WORLD has one
 * rank (before the fix it ran main once per virtual rank, or hung joining the job over several
 * processes) and exits 0; rank 0 checks its exit status. */
#include "mpitest.h"

#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "child") == 0) {
    MPI_Init(&argc, &argv);
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Finalize();
    if (size != 1) fprintf(stderr, "fork_exec_child: the child has %d ranks, not 1\n", size);
    return size == 1 ? 0 : 3;
  }
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    fflush(NULL);
    const pid_t pid = fork();
    CHECK(pid >= 0, "fork failed");
    if (pid == 0) {
      char *args[] = {argv[0], "child", NULL};
      execv("/proc/self/exe", args);
      _exit(127);
    }
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid, "waitpid failed");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the child ended with status 0x%x (exit code %d)", status,
          WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    printf("fork_exec_child: ok\n");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
