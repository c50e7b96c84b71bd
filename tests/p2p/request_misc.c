/* tests/p2p/request_misc.c — request odds and ends: MPI_Request_free on an active send (it still
 * delivers, eager and rendezvous) and on a completed receive; MPI_Cancel of an unmatched receive
 * and MPI_Test_cancelled; MPI_Request_get_status (does not free, reports the status);
 * MPI_Wait / MPI_Test on MPI_REQUEST_NULL give an empty status; generalized requests (query and
 * free functions called once, the status the query function makes). */
#include "../mpi/mpitest.h"

#define BIG 50000

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

static void free_active_send(void) {
  const Ring g = ring();
  int small = 40 + g.rank, rsmall = -1, i;
  int *big = mt_malloc(sizeof(int) * BIG), *rbig = mt_malloc(sizeof(int) * BIG);
  MPI_Request rq, rr[2];
  for (i = 0; i < BIG; ++i) {
    big[i] = g.rank + i;
    rbig[i] = -1;
  }
  CHECK_MPI(MPI_Isend(&small, 1, MPI_INT, g.to, 1, MPI_COMM_WORLD, &rq));
  CHECK_MPI(MPI_Request_free(&rq));
  CHECK(rq == MPI_REQUEST_NULL, "Request_free kept the handle");
  CHECK_MPI(MPI_Isend(big, BIG, MPI_INT, g.to, 2, MPI_COMM_WORLD, &rq));
  CHECK_MPI(MPI_Request_free(&rq)); /* a rendezvous send, not matched yet */
  CHECK_MPI(MPI_Irecv(&rsmall, 1, MPI_INT, g.from, 1, MPI_COMM_WORLD, &rr[0]));
  CHECK_MPI(MPI_Irecv(rbig, BIG, MPI_INT, g.from, 2, MPI_COMM_WORLD, &rr[1]));
  CHECK_MPI(MPI_Waitall(2, rr, MPI_STATUSES_IGNORE));
  CHECK(rsmall == 40 + g.from, "freed small send delivered %d", rsmall);
  for (i = 0; i < BIG; ++i)
    CHECK(rbig[i] == g.from + i, "freed big send rbig[%d]=%d", i, rbig[i]);
  /* Everybody has received before the buffers go away. */
  MPI_Barrier(MPI_COMM_WORLD);
  free(big);
  free(rbig);
}

static void cancel_and_status(void) {
  const Ring g = ring();
  int x = -1, y = 7 + g.rank, flag = -1, n = -1;
  MPI_Request rq, rs;
  MPI_Status st;
  CHECK_MPI(MPI_Irecv(&x, 1, MPI_INT, g.from, 99, MPI_COMM_WORLD, &rq));
  CHECK_MPI(MPI_Cancel(&rq));
  CHECK_MPI(MPI_Wait(&rq, &st));
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  CHECK(flag == 1 && x == -1, "cancelled receive: flag %d x %d", flag, x);
  /* Request_get_status: flag without freeing, then Wait frees. */
  CHECK_MPI(MPI_Irecv(&x, 1, MPI_INT, g.from, 3, MPI_COMM_WORLD, &rq));
  CHECK_MPI(MPI_Request_get_status(rq, &flag, &st)); /* tag 3 is sent after the barrier */
  CHECK(!flag, "Request_get_status completed an unmatched receive");
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Isend(&y, 1, MPI_INT, g.to, 3, MPI_COMM_WORLD, &rs));
  do
    CHECK_MPI(MPI_Request_get_status(rq, &flag, &st));
  while (!flag);
  CHECK(rq != MPI_REQUEST_NULL, "Request_get_status freed the request");
  CHECK(st.MPI_SOURCE == g.from && st.MPI_TAG == 3, "Request_get_status status");
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  CHECK(!flag, "not cancelled");
  CHECK_MPI(MPI_Wait(&rq, &st));
  CHECK(rq == MPI_REQUEST_NULL && x == 7 + g.from, "Wait after get_status");
  CHECK_MPI(MPI_Wait(&rs, MPI_STATUS_IGNORE));
  /* Completion calls on MPI_REQUEST_NULL: an empty status. */
  memset(&st, 0x33, sizeof st);
  CHECK_MPI(MPI_Wait(&rq, &st));
  CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG, "empty status");
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &n));
  CHECK(n == 0, "empty status count %d", n);
}

typedef struct {
  int queried, freed, cancelled;
} Greq;

static int g_query(void *extra, MPI_Status *st) {
  Greq *g = extra;
  ++g->queried;
  st->MPI_SOURCE = 42;
  st->MPI_TAG = 43;
  st->MPI_ERROR = MPI_SUCCESS;
  MPI_Status_set_elements(st, MPI_DOUBLE, 5);
  MPI_Status_set_cancelled(st, 0);
  return MPI_SUCCESS;
}
static int g_free(void *extra) {
  ++((Greq *)extra)->freed;
  return MPI_SUCCESS;
}
static int g_cancel(void *extra, int complete) {
  (void)complete;
  ++((Greq *)extra)->cancelled;
  return MPI_SUCCESS;
}

static void generalized(void) {
  Greq g = {0, 0, 0};
  MPI_Request rq;
  MPI_Status st;
  int flag = -1, n = -1;
  CHECK_MPI(MPI_Grequest_start(g_query, g_free, g_cancel, &g, &rq));
  CHECK_MPI(MPI_Test(&rq, &flag, &st));
  CHECK(!flag && rq != MPI_REQUEST_NULL, "an incomplete generalized request tested complete");
  CHECK_MPI(MPI_Grequest_complete(rq));
  CHECK_MPI(MPI_Wait(&rq, &st));
  CHECK(rq == MPI_REQUEST_NULL, "Wait kept the generalized request");
  CHECK(g.queried == 1 && g.freed == 1 && g.cancelled == 0, "callbacks: %d %d %d", g.queried,
        g.freed, g.cancelled);
  CHECK(st.MPI_SOURCE == 42 && st.MPI_TAG == 43, "query status %d %d", st.MPI_SOURCE, st.MPI_TAG);
  CHECK_MPI(MPI_Get_count(&st, MPI_DOUBLE, &n));
  CHECK(n == 5, "count from the query function %d", n);
  /* Cancel calls the cancel function; Request_free of a completed one calls free. */
  CHECK_MPI(MPI_Grequest_start(g_query, g_free, g_cancel, &g, &rq));
  CHECK_MPI(MPI_Cancel(&rq));
  CHECK_MPI(MPI_Grequest_complete(rq));
  CHECK_MPI(MPI_Request_free(&rq));
  CHECK(g.cancelled == 1 && g.freed == 2, "cancel/free callbacks: %d %d", g.cancelled, g.freed);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  free_active_send();
  cancel_and_status();
  generalized();
  MPI_Barrier(MPI_COMM_WORLD);
  mt_ok("request_misc");
  MPI_Finalize();
  return 0;
}
