/* tests/p2p/persistent.c — persistent requests: every rank sends to the next rank of a ring and
 * receives from the previous one with MPI_Send_init / MPI_Recv_init (and the Ssend, Rsend and
 * Bsend variants), restarted many times with new data each round, completed with each of the
 * Wait / Test variants; inactive requests (before the first MPI_Start and after completion) are
 * treated like MPI_REQUEST_NULL with an empty status; derived types; MPI_PROC_NULL peers;
 * MPI_Request_free on inactive and active persistent requests. */
#include "../mpi/mpitest.h"

#define ROUNDS 200
#define N 64

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

static int val(int rank, int round, int i) {
  return rank * 1000003 + round * 1009 + i;
}

static void expect_empty(const MPI_Status *st, const char *what) {
  int n = -1;
  CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG &&
            st->MPI_ERROR == MPI_SUCCESS,
        "%s: status not empty (source %d tag %d)", what, st->MPI_SOURCE, st->MPI_TAG);
  MPI_Get_count(st, MPI_INT, &n);
  CHECK(n == 0, "%s: count %d in an empty status", what, n);
}

/* Rounds of one send mode, completed with a rotating choice of completion call. */
static void rounds(int mode) {
  const Ring g = ring();
  int sbuf[N], rbuf[N], i, r, flag, idx, out, ind[2];
  MPI_Request rq[2];
  MPI_Status st[2], rst;
  CHECK_MPI(MPI_Recv_init(rbuf, N, MPI_INT, g.from, 7, MPI_COMM_WORLD, &rq[0]));
  switch (mode) {
  case 0:
    CHECK_MPI(MPI_Send_init(sbuf, N, MPI_INT, g.to, 7, MPI_COMM_WORLD, &rq[1]));
    break;
  case 1:
    CHECK_MPI(MPI_Ssend_init(sbuf, N, MPI_INT, g.to, 7, MPI_COMM_WORLD, &rq[1]));
    break;
  case 2:
    CHECK_MPI(MPI_Rsend_init(sbuf, N, MPI_INT, g.to, 7, MPI_COMM_WORLD, &rq[1]));
    break;
  default:
    CHECK_MPI(MPI_Bsend_init(sbuf, N, MPI_INT, g.to, 7, MPI_COMM_WORLD, &rq[1]));
  }
  /* Inactive before the first start: like MPI_REQUEST_NULL. */
  memset(st, 0x55, sizeof st);
  CHECK_MPI(MPI_Wait(&rq[0], &st[0]));
  expect_empty(&st[0], "Wait on an inactive request");
  CHECK(rq[0] != MPI_REQUEST_NULL, "an inactive persistent request lost its handle");
  CHECK_MPI(MPI_Test(&rq[1], &flag, &st[1]));
  CHECK(flag, "Test on an inactive request");
  expect_empty(&st[1], "Test on an inactive request");
  CHECK_MPI(MPI_Waitany(2, rq, &idx, &st[0]));
  CHECK(idx == MPI_UNDEFINED, "Waitany over inactive requests gave %d", idx);
  CHECK_MPI(MPI_Request_get_status(rq[0], &flag, &st[0]));
  CHECK(flag, "Request_get_status of an inactive request");
  expect_empty(&st[0], "Request_get_status of an inactive request");

  for (r = 0; r < ROUNDS; ++r) {
    for (i = 0; i < N; ++i) {
      sbuf[i] = val(g.rank, r, i);
      rbuf[i] = -1;
    }
    /* The receive is started first everywhere (Rsend needs it posted) before any send. */
    CHECK_MPI(MPI_Start(&rq[0]));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Start(&rq[1]));
    switch (r % 4) {
    case 0:
      CHECK_MPI(MPI_Waitall(2, rq, st));
      break;
    case 1:
      CHECK_MPI(MPI_Wait(&rq[1], &st[1]));
      CHECK_MPI(MPI_Wait(&rq[0], &st[0]));
      break;
    case 2:
      do
        CHECK_MPI(MPI_Testall(2, rq, &flag, st));
      while (!flag);
      break;
    default:
      out = 0;
      while (out < 2) {
        int got = 0, k;
        CHECK_MPI(MPI_Waitsome(2, rq, &got, ind, st));
        CHECK(got != MPI_UNDEFINED, "Waitsome found no active request");
        for (k = 0; k < got; ++k)
          if (ind[k] == 0) rst = st[k]; /* the receive's status */
        out += got;
      }
      st[0] = rst;
      break;
    }
    CHECK(rq[0] != MPI_REQUEST_NULL && rq[1] != MPI_REQUEST_NULL, "round %d freed a handle", r);
    CHECK(st[0].MPI_SOURCE == g.from && st[0].MPI_TAG == 7, "round %d: source %d tag %d", r,
          st[0].MPI_SOURCE, st[0].MPI_TAG);
    for (i = 0; i < N; ++i)
      CHECK(rbuf[i] == val(g.from, r, i), "round %d: rbuf[%d]=%d", r, i, rbuf[i]);
    /* Completed and reported: inactive again. */
    CHECK_MPI(MPI_Wait(&rq[0], &st[0]));
    expect_empty(&st[0], "Wait after completion");
    MPI_Barrier(MPI_COMM_WORLD); /* nobody overwrites sbuf's next round while it is in use */
  }
  CHECK_MPI(MPI_Request_free(&rq[0]));
  CHECK_MPI(MPI_Request_free(&rq[1]));
  CHECK(rq[0] == MPI_REQUEST_NULL && rq[1] == MPI_REQUEST_NULL, "Request_free kept a handle");
}

/* A persistent receive of a vector type, and Startall. */
static void derived_and_startall(void) {
  const Ring g = ring();
  double s[4], r[12];
  int i, k;
  MPI_Datatype vec;
  MPI_Request rq[2];
  CHECK_MPI(MPI_Type_vector(4, 1, 3, MPI_DOUBLE, &vec));
  CHECK_MPI(MPI_Type_commit(&vec));
  CHECK_MPI(MPI_Recv_init(r, 1, vec, g.from, 8, MPI_COMM_WORLD, &rq[0]));
  CHECK_MPI(MPI_Type_free(&vec)); /* the request keeps it */
  CHECK_MPI(MPI_Send_init(s, 4, MPI_DOUBLE, g.to, 8, MPI_COMM_WORLD, &rq[1]));
  for (k = 0; k < 50; ++k) {
    for (i = 0; i < 4; ++i)
      s[i] = g.rank + k * 0.25 + i * 100;
    for (i = 0; i < 12; ++i)
      r[i] = -1;
    CHECK_MPI(MPI_Startall(2, rq));
    CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    for (i = 0; i < 12; ++i)
      CHECK(r[i] == (i % 3 ? -1 : g.from + k * 0.25 + (i / 3) * 100), "round %d r[%d]=%g", k, i,
            r[i]);
  }
  CHECK_MPI(MPI_Request_free(&rq[0]));
  CHECK_MPI(MPI_Request_free(&rq[1]));
}

static void proc_null_and_free_active(void) {
  const Ring g = ring();
  int x = 5, y = 0, i;
  MPI_Request rq, rs;
  MPI_Status st;
  CHECK_MPI(MPI_Recv_init(&y, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &rq));
  for (i = 0; i < 3; ++i) {
    CHECK_MPI(MPI_Start(&rq));
    CHECK_MPI(MPI_Wait(&rq, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "PROC_NULL status");
  }
  CHECK_MPI(MPI_Request_free(&rq));
  /* An active persistent send freed by its owner still delivers. */
  CHECK_MPI(MPI_Send_init(&x, 1, MPI_INT, g.to, 9, MPI_COMM_WORLD, &rs));
  CHECK_MPI(MPI_Irecv(&y, 1, MPI_INT, g.from, 9, MPI_COMM_WORLD, &rq));
  x = 1000 + g.rank;
  CHECK_MPI(MPI_Start(&rs));
  CHECK_MPI(MPI_Request_free(&rs));
  CHECK_MPI(MPI_Wait(&rq, &st));
  CHECK(y == 1000 + g.from, "freed active persistent send delivered %d", y);
  /* Starting an active request is an error. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK_MPI(MPI_Recv_init(&y, 1, MPI_INT, g.from, 10, MPI_COMM_WORLD, &rq));
  CHECK_MPI(MPI_Start(&rq));
  CHECK(mt_class(MPI_Start(&rq)) == MPI_ERR_REQUEST, "MPI_Start on an active request");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  CHECK_MPI(MPI_Send(&x, 1, MPI_INT, g.to, 10, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Wait(&rq, &st));
  CHECK_MPI(MPI_Request_free(&rq));
}

int main(int argc, char **argv) {
  int mode, bsize;
  void *attached;
  MPI_Init(&argc, &argv);
  bsize = 4 * (N * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
  attached = mt_malloc((size_t)bsize);
  CHECK_MPI(MPI_Buffer_attach(attached, bsize));
  for (mode = 0; mode < 4; ++mode)
    rounds(mode);
  derived_and_startall();
  proc_null_and_free_active();
  CHECK_MPI(MPI_Buffer_detach(&attached, &bsize));
  free(attached);
  MPI_Barrier(MPI_COMM_WORLD);
  mt_ok("persistent");
  MPI_Finalize();
  return 0;
}
