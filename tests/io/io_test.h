/* tests/io/io_test.h — what the MPI-IO tests share: a temporary directory per run (made by rank 0
 * of MPI_COMM_WORLD under $TMPDIR or /tmp, its name broadcast, removed at the end, which fails if
 * a test left a file behind), file names in it, and the error class of a return code. */
#ifndef AMPI_TESTS_IO_IO_TEST_H
#define AMPI_TESTS_IO_IO_TEST_H

#include "../mpi/mpitest.h"

#include <unistd.h>

#define IO_PATH 512

static inline void io_tmpdir(char dir[IO_PATH]) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    const char *base = getenv("TMPDIR");
    snprintf(dir, IO_PATH, "%s/ampi_io_XXXXXX", base && *base ? base : "/tmp");
    CHECK(mkdtemp(dir) != NULL, "mkdtemp(%s) failed", dir);
  }
  MPI_Bcast(dir, IO_PATH, MPI_CHAR, 0, MPI_COMM_WORLD);
}

/* Removes the directory (rank 0, after everyone is done): it must be empty. */
static inline void io_rmdir(const char dir[IO_PATH]) {
  int rank;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) CHECK(rmdir(dir) == 0, "rmdir(%s): a test left a file behind", dir);
}

static inline int io_class(int rc) {
  int c = rc;
  MPI_Error_class(rc, &c);
  return c;
}

#define CHECK_CLASS(call, cls)                                                                     \
  do {                                                                                             \
    int io_rc_ = (call);                                                                           \
    CHECK(io_class(io_rc_) == (cls), "%s returned class %d, expected %s (%d)", #call,              \
          io_class(io_rc_), #cls, (int)(cls));                                                     \
  } while (0)

#endif
