/* errors: error classes, strings and handlers, with MPI_ERRORS_RETURN on MPI_COMM_WORLD.
 *  - invalid arguments give the right error class: rank (dest/source out of range, MPI_ANY_SOURCE
 *    as a destination), negative count, tag (negative, above MPI_TAG_UB, MPI_ANY_TAG on a send),
 *    MPI_COMM_NULL, MPI_DATATYPE_NULL, root of MPI_Bcast/MPI_Reduce/MPI_Allreduce's op, request;
 *  - a failed call has no effect (nothing is sent; the job goes on normally);
 *  - truncation: MPI_Recv / MPI_Wait / MPI_Waitall into a too-small buffer return
 *    MPI_ERR_TRUNCATE (MPI_ERR_IN_STATUS with the class in the status for MPI_Waitall), bytes
 *    past the receive buffer are not written (guard region), status source/tag/count are sane,
 *    and the next message on the same channel is unaffected; the sender sees no error;
 *  - MPI_Error_class / MPI_Error_string of these codes (distinct, non-empty strings);
 *  - error handlers are per rank (setting one on some ranks leaves the others alone);
 *  - a handler from MPI_Comm_create_errhandler is called with the communicator and the code,
 *    the failing call then returns the code; MPI_Comm_call_errhandler; handlers are per
 *    communicator and inherited by MPI_Comm_dup; MPI_Comm_get_errhandler / MPI_Errhandler_free.
 * Works for any number of ranks (truncation with the ring neighbour, which may be the rank). */
#include "mpitest.h"

#include <limits.h>

#define EXPECT_CLASS(call, cls)                                                                    \
  do {                                                                                             \
    int e_rc_ = (call);                                                                            \
    char e_buf_[MPI_MAX_ERROR_STRING];                                                             \
    CHECK(e_rc_ != MPI_SUCCESS && mt_class(e_rc_) == (cls),                                        \
          "%s returned %d (%s), expected class %s", #call, e_rc_,                                  \
          e_rc_ == MPI_SUCCESS ? "MPI_SUCCESS" : mt_error_name(e_rc_, e_buf_), #cls);              \
  } while (0)

static void argument_errors(int rank, int size) {
  int buf[8] = {0}, flag = 0, tag_ub = 0, *tag_ub_p = NULL, result = 0;
  MPI_Status st;
  MPI_Request r;
  MPI_Comm dup;

  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub_p, &flag));
  CHECK(flag && tag_ub_p, "MPI_TAG_UB not set");
  tag_ub = *tag_ub_p;

  /* rank */
  EXPECT_CLASS(MPI_Send(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
  EXPECT_CLASS(MPI_Send(buf, 1, MPI_INT, -7, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
  EXPECT_CLASS(MPI_Send(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
  EXPECT_CLASS(MPI_Isend(buf, 1, MPI_INT, size + 100, 0, MPI_COMM_WORLD, &r), MPI_ERR_RANK);
  EXPECT_CLASS(MPI_Ssend(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
  EXPECT_CLASS(MPI_Recv(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK);
  EXPECT_CLASS(MPI_Irecv(buf, 1, MPI_INT, -5, 0, MPI_COMM_WORLD, &r), MPI_ERR_RANK);
  EXPECT_CLASS(MPI_Probe(size, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK);
  EXPECT_CLASS(MPI_Iprobe(size, 0, MPI_COMM_WORLD, &flag, &st), MPI_ERR_RANK);
  EXPECT_CLASS(
      MPI_Sendrecv(buf, 1, MPI_INT, size, 0, buf + 1, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, &st),
      MPI_ERR_RANK);
  /* count */
  EXPECT_CLASS(MPI_Send(buf, -1, MPI_INT, rank, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
  EXPECT_CLASS(MPI_Recv(buf, -3, MPI_INT, rank, 0, MPI_COMM_WORLD, &st), MPI_ERR_COUNT);
  EXPECT_CLASS(MPI_Bcast(buf, -1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
  EXPECT_CLASS(MPI_Allreduce(buf, buf + 4, -2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT);
  /* tag */
  EXPECT_CLASS(MPI_Send(buf, 1, MPI_INT, rank, -5, MPI_COMM_WORLD), MPI_ERR_TAG);
  EXPECT_CLASS(MPI_Send(buf, 1, MPI_INT, rank, MPI_ANY_TAG, MPI_COMM_WORLD), MPI_ERR_TAG);
  if (tag_ub < INT_MAX)
    EXPECT_CLASS(MPI_Send(buf, 1, MPI_INT, rank, tag_ub + 1, MPI_COMM_WORLD), MPI_ERR_TAG);
  EXPECT_CLASS(MPI_Recv(buf, 1, MPI_INT, rank, -100, MPI_COMM_WORLD, &st), MPI_ERR_TAG);
  EXPECT_CLASS(MPI_Isend(buf, 1, MPI_INT, rank, -2, MPI_COMM_WORLD, &r), MPI_ERR_TAG);
  /* communicator */
  EXPECT_CLASS(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM);
  EXPECT_CLASS(MPI_Recv(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &st), MPI_ERR_COMM);
  EXPECT_CLASS(MPI_Comm_size(MPI_COMM_NULL, &result), MPI_ERR_COMM);
  EXPECT_CLASS(MPI_Comm_rank(MPI_COMM_NULL, &result), MPI_ERR_COMM);
  EXPECT_CLASS(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
  EXPECT_CLASS(MPI_Bcast(buf, 1, MPI_INT, 0, MPI_COMM_NULL), MPI_ERR_COMM);
  EXPECT_CLASS(MPI_Comm_dup(MPI_COMM_NULL, &dup), MPI_ERR_COMM);
  /* datatype */
  EXPECT_CLASS(MPI_Send(buf, 1, MPI_DATATYPE_NULL, rank, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
  EXPECT_CLASS(MPI_Recv(buf, 1, MPI_DATATYPE_NULL, rank, 0, MPI_COMM_WORLD, &st), MPI_ERR_TYPE);
  EXPECT_CLASS(MPI_Bcast(buf, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
  EXPECT_CLASS(MPI_Allreduce(buf, buf + 4, 1, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD),
               MPI_ERR_TYPE);
  /* root (every rank passes the same invalid root, so nobody waits for the others) */
  EXPECT_CLASS(MPI_Bcast(buf, 1, MPI_INT, size, MPI_COMM_WORLD), MPI_ERR_ROOT);
  EXPECT_CLASS(MPI_Bcast(buf, 1, MPI_INT, -1, MPI_COMM_WORLD), MPI_ERR_ROOT);
  EXPECT_CLASS(MPI_Reduce(buf, buf + 4, 1, MPI_INT, MPI_SUM, size + 3, MPI_COMM_WORLD),
               MPI_ERR_ROOT);
  /* op */
  EXPECT_CLASS(MPI_Allreduce(buf, buf + 4, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP);
  EXPECT_CLASS(MPI_Reduce(buf, buf + 4, 1, MPI_INT, MPI_OP_NULL, 0, MPI_COMM_WORLD), MPI_ERR_OP);
  /* request */
  r = (MPI_Request)12345;
  EXPECT_CLASS(MPI_Wait(&r, &st), MPI_ERR_REQUEST);

  /* Nothing of the failed sends arrived anywhere, and the job works normally afterwards. */
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
  CHECK(!flag, "a failed send delivered a message (source %d tag %d)", st.MPI_SOURCE, st.MPI_TAG);
  {
    int v = rank + 1, sum = 0;
    CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == size * (size + 1) / 2, "Allreduce after the errors: %d", sum);
  }
}

#define GUARD 256
#define PATTERN 0xA5

static void check_guard(const unsigned char *g, const char *what) {
  int i;
  for (i = 0; i < GUARD; ++i)
    CHECK(g[i] == PATTERN, "%s: byte %d past the receive buffer was overwritten (0x%02x)", what, i,
          g[i]);
}

/* Truncated status: source and tag of the message, count at most the buffer's capacity; where
 * the count equals the capacity, the data that was received is the start of the message. */
static void check_truncated(const MPI_Status *st, const int *in, int cap, int src, int tag,
                            int seed, const char *what) {
  int count = -1, i;
  CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag, "%s: status source %d tag %d, expected %d %d",
        what, st->MPI_SOURCE, st->MPI_TAG, src, tag);
  CHECK_MPI(MPI_Get_count(st, MPI_INT, &count));
  CHECK(count >= 0 && count <= cap, "%s: count %d after truncation to %d ints", what, count, cap);
  for (i = 0; i < count; ++i)
    CHECK(in[i] == seed + i, "%s: element %d = %d, expected %d", what, i, in[i], seed + i);
}

static void truncation(int rank, int size) {
  static const int kLens[][2] = {{100, 50}, {100, 0}, {1, 0}, {100000, 50000}, {20000, 19999}};
  const int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  int k;
  for (k = 0; k < 5; ++k) {
    const int n = kLens[k][0], cap = kLens[k][1];
    int *out = mt_malloc((size_t)n * sizeof(int)), *out2 = mt_malloc(4 * sizeof(int));
    unsigned char *raw = mt_malloc((size_t)cap * sizeof(int) + GUARD);
    int *in = (int *)raw, i, rc, next[4];
    MPI_Request sr[2], rr;
    MPI_Status st, sts[2];
    for (i = 0; i < n; ++i)
      out[i] = rank * 1000000 + k * 10000 + i;
    for (i = 0; i < 4; ++i)
      out2[i] = -(rank * 100 + i);
    memset(raw, PATTERN, (size_t)cap * sizeof(int) + GUARD);
    /* Both messages on the same (source, tag) channel; the second is a follow-up. */
    CHECK_MPI(MPI_Isend(out, n, MPI_INT, right, 500 + k, MPI_COMM_WORLD, &sr[0]));
    CHECK_MPI(MPI_Isend(out2, 4, MPI_INT, right, 500 + k, MPI_COMM_WORLD, &sr[1]));

    rc = MPI_Recv(in, cap, MPI_INT, left, 500 + k, MPI_COMM_WORLD, &st);
    CHECK(mt_class(rc) == MPI_ERR_TRUNCATE, "MPI_Recv of %d ints into %d: returned %d", n, cap, rc);
    check_guard(raw + (size_t)cap * sizeof(int), "MPI_Recv");
    check_truncated(&st, in, cap, left, 500 + k, left * 1000000 + k * 10000, "MPI_Recv");
    /* The follow-up arrives intact. */
    CHECK_MPI(MPI_Recv(next, 4, MPI_INT, left, 500 + k, MPI_COMM_WORLD, &st));
    CHECK(next[0] == -(left * 100) && next[3] == -(left * 100 + 3), "follow-up: %d %d", next[0],
          next[3]);
    /* The sender sees no error. */
    CHECK_MPI(MPI_Waitall(2, sr, MPI_STATUSES_IGNORE));

    /* Irecv + Wait, then Irecv + Waitall (MPI_ERR_IN_STATUS). */
    memset(raw, PATTERN, (size_t)cap * sizeof(int) + GUARD);
    CHECK_MPI(MPI_Irecv(in, cap, MPI_INT, MPI_ANY_SOURCE, 600 + k, MPI_COMM_WORLD, &rr));
    CHECK_MPI(MPI_Isend(out, n, MPI_INT, right, 600 + k, MPI_COMM_WORLD, &sr[0]));
    rc = MPI_Wait(&rr, &st);
    CHECK(mt_class(rc) == MPI_ERR_TRUNCATE, "MPI_Wait on a truncated receive: returned %d", rc);
    check_guard(raw + (size_t)cap * sizeof(int), "MPI_Irecv/MPI_Wait");
    check_truncated(&st, in, cap, left, 600 + k, left * 1000000 + k * 10000, "MPI_Irecv/MPI_Wait");
    CHECK_MPI(MPI_Wait(&sr[0], MPI_STATUS_IGNORE));

    memset(raw, PATTERN, (size_t)cap * sizeof(int) + GUARD);
    CHECK_MPI(MPI_Irecv(in, cap, MPI_INT, left, 700 + k, MPI_COMM_WORLD, &rr));
    CHECK_MPI(MPI_Isend(out, n, MPI_INT, right, 700 + k, MPI_COMM_WORLD, &sr[0]));
    sr[1] = rr;
    rc = MPI_Waitall(2, sr, sts);
    CHECK(rc == MPI_ERR_IN_STATUS, "MPI_Waitall with a truncated receive: returned %d", rc);
    CHECK(mt_class(sts[1].MPI_ERROR) == MPI_ERR_TRUNCATE,
          "MPI_Waitall: status of the truncated receive has MPI_ERROR %d", sts[1].MPI_ERROR);
    CHECK(sts[0].MPI_ERROR == MPI_SUCCESS || sts[0].MPI_ERROR == MPI_ERR_PENDING,
          "MPI_Waitall: status of the send has MPI_ERROR %d", sts[0].MPI_ERROR);
    if (sts[0].MPI_ERROR == MPI_ERR_PENDING) CHECK_MPI(MPI_Wait(&sr[0], MPI_STATUS_IGNORE));
    check_guard(raw + (size_t)cap * sizeof(int), "MPI_Irecv/MPI_Waitall");
    check_truncated(&sts[1], in, cap, left, 700 + k, left * 1000000 + k * 10000, "MPI_Waitall");

    /* MPI_Waitany: the error of the completed request (MPI_ERR_TRUNCATE). */
    {
      MPI_Request two[2];
      int index = -1, outcount = -1, idx[2], flag = 0;
      memset(raw, PATTERN, (size_t)cap * sizeof(int) + GUARD);
      two[0] = MPI_REQUEST_NULL;
      CHECK_MPI(MPI_Irecv(in, cap, MPI_INT, left, 800 + k, MPI_COMM_WORLD, &two[1]));
      CHECK_MPI(MPI_Isend(out, n, MPI_INT, right, 800 + k, MPI_COMM_WORLD, &sr[0]));
      rc = MPI_Waitany(2, two, &index, &st);
      CHECK(mt_class(rc) == MPI_ERR_TRUNCATE && index == 1,
            "MPI_Waitany on a truncated receive: returned %d, index %d", rc, index);
      check_guard(raw + (size_t)cap * sizeof(int), "MPI_Irecv/MPI_Waitany");
      check_truncated(&st, in, cap, left, 800 + k, left * 1000000 + k * 10000, "MPI_Waitany");
      CHECK_MPI(MPI_Wait(&sr[0], MPI_STATUS_IGNORE));

      /* MPI_Waitsome: MPI_ERR_IN_STATUS, the class in the status. */
      memset(raw, PATTERN, (size_t)cap * sizeof(int) + GUARD);
      CHECK_MPI(MPI_Irecv(in, cap, MPI_INT, left, 900 + k, MPI_COMM_WORLD, &two[1]));
      CHECK_MPI(MPI_Isend(out, n, MPI_INT, right, 900 + k, MPI_COMM_WORLD, &sr[0]));
      rc = MPI_Waitsome(2, two, &outcount, idx, sts);
      CHECK(rc == MPI_ERR_IN_STATUS && outcount == 1 && idx[0] == 1,
            "MPI_Waitsome on a truncated receive: returned %d, outcount %d", rc, outcount);
      CHECK(mt_class(sts[0].MPI_ERROR) == MPI_ERR_TRUNCATE, "MPI_Waitsome: MPI_ERROR %d",
            sts[0].MPI_ERROR);
      check_guard(raw + (size_t)cap * sizeof(int), "MPI_Irecv/MPI_Waitsome");
      check_truncated(&sts[0], in, cap, left, 900 + k, left * 1000000 + k * 10000, "MPI_Waitsome");
      CHECK_MPI(MPI_Wait(&sr[0], MPI_STATUS_IGNORE));

      /* MPI_Test polling: MPI_ERR_TRUNCATE when it completes. */
      memset(raw, PATTERN, (size_t)cap * sizeof(int) + GUARD);
      CHECK_MPI(MPI_Irecv(in, cap, MPI_INT, left, 1000 + k, MPI_COMM_WORLD, &rr));
      CHECK_MPI(MPI_Isend(out, n, MPI_INT, right, 1000 + k, MPI_COMM_WORLD, &sr[0]));
      for (i = 0, rc = MPI_SUCCESS; !flag && rc == MPI_SUCCESS; ++i) {
        CHECK(i < 10000000, "MPI_Test never completes a truncated receive");
        rc = MPI_Test(&rr, &flag, &st);
      }
      CHECK(mt_class(rc) == MPI_ERR_TRUNCATE && flag,
            "MPI_Test on a truncated receive: returned %d, flag %d", rc, flag);
      check_guard(raw + (size_t)cap * sizeof(int), "MPI_Irecv/MPI_Test");
      check_truncated(&st, in, cap, left, 1000 + k, left * 1000000 + k * 10000, "MPI_Test");
      CHECK_MPI(MPI_Wait(&sr[0], MPI_STATUS_IGNORE));
    }
    free(out);
    free(out2);
    free(raw);
  }
}

static void error_strings(void) {
  static const int kCodes[] = {MPI_SUCCESS,     MPI_ERR_RANK, MPI_ERR_COUNT,     MPI_ERR_TAG,
                               MPI_ERR_COMM,    MPI_ERR_TYPE, MPI_ERR_ROOT,      MPI_ERR_TRUNCATE,
                               MPI_ERR_OP,      MPI_ERR_ARG,  MPI_ERR_IN_STATUS, MPI_ERR_BUFFER,
                               MPI_ERR_REQUEST, MPI_ERR_OTHER};
  enum { N = sizeof kCodes / sizeof kCodes[0] };
  char strings[N][MPI_MAX_ERROR_STRING];
  int i, j, cls, len;
  for (i = 0; i < N; ++i) {
    CHECK_MPI(MPI_Error_class(kCodes[i], &cls));
    CHECK(cls == kCodes[i], "MPI_Error_class(%d) = %d", kCodes[i], cls);
    len = -1;
    memset(strings[i], 'x', MPI_MAX_ERROR_STRING);
    CHECK_MPI(MPI_Error_string(kCodes[i], strings[i], &len));
    CHECK(len > 0 && len < MPI_MAX_ERROR_STRING, "MPI_Error_string(%d): length %d", kCodes[i], len);
    CHECK(strlen(strings[i]) == (size_t)len, "MPI_Error_string(%d): resultlen %d, strlen %zu",
          kCodes[i], len, strlen(strings[i]));
    for (j = 0; j < i; ++j)
      CHECK(strcmp(strings[i], strings[j]) != 0, "codes %d and %d have the same string '%s'",
            kCodes[i], kCodes[j], strings[i]);
  }
  CHECK(MPI_SUCCESS == 0, "MPI_SUCCESS is %d", MPI_SUCCESS);
  CHECK(MPI_ERR_LASTCODE >= MPI_ERR_OTHER, "MPI_ERR_LASTCODE");
  /* Not an error code (under MPI_ERRORS_RETURN): MPI_ERR_ARG. */
  EXPECT_CLASS(MPI_Error_class(MPI_ERR_LASTCODE + 12345, &cls), MPI_ERR_ARG);
}

/* User error handlers. The handler records its calls in an array indexed by world rank (ranks
 * may share the program's globals under ampi; each rank writes only its own element). */
#define MAX_RANKS 4096
static struct {
  int calls;
  int code;
  MPI_Comm comm;
} g_handled[MAX_RANKS];

static void handler(MPI_Comm *comm, int *code, ...) {
  int wr = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &wr);
  if (wr >= 0 && wr < MAX_RANKS) {
    g_handled[wr].calls++;
    g_handled[wr].code = *code;
    g_handled[wr].comm = *comm;
  }
}

static void handlers(int rank, int size) {
  MPI_Errhandler eh, got, got2;
  MPI_Comm dup, dup2;
  int buf[2] = {0, 0}, rc, result = -1;
  if (rank >= MAX_RANKS) return;
  memset(&g_handled[rank], 0, sizeof g_handled[rank]);

  CHECK_MPI(MPI_Comm_create_errhandler(handler, &eh));
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  /* MPI_Comm_dup copies the error handler: WORLD has MPI_ERRORS_RETURN here. */
  CHECK_MPI(MPI_Comm_get_errhandler(dup, &got));
  CHECK(got == MPI_ERRORS_RETURN, "MPI_Comm_dup did not copy MPI_ERRORS_RETURN");
  CHECK_MPI(MPI_Comm_set_errhandler(dup, eh));
  CHECK_MPI(MPI_Comm_get_errhandler(dup, &got));
  CHECK(got == eh, "MPI_Comm_get_errhandler returned another handler");
  CHECK_MPI(MPI_Errhandler_free(&got));
  CHECK(got == MPI_ERRHANDLER_NULL, "MPI_Errhandler_free did not set MPI_ERRHANDLER_NULL");

  /* An error on dup calls the handler with dup and the code; the call returns the code. */
  rc = MPI_Send(buf, 1, MPI_INT, size, 0, dup);
  CHECK(g_handled[rank].calls == 1, "handler called %d times for one error", g_handled[rank].calls);
  CHECK(mt_class(g_handled[rank].code) == MPI_ERR_RANK, "handler got code %d (class %d)",
        g_handled[rank].code, mt_class(g_handled[rank].code));
  CHECK(g_handled[rank].comm == dup, "handler got another communicator");
  CHECK(mt_class(rc) == MPI_ERR_RANK, "MPI_Send returned %d after the handler", rc);

  rc = MPI_Recv(buf, -1, MPI_INT, 0, 0, dup, MPI_STATUS_IGNORE);
  CHECK(g_handled[rank].calls == 2 && mt_class(g_handled[rank].code) == MPI_ERR_COUNT,
        "negative count on dup: handler calls %d code %d", g_handled[rank].calls,
        g_handled[rank].code);
  CHECK(mt_class(rc) == MPI_ERR_COUNT, "MPI_Recv returned %d after the handler", rc);

  /* An error on WORLD (MPI_ERRORS_RETURN) does not call it. */
  rc = MPI_Send(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
  CHECK(mt_class(rc) == MPI_ERR_RANK && g_handled[rank].calls == 2,
        "error on MPI_COMM_WORLD: rc %d, handler calls %d", rc, g_handled[rank].calls);

  /* MPI_Comm_call_errhandler. */
  CHECK_MPI(MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER));
  CHECK(g_handled[rank].calls == 3 && g_handled[rank].code == MPI_ERR_OTHER &&
            g_handled[rank].comm == dup,
        "MPI_Comm_call_errhandler: calls %d code %d", g_handled[rank].calls, g_handled[rank].code);

  /* A dup of dup inherits the user handler; freeing the handle keeps it alive while in use. */
  CHECK_MPI(MPI_Comm_dup(dup, &dup2));
  CHECK_MPI(MPI_Errhandler_free(&eh));
  rc = MPI_Comm_size(MPI_COMM_NULL, &result); /* reported on WORLD: no handler call */
  CHECK(mt_class(rc) == MPI_ERR_COMM && g_handled[rank].calls == 3,
        "MPI_Comm_size(MPI_COMM_NULL): rc %d calls %d", rc, g_handled[rank].calls);
  rc = MPI_Send(buf, 1, MPI_INT, rank, -1, dup2);
  CHECK(g_handled[rank].calls == 4 && mt_class(g_handled[rank].code) == MPI_ERR_TAG &&
            g_handled[rank].comm == dup2,
        "error on a dup of dup: calls %d code %d", g_handled[rank].calls, g_handled[rank].code);
  CHECK(mt_class(rc) == MPI_ERR_TAG, "MPI_Send (bad tag) returned %d", rc);
  CHECK_MPI(MPI_Comm_get_errhandler(dup2, &got2));
  CHECK_MPI(MPI_Comm_set_errhandler(dup2, MPI_ERRORS_RETURN));
  rc = MPI_Send(buf, 1, MPI_INT, rank, -1, dup2);
  CHECK(g_handled[rank].calls == 4 && mt_class(rc) == MPI_ERR_TAG,
        "after MPI_ERRORS_RETURN on dup2: calls %d rc %d", g_handled[rank].calls, rc);
  CHECK_MPI(MPI_Errhandler_free(&got2));
  /* dup still uses the handler (MPI_Comm_dup gave dup2 a reference of its own, which dup2
   * dropped when it got MPI_ERRORS_RETURN): an error on dup still calls it. If the library lost
   * count of the references, the handler is gone and this error is fatal. */
  rc = MPI_Send(buf, 1, MPI_INT, size + 1, 0, dup);
  CHECK(g_handled[rank].calls == 5 && mt_class(g_handled[rank].code) == MPI_ERR_RANK &&
            g_handled[rank].comm == dup,
        "error on dup after dup2 changed its handler: calls %d code %d", g_handled[rank].calls,
        g_handled[rank].code);
  CHECK(mt_class(rc) == MPI_ERR_RANK, "MPI_Send (bad rank) on dup returned %d", rc);
  CHECK_MPI(MPI_Comm_free(&dup2));
  /* A handler used by a communicator that was freed can be created, set and freed again. */
  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK_MPI(MPI_Comm_create_errhandler(handler, &eh));
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_MPI(MPI_Comm_set_errhandler(dup, eh));
  CHECK_MPI(MPI_Errhandler_free(&eh));
  CHECK_MPI(MPI_Comm_call_errhandler(dup, MPI_ERR_COUNT));
  CHECK(g_handled[rank].calls == 6 && g_handled[rank].code == MPI_ERR_COUNT,
        "second handler: calls %d code %d", g_handled[rank].calls, g_handled[rank].code);
  CHECK_MPI(MPI_Comm_free(&dup));
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Errhandler eh;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
  CHECK(eh == MPI_ERRORS_ARE_FATAL, "the default error handler of MPI_COMM_WORLD is not "
                                    "MPI_ERRORS_ARE_FATAL");
  /* The error handler is each rank's own: odd ranks set MPI_ERRORS_RETURN first, even ranks
   * still have MPI_ERRORS_ARE_FATAL afterwards. */
  if (rank % 2 == 1) CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
  CHECK(eh == (rank % 2 == 1 ? MPI_ERRORS_RETURN : MPI_ERRORS_ARE_FATAL),
        "setting the error handler of MPI_COMM_WORLD on odd ranks changed it on rank %d", rank);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
  CHECK(eh == MPI_ERRORS_RETURN, "MPI_Comm_get_errhandler after set: not MPI_ERRORS_RETURN");

  argument_errors(rank, size);
  MPI_Barrier(MPI_COMM_WORLD);
  truncation(rank, size);
  MPI_Barrier(MPI_COMM_WORLD);
  error_strings();
  handlers(rank, size);

  MPI_Barrier(MPI_COMM_WORLD);
  mt_ok("errors");
  MPI_Finalize();
  return 0;
}
