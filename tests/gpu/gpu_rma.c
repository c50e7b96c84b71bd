/* tests/gpu/gpu_rma.c — one-sided communication on windows in CUDA device memory: MPI_Win_create
 * over cuMemAlloc memory and a dynamic window with device memory attached, with origin and
 * result buffers on the device and on the host; put/get under fence (contiguous and strided
 * target types, the gaps checked untouched), PSCW, concurrent accumulates from every rank to one
 * location under shared locks, fetch-and-op, compare-and-swap and get-accumulate with device
 * buffers. Every value is checked against one computed here from the ranks' numbers.
 * With the argument "unsupported" (run with AMPI_RMA_SHM=0 over several processes) it checks that
 * a device window is refused with MPI_ERR_UNSUPPORTED_OPERATION instead.
 * Exits 77 (skipped) before MPI_Init where there is no GPU. */
#include "gpu_mpi_test.h"

#include <string.h>

#define N 1024
#define ACC_ROUNDS 50

static int value(int owner, int i) {
  return owner * 100000 + i;
}

/* Fence: each rank puts its block into its right neighbour's window (from a device buffer on
 * even ranks, a host buffer on odd ones) and gets its left neighbour's original block into a
 * device buffer; then a strided put (every other int) into the second half. */
static void fence_put_get(MPI_Win win, int *wdev) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int *h = malloc(2 * N * sizeof(int));
  for (int i = 0; i < 2 * N; ++i)
    h[i] = value(rank, i);
  to_dev(wdev, h, 2 * N);
  int *origin_dev = dev_ints(N), *got_dev = dev_ints(N);
  int *origin_host = malloc(N * sizeof(int));
  for (int i = 0; i < N; ++i)
    origin_host[i] = -value(rank, i);
  to_dev(origin_dev, origin_host, N);
  GPU_CHECK(cu.MemsetD8((CUdeviceptr)got_dev, 0, N * sizeof(int)));

  MPI_Win_fence(0, win);
  MPI_Get(got_dev, N, MPI_INT, left, N, N, MPI_INT, win); /* its second half, still original */
  MPI_Win_fence(0, win);
  MPI_Put(rank % 2 ? (void *)origin_host : (void *)origin_dev, N, MPI_INT, right, 0, N, MPI_INT,
          win);
  MPI_Win_fence(0, win);

  int *check = malloc(2 * N * sizeof(int));
  from_dev(check, got_dev, N);
  for (int i = 0; i < N; ++i)
    if (check[i] != value(left, N + i)) {
      EXPECT(0, "get from %d: [%d] = %d, want %d", left, i, check[i], value(left, N + i));
      break;
    }
  from_dev(check, wdev, 2 * N);
  for (int i = 0; i < N; ++i)
    if (check[i] != -value(left, i)) {
      EXPECT(0, "put by %d: [%d] = %d, want %d", left, i, check[i], -value(left, i));
      break;
    }

  /* Strided: N/2 ints from a contiguous device origin to every other int of the second half. */
  MPI_Datatype every_other;
  MPI_Type_vector(N / 2, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  MPI_Put(origin_dev, N / 2, MPI_INT, right, N, 1, every_other, win);
  MPI_Win_fence(0, win);
  from_dev(check, wdev, 2 * N);
  for (int i = 0; i < N; ++i) {
    const int want = i % 2 ? value(rank, N + i) : -value(left, i / 2);
    if (check[N + i] != want) {
      EXPECT(0, "strided put by %d: [%d] = %d, want %d", left, N + i, check[N + i], want);
      break;
    }
  }
  /* And back: a strided get into a strided device origin (its gaps must stay untouched). */
  GPU_CHECK(cu.MemsetD8((CUdeviceptr)got_dev, 0xff, N * sizeof(int)));
  MPI_Get(got_dev, 1, every_other, right, N, 1, every_other, win);
  MPI_Win_fence(0, win);
  from_dev(check, got_dev, N);
  for (int i = 0; i < N; ++i) {
    const int want = i % 2 ? -1 : -value(rank, i / 2); /* right's second half holds our put */
    if (check[i] != want) {
      EXPECT(0, "strided get from %d: [%d] = %d, want %d", right, i, check[i], want);
      break;
    }
  }
  MPI_Type_free(&every_other);
  free(check);
  free(origin_host);
  dev_free(origin_dev);
  dev_free(got_dev);
  free(h);
}

/* PSCW: rank r exposes to r-1 and accesses r+1 (a ring); puts one int at index 7. */
static void pscw(MPI_Win win, int *wdev) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Group world, g_left, g_right;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, 1, &left, &g_left);
  MPI_Group_incl(world, 1, &right, &g_right);
  int *one = dev_ints(1);
  const int v = 4242 + rank;
  to_dev(one, &v, 1);
  MPI_Win_post(g_left, 0, win);
  MPI_Win_start(g_right, 0, win);
  MPI_Put(one, 1, MPI_INT, right, 7, 1, MPI_INT, win);
  MPI_Win_complete(win);
  MPI_Win_wait(win);
  int got = 0;
  from_dev(&got, wdev + 7, 1);
  EXPECT(got == 4242 + left, "PSCW put: %d, want %d", got, 4242 + left);
  dev_free(one);
  MPI_Group_free(&world);
  MPI_Group_free(&g_left);
  MPI_Group_free(&g_right);
}

/* Every rank adds (rank + 1) to rank 0's int 0, ACC_ROUNDS times, under shared locks (device
 * origin on even ranks); fetch-and-op adds 1 to int 1 and collects distinct old values; then
 * compare-and-swap and get-accumulate with device buffers. */
static void accumulates(MPI_Win win, int *wdev) {
  const int zero[5] = {0, 0, 0, 0, 0};
  to_dev(wdev, zero, 5);
  MPI_Barrier(MPI_COMM_WORLD);
  int *inc_dev = dev_ints(1), *old_dev = dev_ints(1);
  const int inc = rank + 1;
  to_dev(inc_dev, &inc, 1);
  int olds[ACC_ROUNDS];
  for (int k = 0; k < ACC_ROUNDS; ++k) {
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Accumulate(rank % 2 ? (void *)&inc : (void *)inc_dev, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM,
                   win);
    const int one = 1;
    MPI_Fetch_and_op(&one, old_dev, MPI_INT, 0, 1, MPI_SUM, win);
    MPI_Win_unlock(0, win);
    from_dev(&olds[k], old_dev, 1);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    int got[2];
    from_dev(got, wdev, 2);
    const int want = ACC_ROUNDS * size * (size + 1) / 2;
    EXPECT(got[0] == want, "accumulated sum %d, want %d", got[0], want);
    EXPECT(got[1] == ACC_ROUNDS * size, "fetch-and-op count %d, want %d", got[1],
           ACC_ROUNDS * size);
  }
  /* Every fetched old value is distinct over all ranks: 0 .. ACC_ROUNDS*size-1 each once. */
  int *all = malloc((size_t)ACC_ROUNDS * size * sizeof(int));
  MPI_Allgather(olds, ACC_ROUNDS, MPI_INT, all, ACC_ROUNDS, MPI_INT, MPI_COMM_WORLD);
  char *seen = calloc((size_t)ACC_ROUNDS * size, 1);
  for (int i = 0; i < ACC_ROUNDS * size; ++i) {
    if (all[i] < 0 || all[i] >= ACC_ROUNDS * size || seen[all[i]]) {
      EXPECT(0, "fetch-and-op returned %d twice or out of range", all[i]);
      break;
    }
    seen[all[i]] = 1;
  }
  free(seen);
  free(all);

  /* Compare-and-swap on rank 0's int 2 (0 at first): exactly one rank wins, with device
   * origin, compare and result buffers. */
  int *cmp_dev = dev_ints(1), *res_dev = dev_ints(1);
  const int zero1 = 0, mine = rank + 1;
  to_dev(cmp_dev, &zero1, 1);
  to_dev(inc_dev, &mine, 1);
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
  MPI_Compare_and_swap(inc_dev, cmp_dev, res_dev, MPI_INT, 0, 2, win);
  MPI_Win_unlock(0, win);
  int res = -1;
  from_dev(&res, res_dev, 1);
  int won = res == 0, winners = 0;
  MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  EXPECT(winners == 1, "%d ranks won the compare-and-swap", winners);
  int winner = won ? rank + 1 : 0, winner_value = 0;
  MPI_Allreduce(&winner, &winner_value, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    int got = 0;
    from_dev(&got, wdev + 2, 1);
    EXPECT(got == winner_value, "compare-and-swap left %d, want %d", got, winner_value);
  }
  if (!won) EXPECT(res == winner_value, "compare-and-swap returned %d, want %d", res, winner_value);

  /* Get-accumulate (MPI_MAX) of 2 ints into rank 0's ints 3..4 from a host origin, old values
   * to a device buffer: the final value is the largest of all. */
  MPI_Barrier(MPI_COMM_WORLD);
  int two[2] = {rank * 3, rank * 5};
  int *prev_dev = dev_ints(2);
  MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
  MPI_Get_accumulate(two, 2, MPI_INT, prev_dev, 2, MPI_INT, 0, 3, 2, MPI_INT, MPI_MAX, win);
  MPI_Win_unlock(0, win);
  int prev[2];
  from_dev(prev, prev_dev, 2);
  EXPECT(prev[0] >= 0 && prev[0] <= (size - 1) * 3 && prev[0] % 3 == 0, "get-accumulate old %d",
         prev[0]);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    int got[2];
    from_dev(got, wdev + 3, 2);
    EXPECT(got[0] == (size - 1) * 3 && got[1] == (size - 1) * 5, "get-accumulate max %d %d", got[0],
           got[1]);
  }
  dev_free(prev_dev);
  dev_free(cmp_dev);
  dev_free(res_dev);
  dev_free(inc_dev);
  dev_free(old_dev);
}

/* Dynamic window: each rank attaches a device buffer, everyone learns the addresses; each rank
 * writes its number into its right neighbour's buffer with lock_all, reads the left one's. */
static void dynamic(void) {
  MPI_Win win;
  MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  int *buf = dev_ints(N);
  int *h = malloc(N * sizeof(int));
  for (int i = 0; i < N; ++i)
    h[i] = value(rank, i);
  to_dev(buf, h, N);
  MPI_Win_attach(win, buf, N * sizeof(int));
  MPI_Aint mine, *addrs = malloc(size * sizeof(MPI_Aint));
  MPI_Get_address(buf, &mine);
  MPI_Allgather(&mine, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int *got_dev = dev_ints(16);
  MPI_Win_lock_all(0, win);
  MPI_Get(got_dev, 16, MPI_INT, left, addrs[left] + 32 * sizeof(int), 16, MPI_INT, win);
  MPI_Win_flush(left, win);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  const int v = -rank - 1;
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
  MPI_Put(&v, 1, MPI_INT, right, addrs[right] + 5 * sizeof(int), 1, MPI_INT, win);
  MPI_Win_unlock(right, win);
  MPI_Barrier(MPI_COMM_WORLD);
  int got[16];
  from_dev(got, got_dev, 16);
  for (int i = 0; i < 16; ++i)
    if (got[i] != value(left, 32 + i)) {
      EXPECT(0, "dynamic get from %d: [%d] = %d, want %d", left, i, got[i], value(left, 32 + i));
      break;
    }
  from_dev(h, buf, N);
  EXPECT(h[5] == -left - 1, "dynamic put by %d: %d, want %d", left, h[5], -left - 1);
  EXPECT(h[4] == value(rank, 4) && h[6] == value(rank, 6), "dynamic put touched its neighbours");
  MPI_Win_detach(win, buf);
  MPI_Win_free(&win);
  dev_free(got_dev);
  dev_free(buf);
  free(addrs);
  free(h);
}

int main(int argc, char **argv) {
  if (gpu_init() != 0) {
    printf("no GPU: skipped\n");
    return 77;
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int *wdev = dev_ints(2 * N);

  if (argc > 1 && strcmp(argv[1], "unsupported") == 0) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Win win = MPI_WIN_NULL;
    const int e =
        MPI_Win_create(wdev, 2 * N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    int cls = MPI_SUCCESS;
    MPI_Error_class(e, &cls);
    EXPECT(cls == MPI_ERR_UNSUPPORTED_OPERATION && win == MPI_WIN_NULL,
           "device window under AMPI_RMA_SHM=0: error class %d", cls);
  } else {
    MPI_Win win;
    MPI_Win_create(wdev, 2 * N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    void *base = NULL;
    int flag = 0;
    MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag);
    EXPECT(flag && base == wdev, "MPI_WIN_BASE is not the device buffer");
    fence_put_get(win, wdev);
    pscw(win, wdev);
    accumulates(win, wdev);
    MPI_Win_free(&win);
    dynamic();
  }

  dev_free(wdev);
  return finish("gpu_rma");
}
