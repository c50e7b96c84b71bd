/* tests/conformance/conf_rma.c — one-sided communication (MPI-4.1 chapter 12): fence epochs,
 * post-start-complete-wait, passive-target locks, accumulate and fetch-and-op (on MPI_CHAR too,
 * a C integer), a dynamic window with many attached regions, MPI_Win_shared_query on a member
 * that allocated no memory (NULL base), and a rank that polls a flag with lock/get/unlock and
 * usleep until another rank sets it: a program that waits for others must see them progress
 * however its ranks are placed. */
#include "../mpi/mpitest.h"

#include <unistd.h>

static void fence_and_acc(int rank, int size) {
  int *buf;
  MPI_Win win;
  CHECK_MPI(
      MPI_Win_allocate(sizeof(int) * 2, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &buf, &win));
  buf[0] = -1;
  buf[1] = 0;
  CHECK_MPI(MPI_Win_fence(0, win));
  int right = (rank + 1) % size, one = 1;
  CHECK_MPI(MPI_Put(&rank, 1, MPI_INT, right, 0, 1, MPI_INT, win));
  for (int t = 0; t < size; ++t)
    CHECK_MPI(MPI_Accumulate(&one, 1, MPI_INT, t, 1, 1, MPI_INT, MPI_SUM, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK(buf[0] == (rank + size - 1) % size, "Put: %d", buf[0]);
  CHECK(buf[1] == size, "Accumulate: %d", buf[1]);
  /* Get in the next epoch. */
  int got = -1;
  CHECK_MPI(MPI_Get(&got, 1, MPI_INT, right, 1, 1, MPI_INT, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK(got == size, "Get: %d", got);
  CHECK_MPI(MPI_Win_free(&win));

  /* Char accumulate and fetch-and-op. */
  char *cb;
  CHECK_MPI(MPI_Win_allocate(2, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &cb, &win));
  cb[0] = 0;
  cb[1] = 0;
  CHECK_MPI(MPI_Win_fence(0, win));
  char c1 = 1, old = -1;
  CHECK_MPI(MPI_Accumulate(&c1, 1, MPI_CHAR, 0, 0, 1, MPI_CHAR, MPI_SUM, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  CHECK_MPI(MPI_Fetch_and_op(&c1, &old, MPI_CHAR, 0, 1, MPI_SUM, win));
  CHECK_MPI(MPI_Win_unlock(0, win));
  CHECK(old >= 0 && old < size, "Fetch_and_op on MPI_CHAR fetched %d", old);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) CHECK(cb[0] == size && cb[1] == size, "char sums %d %d", cb[0], cb[1]);
  CHECK_MPI(MPI_Win_free(&win));
}

static void pscw(int rank, int size) {
  /* Even ranks expose, odd ranks access their left neighbour. */
  int *buf;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &buf, &win));
  *buf = -1;
  MPI_Group wg, g;
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank % 2 == 0 && rank + 1 < size) {
    int peer = rank + 1;
    MPI_Group_incl(wg, 1, &peer, &g);
    CHECK_MPI(MPI_Win_post(g, 0, win));
    CHECK_MPI(MPI_Win_wait(win));
    CHECK(*buf == rank + 1, "PSCW value %d", *buf);
    MPI_Group_free(&g);
  } else if (rank % 2 == 1) {
    int peer = rank - 1;
    MPI_Group_incl(wg, 1, &peer, &g);
    CHECK_MPI(MPI_Win_start(g, 0, win));
    CHECK_MPI(MPI_Put(&rank, 1, MPI_INT, peer, 0, 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_complete(win));
    MPI_Group_free(&g);
  }
  MPI_Group_free(&wg);
  CHECK_MPI(MPI_Win_free(&win));
}

#define REGIONS 100

static void dynamic_many(int rank, int size) {
  MPI_Win win;
  CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  int *cells = malloc(sizeof(int) * REGIONS * 2); /* every other int: no two regions touch */
  CHECK(cells != NULL, "malloc");
  MPI_Aint *addrs = malloc(sizeof(MPI_Aint) * REGIONS);
  for (int i = 0; i < REGIONS; ++i) {
    cells[2 * i] = rank * 1000 + i;
    CHECK_MPI(MPI_Win_attach(win, &cells[2 * i], sizeof(int)));
    MPI_Get_address(&cells[2 * i], &addrs[i]);
  }
  int right = (rank + 1) % size;
  MPI_Aint *theirs = malloc(sizeof(MPI_Aint) * REGIONS);
  CHECK_MPI(MPI_Sendrecv(addrs, REGIONS, MPI_AINT, (rank + size - 1) % size, 0, theirs, REGIONS,
                         MPI_AINT, right, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
  for (int i = 0; i < REGIONS; i += 9) {
    int v = -1;
    CHECK_MPI(MPI_Get(&v, 1, MPI_INT, right, theirs[i], 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_flush(right, win));
    CHECK(v == right * 1000 + i, "region %d of %d holds %d", i, right, v);
  }
  CHECK_MPI(MPI_Win_unlock(right, win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  for (int i = 0; i < REGIONS; ++i)
    CHECK_MPI(MPI_Win_detach(win, &cells[2 * i]));
  CHECK_MPI(MPI_Win_free(&win));
  free(cells);
  free(addrs);
  free(theirs);
}

static void shared_zero(int rank) {
  MPI_Comm node;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int nr, ns;
  MPI_Comm_rank(node, &nr);
  MPI_Comm_size(node, &ns);
  int *mine;
  MPI_Win win;
  /* Odd node ranks allocate nothing. */
  MPI_Aint sz = nr % 2 ? 0 : (MPI_Aint)sizeof(int);
  CHECK_MPI(MPI_Win_allocate_shared(sz, sizeof(int), MPI_INFO_NULL, node, &mine, &win));
  if (sz) *mine = rank;
  CHECK_MPI(MPI_Barrier(node));
  for (int r = 0; r < ns; ++r) {
    MPI_Aint qs = -1;
    int du = 0;
    int *base = (int *)1;
    CHECK_MPI(MPI_Win_shared_query(win, r, &qs, &du, &base));
    if (r % 2) {
      CHECK(qs == 0 && base == NULL, "member %d with no memory: size %ld base %p", r, (long)qs,
            (void *)base);
    } else {
      CHECK(qs == (MPI_Aint)sizeof(int) && base != NULL && du == (int)sizeof(int),
            "member %d: size %ld", r, (long)qs);
    }
  }
  CHECK_MPI(MPI_Win_free(&win));
  MPI_Comm_free(&node);
}

static void polling(int rank, int size, int nap) {
  /* Rank 0 polls rank 1's flag (lock, get, unlock, and usleep when `nap`) until rank 1 sets it
   * with a put into its own window; rank 1 first naps too when `nap`. */
  int *flag;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &flag, &win));
  *flag = 0;
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  int target = size > 1 ? 1 : 0;
  if (rank == 0) {
    if (target == 0) {
      int one = 1;
      CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
      CHECK_MPI(MPI_Put(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
      CHECK_MPI(MPI_Win_unlock(0, win));
    }
    int seen = 0, polls = 0;
    while (!seen) {
      CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win));
      CHECK_MPI(MPI_Get(&seen, 1, MPI_INT, target, 0, 1, MPI_INT, win));
      CHECK_MPI(MPI_Win_unlock(target, win));
      if (!seen && nap) usleep(1000);
      ++polls;
      CHECK(polls < 10000000, "the flag was never set");
    }
  } else if (rank == target) {
    if (nap) usleep(20000); /* a sleeping rank lets the poller run, and is woken in time */
    int one = 1;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    CHECK_MPI(MPI_Put(&one, 1, MPI_INT, rank, 0, 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_unlock(rank, win));
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_free(&win));
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  fence_and_acc(rank, size);
  pscw(rank, size);
  dynamic_many(rank, size);
  shared_zero(rank);
  polling(rank, size, 1);
  polling(rank, size, 0);
  mt_ok("conf_rma");
  MPI_Finalize();
  return 0;
}
