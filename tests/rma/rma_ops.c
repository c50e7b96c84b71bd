/* tests/rma/rma_ops.c — every RMA operation under every synchronisation mode, on a ring: each
 * rank's window holds N ints; results are checked against values computed from the ranks. */
#include "../mpi/mpitest.h"

#define N 16

static int val(int rank, int i) {
  return rank * 1000 + i + 1;
}

static void fill(int *win, int n, int v) {
  for (int i = 0; i < n; ++i)
    win[i] = v;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int *mem = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(4 * N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                             &win));
  int src[N], dst[N], res[N];
  for (int i = 0; i < N; ++i)
    src[i] = val(rank, i);

  /* --- fence: put to the right, get from the left, accumulate SUM everywhere --- */
  fill(mem, 4 * N, 0);
  for (int i = 0; i < N; ++i)
    mem[3 * N + i] = val(rank, i) * 2;
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Put(src, N, MPI_INT, right, 0, N, MPI_INT, win));
  CHECK_MPI(MPI_Get(dst, N, MPI_INT, left, 3 * N, N, MPI_INT, win));
  for (int t = 0; t < size; ++t)
    CHECK_MPI(MPI_Accumulate(src, N, MPI_INT, t, N, N, MPI_INT, MPI_SUM, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int i = 0; i < N; ++i) {
    CHECK(mem[i] == val(left, i), "fence put: mem[%d]=%d, expected %d", i, mem[i], val(left, i));
    CHECK(dst[i] == val(left, i) * 2, "fence get: dst[%d]=%d", i, dst[i]);
    long sum = 0;
    for (int r = 0; r < size; ++r)
      sum += val(r, i);
    CHECK(mem[N + i] == sum, "fence accumulate: mem[%d]=%d, expected %ld", N + i, mem[N + i], sum);
  }
  /* Get_accumulate (fetches the old value) and MPI_REPLACE / MPI_NO_OP. */
  CHECK_MPI(
      MPI_Get_accumulate(src, N, MPI_INT, res, N, MPI_INT, right, 0, N, MPI_INT, MPI_REPLACE, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int i = 0; i < N; ++i) {
    CHECK(res[i] == val(rank, i), "get_accumulate old: res[%d]=%d", i, res[i]);
    CHECK(mem[i] == val(left, i), "get_accumulate replace: mem[%d]=%d", i, mem[i]);
  }
  CHECK_MPI(
      MPI_Get_accumulate(NULL, 0, MPI_INT, res, N, MPI_INT, left, 0, N, MPI_INT, MPI_NO_OP, win));
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  {
    const int ll = (left + size - 1) % size;
    for (int i = 0; i < N; ++i)
      CHECK(res[i] == val(ll, i), "no_op: res[%d]=%d", i, res[i]);
  }

  /* --- post/start/complete/wait: the left neighbour writes into me --- */
  MPI_Group world_group, left_group, right_group;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  MPI_Group_incl(world_group, 1, &left, &left_group);
  MPI_Group_incl(world_group, 1, &right, &right_group);
  fill(mem, 4 * N, -1);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Win_post(left_group, 0, win));
  CHECK_MPI(MPI_Win_start(right_group, 0, win));
  CHECK_MPI(MPI_Put(src, N, MPI_INT, right, 2 * N, N, MPI_INT, win));
  int one = 1;
  CHECK_MPI(MPI_Accumulate(&one, 1, MPI_INT, right, 0, 1, MPI_INT, MPI_SUM, win));
  CHECK_MPI(MPI_Win_complete(win));
  if (rank % 2) {
    CHECK_MPI(MPI_Win_wait(win));
  } else {
    int flag = 0;
    while (!flag)
      CHECK_MPI(MPI_Win_test(win, &flag));
  }
  for (int i = 0; i < N; ++i)
    CHECK(mem[2 * N + i] == val(left, i), "pscw: mem[%d]=%d", i, mem[2 * N + i]);
  CHECK(mem[0] == 0, "pscw accumulate: mem[0]=%d", mem[0]); /* -1 + 1 */

  /* --- lock/unlock: exclusive put, shared get, flushes inside the epoch --- */
  MPI_Barrier(MPI_COMM_WORLD);
  fill(mem, 4 * N, 7);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
  CHECK_MPI(MPI_Put(src, N, MPI_INT, right, 0, N, MPI_INT, win));
  CHECK_MPI(MPI_Win_flush(right, win));
  CHECK_MPI(MPI_Get(dst, N, MPI_INT, right, 0, N, MPI_INT, win));
  CHECK_MPI(MPI_Win_flush_local(right, win));
  for (int i = 0; i < N; ++i)
    CHECK(dst[i] == val(rank, i), "lock put/get: dst[%d]=%d", i, dst[i]);
  CHECK_MPI(MPI_Win_unlock(right, win));
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < N; ++i)
    CHECK(mem[i] == val(left, i), "lock put: mem[%d]=%d", i, mem[i]);
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, left, 0, win));
  CHECK_MPI(MPI_Get(dst, N, MPI_INT, left, 0, N, MPI_INT, win));
  CHECK_MPI(MPI_Win_unlock(left, win));
  const int ll = (left + size - 1) % size;
  for (int i = 0; i < N; ++i)
    CHECK(dst[i] == val(ll, i), "shared get: dst[%d]=%d", i, dst[i]);

  /* --- lock_all with request-based operations and flush_all --- */
  MPI_Barrier(MPI_COMM_WORLD);
  fill(mem, 4 * N, 0);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Win_lock_all(0, win));
  MPI_Request reqs[4];
  double dsum = 0;
  CHECK_MPI(MPI_Rput(src, N, MPI_INT, right, 0, N, MPI_INT, win, &reqs[0]));
  CHECK_MPI(MPI_Raccumulate(src, N, MPI_INT, 0, N, N, MPI_INT, MPI_SUM, win, &reqs[1]));
  CHECK_MPI(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
  CHECK_MPI(MPI_Win_flush_all(win));
  CHECK_MPI(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Win_lock_all(0, win));
  CHECK_MPI(MPI_Rget(dst, N, MPI_INT, left, 0, N, MPI_INT, win, &reqs[2]));
  CHECK_MPI(MPI_Rget_accumulate(NULL, 0, MPI_INT, res, N, MPI_INT, 0, N, N, MPI_INT, MPI_NO_OP, win,
                                &reqs[3]));
  CHECK_MPI(MPI_Waitall(2, reqs + 2, MPI_STATUSES_IGNORE));
  CHECK_MPI(MPI_Win_flush_local_all(win));
  CHECK_MPI(MPI_Win_unlock_all(win));
  for (int i = 0; i < N; ++i) {
    const int ll2 = (left + size - 1) % size;
    CHECK(dst[i] == val(ll2, i), "rget: dst[%d]=%d expected %d", i, dst[i], val(ll2, i));
    long sum = 0;
    for (int r = 0; r < size; ++r)
      sum += val(r, i);
    CHECK(res[i] == sum, "raccumulate: res[%d]=%d expected %ld", i, res[i], sum);
  }
  (void)dsum;

  /* --- Fetch_and_op and Compare_and_swap on one word, MAXLOC on MPI_2INT, doubles --- */
  MPI_Barrier(MPI_COMM_WORLD);
  fill(mem, 4 * N, 0);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Win_lock_all(0, win));
  int inc = rank + 1, old = -1;
  CHECK_MPI(MPI_Fetch_and_op(&inc, &old, MPI_INT, 0, 0, MPI_SUM, win));
  CHECK_MPI(MPI_Win_flush(0, win));
  CHECK(old >= 0 && old <= size * (size + 1) / 2 - inc, "fetch_and_op: old=%d", old);
  int expect = 0, mine = rank + 100, got = -1;
  /* Exactly one rank's compare-and-swap finds 0 at mem[1] of rank 0. */
  CHECK_MPI(MPI_Compare_and_swap(&mine, &expect, &got, MPI_INT, 0, 1, win));
  CHECK_MPI(MPI_Win_flush(0, win));
  int pair[2] = {rank * 3 % (size + 1), rank};
  CHECK_MPI(MPI_Accumulate(pair, 1, MPI_2INT, 0, 2, 1, MPI_2INT, MPI_MAXLOC, win));
  double d = 0.5 * (rank + 1);
  CHECK_MPI(MPI_Accumulate(&d, 1, MPI_DOUBLE, 0, 4, 1, MPI_DOUBLE, MPI_SUM, win));
  CHECK_MPI(MPI_Win_unlock_all(win));
  int won = (got == 0), winners = 0;
  MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(winners == 1, "compare_and_swap: %d ranks found 0", winners);
  if (rank == 0) {
    CHECK(mem[0] == size * (size + 1) / 2, "fetch_and_op total: %d", mem[0]);
    CHECK(mem[1] >= 100 && mem[1] < 100 + size, "compare_and_swap value: %d", mem[1]);
    int best = -1, best_rank = 0;
    for (int r = 0; r < size; ++r)
      if (r * 3 % (size + 1) > best) best = r * 3 % (size + 1), best_rank = r;
    CHECK(mem[2] == best && mem[3] == best_rank, "maxloc: (%d,%d) expected (%d,%d)", mem[2], mem[3],
          best, best_rank);
    double dv;
    memcpy(&dv, &mem[4], sizeof dv);
    CHECK(dv == 0.25 * size * (size + 1), "double sum: %g", dv);
  }
  /* --- a type with gaps (MPI_DOUBLE_INT: 12 bytes of data in 16): put, get, MINLOC --- */
  {
    struct di {
      double v;
      int i;
    } dmem[8], dsrc[3], dget[3];
    memset(dmem, 0, sizeof dmem);
    for (int k = 0; k < 8; ++k)
      dmem[k].v = 1e9, dmem[k].i = -1;
    for (int k = 0; k < 3; ++k)
      dsrc[k].v = rank * 10.0 + k, dsrc[k].i = rank;
    MPI_Win dw;
    CHECK_MPI(
        MPI_Win_create(dmem, sizeof dmem, sizeof(struct di), MPI_INFO_NULL, MPI_COMM_WORLD, &dw));
    CHECK_MPI(MPI_Win_fence(0, dw));
    CHECK_MPI(MPI_Put(dsrc, 3, MPI_DOUBLE_INT, right, 0, 3, MPI_DOUBLE_INT, dw));
    for (int t = 0; t < size; ++t)
      CHECK_MPI(MPI_Accumulate(dsrc, 3, MPI_DOUBLE_INT, t, 4, 3, MPI_DOUBLE_INT, MPI_MINLOC, dw));
    CHECK_MPI(MPI_Win_fence(0, dw));
    CHECK_MPI(MPI_Get(dget, 3, MPI_DOUBLE_INT, left, 0, 3, MPI_DOUBLE_INT, dw));
    CHECK_MPI(MPI_Win_fence(0, dw));
    const int ll3 = (left + size - 1) % size;
    for (int k = 0; k < 3; ++k) {
      CHECK(dmem[k].v == left * 10.0 + k && dmem[k].i == left, "double_int put [%d]: %g %d", k,
            dmem[k].v, dmem[k].i);
      CHECK(dget[k].v == ll3 * 10.0 + k && dget[k].i == ll3, "double_int get [%d]: %g %d", k,
            dget[k].v, dget[k].i);
      CHECK(dmem[4 + k].v == k && dmem[4 + k].i == 0, "minloc [%d]: %g %d", k, dmem[4 + k].v,
            dmem[4 + k].i);
    }
    CHECK(dmem[3].i == -1 && dmem[7].i == -1, "neighbouring elements untouched");
    CHECK_MPI(MPI_Win_free(&dw));
  }
  MPI_Group_free(&left_group);
  MPI_Group_free(&right_group);
  MPI_Group_free(&world_group);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK(win == MPI_WIN_NULL, "MPI_Win_free did not reset the handle");
  mt_ok("rma_ops");
  MPI_Finalize();
  return 0;
}
