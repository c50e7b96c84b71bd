/* tests/mpi/p2p_large_many.c — volume: a 64 MiB message from rank 0 to the last rank (and back),
 * checked word for word; then 10,000 Isends from every odd rank to the rank below it before the
 * first Wait, received in order and checked. Works for any rank count. */
#include "mpitest.h"

#include <stdint.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* 64 MiB there and back between the first and the last rank. */
  const size_t words = (64u << 20) / sizeof(uint64_t);
  const int last = size - 1;
  if (rank == 0 || rank == last) {
    uint64_t *buf = malloc(words * sizeof *buf);
    CHECK(buf != NULL, "cannot allocate 64 MiB");
    if (rank == 0) {
      for (size_t i = 0; i < words; ++i)
        buf[i] = i * 2654435761u + 7;
      if (size > 1) {
        CHECK_MPI(MPI_Send(buf, (int)words, MPI_UINT64_T, last, 1, MPI_COMM_WORLD));
        memset(buf, 0, words * sizeof *buf);
        MPI_Status st;
        CHECK_MPI(MPI_Recv(buf, (int)words, MPI_UINT64_T, last, 2, MPI_COMM_WORLD, &st));
        int count = -1;
        MPI_Get_count(&st, MPI_UINT64_T, &count);
        CHECK(count == (int)words, "returned count %d, expected %zu", count, words);
      }
      for (size_t i = 0; i < words; ++i)
        CHECK(buf[i] == (i * 2654435761u + 7) + (size > 1 ? 1 : 0), "word %zu differs", i);
    } else {
      CHECK_MPI(MPI_Recv(buf, (int)words, MPI_UINT64_T, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      for (size_t i = 0; i < words; ++i) {
        CHECK(buf[i] == i * 2654435761u + 7, "received word %zu differs", i);
        buf[i] += 1;
      }
      CHECK_MPI(MPI_Send(buf, (int)words, MPI_UINT64_T, 0, 2, MPI_COMM_WORLD));
    }
    free(buf);
  }

  /* 10,000 outstanding Isends before the first Wait. */
  enum { N = 10000 };
  if (rank % 2 == 1) {
    int *vals = malloc(N * sizeof *vals);
    MPI_Request *reqs = malloc(N * sizeof *reqs);
    for (int i = 0; i < N; ++i) {
      vals[i] = rank * 100000 + i;
      CHECK_MPI(MPI_Isend(&vals[i], 1, MPI_INT, rank - 1, 3, MPI_COMM_WORLD, &reqs[i]));
    }
    CHECK_MPI(MPI_Waitall(N, reqs, MPI_STATUSES_IGNORE));
    free(vals);
    free(reqs);
  } else if (rank + 1 < size) {
    for (int i = 0; i < N; ++i) {
      int v = -1;
      CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, rank + 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(v == (rank + 1) * 100000 + i, "message %d carried %d (order broken?)", i, v);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  mt_ok("p2p_large_many");
  MPI_Finalize();
  return 0;
}
