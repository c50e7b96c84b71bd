/* tests/conformance/conf_suite.c — one check per class of failure that MPICH's own test suite
 * (test/mpi, issue 20) found in ampi, written from the MPI standard's text (never the suite's
 * code): each function names the class it guards. Run at 1, 2, 4 and 9 ranks in one process and
 * over two processes like the other conformance programs. */
#include "../mpi/mpitest.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Keyvals: a delete callback that frees its keyval, then the program freeing its own copy of the
 * handle. The standard lets a keyval be freed while values still use it (MPI-4.1 7.7.2: "the
 * keyval is freed only when all attributes using it are deleted"); a second free of that live
 * keyval must not take away the reference an attached value holds (MPICH and Open MPI accept it).
 */
static int keyval_deletes;
static int free_own_keyval(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)comm;
  (void)value;
  (void)extra;
  ++keyval_deletes;
  return MPI_Comm_free_keyval(&keyval);
}

static void keyval_freed_twice(void) {
  int key = MPI_KEYVAL_INVALID, copy, handle;
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_SELF, &dup));
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_own_keyval, &key, NULL));
  copy = handle = key;
  CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, key, (void *)(intptr_t)7));
  CHECK_MPI(MPI_Comm_set_attr(dup, key, NULL));
  CHECK_MPI(MPI_Comm_free(&dup)); /* the callback frees the keyval */
  CHECK(keyval_deletes == 1, "delete callback ran %d times", keyval_deletes);
  CHECK_MPI(MPI_Comm_free_keyval(&key)); /* again: still alive, MPI_COMM_SELF holds a value */
  CHECK(key == MPI_KEYVAL_INVALID, "free_keyval did not reset the handle");
  CHECK_MPI(MPI_Comm_free_keyval(&copy));
  CHECK(keyval_deletes == 1, "freeing the keyval ran the delete callback (%d)", keyval_deletes);
  /* The value on MPI_COMM_SELF is intact; deleting it runs the callback (which frees again). */
  void *v = NULL;
  int flag = 0;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_SELF, handle, &v, &flag));
  CHECK(flag && (intptr_t)v == 7, "value of the freed keyval: flag %d value %ld", flag,
        (long)(intptr_t)v);
  CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_SELF, handle));
  CHECK(keyval_deletes == 2, "delete_attr ran the callback %d times in all", keyval_deletes);
}

/* Non-blocking duplication (MPI-4.1 7.4.2): several MPI_Comm_idup may be in flight, started in
 * different orders at different ranks, and all complete (the standard's reason for the call being
 * non-blocking: the blocking form would deadlock here). Even ranks start A's then B's, odd ranks
 * B's then A's; the new communicators must be distinct from each other and work. Before the
 * agreements had a priority, the two crossing agreements proposed mirror images and collided on
 * every round. */
static void idup_crossing(int rank, int size) {
  MPI_Comm a, b, nc[2];
  MPI_Request req[2];
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &a));
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &b));
  int first = rank % 2; /* index into nc of the one started first */
  CHECK_MPI(MPI_Comm_idup(first ? b : a, &nc[first], &req[0]));
  CHECK_MPI(MPI_Comm_idup(first ? a : b, &nc[1 - first], &req[1]));
  CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
  int cmp = 0;
  CHECK_MPI(MPI_Comm_compare(nc[0], nc[1], &cmp));
  CHECK(cmp == MPI_CONGRUENT, "the two duplicates compare %d", cmp);
  /* Same tag, same peers, on both: each receive must get its own communicator's message. */
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out[2] = {1000 + rank, 2000 + rank}, in[2] = {-1, -1};
  MPI_Request r[4];
  CHECK_MPI(MPI_Irecv(&in[1], 1, MPI_INT, left, 5, nc[1], &r[0]));
  CHECK_MPI(MPI_Irecv(&in[0], 1, MPI_INT, left, 5, nc[0], &r[1]));
  CHECK_MPI(MPI_Isend(&out[0], 1, MPI_INT, right, 5, nc[0], &r[2]));
  CHECK_MPI(MPI_Isend(&out[1], 1, MPI_INT, right, 5, nc[1], &r[3]));
  CHECK_MPI(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
  CHECK(in[0] == 1000 + left && in[1] == 2000 + left, "messages crossed: %d %d", in[0], in[1]);
  int sum = 0;
  CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, nc[1]));
  CHECK(sum == size * (size - 1) / 2, "allreduce on the duplicate: %d", sum);
  MPI_Comm_free(&nc[0]);
  MPI_Comm_free(&nc[1]);
  MPI_Comm_free(&a);
  MPI_Comm_free(&b);
}

/* Intercommunicator allgather and alltoall (MPI-4.1 6.2.2, 6.7, 6.8): the data of one group goes
 * to the other, so the two groups' send and receive amounts pair across the groups, not within a
 * rank; the standard's "unidirectional" use has one group send nothing (sendcount 0) while the
 * other receives nothing (recvcount 0). Groups: even and odd ranks of MPI_COMM_WORLD. */
static void intercomm_one_way(int rank, int size) {
  if (size < 2) return;
  const int even = rank % 2 == 0;
  MPI_Comm local, inter;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, !even, rank, &local));
  CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, even ? 1 : 0, 31, &inter));
  int lrank, rsize;
  CHECK_MPI(MPI_Comm_rank(inter, &lrank));
  CHECK_MPI(MPI_Comm_remote_size(inter, &rsize));
  enum { N = 3 };
  int *recv = mt_malloc(sizeof(int) * N * (size_t)rsize);
  int *send = mt_malloc(sizeof(int) * N * (size_t)rsize);
  for (int blocking = 0; blocking < 2; ++blocking) {
    /* Allgather, odd group to even group only. */
    for (int i = 0; i < N * rsize; ++i)
      recv[i] = -1;
    for (int i = 0; i < N; ++i)
      send[i] = 100 * lrank + i;
    MPI_Request req;
    const int scount = even ? 0 : N, rcount = even ? N : 0;
    if (blocking) {
      CHECK_MPI(MPI_Allgather(send, scount, MPI_INT, recv, rcount, MPI_INT, inter));
    } else {
      CHECK_MPI(MPI_Iallgather(send, scount, MPI_INT, recv, rcount, MPI_INT, inter, &req));
      CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    }
    for (int r = 0; r < rsize; ++r)
      for (int i = 0; i < N; ++i) {
        const int want = even ? 100 * r + i : -1;
        CHECK(recv[r * N + i] == want, "allgather (blocking %d): block %d element %d is %d, not %d",
              blocking, r, i, recv[r * N + i], want);
      }
    /* Alltoall, even group to odd group only: block r for remote rank r. */
    for (int i = 0; i < N * rsize; ++i) {
      recv[i] = -1;
      send[i] = 1000 * lrank + i;
    }
    const int scount2 = even ? N : 0, rcount2 = even ? 0 : N;
    if (blocking) {
      CHECK_MPI(MPI_Alltoall(send, scount2, MPI_INT, recv, rcount2, MPI_INT, inter));
    } else {
      CHECK_MPI(MPI_Ialltoall(send, scount2, MPI_INT, recv, rcount2, MPI_INT, inter, &req));
      CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    }
    for (int r = 0; r < rsize; ++r)
      for (int i = 0; i < N; ++i) {
        const int want = even ? -1 : 1000 * r + lrank * N + i;
        CHECK(recv[r * N + i] == want, "alltoall (blocking %d): block %d element %d is %d, not %d",
              blocking, r, i, recv[r * N + i], want);
      }
  }
  free(recv);
  free(send);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
}

/* An empty message to or from MPI_PROC_NULL with MPI_DATATYPE_NULL: MPICH accepts it (Open MPI 4.1
 * does not); nothing is sent or received, so ampi accepts it too, and the receive's status is
 * that of MPI_PROC_NULL (MPI-4.1 3.11). A count above 0 still needs a real type. */
static void null_type_to_no_process(void) {
  MPI_Status st;
  MPI_Request req;
  CHECK_MPI(MPI_Send(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "status %d %d", st.MPI_SOURCE,
        st.MPI_TAG);
  CHECK_MPI(MPI_Irecv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Wait(&req, &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "status source %d", st.MPI_SOURCE);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int e = MPI_Send(NULL, 1, MPI_DATATYPE_NULL, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
  CHECK(mt_class(e) == MPI_ERR_TYPE, "count 1 of MPI_DATATYPE_NULL gave class %d", mt_class(e));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* MPI_Buffer_flush / MPI_Buffer_iflush (MPI-4.1 3.6.1): the buffered messages leave the attached
 * buffer, which stays attached and has its whole room again. A buffer with room for one message;
 * the receive (from this rank itself) comes after the flush starts, so the flush must not need it
 * first. (Whether the buffer is still in use before the receive is the implementation's choice:
 * ampi hands a message to a receiver of its own process at once, MPICH keeps it.) */
static void buffer_flush(int rank) {
  enum { M = 64 };
  int size = M * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
  char *buf = mt_malloc((size_t)size);
  int msg[M], got[M];
  CHECK_MPI(MPI_Buffer_attach(buf, size));
  for (int round = 0; round < 4; ++round) {
    for (int i = 0; i < M; ++i)
      msg[i] = rank * M + i + round;
    CHECK_MPI(MPI_Bsend(msg, M, MPI_INT, 0, 7, MPI_COMM_SELF));
    MPI_Request req = MPI_REQUEST_NULL;
    if (round % 2) CHECK_MPI(MPI_Buffer_iflush(&req));
    for (int i = 0; i < M; ++i)
      msg[i] = -1; /* the buffered copy is what arrives */
    memset(got, 0, sizeof got);
    CHECK_MPI(MPI_Recv(got, M, MPI_INT, 0, 7, MPI_COMM_SELF, MPI_STATUS_IGNORE));
    for (int i = 0; i < M; ++i)
      CHECK(got[i] == rank * M + i + round, "round %d: element %d is %d", round, i, got[i]);
    if (round % 2)
      CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    else
      CHECK_MPI(MPI_Buffer_flush());
  }
  /* Empty: both return at once. */
  MPI_Request req;
  CHECK_MPI(MPI_Buffer_iflush(&req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Buffer_flush());
  void *back;
  int back_size;
  CHECK_MPI(MPI_Buffer_detach(&back, &back_size));
  CHECK(back == buf && back_size == size, "detach gave %p %d", back, back_size);
  free(buf);
}

/* A dynamic window's attached memory (MPI-4.1 12.2.4): an access must lie in attached memory, and
 * two halves of one array attached one after the other are attached memory throughout, so a put
 * and a get across the seam work (MPICH accepts them; ampi looked for one region holding it all).
 * Each rank writes into its right neighbour's array across the seam. A window over several hosts
 * (tests/multihost) refuses such an access with MPI_ERR_RMA_RANGE, by design (README, one-sided):
 * there the refusal is what is checked. */
static void dynamic_window_seam(int rank, int size) {
  enum { HALF = 512 };
  static int mem[2 * HALF];
  int out[HALF], back[HALF];
  MPI_Win win;
  MPI_Aint addr;
  for (int i = 0; i < 2 * HALF; ++i)
    mem[i] = -1;
  CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  CHECK_MPI(MPI_Win_attach(win, &mem[0], sizeof(int) * HALF));
  CHECK_MPI(MPI_Win_attach(win, &mem[HALF], sizeof(int) * HALF));
  CHECK_MPI(MPI_Get_address(&mem[HALF / 2], &addr));
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Aint target = 0;
  /* Everyone's address of mem[HALF / 2], passed around the ring. */
  CHECK_MPI(MPI_Sendrecv(&addr, 1, MPI_AINT, left, 9, &target, 1, MPI_AINT, right, 9,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  for (int i = 0; i < HALF; ++i)
    out[i] = 10000 * rank + i;
  MPI_Comm host;
  int on_host = 0;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host));
  CHECK_MPI(MPI_Comm_size(host, &on_host));
  CHECK_MPI(MPI_Comm_free(&host));
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
  if (on_host < size) {
    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    const int e = MPI_Put(out, HALF, MPI_INT, right, target, HALF, MPI_INT, win);
    int cls = MPI_SUCCESS;
    MPI_Error_class(e, &cls);
    CHECK(cls == MPI_ERR_RMA_RANGE, "put across the seam over several hosts: class %d, not %d", cls,
          MPI_ERR_RMA_RANGE);
    CHECK_MPI(MPI_Win_unlock(right, win));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Win_detach(win, &mem[0]));
    CHECK_MPI(MPI_Win_detach(win, &mem[HALF]));
    CHECK_MPI(MPI_Win_free(&win));
    return;
  }
  CHECK_MPI(MPI_Put(out, HALF, MPI_INT, right, target, HALF, MPI_INT, win));
  CHECK_MPI(MPI_Win_flush(right, win));
  CHECK_MPI(MPI_Get(back, HALF, MPI_INT, right, target, HALF, MPI_INT, win));
  CHECK_MPI(MPI_Win_unlock(right, win));
  for (int i = 0; i < HALF; ++i)
    CHECK(back[i] == out[i], "get across the seam: element %d is %d, not %d", i, back[i], out[i]);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  for (int i = 0; i < 2 * HALF; ++i) {
    const int want = i >= HALF / 2 && i < HALF / 2 + HALF ? 10000 * left + i - HALF / 2 : -1;
    CHECK(mem[i] == want, "put across the seam: mem[%d] is %d, not %d", i, mem[i], want);
  }
  CHECK_MPI(MPI_Win_detach(win, &mem[0]));
  CHECK_MPI(MPI_Win_detach(win, &mem[HALF]));
  CHECK_MPI(MPI_Win_free(&win));
}

/* An accumulate that moves no data (zero counts, or a type of size zero) is valid whatever its
 * types are made of (MPI-4.1 12.3.4's same-predefined-type rule is about the elements moved, and
 * there are none); it changes nothing at the target. */
static void empty_accumulate(int rank, int size) {
  int cell = 5, dummy = 0, got = -1;
  MPI_Datatype empty;
  MPI_Win win;
  CHECK_MPI(MPI_Type_contiguous(0, MPI_INT, &empty));
  CHECK_MPI(MPI_Type_commit(&empty));
  CHECK_MPI(MPI_Win_create(&cell, sizeof cell, sizeof cell, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  CHECK_MPI(MPI_Win_fence(0, win));
  const int right = (rank + 1) % size;
  CHECK_MPI(MPI_Accumulate(&dummy, 0, MPI_INT, right, 0, 0, MPI_DOUBLE, MPI_SUM, win));
  CHECK_MPI(MPI_Accumulate(&dummy, 1, empty, right, 0, 0, MPI_DOUBLE, MPI_SUM, win));
  CHECK_MPI(
      MPI_Get_accumulate(&dummy, 0, MPI_DOUBLE, &got, 2, empty, right, 0, 3, empty, MPI_SUM, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK(cell == 5, "an empty accumulate changed the target to %d", cell);
  CHECK(got == -1, "an empty get_accumulate wrote the result buffer (%d)", got);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_MPI(MPI_Type_free(&empty));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  keyval_freed_twice();
  idup_crossing(rank, size);
  intercomm_one_way(rank, size);
  null_type_to_no_process();
  buffer_flush(rank);
  dynamic_window_seam(rank, size);
  empty_accumulate(rank, size);
  mt_ok("conf_suite");
  MPI_Finalize();
  return 0;
}
