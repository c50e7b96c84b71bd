/* tests/rma/rma_dynamic.c — MPI_Win_create_dynamic: every rank attaches two buffers, publishes
 * their addresses, and its right neighbour puts into one and gets from the other; then detach
 * and attach a new buffer, and access it again. */
#include "../mpi/mpitest.h"

#include <stdint.h>

#define N 32

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Win win;
  CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  long *a = malloc(N * sizeof(long)), *b = malloc(N * sizeof(long)), *c = malloc(N * sizeof(long));
  for (int i = 0; i < N; ++i)
    a[i] = 0, b[i] = rank * 10000 + i, c[i] = -1;
  CHECK_MPI(MPI_Win_attach(win, a, N * sizeof(long)));
  CHECK_MPI(MPI_Win_attach(win, b, N * sizeof(long)));
  /* Addresses of every rank's a and b, through an allreduce of slots. */
  MPI_Aint *addr = calloc(2 * (size_t)size, sizeof(MPI_Aint)),
           *all = calloc(2 * (size_t)size, sizeof(MPI_Aint));
  addr[2 * rank] = (MPI_Aint)(intptr_t)a; /* MPI_Get_address, without needing it */
  addr[2 * rank + 1] = (MPI_Aint)(intptr_t)b;
  MPI_Allreduce(addr, all, 2 * size, MPI_AINT, MPI_SUM, MPI_COMM_WORLD);
  long src[N], got[N];
  for (int i = 0; i < N; ++i)
    src[i] = rank * 7 + i;
  CHECK_MPI(MPI_Win_lock_all(0, win));
  CHECK_MPI(MPI_Put(src, N, MPI_LONG, right, all[2 * right], N, MPI_LONG, win));
  CHECK_MPI(MPI_Get(got, N - 8, MPI_LONG, left, all[2 * left + 1] + 8 * sizeof(long), N - 8,
                    MPI_LONG, win));
  CHECK_MPI(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < N; ++i)
    CHECK(a[i] == left * 7 + i, "put: a[%d]=%ld", i, a[i]);
  for (int i = 0; i < N - 8; ++i)
    CHECK(got[i] == left * 10000 + i + 8, "get: got[%d]=%ld", i, got[i]);
  /* Outside every region: MPI_ERR_RMA_RANGE. */
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
  int rc = MPI_Get(got, 2, MPI_LONG, right, all[2 * right + 1] + (N - 1) * sizeof(long), 2,
                   MPI_LONG, win);
  CHECK(mt_class(rc) == MPI_ERR_RMA_RANGE, "access past a region gave %d", rc);
  CHECK_MPI(MPI_Win_unlock(right, win));
  /* Replace region a by c. */
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Win_detach(win, a));
  CHECK_MPI(MPI_Win_attach(win, c, N * sizeof(long)));
  memset(addr, 0, 2 * (size_t)size * sizeof(MPI_Aint));
  addr[2 * rank] = (MPI_Aint)(intptr_t)c;
  MPI_Allreduce(addr, all, 2 * size, MPI_AINT, MPI_SUM, MPI_COMM_WORLD);
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Accumulate(src, N, MPI_LONG, right, all[2 * right], N, MPI_LONG, MPI_SUM, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int i = 0; i < N; ++i)
    CHECK(c[i] == left * 7 + i - 1, "accumulate: c[%d]=%ld", i, c[i]);
  CHECK_MPI(MPI_Win_detach(win, b));
  CHECK_MPI(MPI_Win_detach(win, c));
  CHECK_MPI(MPI_Win_free(&win));
  free(a), free(b), free(c), free(addr), free(all);
  mt_ok("rma_dynamic");
  MPI_Finalize();
  return 0;
}
