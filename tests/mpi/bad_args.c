/* bad_args: a table of erroneous MPI calls under MPI_ERRORS_RETURN.
 *
 * Each case makes one call with exactly one bad argument (or one erroneous situation) and is
 * checked on every rank:
 *  - the call returns an error code whose class (MPI_Error_class) is exactly the expected one;
 *  - the call changes nothing: output arguments (handles, flags, counts, statuses, names) keep
 *    the sentinel values preset before the call, buffers keep their pattern, valid requests
 *    passed next to a bad one stay active, nothing is sent (a message sent by a failed call
 *    would be received by the follow-up, see below);
 *  - a correct operation afterwards still works: every case is followed by a send/receive ring
 *    on MPI_COMM_WORLD whose receive takes MPI_ANY_TAG from the left neighbour (a message that a
 *    failed call sent ahead of it would arrive first: messages do not overtake), and by an
 *    MPI_Allreduce that combines the ranks' verdicts. Cases on other communicators run the same
 *    ring on them before freeing them.
 * Truncation cases (MPI_Recv, MPI_Wait, MPI_Waitall, MPI_Test, MPI_Sendrecv) check that bytes past
 * the receive buffer are untouched. A few unsupported functions check
 * MPI_ERR_UNSUPPORTED_OPERATION.
 *
 * MPI_ERRORS_RETURN is set on MPI_COMM_WORLD, MPI_COMM_SELF and every communicator a case creates.
 * Rank 0 prints one line per case ("ok"/"FAIL"); a failing rank prints the details on stderr
 * ("FAIL [rank R] <case>: ..."). The program ends with a summary and exits non-zero if any case
 * failed. Works for any number of ranks (cases that need a peer use (rank + 1) % size; a case
 * that needs two ranks is skipped with one). */
#include "mpitest.h"

#include <limits.h>

#define SENT 0x5a5a5a5a      /* preset value of int outputs and handles */
#define GARBAGE_HANDLE 12345 /* a value that is no handle of any kind */
#define FOLLOW_TAG 32000     /* the follow-up ring's tag */
#define GUARD 64             /* bytes checked past a receive buffer */
#define GUARD_BYTE 0xA5

typedef struct {
  int rank, size, left, right;
  int tag_ub;
  int idx;        /* case index */
  int tag;        /* a tag of the case's own */
  char why[1024]; /* what went wrong, empty when the case passed */
} Ctx;

static void note(Ctx *c, const char *fmt, ...) {
  size_t n = strlen(c->why);
  va_list ap;
  if (n + 8 >= sizeof c->why) return;
  if (n) {
    memcpy(c->why + n, "; ", 3);
    n += 2;
  }
  va_start(ap, fmt);
  vsnprintf(c->why + n, sizeof c->why - n, fmt, ap);
  va_end(ap);
}

#define EXPECT(c, cond, ...)                                                                       \
  do {                                                                                             \
    if (!(cond)) note((c), __VA_ARGS__);                                                           \
  } while (0)

/* A helper call of a case, which must succeed. */
#define CALL(c, call)                                                                              \
  do {                                                                                             \
    int call_rc_ = (call);                                                                         \
    if (call_rc_ != MPI_SUCCESS) note((c), "line %d: %s returned %d", __LINE__, #call, call_rc_);  \
  } while (0)

/* ---- class names ------------------------------------------------------------------------------
 */

static const struct {
  int code;
  const char *name;
} kClassNames[] = {
    {MPI_SUCCESS, "MPI_SUCCESS"},
    {MPI_ERR_BUFFER, "MPI_ERR_BUFFER"},
    {MPI_ERR_COUNT, "MPI_ERR_COUNT"},
    {MPI_ERR_TYPE, "MPI_ERR_TYPE"},
    {MPI_ERR_TAG, "MPI_ERR_TAG"},
    {MPI_ERR_COMM, "MPI_ERR_COMM"},
    {MPI_ERR_RANK, "MPI_ERR_RANK"},
    {MPI_ERR_ROOT, "MPI_ERR_ROOT"},
    {MPI_ERR_GROUP, "MPI_ERR_GROUP"},
    {MPI_ERR_OP, "MPI_ERR_OP"},
    {MPI_ERR_ARG, "MPI_ERR_ARG"},
    {MPI_ERR_UNKNOWN, "MPI_ERR_UNKNOWN"},
    {MPI_ERR_TRUNCATE, "MPI_ERR_TRUNCATE"},
    {MPI_ERR_OTHER, "MPI_ERR_OTHER"},
    {MPI_ERR_INTERN, "MPI_ERR_INTERN"},
    {MPI_ERR_IN_STATUS, "MPI_ERR_IN_STATUS"},
    {MPI_ERR_PENDING, "MPI_ERR_PENDING"},
    {MPI_ERR_REQUEST, "MPI_ERR_REQUEST"},
    {MPI_ERR_KEYVAL, "MPI_ERR_KEYVAL"},
    {MPI_ERR_NO_MEM, "MPI_ERR_NO_MEM"},
    {MPI_ERR_UNSUPPORTED_OPERATION, "MPI_ERR_UNSUPPORTED_OPERATION"},
};

static const char *class_name(int code) {
  size_t i;
  for (i = 0; i < sizeof kClassNames / sizeof kClassNames[0]; ++i)
    if (kClassNames[i].code == code) return kClassNames[i].name;
  return "(another class)";
}

/* ---- patterns and sentinels --------------------------------------------------------------------
 */

static unsigned char pat_byte(size_t i, int seed) {
  return (unsigned char)(i * 37u + (unsigned)seed * 11u + 0x5bu);
}

static void pat_fill(void *p, size_t n, int seed) {
  unsigned char *b = (unsigned char *)p;
  size_t i;
  for (i = 0; i < n; ++i)
    b[i] = pat_byte(i, seed);
}

static void pat_expect(Ctx *c, const void *p, size_t n, int seed, const char *what) {
  const unsigned char *b = (const unsigned char *)p;
  size_t i;
  for (i = 0; i < n; ++i)
    if (b[i] != pat_byte(i, seed)) {
      note(c, "%s: byte %zu changed (0x%02x, was 0x%02x)", what, i, b[i], pat_byte(i, seed));
      return;
    }
}

static void status_preset(MPI_Status *st, int n) {
  memset(st, 0x5a, sizeof *st * (size_t)n);
}

static void status_expect(Ctx *c, const MPI_Status *st, int n, const char *what) {
  const unsigned char *b = (const unsigned char *)st;
  size_t i;
  for (i = 0; i < sizeof *st * (size_t)n; ++i)
    if (b[i] != 0x5a) {
      note(c, "%s: status written (byte %zu)", what, i);
      return;
    }
}

#define EXPECT_SENT(c, v, what)                                                                    \
  EXPECT(c, (v) == SENT, "%s changed from 0x%x to 0x%x (%d)", what, (unsigned)SENT, (unsigned)(v), \
         (int)(v))

/* ---- the follow-up ring
 * -------------------------------------------------------------------------- */

/* Every rank sends {rank, case} to its right neighbour in `comm` and receives from its left one
 * with MPI_ANY_TAG: a message that a failed call sent to it on `comm` arrives first. */
static void ring(Ctx *c, MPI_Comm comm, const char *label) {
  int rank = -1, size = 0, left, right, out[2], in[2] = {-1, -1}, k, rc, cls;
  MPI_Status st;
  if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &size) != MPI_SUCCESS) {
    note(c, "%s: MPI_Comm_rank/size fail", label);
    return;
  }
  left = (rank - 1 + size) % size;
  right = (rank + 1) % size;
  out[0] = rank;
  out[1] = c->idx;
  for (k = 0; k < 8; ++k) {
    if (k == 0)
      rc = MPI_Sendrecv(out, 2, MPI_INT, right, FOLLOW_TAG, in, 2, MPI_INT, left, MPI_ANY_TAG, comm,
                        &st);
    else
      rc = MPI_Recv(in, 2, MPI_INT, left, MPI_ANY_TAG, comm, &st);
    cls = mt_class(rc);
    if (rc != MPI_SUCCESS && cls != MPI_ERR_TRUNCATE) {
      note(c, "%s: the good MPI_Sendrecv/MPI_Recv failed with %d (%s)", label, rc, class_name(cls));
      return;
    }
    if (rc == MPI_SUCCESS && st.MPI_TAG == FOLLOW_TAG) break;
    note(c, "%s: a stray message (tag %d) from rank %d arrived first: a failed call sent it", label,
         st.MPI_TAG, st.MPI_SOURCE);
  }
  EXPECT(c, in[0] == left && in[1] == c->idx, "%s: received {%d, %d}, expected {%d, %d}", label,
         in[0], in[1], left, c->idx);
}

/* Dup of MPI_COMM_WORLD with MPI_ERRORS_RETURN set on it. */
static MPI_Comm dup_world(Ctx *c) {
  MPI_Comm d = MPI_COMM_NULL;
  CALL(c, MPI_Comm_dup(MPI_COMM_WORLD, &d));
  CALL(c, MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN));
  return d;
}

/* ============================== point-to-point ============================================== */

static int p2p_send_dest_size(Ctx *c) {
  int b[4], rc;
  pat_fill(b, sizeof b, 1);
  rc = MPI_Send(b, 4, MPI_INT, c->size, c->tag, MPI_COMM_WORLD);
  pat_expect(c, b, sizeof b, 1, "send buffer");
  return rc;
}

static int p2p_send_dest_negative(Ctx *c) {
  int b[4] = {0};
  return MPI_Send(b, 0, MPI_INT, -7, c->tag, MPI_COMM_WORLD);
}

static int p2p_send_dest_any_source(Ctx *c) {
  int b[4] = {1, 2, 3, 4};
  return MPI_Send(b, 4, MPI_INT, MPI_ANY_SOURCE, c->tag, MPI_COMM_WORLD);
}

static int p2p_ssend_dest_big(Ctx *c) {
  int b[4] = {1, 2, 3, 4};
  return MPI_Ssend(b, 4, MPI_INT, c->size + 5, c->tag, MPI_COMM_WORLD);
}

static int p2p_isend_dest_size(Ctx *c) {
  int b[4] = {1, 2, 3, 4}, rc;
  MPI_Request r = (MPI_Request)SENT;
  rc = MPI_Isend(b, 4, MPI_INT, c->size, c->tag, MPI_COMM_WORLD, &r);
  EXPECT_SENT(c, r, "request");
  return rc;
}

static int p2p_recv_source_size(Ctx *c) {
  int b[4], rc;
  MPI_Status st;
  pat_fill(b, sizeof b, 2);
  status_preset(&st, 1);
  rc = MPI_Recv(b, 4, MPI_INT, c->size, c->tag, MPI_COMM_WORLD, &st);
  pat_expect(c, b, sizeof b, 2, "receive buffer");
  status_expect(c, &st, 1, "MPI_Recv");
  return rc;
}

static int p2p_irecv_source_negative(Ctx *c) {
  int b[4], rc;
  MPI_Request r = (MPI_Request)SENT;
  pat_fill(b, sizeof b, 3);
  rc = MPI_Irecv(b, 4, MPI_INT, -5, c->tag, MPI_COMM_WORLD, &r);
  EXPECT_SENT(c, r, "request");
  pat_expect(c, b, sizeof b, 3, "receive buffer");
  return rc;
}

static int p2p_send_count_negative(Ctx *c) {
  int b[4] = {0};
  return MPI_Send(b, -1, MPI_INT, c->right, c->tag, MPI_COMM_WORLD);
}

static int p2p_isend_count_negative(Ctx *c) {
  int b[4] = {0}, rc;
  MPI_Request r = (MPI_Request)SENT;
  rc = MPI_Isend(b, -3, MPI_INT, c->right, c->tag, MPI_COMM_WORLD, &r);
  EXPECT_SENT(c, r, "request");
  return rc;
}

static int p2p_recv_count_negative(Ctx *c) {
  int b[4], rc;
  MPI_Status st;
  pat_fill(b, sizeof b, 4);
  status_preset(&st, 1);
  rc = MPI_Recv(b, -1, MPI_INT, c->left, c->tag, MPI_COMM_WORLD, &st);
  pat_expect(c, b, sizeof b, 4, "receive buffer");
  status_expect(c, &st, 1, "MPI_Recv");
  return rc;
}

static int p2p_send_tag_negative(Ctx *c) {
  int b[2] = {0};
  return MPI_Send(b, 2, MPI_INT, c->right, -5, MPI_COMM_WORLD);
}

static int p2p_send_tag_any(Ctx *c) {
  int b[2] = {0};
  return MPI_Send(b, 2, MPI_INT, c->right, MPI_ANY_TAG, MPI_COMM_WORLD);
}

static int p2p_send_tag_above_ub(Ctx *c) {
  int b[2] = {0};
  return MPI_Send(b, 2, MPI_INT, c->right, c->tag_ub < INT_MAX ? c->tag_ub + 1 : INT_MIN,
                  MPI_COMM_WORLD);
}

static int p2p_recv_tag_negative(Ctx *c) {
  int b[2], rc;
  MPI_Status st;
  pat_fill(b, sizeof b, 5);
  status_preset(&st, 1);
  rc = MPI_Recv(b, 2, MPI_INT, c->left, -100, MPI_COMM_WORLD, &st);
  pat_expect(c, b, sizeof b, 5, "receive buffer");
  status_expect(c, &st, 1, "MPI_Recv");
  return rc;
}

static int p2p_irecv_tag_above_ub(Ctx *c) {
  int b[2], rc;
  MPI_Request r = (MPI_Request)SENT;
  rc = MPI_Irecv(b, 2, MPI_INT, c->left, c->tag_ub < INT_MAX ? c->tag_ub + 1 : INT_MIN,
                 MPI_COMM_WORLD, &r);
  EXPECT_SENT(c, r, "request");
  return rc;
}

static int p2p_send_buf_null(Ctx *c) {
  return MPI_Send(NULL, 4, MPI_INT, c->right, c->tag, MPI_COMM_WORLD);
}

static int p2p_recv_buf_null(Ctx *c) {
  MPI_Status st;
  int rc;
  status_preset(&st, 1);
  rc = MPI_Recv(NULL, 4, MPI_INT, c->left, c->tag, MPI_COMM_WORLD, &st);
  status_expect(c, &st, 1, "MPI_Recv");
  return rc;
}

static int p2p_send_type_null(Ctx *c) {
  int b[2] = {0};
  return MPI_Send(b, 2, MPI_DATATYPE_NULL, c->right, c->tag, MPI_COMM_WORLD);
}

static int p2p_send_type_garbage(Ctx *c) {
  int b[2] = {0};
  return MPI_Send(b, 2, (MPI_Datatype)GARBAGE_HANDLE, c->right, c->tag, MPI_COMM_WORLD);
}

static int p2p_irecv_type_null(Ctx *c) {
  int b[2], rc;
  MPI_Request r = (MPI_Request)SENT;
  pat_fill(b, sizeof b, 6);
  rc = MPI_Irecv(b, 2, MPI_DATATYPE_NULL, c->left, c->tag, MPI_COMM_WORLD, &r);
  EXPECT_SENT(c, r, "request");
  pat_expect(c, b, sizeof b, 6, "receive buffer");
  return rc;
}

static int p2p_send_comm_null(Ctx *c) {
  int b[2] = {0};
  return MPI_Send(b, 2, MPI_INT, 0, c->tag, MPI_COMM_NULL);
}

static int p2p_send_comm_garbage(Ctx *c) {
  int b[2] = {0};
  return MPI_Send(b, 2, MPI_INT, 0, c->tag, (MPI_Comm)GARBAGE_HANDLE);
}

static int p2p_recv_comm_freed(Ctx *c) {
  MPI_Comm d = dup_world(c), stale;
  MPI_Status st;
  int b[2], rc;
  ring(c, d, "ring on the dup");
  stale = d;
  CALL(c, MPI_Comm_free(&d));
  EXPECT(c, d == MPI_COMM_NULL, "MPI_Comm_free did not set MPI_COMM_NULL");
  pat_fill(b, sizeof b, 7);
  status_preset(&st, 1);
  rc = MPI_Recv(b, 2, MPI_INT, c->left, c->tag, stale, &st);
  pat_expect(c, b, sizeof b, 7, "receive buffer");
  status_expect(c, &st, 1, "MPI_Recv");
  return rc;
}

static int p2p_send_tag_on_dup(Ctx *c) {
  MPI_Comm d = dup_world(c);
  int b[2] = {0}, rc;
  rc = MPI_Send(b, 2, MPI_INT, c->right, -1, d);
  ring(c, d, "ring on the dup");
  CALL(c, MPI_Comm_free(&d));
  return rc;
}

static int p2p_send_dest_on_split(Ctx *c) {
  MPI_Comm s = MPI_COMM_NULL;
  int b[2] = {0}, rc, ssize = 0;
  CALL(c, MPI_Comm_split(MPI_COMM_WORLD, c->rank % 2, c->size - c->rank, &s));
  CALL(c, MPI_Comm_set_errhandler(s, MPI_ERRORS_RETURN));
  CALL(c, MPI_Comm_size(s, &ssize));
  /* dest = the split communicator's size: a valid rank of MPI_COMM_WORLD when size > 1 */
  rc = MPI_Send(b, 2, MPI_INT, ssize, c->tag, s);
  ring(c, s, "ring on the split communicator");
  CALL(c, MPI_Comm_free(&s));
  return rc;
}

static int p2p_isend_request_null(Ctx *c) {
  int b[2] = {0};
  return MPI_Isend(b, 2, MPI_INT, c->right, c->tag, MPI_COMM_WORLD, NULL);
}

static int p2p_irecv_request_null(Ctx *c) {
  int b[2], rc;
  pat_fill(b, sizeof b, 8);
  rc = MPI_Irecv(b, 2, MPI_INT, c->left, c->tag, MPI_COMM_WORLD, NULL);
  pat_expect(c, b, sizeof b, 8, "receive buffer");
  return rc;
}

static int p2p_wait_request_null(Ctx *c) {
  MPI_Status st;
  int rc;
  status_preset(&st, 1);
  rc = MPI_Wait(NULL, &st);
  status_expect(c, &st, 1, "MPI_Wait");
  return rc;
}

static int p2p_wait_request_garbage(Ctx *c) {
  MPI_Request r = (MPI_Request)GARBAGE_HANDLE;
  MPI_Status st;
  int rc;
  status_preset(&st, 1);
  rc = MPI_Wait(&r, &st);
  EXPECT(c, r == (MPI_Request)GARBAGE_HANDLE, "request changed to 0x%x", (unsigned)r);
  status_expect(c, &st, 1, "MPI_Wait");
  return rc;
}

static int p2p_wait_request_stale(Ctx *c) {
  MPI_Request r = MPI_REQUEST_NULL, stale;
  MPI_Status st;
  int b[1], rc;
  CALL(c, MPI_Irecv(b, 1, MPI_INT, MPI_PROC_NULL, c->tag, MPI_COMM_WORLD, &r));
  stale = r;
  CALL(c, MPI_Wait(&r, MPI_STATUS_IGNORE));
  EXPECT(c, r == MPI_REQUEST_NULL, "MPI_Wait did not set MPI_REQUEST_NULL");
  status_preset(&st, 1);
  rc = MPI_Wait(&stale, &st);
  status_expect(c, &st, 1, "MPI_Wait");
  return rc;
}

static int p2p_test_request_garbage(Ctx *c) {
  MPI_Request r = (MPI_Request)GARBAGE_HANDLE;
  MPI_Status st;
  int flag = SENT, rc;
  status_preset(&st, 1);
  rc = MPI_Test(&r, &flag, &st);
  EXPECT_SENT(c, flag, "flag");
  EXPECT(c, r == (MPI_Request)GARBAGE_HANDLE, "request changed to 0x%x", (unsigned)r);
  status_expect(c, &st, 1, "MPI_Test");
  return rc;
}

static int p2p_test_request_null(Ctx *c) {
  int flag = SENT, rc;
  rc = MPI_Test(NULL, &flag, MPI_STATUS_IGNORE);
  EXPECT_SENT(c, flag, "flag");
  return rc;
}

static int p2p_cancel_request_garbage(Ctx *c) {
  MPI_Request r = (MPI_Request)GARBAGE_HANDLE;
  int rc = MPI_Cancel(&r);
  EXPECT(c, r == (MPI_Request)GARBAGE_HANDLE, "request changed to 0x%x", (unsigned)r);
  return rc;
}

static int p2p_cancel_request_null_handle(Ctx *c) {
  MPI_Request r = MPI_REQUEST_NULL;
  int rc = MPI_Cancel(&r);
  EXPECT(c, r == MPI_REQUEST_NULL, "request changed to 0x%x", (unsigned)r);
  return rc;
}

static int p2p_request_free_garbage(Ctx *c) {
  MPI_Request r = (MPI_Request)GARBAGE_HANDLE;
  int rc = MPI_Request_free(&r);
  EXPECT(c, r == (MPI_Request)GARBAGE_HANDLE, "request changed to 0x%x", (unsigned)r);
  return rc;
}

static int p2p_request_free_null_handle(Ctx *c) {
  MPI_Request r = MPI_REQUEST_NULL;
  int rc = MPI_Request_free(&r);
  EXPECT(c, r == MPI_REQUEST_NULL, "request changed to 0x%x", (unsigned)r);
  return rc;
}

/* A receive from the left neighbour kept pending across a failed call, then completed. */
typedef struct {
  MPI_Request req;
  int in[2];
} Pending;

static void pending_start(Ctx *c, Pending *p) {
  p->in[0] = p->in[1] = SENT;
  p->req = MPI_REQUEST_NULL;
  CALL(c, MPI_Irecv(p->in, 2, MPI_INT, c->left, c->tag, MPI_COMM_WORLD, &p->req));
}

static void pending_finish(Ctx *c, Pending *p, MPI_Request now) {
  int out[2], rc;
  MPI_Request sr = MPI_REQUEST_NULL;
  MPI_Status st;
  EXPECT(c, now == p->req, "the valid request in the array changed from 0x%x to 0x%x",
         (unsigned)p->req, (unsigned)now);
  /* (its buffer may already hold the message: the left neighbour may be ahead) */
  out[0] = c->rank;
  out[1] = c->tag;
  CALL(c, MPI_Isend(out, 2, MPI_INT, c->right, c->tag, MPI_COMM_WORLD, &sr));
  rc = MPI_Wait(&p->req, &st);
  EXPECT(c, rc == MPI_SUCCESS, "the valid request no longer completes: MPI_Wait returned %d (%s)",
         rc, class_name(mt_class(rc)));
  if (rc == MPI_SUCCESS)
    EXPECT(c, p->in[0] == c->left && p->in[1] == c->tag,
           "the valid request received {%d, %d}, expected {%d, %d}", p->in[0], p->in[1], c->left,
           c->tag);
  CALL(c, MPI_Wait(&sr, MPI_STATUS_IGNORE));
}

static int p2p_waitall_garbage(Ctx *c) {
  Pending p;
  MPI_Request reqs[3];
  MPI_Status sts[3];
  int rc;
  pending_start(c, &p);
  reqs[0] = p.req;
  reqs[1] = (MPI_Request)GARBAGE_HANDLE;
  reqs[2] = MPI_REQUEST_NULL;
  status_preset(sts, 3);
  rc = MPI_Waitall(3, reqs, sts);
  EXPECT(c, reqs[1] == (MPI_Request)GARBAGE_HANDLE && reqs[2] == MPI_REQUEST_NULL,
         "the other handles changed");
  status_expect(c, sts, 3, "MPI_Waitall");
  pending_finish(c, &p, reqs[0]);
  return rc;
}

static int p2p_waitall_count_negative(Ctx *c) {
  MPI_Request reqs[1] = {MPI_REQUEST_NULL};
  MPI_Status sts[1];
  int rc;
  status_preset(sts, 1);
  rc = MPI_Waitall(-1, reqs, sts);
  status_expect(c, sts, 1, "MPI_Waitall");
  return rc;
}

static int p2p_waitany_garbage(Ctx *c) {
  Pending p;
  MPI_Request reqs[2];
  MPI_Status st;
  int index = SENT, rc;
  pending_start(c, &p);
  reqs[0] = (MPI_Request)GARBAGE_HANDLE;
  reqs[1] = p.req;
  status_preset(&st, 1);
  rc = MPI_Waitany(2, reqs, &index, &st);
  EXPECT_SENT(c, index, "index");
  status_expect(c, &st, 1, "MPI_Waitany");
  pending_finish(c, &p, reqs[1]);
  return rc;
}

static int p2p_waitsome_garbage(Ctx *c) {
  Pending p;
  MPI_Request reqs[2];
  MPI_Status sts[2];
  int outcount = SENT, idx[2] = {SENT, SENT}, rc;
  pending_start(c, &p);
  reqs[0] = p.req;
  reqs[1] = (MPI_Request)GARBAGE_HANDLE;
  status_preset(sts, 2);
  rc = MPI_Waitsome(2, reqs, &outcount, idx, sts);
  EXPECT_SENT(c, outcount, "outcount");
  EXPECT(c, idx[0] == SENT && idx[1] == SENT, "array_of_indices written");
  status_expect(c, sts, 2, "MPI_Waitsome");
  pending_finish(c, &p, reqs[0]);
  return rc;
}

static int p2p_testall_garbage(Ctx *c) {
  Pending p;
  MPI_Request reqs[2];
  MPI_Status sts[2];
  int flag = SENT, rc;
  pending_start(c, &p);
  reqs[0] = p.req;
  reqs[1] = (MPI_Request)GARBAGE_HANDLE;
  status_preset(sts, 2);
  rc = MPI_Testall(2, reqs, &flag, sts);
  EXPECT_SENT(c, flag, "flag");
  status_expect(c, sts, 2, "MPI_Testall");
  pending_finish(c, &p, reqs[0]);
  return rc;
}

static int p2p_testany_flag_null(Ctx *c) {
  Pending p;
  MPI_Request reqs[1];
  int index = SENT, rc;
  pending_start(c, &p);
  reqs[0] = p.req;
  rc = MPI_Testany(1, reqs, &index, NULL, MPI_STATUS_IGNORE);
  EXPECT_SENT(c, index, "index");
  pending_finish(c, &p, reqs[0]);
  return rc;
}

static int p2p_buffer_attach_twice(Ctx *c) {
  const int s1 = 64 * (int)sizeof(int) + MPI_BSEND_OVERHEAD, s2 = 2 * s1;
  char *b1 = mt_malloc((size_t)s1), *b2 = mt_malloc((size_t)s2);
  void *det = NULL;
  int dsz = -1, rc, out[4], in[4] = {0};
  CALL(c, MPI_Buffer_attach(b1, s1));
  rc = MPI_Buffer_attach(b2, s2);
  /* The first buffer is still attached and works. */
  out[0] = c->rank;
  out[1] = out[2] = out[3] = c->tag;
  CALL(c, MPI_Bsend(out, 4, MPI_INT, c->right, c->tag, MPI_COMM_WORLD));
  CALL(c, MPI_Recv(in, 4, MPI_INT, c->left, c->tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  EXPECT(c, in[0] == c->left && in[3] == c->tag, "buffered message received as {%d .. %d}", in[0],
         in[3]);
  CALL(c, MPI_Buffer_detach(&det, &dsz));
  EXPECT(c, det == b1 && dsz == s1,
         "MPI_Buffer_detach returned %p/%d, expected the first buffer %p/%d", det, dsz, (void *)b1,
         s1);
  free(b1);
  free(b2);
  return rc;
}

static int p2p_bsend_too_big(Ctx *c) {
  const int s = 16 * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
  char *b = mt_malloc((size_t)s);
  int big[256] = {0}, rc, dsz = -1;
  void *det = NULL;
  CALL(c, MPI_Buffer_attach(b, s));
  rc = MPI_Bsend(big, 256, MPI_INT, c->right, c->tag, MPI_COMM_WORLD);
  CALL(c, MPI_Buffer_detach(&det, &dsz));
  EXPECT(c, det == b && dsz == s, "MPI_Buffer_detach returned %p/%d", det, dsz);
  free(b);
  return rc;
}

static int p2p_bsend_no_buffer(Ctx *c) {
  int b[4] = {0};
  return MPI_Bsend(b, 4, MPI_INT, c->right, c->tag, MPI_COMM_WORLD);
}

static int p2p_ibsend_too_big(Ctx *c) {
  const int s = 16 * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
  char *b = mt_malloc((size_t)s);
  int big[256] = {0}, rc, dsz = -1;
  void *det = NULL;
  MPI_Request r = (MPI_Request)SENT;
  CALL(c, MPI_Buffer_attach(b, s));
  rc = MPI_Ibsend(big, 256, MPI_INT, c->right, c->tag, MPI_COMM_WORLD, &r);
  EXPECT_SENT(c, r, "request");
  CALL(c, MPI_Buffer_detach(&det, &dsz));
  free(b);
  return rc;
}

static void self_status(Ctx *c, MPI_Status *st) {
  int x = 42, y = 0;
  CALL(c, MPI_Sendrecv(&x, 1, MPI_INT, 0, 7, &y, 1, MPI_INT, 0, 7, MPI_COMM_SELF, st));
}

static int p2p_get_count_type_null(Ctx *c) {
  MPI_Status st;
  int count = SENT, rc;
  self_status(c, &st);
  rc = MPI_Get_count(&st, MPI_DATATYPE_NULL, &count);
  EXPECT_SENT(c, count, "count");
  CALL(c, MPI_Get_count(&st, MPI_INT, &count));
  EXPECT(c, count == 1, "MPI_Get_count afterwards: %d", count);
  return rc;
}

static int p2p_get_count_count_null(Ctx *c) {
  MPI_Status st;
  self_status(c, &st);
  return MPI_Get_count(&st, MPI_INT, NULL);
}

static int p2p_get_elements_type_garbage(Ctx *c) {
  MPI_Status st;
  int count = SENT, rc;
  self_status(c, &st);
  rc = MPI_Get_elements(&st, (MPI_Datatype)GARBAGE_HANDLE, &count);
  EXPECT_SENT(c, count, "count");
  return rc;
}

static int p2p_probe_source_size(Ctx *c) {
  MPI_Status st;
  int rc;
  status_preset(&st, 1);
  rc = MPI_Probe(c->size, c->tag, MPI_COMM_WORLD, &st);
  status_expect(c, &st, 1, "MPI_Probe");
  return rc;
}

static int p2p_probe_tag_negative(Ctx *c) {
  MPI_Status st;
  int rc;
  status_preset(&st, 1);
  rc = MPI_Probe(c->left, -3, MPI_COMM_WORLD, &st);
  status_expect(c, &st, 1, "MPI_Probe");
  return rc;
}

static int p2p_iprobe_source_negative(Ctx *c) {
  MPI_Status st;
  int flag = SENT, rc;
  status_preset(&st, 1);
  rc = MPI_Iprobe(-9, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
  EXPECT_SENT(c, flag, "flag");
  status_expect(c, &st, 1, "MPI_Iprobe");
  return rc;
}

static int p2p_iprobe_comm_null(Ctx *c) {
  int flag = SENT, rc;
  rc = MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_NULL, &flag, MPI_STATUS_IGNORE);
  EXPECT_SENT(c, flag, "flag");
  return rc;
}

static int p2p_iprobe_flag_null(Ctx *c) {
  (void)c;
  return MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, NULL, MPI_STATUS_IGNORE);
}

static int p2p_sendrecv_dest_size(Ctx *c) {
  int out[2] = {1, 2}, in[2], rc;
  MPI_Status st;
  pat_fill(in, sizeof in, 9);
  status_preset(&st, 1);
  rc = MPI_Sendrecv(out, 2, MPI_INT, c->size, c->tag, in, 2, MPI_INT, c->left, c->tag,
                    MPI_COMM_WORLD, &st);
  pat_expect(c, in, sizeof in, 9, "receive buffer");
  status_expect(c, &st, 1, "MPI_Sendrecv");
  return rc;
}

/* The receive half is bad: nothing may be sent (the ring would receive it). */
static int p2p_sendrecv_source_size(Ctx *c) {
  int out[2] = {1, 2}, in[2], rc;
  MPI_Status st;
  pat_fill(in, sizeof in, 10);
  status_preset(&st, 1);
  rc = MPI_Sendrecv(out, 2, MPI_INT, c->right, c->tag, in, 2, MPI_INT, c->size, c->tag,
                    MPI_COMM_WORLD, &st);
  pat_expect(c, in, sizeof in, 10, "receive buffer");
  status_expect(c, &st, 1, "MPI_Sendrecv");
  return rc;
}

static int p2p_sendrecv_replace_source_size(Ctx *c) {
  int buf[2], rc;
  MPI_Status st;
  pat_fill(buf, sizeof buf, 11);
  status_preset(&st, 1);
  rc = MPI_Sendrecv_replace(buf, 2, MPI_INT, c->right, c->tag, c->size + 1, c->tag, MPI_COMM_WORLD,
                            &st);
  pat_expect(c, buf, sizeof buf, 11, "buffer");
  status_expect(c, &st, 1, "MPI_Sendrecv_replace");
  return rc;
}

static int p2p_sendrecv_replace_count_negative(Ctx *c) {
  int buf[2], rc;
  pat_fill(buf, sizeof buf, 12);
  rc = MPI_Sendrecv_replace(buf, -1, MPI_INT, c->right, c->tag, c->left, c->tag, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE);
  pat_expect(c, buf, sizeof buf, 12, "buffer");
  return rc;
}

/* ============================== collectives ================================================= */

static int coll_bcast_root_size(Ctx *c) {
  int b[4], rc;
  pat_fill(b, sizeof b, 20);
  rc = MPI_Bcast(b, 4, MPI_INT, c->size, MPI_COMM_WORLD);
  pat_expect(c, b, sizeof b, 20, "buffer");
  return rc;
}

static int coll_bcast_root_proc_null(Ctx *c) {
  int b[4], rc;
  pat_fill(b, sizeof b, 21);
  rc = MPI_Bcast(b, 4, MPI_INT, MPI_PROC_NULL, MPI_COMM_WORLD);
  pat_expect(c, b, sizeof b, 21, "buffer");
  return rc;
}

static int coll_bcast_count_negative(Ctx *c) {
  int b[4], rc;
  pat_fill(b, sizeof b, 22);
  rc = MPI_Bcast(b, -1, MPI_INT, 0, MPI_COMM_WORLD);
  pat_expect(c, b, sizeof b, 22, "buffer");
  return rc;
}

static int coll_bcast_type_null(Ctx *c) {
  int b[4], rc;
  pat_fill(b, sizeof b, 23);
  rc = MPI_Bcast(b, 4, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD);
  pat_expect(c, b, sizeof b, 23, "buffer");
  return rc;
}

static int coll_bcast_buf_null(Ctx *c) {
  (void)c;
  return MPI_Bcast(NULL, 2, MPI_INT, 0, MPI_COMM_WORLD);
}

static int coll_bcast_comm_null(Ctx *c) {
  int b[4], rc;
  pat_fill(b, sizeof b, 24);
  rc = MPI_Bcast(b, 4, MPI_INT, 0, MPI_COMM_NULL);
  pat_expect(c, b, sizeof b, 24, "buffer");
  return rc;
}

static int coll_reduce_root_size(Ctx *c) {
  int s[2] = {1, 2}, r[2], rc;
  pat_fill(r, sizeof r, 25);
  rc = MPI_Reduce(s, r, 2, MPI_INT, MPI_SUM, c->size + 3, MPI_COMM_WORLD);
  pat_expect(c, r, sizeof r, 25, "recvbuf");
  return rc;
}

/* Non-roots pass MPI_IN_PLACE (erroneous); the root passes sendbuf == recvbuf (erroneous too, so
 * that no rank enters the reduction). */
static int coll_reduce_in_place_nonroot(Ctx *c) {
  int r[2], rc;
  pat_fill(r, sizeof r, 26);
  if (c->rank == 0)
    rc = MPI_Reduce(r, r, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  else
    rc = MPI_Reduce(MPI_IN_PLACE, r, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  pat_expect(c, r, sizeof r, 26, "recvbuf");
  return rc;
}

static int coll_reduce_alias_self(Ctx *c) {
  int b[2], rc;
  pat_fill(b, sizeof b, 27);
  rc = MPI_Reduce(b, b, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_SELF);
  pat_expect(c, b, sizeof b, 27, "buffer");
  return rc;
}

static int coll_reduce_op_null(Ctx *c) {
  int s[2] = {1, 2}, r[2], rc;
  pat_fill(r, sizeof r, 28);
  rc = MPI_Reduce(s, r, 2, MPI_INT, MPI_OP_NULL, 0, MPI_COMM_WORLD);
  pat_expect(c, r, sizeof r, 28, "recvbuf");
  return rc;
}

static int coll_reduce_type_null(Ctx *c) {
  int s[2] = {1, 2}, r[2], rc;
  pat_fill(r, sizeof r, 29);
  rc = MPI_Reduce(s, r, 2, MPI_DATATYPE_NULL, MPI_SUM, 0, MPI_COMM_WORLD);
  pat_expect(c, r, sizeof r, 29, "recvbuf");
  return rc;
}

static int coll_reduce_maxloc_double(Ctx *c) {
  double s[2] = {1, 2}, r[2];
  int rc;
  pat_fill(r, sizeof r, 30);
  rc = MPI_Reduce(s, r, 2, MPI_DOUBLE, MPI_MAXLOC, 0, MPI_COMM_WORLD);
  pat_expect(c, r, sizeof r, 30, "recvbuf");
  return rc;
}

static int coll_reduce_count_negative(Ctx *c) {
  int s[2] = {1, 2}, r[2], rc;
  pat_fill(r, sizeof r, 31);
  rc = MPI_Reduce(s, r, -2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  pat_expect(c, r, sizeof r, 31, "recvbuf");
  return rc;
}

static int coll_allreduce_alias(Ctx *c) {
  int b[2], rc;
  pat_fill(b, sizeof b, 32);
  rc = MPI_Allreduce(b, b, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  pat_expect(c, b, sizeof b, 32, "buffer");
  return rc;
}

static int allreduce_bad(Ctx *c, MPI_Datatype t, MPI_Op op, int count, MPI_Comm comm, int seed) {
  double s[4] = {1, 2, 3, 4}, r[4];
  int rc;
  pat_fill(r, sizeof r, seed);
  rc = MPI_Allreduce(s, r, count, t, op, comm);
  pat_expect(c, r, sizeof r, seed, "recvbuf");
  return rc;
}

static int coll_allreduce_op_null(Ctx *c) {
  return allreduce_bad(c, MPI_INT, MPI_OP_NULL, 2, MPI_COMM_WORLD, 33);
}
static int coll_allreduce_op_garbage(Ctx *c) {
  return allreduce_bad(c, MPI_INT, (MPI_Op)GARBAGE_HANDLE, 2, MPI_COMM_WORLD, 34);
}
static int coll_allreduce_sum_byte(Ctx *c) {
  return allreduce_bad(c, MPI_BYTE, MPI_SUM, 4, MPI_COMM_WORLD, 35);
}
static int coll_allreduce_band_double(Ctx *c) {
  return allreduce_bad(c, MPI_DOUBLE, MPI_BAND, 2, MPI_COMM_WORLD, 36);
}
static int coll_allreduce_minloc_int(Ctx *c) {
  return allreduce_bad(c, MPI_INT, MPI_MINLOC, 2, MPI_COMM_WORLD, 37);
}
static int coll_allreduce_replace(Ctx *c) {
  return allreduce_bad(c, MPI_INT, MPI_REPLACE, 2, MPI_COMM_WORLD, 38);
}
static int coll_allreduce_count_negative(Ctx *c) {
  return allreduce_bad(c, MPI_INT, MPI_SUM, -1, MPI_COMM_WORLD, 39);
}
static int coll_allreduce_comm_garbage(Ctx *c) {
  return allreduce_bad(c, MPI_INT, MPI_SUM, 2, (MPI_Comm)GARBAGE_HANDLE, 40);
}

static int coll_barrier_comm_null(Ctx *c) {
  (void)c;
  return MPI_Barrier(MPI_COMM_NULL);
}

static int coll_reduce_local_lor_float(Ctx *c) {
  float in[2] = {1, 0}, io[2];
  int rc;
  pat_fill(io, sizeof io, 41);
  rc = MPI_Reduce_local(in, io, 2, MPI_FLOAT, MPI_LOR);
  pat_expect(c, io, sizeof io, 41, "inoutbuf");
  return rc;
}

static int coll_reduce_local_count_negative(Ctx *c) {
  int in[2] = {1, 0}, io[2], rc;
  pat_fill(io, sizeof io, 42);
  rc = MPI_Reduce_local(in, io, -1, MPI_INT, MPI_SUM);
  pat_expect(c, io, sizeof io, 42, "inoutbuf");
  return rc;
}

static int coll_op_commutative_null(Ctx *c) {
  int commute = SENT, rc;
  rc = MPI_Op_commutative(MPI_OP_NULL, &commute);
  EXPECT_SENT(c, commute, "commute");
  return rc;
}

/* ============================== communicators and groups ==================================== */

static int comm_free_world(Ctx *c) {
  MPI_Comm w = MPI_COMM_WORLD;
  int rc = MPI_Comm_free(&w), size = -1;
  EXPECT(c, w == MPI_COMM_WORLD, "the handle changed to 0x%x", (unsigned)w);
  CALL(c, MPI_Barrier(MPI_COMM_WORLD));
  CALL(c, MPI_Comm_size(MPI_COMM_WORLD, &size));
  EXPECT(c, size == c->size, "MPI_COMM_WORLD has size %d afterwards", size);
  return rc;
}

static int comm_free_self(Ctx *c) {
  MPI_Comm s = MPI_COMM_SELF;
  int rc = MPI_Comm_free(&s), size = -1;
  EXPECT(c, s == MPI_COMM_SELF, "the handle changed to 0x%x", (unsigned)s);
  CALL(c, MPI_Comm_size(MPI_COMM_SELF, &size));
  EXPECT(c, size == 1, "MPI_COMM_SELF has size %d afterwards", size);
  return rc;
}

static int comm_free_null(Ctx *c) {
  MPI_Comm n = MPI_COMM_NULL;
  int rc = MPI_Comm_free(&n);
  EXPECT(c, n == MPI_COMM_NULL, "the handle changed to 0x%x", (unsigned)n);
  return rc;
}

static int comm_split_color_negative(Ctx *c) {
  MPI_Comm n = (MPI_Comm)SENT;
  int rc = MPI_Comm_split(MPI_COMM_WORLD, -5, c->rank, &n);
  EXPECT_SENT(c, n, "newcomm");
  if (rc == MPI_SUCCESS && n != MPI_COMM_NULL && n != (MPI_Comm)SENT) MPI_Comm_free(&n);
  return rc;
}

static int comm_split_comm_null(Ctx *c) {
  MPI_Comm n = (MPI_Comm)SENT;
  int rc = MPI_Comm_split(MPI_COMM_NULL, 0, c->rank, &n);
  EXPECT_SENT(c, n, "newcomm");
  return rc;
}

static int comm_dup_newcomm_null(Ctx *c) {
  (void)c;
  return MPI_Comm_dup(MPI_COMM_WORLD, NULL);
}

static int comm_rank_null(Ctx *c) {
  (void)c;
  return MPI_Comm_rank(MPI_COMM_WORLD, NULL);
}

static int comm_size_garbage(Ctx *c) {
  int size = SENT, rc = MPI_Comm_size((MPI_Comm)GARBAGE_HANDLE, &size);
  EXPECT_SENT(c, size, "size");
  return rc;
}

static int comm_compare_null(Ctx *c) {
  int result = SENT, rc = MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_NULL, &result);
  EXPECT_SENT(c, result, "result");
  return rc;
}

static int comm_group_null(Ctx *c) {
  MPI_Group g = (MPI_Group)SENT;
  int rc = MPI_Comm_group(MPI_COMM_NULL, &g);
  EXPECT_SENT(c, g, "group");
  return rc;
}

static int comm_test_inter_null(Ctx *c) {
  int flag = SENT, rc = MPI_Comm_test_inter(MPI_COMM_NULL, &flag);
  EXPECT_SENT(c, flag, "flag");
  return rc;
}

static int comm_get_name_null(Ctx *c) {
  int len = SENT, rc = MPI_Comm_get_name(MPI_COMM_WORLD, NULL, &len);
  EXPECT_SENT(c, len, "resultlen");
  return rc;
}

static int comm_set_name_null_comm(Ctx *c) {
  (void)c;
  return MPI_Comm_set_name(MPI_COMM_NULL, "nobody");
}

static int comm_call_errhandler_null(Ctx *c) {
  (void)c;
  return MPI_Comm_call_errhandler(MPI_COMM_NULL, MPI_ERR_OTHER);
}

static int comm_get_attr_unknown(Ctx *c) {
  void *val = (void *)&c->why; /* any recognisable pointer */
  int flag = SENT, rc = MPI_Comm_get_attr(MPI_COMM_WORLD, 12345, &val, &flag);
  EXPECT_SENT(c, flag, "flag");
  EXPECT(c, val == (void *)&c->why, "attribute_val written");
  return rc;
}

static int comm_get_attr_keyval_invalid(Ctx *c) {
  void *val = (void *)&c->why;
  int flag = SENT, rc = MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &val, &flag);
  EXPECT_SENT(c, flag, "flag");
  EXPECT(c, val == (void *)&c->why, "attribute_val written");
  return rc;
}

static MPI_Group world_group(Ctx *c) {
  MPI_Group g = MPI_GROUP_NULL;
  CALL(c, MPI_Comm_group(MPI_COMM_WORLD, &g));
  return g;
}

static void group_still_works(Ctx *c, MPI_Group g) {
  int size = -1, rank = -1;
  CALL(c, MPI_Group_size(g, &size));
  CALL(c, MPI_Group_rank(g, &rank));
  EXPECT(c, size == c->size && rank == c->rank, "group size/rank %d/%d afterwards", size, rank);
  CALL(c, MPI_Group_free(&g));
}

static int group_incl_repeated(Ctx *c) {
  MPI_Group g = world_group(c), n = (MPI_Group)SENT;
  int ranks[2] = {1, 1}, rc = MPI_Group_incl(g, 2, ranks, &n);
  EXPECT_SENT(c, n, "newgroup");
  if (rc == MPI_SUCCESS && n != (MPI_Group)SENT && n != MPI_GROUP_EMPTY) MPI_Group_free(&n);
  group_still_works(c, g);
  return rc;
}

static int group_incl_out_of_range(Ctx *c) {
  MPI_Group g = world_group(c), n = (MPI_Group)SENT;
  int ranks[1], rc;
  ranks[0] = c->size;
  rc = MPI_Group_incl(g, 1, ranks, &n);
  EXPECT_SENT(c, n, "newgroup");
  if (rc == MPI_SUCCESS && n != (MPI_Group)SENT && n != MPI_GROUP_EMPTY) MPI_Group_free(&n);
  group_still_works(c, g);
  return rc;
}

static int group_incl_n_negative(Ctx *c) {
  MPI_Group g = world_group(c), n = (MPI_Group)SENT;
  int ranks[1] = {0}, rc = MPI_Group_incl(g, -1, ranks, &n);
  EXPECT_SENT(c, n, "newgroup");
  group_still_works(c, g);
  return rc;
}

/* ranks1 = {0, size}: the first entry is fine, the second is out of range; ranks2 must keep its
 * sentinels (no partial output). */
static int group_translate_out_of_range(Ctx *c) {
  MPI_Group g = world_group(c);
  int r1[2], r2[2] = {SENT, SENT}, rc;
  r1[0] = 0;
  r1[1] = c->size;
  rc = MPI_Group_translate_ranks(g, 2, r1, g, r2);
  EXPECT(c, r2[0] == SENT && r2[1] == SENT, "ranks2 written: {%d, %d}", r2[0], r2[1]);
  group_still_works(c, g);
  return rc;
}

static int group_translate_group2_null(Ctx *c) {
  MPI_Group g = world_group(c);
  int r1[1] = {0}, r2[1] = {SENT}, rc;
  rc = MPI_Group_translate_ranks(g, 1, r1, MPI_GROUP_NULL, r2);
  EXPECT_SENT(c, r2[0], "ranks2[0]");
  group_still_works(c, g);
  return rc;
}

static int group_size_null(Ctx *c) {
  int size = SENT, rc = MPI_Group_size(MPI_GROUP_NULL, &size);
  EXPECT_SENT(c, size, "size");
  return rc;
}

static int group_rank_garbage(Ctx *c) {
  int rank = SENT, rc = MPI_Group_rank((MPI_Group)GARBAGE_HANDLE, &rank);
  EXPECT_SENT(c, rank, "rank");
  return rc;
}

static int group_free_stale(Ctx *c) {
  MPI_Group g = world_group(c), stale = g;
  int rc;
  CALL(c, MPI_Group_free(&g));
  rc = MPI_Group_free(&stale);
  EXPECT(c, stale != MPI_GROUP_NULL, "the stale handle was set to MPI_GROUP_NULL");
  return rc;
}

/* ============================== datatypes =================================================== */

static int type_size_null(Ctx *c) {
  int size = SENT, rc = MPI_Type_size(MPI_DATATYPE_NULL, &size);
  EXPECT_SENT(c, size, "size");
  return rc;
}

static int type_size_garbage(Ctx *c) {
  int size = SENT, rc = MPI_Type_size((MPI_Datatype)GARBAGE_HANDLE, &size);
  EXPECT_SENT(c, size, "size");
  return rc;
}

static int type_size_ptr_null(Ctx *c) {
  (void)c;
  return MPI_Type_size(MPI_INT, NULL);
}

static int type_get_name_null(Ctx *c) {
  int len = SENT, rc = MPI_Type_get_name(MPI_INT, NULL, &len);
  EXPECT_SENT(c, len, "resultlen");
  return rc;
}

static int type_get_name_garbage(Ctx *c) {
  char name[MPI_MAX_OBJECT_NAME];
  int len = SENT, rc;
  pat_fill(name, sizeof name, 50);
  rc = MPI_Type_get_name((MPI_Datatype)GARBAGE_HANDLE, name, &len);
  EXPECT_SENT(c, len, "resultlen");
  pat_expect(c, name, sizeof name, 50, "type_name");
  return rc;
}

static int type_get_extent_null(Ctx *c) {
  MPI_Aint lb = SENT, ext = SENT;
  int rc = MPI_Type_get_extent(MPI_DATATYPE_NULL, &lb, &ext);
  EXPECT(c, lb == SENT && ext == SENT, "lb/extent written: %ld/%ld", (long)lb, (long)ext);
  return rc;
}

/* ============================== errors ====================================================== */

static int err_string_invalid(Ctx *c) {
  char s[MPI_MAX_ERROR_STRING];
  int len = SENT, rc;
  pat_fill(s, sizeof s, 51);
  rc = MPI_Error_string(-12345, s, &len);
  EXPECT_SENT(c, len, "resultlen");
  pat_expect(c, s, sizeof s, 51, "string");
  return rc;
}

static int err_class_invalid(Ctx *c) {
  int cls = SENT, rc = MPI_Error_class(MPI_ERR_LASTCODE + 1, &cls);
  EXPECT_SENT(c, cls, "errorclass");
  return rc;
}

static int err_set_errhandler_garbage(Ctx *c) {
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  int rc = MPI_Comm_set_errhandler(MPI_COMM_WORLD, (MPI_Errhandler)GARBAGE_HANDLE);
  CALL(c, MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
  EXPECT(c, eh == MPI_ERRORS_RETURN, "the error handler of MPI_COMM_WORLD changed");
  CALL(c, MPI_Errhandler_free(&eh));
  return rc;
}

static int err_errhandler_free_garbage(Ctx *c) {
  MPI_Errhandler eh = (MPI_Errhandler)GARBAGE_HANDLE;
  int rc = MPI_Errhandler_free(&eh);
  EXPECT(c, eh == (MPI_Errhandler)GARBAGE_HANDLE, "the handle changed to 0x%x", (unsigned)eh);
  return rc;
}

/* ============================== environment ================================================= */

static int env_init_twice(Ctx *c) {
  int rc = MPI_Init(NULL, NULL), flag = 0, fin = 1;
  CALL(c, MPI_Initialized(&flag));
  CALL(c, MPI_Finalized(&fin));
  EXPECT(c, flag == 1 && fin == 0, "MPI_Initialized %d MPI_Finalized %d afterwards", flag, fin);
  return rc;
}

static int env_init_thread_twice(Ctx *c) {
  int provided = SENT, before = -1, after = -1, rc;
  CALL(c, MPI_Query_thread(&before));
  rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided);
  EXPECT_SENT(c, provided, "provided");
  CALL(c, MPI_Query_thread(&after));
  EXPECT(c, before == after, "MPI_Query_thread changed from %d to %d", before, after);
  return rc;
}

/* ============================== unsupported functions ======================================= */

/* (MPI_Gather was the unsupported example until the collectives were implemented.) */
static int gather_root_size(Ctx *c) {
  int s[1] = {1}, *r = mt_malloc(sizeof(int) * (size_t)c->size), rc;
  pat_fill(r, sizeof(int) * (size_t)c->size, 60);
  rc = MPI_Gather(s, 1, MPI_INT, r, 1, MPI_INT, c->size, MPI_COMM_WORLD);
  pat_expect(c, r, sizeof(int) * (size_t)c->size, 60, "recvbuf");
  free(r);
  return rc;
}

static int intercomm_create_bad_leader(Ctx *c) {
  MPI_Comm n = (MPI_Comm)SENT;
  int rc = MPI_Intercomm_create(MPI_COMM_WORLD, -1, MPI_COMM_WORLD, 0, 0, &n);
  EXPECT_SENT(c, n, "newintercomm");
  return rc;
}

static int unsup_type_f90_real(Ctx *c) {
  MPI_Datatype t = (MPI_Datatype)SENT;
  int rc = MPI_Type_create_f90_real(6, 30, &t);
  EXPECT_SENT(c, t, "newtype");
  return rc;
}

/* ============================== truncation ================================================== */

#define TCAP 8

typedef struct {
  int *out;
  unsigned char *raw; /* cap ints, then GUARD bytes */
  int n, cap;
} Trunc;

static void trunc_setup(Ctx *c, Trunc *t, int n, int cap) {
  int i;
  t->n = n;
  t->cap = cap;
  t->out = mt_malloc(sizeof(int) * (size_t)n);
  for (i = 0; i < n; ++i)
    t->out[i] = c->rank * 1000003 + i;
  t->raw = mt_malloc(sizeof(int) * (size_t)cap + GUARD);
  memset(t->raw, GUARD_BYTE, sizeof(int) * (size_t)cap + GUARD);
}

static void trunc_check(Ctx *c, Trunc *t, const MPI_Status *st, const char *what) {
  const unsigned char *g = t->raw + sizeof(int) * (size_t)t->cap;
  int i;
  for (i = 0; i < GUARD; ++i)
    if (g[i] != GUARD_BYTE) {
      note(c, "%s: byte %d past the receive buffer was overwritten (0x%02x)", what, i, g[i]);
      break;
    }
  if (st)
    EXPECT(c, st->MPI_SOURCE == c->left && st->MPI_TAG == c->tag,
           "%s: status source %d tag %d, expected %d %d", what, st->MPI_SOURCE, st->MPI_TAG,
           c->left, c->tag);
}

static void trunc_free(Trunc *t) {
  free(t->out);
  free(t->raw);
}

static int trunc_recv_n(Ctx *c, int n, int cap) {
  Trunc t;
  MPI_Request sr = MPI_REQUEST_NULL;
  MPI_Status st;
  int rc;
  trunc_setup(c, &t, n, cap);
  CALL(c, MPI_Isend(t.out, t.n, MPI_INT, c->right, c->tag, MPI_COMM_WORLD, &sr));
  rc = MPI_Recv(t.raw, t.cap, MPI_INT, c->left, c->tag, MPI_COMM_WORLD, &st);
  trunc_check(c, &t, &st, "MPI_Recv");
  CALL(c, MPI_Wait(&sr, MPI_STATUS_IGNORE));
  trunc_free(&t);
  return rc;
}

static int trunc_recv(Ctx *c) {
  return trunc_recv_n(c, 2 * TCAP + 3, TCAP);
}

static int trunc_recv_large(Ctx *c) {
  return trunc_recv_n(c, 200000, 1000);
}

static int trunc_wait(Ctx *c) {
  Trunc t;
  MPI_Request sr = MPI_REQUEST_NULL, rr = MPI_REQUEST_NULL;
  MPI_Status st;
  int rc;
  trunc_setup(c, &t, 2 * TCAP + 3, TCAP);
  CALL(c, MPI_Irecv(t.raw, t.cap, MPI_INT, c->left, c->tag, MPI_COMM_WORLD, &rr));
  CALL(c, MPI_Isend(t.out, t.n, MPI_INT, c->right, c->tag, MPI_COMM_WORLD, &sr));
  rc = MPI_Wait(&rr, &st);
  EXPECT(c, rr == MPI_REQUEST_NULL, "the completed receive request was not freed");
  trunc_check(c, &t, &st, "MPI_Wait");
  CALL(c, MPI_Wait(&sr, MPI_STATUS_IGNORE));
  trunc_free(&t);
  return rc;
}

static int trunc_waitall(Ctx *c) {
  Trunc t;
  MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  MPI_Status sts[2];
  int rc;
  trunc_setup(c, &t, 2 * TCAP + 3, TCAP);
  CALL(c, MPI_Irecv(t.raw, t.cap, MPI_INT, c->left, c->tag, MPI_COMM_WORLD, &reqs[1]));
  CALL(c, MPI_Isend(t.out, t.n, MPI_INT, c->right, c->tag, MPI_COMM_WORLD, &reqs[0]));
  status_preset(sts, 2);
  rc = MPI_Waitall(2, reqs, sts);
  EXPECT(c, mt_class(sts[1].MPI_ERROR) == MPI_ERR_TRUNCATE,
         "the truncated receive's status has MPI_ERROR %d (%s)", sts[1].MPI_ERROR,
         class_name(mt_class(sts[1].MPI_ERROR)));
  EXPECT(c, sts[0].MPI_ERROR == MPI_SUCCESS || sts[0].MPI_ERROR == MPI_ERR_PENDING,
         "the send's status has MPI_ERROR %d", sts[0].MPI_ERROR);
  EXPECT(c, reqs[1] == MPI_REQUEST_NULL, "the completed receive request was not freed");
  if (sts[0].MPI_ERROR == MPI_ERR_PENDING || reqs[0] != MPI_REQUEST_NULL)
    CALL(c, MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));
  trunc_check(c, &t, &sts[1], "MPI_Waitall");
  trunc_free(&t);
  return rc;
}

static int trunc_test(Ctx *c) {
  Trunc t;
  MPI_Request sr = MPI_REQUEST_NULL, rr = MPI_REQUEST_NULL;
  MPI_Status st;
  int rc = MPI_SUCCESS, flag = 0;
  double t0;
  trunc_setup(c, &t, 2 * TCAP + 3, TCAP);
  CALL(c, MPI_Irecv(t.raw, t.cap, MPI_INT, c->left, c->tag, MPI_COMM_WORLD, &rr));
  CALL(c, MPI_Isend(t.out, t.n, MPI_INT, c->right, c->tag, MPI_COMM_WORLD, &sr));
  t0 = MPI_Wtime();
  while (!flag && rc == MPI_SUCCESS) {
    if (MPI_Wtime() - t0 > 30) {
      note(c, "MPI_Test never completed the truncated receive");
      break;
    }
    rc = MPI_Test(&rr, &flag, &st);
  }
  EXPECT(c, flag == 1, "MPI_Test returned %d with flag %d", rc, flag);
  if (flag) trunc_check(c, &t, &st, "MPI_Test");
  CALL(c, MPI_Wait(&sr, MPI_STATUS_IGNORE));
  trunc_free(&t);
  return rc;
}

static int trunc_sendrecv(Ctx *c) {
  Trunc t;
  MPI_Status st;
  int rc;
  trunc_setup(c, &t, 2 * TCAP + 3, TCAP);
  rc = MPI_Sendrecv(t.out, t.n, MPI_INT, c->right, c->tag, t.raw, t.cap, MPI_INT, c->left, c->tag,
                    MPI_COMM_WORLD, &st);
  trunc_check(c, &t, &st, "MPI_Sendrecv");
  trunc_free(&t);
  return rc;
}

/* ============================== the table =================================================== */

typedef struct {
  const char *name;
  int cls;
  int (*fn)(Ctx *);
  int min_size;
} Case;

static const Case kCases[] = {
    /* point-to-point: ranks, counts, tags, buffers, datatypes, communicators */
    {"MPI_Send dest=size", MPI_ERR_RANK, p2p_send_dest_size, 1},
    {"MPI_Send dest=-7", MPI_ERR_RANK, p2p_send_dest_negative, 1},
    {"MPI_Send dest=MPI_ANY_SOURCE", MPI_ERR_RANK, p2p_send_dest_any_source, 1},
    {"MPI_Ssend dest=size+5", MPI_ERR_RANK, p2p_ssend_dest_big, 1},
    {"MPI_Isend dest=size", MPI_ERR_RANK, p2p_isend_dest_size, 1},
    {"MPI_Recv source=size", MPI_ERR_RANK, p2p_recv_source_size, 1},
    {"MPI_Irecv source=-5", MPI_ERR_RANK, p2p_irecv_source_negative, 1},
    {"MPI_Send count=-1", MPI_ERR_COUNT, p2p_send_count_negative, 1},
    {"MPI_Isend count=-3", MPI_ERR_COUNT, p2p_isend_count_negative, 1},
    {"MPI_Recv count=-1", MPI_ERR_COUNT, p2p_recv_count_negative, 1},
    {"MPI_Send tag=-5", MPI_ERR_TAG, p2p_send_tag_negative, 1},
    {"MPI_Send tag=MPI_ANY_TAG", MPI_ERR_TAG, p2p_send_tag_any, 1},
    {"MPI_Send tag=MPI_TAG_UB+1", MPI_ERR_TAG, p2p_send_tag_above_ub, 1},
    {"MPI_Recv tag=-100", MPI_ERR_TAG, p2p_recv_tag_negative, 1},
    {"MPI_Irecv tag=MPI_TAG_UB+1", MPI_ERR_TAG, p2p_irecv_tag_above_ub, 1},
    {"MPI_Send buf=NULL count=4", MPI_ERR_BUFFER, p2p_send_buf_null, 1},
    {"MPI_Recv buf=NULL count=4", MPI_ERR_BUFFER, p2p_recv_buf_null, 1},
    {"MPI_Send datatype=MPI_DATATYPE_NULL", MPI_ERR_TYPE, p2p_send_type_null, 1},
    {"MPI_Send datatype=garbage", MPI_ERR_TYPE, p2p_send_type_garbage, 1},
    {"MPI_Irecv datatype=MPI_DATATYPE_NULL", MPI_ERR_TYPE, p2p_irecv_type_null, 1},
    {"MPI_Send comm=MPI_COMM_NULL", MPI_ERR_COMM, p2p_send_comm_null, 1},
    {"MPI_Send comm=garbage", MPI_ERR_COMM, p2p_send_comm_garbage, 1},
    {"MPI_Recv comm=freed communicator", MPI_ERR_COMM, p2p_recv_comm_freed, 1},
    {"MPI_Send tag=-1 on a dup of WORLD", MPI_ERR_TAG, p2p_send_tag_on_dup, 1},
    {"MPI_Send dest=size of a split communicator", MPI_ERR_RANK, p2p_send_dest_on_split, 1},
    /* point-to-point: requests */
    {"MPI_Isend request=NULL", MPI_ERR_ARG, p2p_isend_request_null, 1},
    {"MPI_Irecv request=NULL", MPI_ERR_ARG, p2p_irecv_request_null, 1},
    {"MPI_Wait request=NULL", MPI_ERR_ARG, p2p_wait_request_null, 1},
    {"MPI_Wait garbage request", MPI_ERR_REQUEST, p2p_wait_request_garbage, 1},
    {"MPI_Wait stale (freed) request", MPI_ERR_REQUEST, p2p_wait_request_stale, 1},
    {"MPI_Test garbage request", MPI_ERR_REQUEST, p2p_test_request_garbage, 1},
    {"MPI_Test request=NULL", MPI_ERR_ARG, p2p_test_request_null, 1},
    {"MPI_Cancel garbage request", MPI_ERR_REQUEST, p2p_cancel_request_garbage, 1},
    {"MPI_Cancel MPI_REQUEST_NULL", MPI_ERR_REQUEST, p2p_cancel_request_null_handle, 1},
    {"MPI_Request_free garbage request", MPI_ERR_REQUEST, p2p_request_free_garbage, 1},
    {"MPI_Request_free MPI_REQUEST_NULL", MPI_ERR_REQUEST, p2p_request_free_null_handle, 1},
    {"MPI_Waitall garbage handle next to a valid one", MPI_ERR_REQUEST, p2p_waitall_garbage, 1},
    {"MPI_Waitall count=-1", MPI_ERR_COUNT, p2p_waitall_count_negative, 1},
    {"MPI_Waitany garbage handle next to a valid one", MPI_ERR_REQUEST, p2p_waitany_garbage, 1},
    {"MPI_Waitsome garbage handle next to a valid one", MPI_ERR_REQUEST, p2p_waitsome_garbage, 1},
    {"MPI_Testall garbage handle next to a valid one", MPI_ERR_REQUEST, p2p_testall_garbage, 1},
    {"MPI_Testany flag=NULL", MPI_ERR_ARG, p2p_testany_flag_null, 1},
    /* point-to-point: buffered mode, status queries, probes, sendrecv */
    {"MPI_Buffer_attach twice", MPI_ERR_BUFFER, p2p_buffer_attach_twice, 1},
    {"MPI_Bsend larger than the attached buffer", MPI_ERR_BUFFER, p2p_bsend_too_big, 1},
    {"MPI_Bsend without an attached buffer", MPI_ERR_BUFFER, p2p_bsend_no_buffer, 1},
    {"MPI_Ibsend larger than the attached buffer", MPI_ERR_BUFFER, p2p_ibsend_too_big, 1},
    {"MPI_Get_count datatype=MPI_DATATYPE_NULL", MPI_ERR_TYPE, p2p_get_count_type_null, 1},
    {"MPI_Get_count count=NULL", MPI_ERR_ARG, p2p_get_count_count_null, 1},
    {"MPI_Get_elements datatype=garbage", MPI_ERR_TYPE, p2p_get_elements_type_garbage, 1},
    {"MPI_Probe source=size", MPI_ERR_RANK, p2p_probe_source_size, 1},
    {"MPI_Probe tag=-3", MPI_ERR_TAG, p2p_probe_tag_negative, 1},
    {"MPI_Iprobe source=-9", MPI_ERR_RANK, p2p_iprobe_source_negative, 1},
    {"MPI_Iprobe comm=MPI_COMM_NULL", MPI_ERR_COMM, p2p_iprobe_comm_null, 1},
    {"MPI_Iprobe flag=NULL", MPI_ERR_ARG, p2p_iprobe_flag_null, 1},
    {"MPI_Sendrecv dest=size", MPI_ERR_RANK, p2p_sendrecv_dest_size, 1},
    {"MPI_Sendrecv source=size (nothing sent)", MPI_ERR_RANK, p2p_sendrecv_source_size, 1},
    {"MPI_Sendrecv_replace source=size+1 (nothing sent)", MPI_ERR_RANK,
     p2p_sendrecv_replace_source_size, 1},
    {"MPI_Sendrecv_replace count=-1", MPI_ERR_COUNT, p2p_sendrecv_replace_count_negative, 1},
    /* collectives */
    {"MPI_Bcast root=size", MPI_ERR_ROOT, coll_bcast_root_size, 1},
    {"MPI_Bcast root=MPI_PROC_NULL", MPI_ERR_ROOT, coll_bcast_root_proc_null, 1},
    {"MPI_Bcast count=-1", MPI_ERR_COUNT, coll_bcast_count_negative, 1},
    {"MPI_Bcast datatype=MPI_DATATYPE_NULL", MPI_ERR_TYPE, coll_bcast_type_null, 1},
    {"MPI_Bcast buffer=NULL count=2", MPI_ERR_BUFFER, coll_bcast_buf_null, 1},
    {"MPI_Bcast comm=MPI_COMM_NULL", MPI_ERR_COMM, coll_bcast_comm_null, 1},
    {"MPI_Reduce root=size+3", MPI_ERR_ROOT, coll_reduce_root_size, 1},
    {"MPI_Reduce MPI_IN_PLACE at a non-root", MPI_ERR_BUFFER, coll_reduce_in_place_nonroot, 1},
    {"MPI_Reduce sendbuf==recvbuf (MPI_COMM_SELF)", MPI_ERR_BUFFER, coll_reduce_alias_self, 1},
    {"MPI_Reduce op=MPI_OP_NULL", MPI_ERR_OP, coll_reduce_op_null, 1},
    {"MPI_Reduce datatype=MPI_DATATYPE_NULL", MPI_ERR_TYPE, coll_reduce_type_null, 1},
    {"MPI_Reduce MPI_MAXLOC on MPI_DOUBLE", MPI_ERR_OP, coll_reduce_maxloc_double, 1},
    {"MPI_Reduce count=-2", MPI_ERR_COUNT, coll_reduce_count_negative, 1},
    {"MPI_Allreduce sendbuf==recvbuf", MPI_ERR_BUFFER, coll_allreduce_alias, 1},
    {"MPI_Allreduce op=MPI_OP_NULL", MPI_ERR_OP, coll_allreduce_op_null, 1},
    {"MPI_Allreduce op=garbage", MPI_ERR_OP, coll_allreduce_op_garbage, 1},
    {"MPI_Allreduce MPI_SUM on MPI_BYTE", MPI_ERR_OP, coll_allreduce_sum_byte, 1},
    {"MPI_Allreduce MPI_BAND on MPI_DOUBLE", MPI_ERR_OP, coll_allreduce_band_double, 1},
    {"MPI_Allreduce MPI_MINLOC on MPI_INT", MPI_ERR_OP, coll_allreduce_minloc_int, 1},
    {"MPI_Allreduce MPI_REPLACE", MPI_ERR_OP, coll_allreduce_replace, 1},
    {"MPI_Allreduce count=-1", MPI_ERR_COUNT, coll_allreduce_count_negative, 1},
    {"MPI_Allreduce comm=garbage", MPI_ERR_COMM, coll_allreduce_comm_garbage, 1},
    {"MPI_Barrier comm=MPI_COMM_NULL", MPI_ERR_COMM, coll_barrier_comm_null, 1},
    {"MPI_Reduce_local MPI_LOR on MPI_FLOAT", MPI_ERR_OP, coll_reduce_local_lor_float, 1},
    {"MPI_Reduce_local count=-1", MPI_ERR_COUNT, coll_reduce_local_count_negative, 1},
    {"MPI_Op_commutative op=MPI_OP_NULL", MPI_ERR_OP, coll_op_commutative_null, 1},
    /* communicators, groups, attributes */
    {"MPI_Comm_free(&MPI_COMM_WORLD)", MPI_ERR_COMM, comm_free_world, 1},
    {"MPI_Comm_free(&MPI_COMM_SELF)", MPI_ERR_COMM, comm_free_self, 1},
    {"MPI_Comm_free(&MPI_COMM_NULL)", MPI_ERR_COMM, comm_free_null, 1},
    {"MPI_Comm_split color=-5", MPI_ERR_ARG, comm_split_color_negative, 1},
    {"MPI_Comm_split comm=MPI_COMM_NULL", MPI_ERR_COMM, comm_split_comm_null, 1},
    {"MPI_Comm_dup newcomm=NULL", MPI_ERR_ARG, comm_dup_newcomm_null, 1},
    {"MPI_Comm_rank rank=NULL", MPI_ERR_ARG, comm_rank_null, 1},
    {"MPI_Comm_size comm=garbage", MPI_ERR_COMM, comm_size_garbage, 1},
    {"MPI_Comm_compare comm2=MPI_COMM_NULL", MPI_ERR_COMM, comm_compare_null, 1},
    {"MPI_Comm_group comm=MPI_COMM_NULL", MPI_ERR_COMM, comm_group_null, 1},
    {"MPI_Comm_test_inter comm=MPI_COMM_NULL", MPI_ERR_COMM, comm_test_inter_null, 1},
    {"MPI_Comm_get_name comm_name=NULL", MPI_ERR_ARG, comm_get_name_null, 1},
    {"MPI_Comm_set_name comm=MPI_COMM_NULL", MPI_ERR_COMM, comm_set_name_null_comm, 1},
    {"MPI_Comm_call_errhandler comm=MPI_COMM_NULL", MPI_ERR_COMM, comm_call_errhandler_null, 1},
    {"MPI_Comm_get_attr unknown keyval", MPI_ERR_KEYVAL, comm_get_attr_unknown, 1},
    {"MPI_Comm_get_attr MPI_KEYVAL_INVALID", MPI_ERR_KEYVAL, comm_get_attr_keyval_invalid, 1},
    {"MPI_Group_incl repeated rank", MPI_ERR_RANK, group_incl_repeated, 2},
    {"MPI_Group_incl rank=size", MPI_ERR_RANK, group_incl_out_of_range, 1},
    {"MPI_Group_incl n=-1", MPI_ERR_ARG, group_incl_n_negative, 1},
    {"MPI_Group_translate_ranks ranks1={0,size}", MPI_ERR_RANK, group_translate_out_of_range, 1},
    {"MPI_Group_translate_ranks group2=MPI_GROUP_NULL", MPI_ERR_GROUP, group_translate_group2_null,
     1},
    {"MPI_Group_size group=MPI_GROUP_NULL", MPI_ERR_GROUP, group_size_null, 1},
    {"MPI_Group_rank group=garbage", MPI_ERR_GROUP, group_rank_garbage, 1},
    {"MPI_Group_free stale (freed) group", MPI_ERR_GROUP, group_free_stale, 1},
    /* datatypes */
    {"MPI_Type_size MPI_DATATYPE_NULL", MPI_ERR_TYPE, type_size_null, 1},
    {"MPI_Type_size garbage", MPI_ERR_TYPE, type_size_garbage, 1},
    {"MPI_Type_size size=NULL", MPI_ERR_ARG, type_size_ptr_null, 1},
    {"MPI_Type_get_name type_name=NULL", MPI_ERR_ARG, type_get_name_null, 1},
    {"MPI_Type_get_name garbage", MPI_ERR_TYPE, type_get_name_garbage, 1},
    {"MPI_Type_get_extent MPI_DATATYPE_NULL", MPI_ERR_TYPE, type_get_extent_null, 1},
    /* errors */
    {"MPI_Error_string errorcode=-12345", MPI_ERR_ARG, err_string_invalid, 1},
    {"MPI_Error_class errorcode=MPI_ERR_LASTCODE+1", MPI_ERR_ARG, err_class_invalid, 1},
    {"MPI_Comm_set_errhandler garbage handler", MPI_ERR_ARG, err_set_errhandler_garbage, 1},
    {"MPI_Errhandler_free garbage handler", MPI_ERR_ARG, err_errhandler_free_garbage, 1},
    /* environment */
    {"MPI_Init twice", MPI_ERR_OTHER, env_init_twice, 1},
    {"MPI_Init_thread after MPI_Init", MPI_ERR_OTHER, env_init_thread_twice, 1},
    /* unsupported functions */
    {"MPI_Gather root=size", MPI_ERR_ROOT, gather_root_size, 1},
    {"MPI_Intercomm_create local_leader=-1", MPI_ERR_RANK, intercomm_create_bad_leader, 1},
    {"MPI_Type_create_f90_real (unsupported)", MPI_ERR_UNSUPPORTED_OPERATION, unsup_type_f90_real,
     1},
    /* truncation */
    {"MPI_Recv truncation", MPI_ERR_TRUNCATE, trunc_recv, 1},
    {"MPI_Recv truncation (800 KB into 4 KB)", MPI_ERR_TRUNCATE, trunc_recv_large, 1},
    {"MPI_Wait truncation", MPI_ERR_TRUNCATE, trunc_wait, 1},
    {"MPI_Waitall truncation", MPI_ERR_IN_STATUS, trunc_waitall, 1},
    {"MPI_Test truncation", MPI_ERR_TRUNCATE, trunc_test, 1},
    {"MPI_Sendrecv truncation", MPI_ERR_TRUNCATE, trunc_sendrecv, 1},
};
#define NCASES ((int)(sizeof kCases / sizeof kCases[0]))

static void check_class(Ctx *c, int rc, int expected) {
  int cls = -1, e;
  if (rc == MPI_SUCCESS) {
    note(c, "returned MPI_SUCCESS, expected %s", class_name(expected));
    return;
  }
  e = MPI_Error_class(rc, &cls);
  if (e != MPI_SUCCESS)
    note(c, "returned %d, which MPI_Error_class rejects (%d)", rc, e);
  else if (cls != expected)
    note(c, "returned class %s (%d), expected %s", class_name(cls), cls, class_name(expected));
}

int main(int argc, char **argv) {
  Ctx c;
  int i, failed = 0, skipped = 0, leftover = 0, *tag_ub = NULL, flag = 0;
  MPI_Init(&argc, &argv);
  memset(&c, 0, sizeof c);
  MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &c.size);
  c.left = (c.rank - 1 + c.size) % c.size;
  c.right = (c.rank + 1) % c.size;
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
  CHECK(flag && tag_ub, "MPI_TAG_UB not set");
  c.tag_ub = *tag_ub;

  for (i = 0; i < NCASES; ++i) {
    const Case *k = &kCases[i];
    int rc, ok, all = 0;
    if (c.size < k->min_size) {
      if (c.rank == 0) printf("skip %3d %s (needs %d ranks)\n", i, k->name, k->min_size);
      ++skipped;
      continue;
    }
    c.idx = i;
    c.tag = 100 + i;
    c.why[0] = '\0';
    rc = k->fn(&c);
    check_class(&c, rc, k->cls);
    ring(&c, MPI_COMM_WORLD, "follow-up ring on MPI_COMM_WORLD");
    ok = c.why[0] == '\0';
    if (!ok) {
      fprintf(stderr, "FAIL [rank %d] %s: %s\n", c.rank, k->name, c.why);
      fflush(stderr);
    }
    rc = MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "MPI_Allreduce after case %d (%s) returned %d", i, k->name, rc);
    if (!all) ++failed;
    if (c.rank == 0) {
      printf("%s %3d %-52s %s%s%s\n", all ? "ok  " : "FAIL", i, k->name, class_name(k->cls),
             ok ? "" : ": ", ok ? "" : c.why);
      fflush(stdout);
    }
  }

  /* Nothing is left over anywhere. */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  {
    MPI_Status st;
    int stray = 0, any = 0;
    CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &stray, &st));
    if (stray)
      fprintf(stderr, "FAIL [rank %d] a stray message (source %d tag %d) is left at the end\n",
              c.rank, st.MPI_SOURCE, st.MPI_TAG);
    CHECK_MPI(MPI_Allreduce(&stray, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    leftover = any;
  }

  if (c.rank == 0) {
    printf("bad_args: %d cases, %d passed, %d failed, %d skipped (%d ranks)%s\n", NCASES,
           NCASES - failed - skipped, failed, skipped, c.size,
           leftover ? "; a stray message was left at the end" : "");
    fflush(stdout);
  }
  if (!failed && !leftover) mt_ok("bad_args");
  MPI_Finalize();
  return failed || leftover ? 1 : 0;
}
