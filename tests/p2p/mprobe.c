/* tests/p2p/mprobe.c — matched probes: MPI_Mprobe / MPI_Improbe with wildcards take a message out
 * of matching (a later receive cannot steal it), MPI_Mrecv / MPI_Imrecv receive exactly that
 * message (eager and rendezvous sizes, derived receive types), messages of one sender come in
 * order, MPI_PROC_NULL gives MPI_MESSAGE_NO_PROC. Ring: every rank sends to the next rank and
 * receives from the previous one (itself with one rank). */
#include "../mpi/mpitest.h"

#define BIG 100000

typedef struct {
  int rank, to, from;
} Ring;

static Ring ring(void) {
  Ring r;
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  r.to = (r.rank + 1) % size;
  r.from = (r.rank + size - 1) % size;
  return r;
}

static void in_order_with_wildcards(void) {
  const Ring g = ring();
  int s[3], r = -1, t, n;
  MPI_Request rq[3];
  MPI_Message m;
  MPI_Status st;
  for (t = 0; t < 3; ++t) {
    s[t] = g.rank * 10 + t;
    CHECK_MPI(MPI_Isend(&s[t], 1, MPI_INT, g.to, 1 + t, MPI_COMM_WORLD, &rq[t]));
  }
  for (t = 0; t < 3; ++t) {
    CHECK_MPI(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st));
    CHECK(m != MPI_MESSAGE_NULL && m != MPI_MESSAGE_NO_PROC, "Mprobe gave no message");
    CHECK(st.MPI_SOURCE == g.from && st.MPI_TAG == 1 + t, "Mprobe %d: source %d tag %d", t,
          st.MPI_SOURCE, st.MPI_TAG);
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(n == 1, "Mprobe count %d", n);
    CHECK_MPI(MPI_Mrecv(&r, 1, MPI_INT, &m, &st));
    CHECK(m == MPI_MESSAGE_NULL, "Mrecv did not reset the message handle");
    CHECK(r == g.from * 10 + t && st.MPI_TAG == 1 + t, "Mrecv %d got %d (tag %d)", t, r,
          st.MPI_TAG);
  }
  CHECK_MPI(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));
}

/* A probed message is no longer matchable: a wildcard receive gets the next one. */
static void not_stolen(void) {
  const Ring g = ring();
  int a = 100 + g.rank, b = 200 + g.rank, ra = -1, rb = -1, flag = 0;
  MPI_Request rq[2], rr;
  MPI_Message m;
  MPI_Status st;
  CHECK_MPI(MPI_Isend(&a, 1, MPI_INT, g.to, 5, MPI_COMM_WORLD, &rq[0]));
  CHECK_MPI(MPI_Isend(&b, 1, MPI_INT, g.to, 6, MPI_COMM_WORLD, &rq[1]));
  while (!flag)
    CHECK_MPI(MPI_Improbe(g.from, 5, MPI_COMM_WORLD, &flag, &m, &st));
  CHECK(st.MPI_TAG == 5, "Improbe tag %d", st.MPI_TAG);
  CHECK_MPI(MPI_Irecv(&rb, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rr));
  CHECK_MPI(MPI_Wait(&rr, &st));
  CHECK(rb == 200 + g.from && st.MPI_TAG == 6, "the wildcard receive got %d (tag %d)", rb,
        st.MPI_TAG);
  CHECK_MPI(MPI_Imrecv(&ra, 1, MPI_INT, &m, &rr));
  CHECK(m == MPI_MESSAGE_NULL, "Imrecv did not reset the message handle");
  CHECK_MPI(MPI_Wait(&rr, &st));
  CHECK(ra == 100 + g.from && st.MPI_TAG == 5 && st.MPI_SOURCE == g.from, "Imrecv got %d", ra);
  CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
  /* Nothing of these is left: Improbe says so. */
  CHECK_MPI(MPI_Improbe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &flag, &m, &st));
  CHECK(!flag, "a message is left over");
  CHECK_MPI(MPI_Improbe(MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &flag, &m, &st));
  CHECK(!flag, "a message is left over");
}

/* A rendezvous-sized message, received with a vector type. */
static void big_and_derived(void) {
  const Ring g = ring();
  int *s = mt_malloc(sizeof(int) * BIG), *r = mt_malloc(sizeof(int) * 2 * BIG), i, n;
  MPI_Datatype vec;
  MPI_Request rq;
  MPI_Message m;
  MPI_Status st;
  CHECK_MPI(MPI_Type_vector(BIG, 1, 2, MPI_INT, &vec));
  CHECK_MPI(MPI_Type_commit(&vec));
  for (i = 0; i < BIG; ++i)
    s[i] = g.rank * 7 + i;
  for (i = 0; i < 2 * BIG; ++i)
    r[i] = -1;
  CHECK_MPI(MPI_Isend(s, BIG, MPI_INT, g.to, 9, MPI_COMM_WORLD, &rq));
  CHECK_MPI(MPI_Mprobe(g.from, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st));
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &n));
  CHECK(n == BIG && st.MPI_TAG == 9, "Mprobe of the big message: count %d tag %d", n, st.MPI_TAG);
  CHECK_MPI(MPI_Mrecv(r, 1, vec, &m, &st));
  CHECK_MPI(MPI_Get_count(&st, vec, &n));
  CHECK(n == 1, "count in vectors %d", n);
  for (i = 0; i < 2 * BIG; ++i)
    CHECK(r[i] == (i % 2 ? -1 : g.from * 7 + i / 2), "big r[%d]=%d", i, r[i]);
  CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Type_free(&vec));
  free(s);
  free(r);
}

static void proc_null(void) {
  MPI_Message m = MPI_MESSAGE_NULL;
  MPI_Status st;
  MPI_Request rq;
  int flag = 0, x = 3, n = -1;
  CHECK_MPI(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &m, &st));
  CHECK(m == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL, "Mprobe(PROC_NULL)");
  CHECK_MPI(MPI_Mrecv(&x, 1, MPI_INT, &m, &st));
  CHECK(m == MPI_MESSAGE_NULL && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG &&
            x == 3,
        "Mrecv(MPI_MESSAGE_NO_PROC)");
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &n));
  CHECK(n == 0, "count %d", n);
  CHECK_MPI(MPI_Improbe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &m, &st));
  CHECK(flag && m == MPI_MESSAGE_NO_PROC, "Improbe(PROC_NULL)");
  CHECK_MPI(MPI_Imrecv(&x, 1, MPI_INT, &m, &rq));
  CHECK_MPI(MPI_Wait(&rq, &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "Imrecv(MPI_MESSAGE_NO_PROC) status");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  in_order_with_wildcards();
  MPI_Barrier(MPI_COMM_WORLD);
  not_stolen();
  MPI_Barrier(MPI_COMM_WORLD);
  big_and_derived();
  proc_null();
  MPI_Barrier(MPI_COMM_WORLD);
  mt_ok("mprobe");
  MPI_Finalize();
  return 0;
}
