/* tests/rma/rma_passive.c — passive target: rank 0 computes without calling MPI while the other
 * ranks lock its window, put, accumulate and unlock. Ranks in other processes must complete
 * while rank 0 computes: rank 0 watches its own memory (no MPI calls) until their values are
 * there (or 30 s pass: then progress needed rank 0's help, and the test fails). Ranks of one
 * process are recognised by their pid. Ranks of rank 0's
 * own process can only run once it yields; their values are checked after a barrier. So are those
 * of every rank when some rank is on another host (tests/multihost): over a network without
 * remote memory access in hardware (TCP), UCX completes that rank's operations in the target's
 * progress, which needs rank 0 in MPI, as with other MPI libraries without a progress thread
 * (the standard allows it); and while its exclusive lock waits, the other ranks' locks wait too. */
#include "../mpi/mpitest.h"

#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int magic(int r) {
  return 31 * r + 7;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int *mem = NULL;
  MPI_Win win;
  /* "create": the window is the program's own memory (MPI_Win_create), else MPI_Win_allocate's. */
  const int create = argc > 1 && strcmp(argv[1], "create") == 0;
  const MPI_Aint bytes = rank == 0 ? (size + 1) * (MPI_Aint)sizeof(int) : 0;
  if (create) {
    mem = malloc(bytes ? (size_t)bytes : 1);
    CHECK_MPI(MPI_Win_create(mem, bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  } else {
    CHECK_MPI(MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  }
  if (rank == 0) memset(mem, 0, (size + 1) * sizeof(int));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    /* Which ranks live in another process of this host (ranks of one process share its pid). */
    int *remote = calloc((size_t)size, sizeof(int)), nremote = 0;
    char host[MPI_MAX_PROCESSOR_NAME], theirs[MPI_MAX_PROCESSOR_NAME];
    int len = 0;
    MPI_Get_processor_name(host, &len);
    int other_host = 0;
    for (int r = 1; r < size; ++r) {
      MPI_Recv(&remote[r], 1, MPI_INT, r, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Recv(theirs, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, r, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      other_host |= strcmp(theirs, host) != 0;
      remote[r] = remote[r] != (int)getpid();
    }
    for (int r = 1; r < size; ++r) {
      if (other_host) remote[r] = 0;
      nremote += remote[r];
    }
    const double start = now();
    volatile int *v = mem;
    volatile double x = 1.0;
    int arrived = 0;
    while (now() - start < 30.0) {
      for (int k = 0; k < 100000; ++k)
        x = x * 1.0000001 + 1e-9; /* computing */
      arrived = 0;
      for (int r = 1; r < size; ++r)
        arrived += remote[r] && v[r] == magic(r);
      if (arrived == nremote && v[size] >= 0) break;
    }
    CHECK(arrived == nremote, "after 30 s of computing only %d of %d remote puts arrived", arrived,
          nremote);
    free(remote);
  } else {
    const int pid = (int)getpid();
    char host[MPI_MAX_PROCESSOR_NAME] = {0};
    int len = 0;
    MPI_Get_processor_name(host, &len);
    MPI_Send(&pid, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
    MPI_Send(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, 6, MPI_COMM_WORLD);
    const int type = rank % 2 ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED;
    const int m = magic(rank), one = 1;
    CHECK_MPI(MPI_Win_lock(type, 0, 0, win));
    CHECK_MPI(MPI_Put(&m, 1, MPI_INT, 0, rank, 1, MPI_INT, win));
    CHECK_MPI(MPI_Accumulate(&one, 1, MPI_INT, 0, size, 1, MPI_INT, MPI_SUM, win));
    CHECK_MPI(MPI_Win_unlock(0, win));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 1; r < size; ++r)
      CHECK(mem[r] == magic(r), "mem[%d]=%d", r, mem[r]);
    CHECK(mem[size] == size - 1, "accumulated %d, expected %d", mem[size], size - 1);
  }
  CHECK_MPI(MPI_Win_free(&win));
  if (create) free(mem);
  mt_ok(create ? "rma_passive create" : "rma_passive");
  MPI_Finalize();
  return 0;
}
