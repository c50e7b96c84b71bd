/* p2p_modes: the send modes, cancel and zero-byte messages.
 *  - MPI_Issend does not complete before the receive is posted (MPI_Test and
 *    MPI_Request_get_status say "not done"; the order is forced by messages, never by sleeping),
 *    and a blocking MPI_Ssend does not return before it: a marker sent after it cannot have
 *    arrived while the receiver has not posted the receive;
 *  - MPI_Rsend / MPI_Irsend after the receiver posted its receive (it says so with a zero-byte
 *    message);
 *  - MPI_Bsend / MPI_Ibsend with an attached buffer of exactly sum(size + MPI_BSEND_OVERHEAD):
 *    several outstanding buffered sends, sizes that are not multiples of 8 or 16, the send
 *    buffer reused at once, MPI_Buffer_detach returning the buffer; MPI_ERR_BUFFER (under
 *    MPI_ERRORS_RETURN) without a buffer, for a message larger than the buffer, after
 *    MPI_Buffer_detach, and (or successful delivery) when the buffer holds two large messages;
 *  - MPI_Cancel of posted receives (MPI_Test_cancelled true, the message goes to the next
 *    receive), of a receive that already completed (not cancelled);
 *  - zero-byte messages in every mode.
 * Ranks work in pairs (rank, rank ^ 1), each side playing sender and receiver in turn; a rank
 * without a partner plays both roles with itself, in an order that cannot deadlock. */
#include "mpitest.h"

static const long kSizes[] = {0, 1, 13, 1000, 4099, 100003};
#define NSIZES ((int)(sizeof kSizes / sizeof kSizes[0]))

static void check_message(const unsigned char *in, const MPI_Status *st, long n, int src, int tag,
                          const char *what) {
  int count = -1;
  long bad;
  CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag, "%s: source %d tag %d, expected %d %d", what,
        st->MPI_SOURCE, st->MPI_TAG, src, tag);
  CHECK_MPI(MPI_Get_count(st, MPI_BYTE, &count));
  CHECK(count == n, "%s: %d bytes, expected %ld", what, count, n);
  bad = mt_verify(in, n, src, tag);
  CHECK(bad < 0, "%s (%ld bytes): byte %ld differs", what, n, bad);
}

/* ---- synchronous mode ---- */
static void ssend_test(int rank, int peer, int S, int R) {
  int k;
  for (k = 0; k < NSIZES; ++k) {
    const long n = kSizes[k];
    const int tag = 10 + k;
    unsigned char *out = mt_malloc((size_t)n), *in = mt_malloc((size_t)n);
    MPI_Request r = MPI_REQUEST_NULL, marker = MPI_REQUEST_NULL;
    MPI_Status st;
    int flag = 1, i;
    mt_fill(out, n, rank, tag);

    /* MPI_Issend: not complete before the receiver posts. */
    if (S) {
      CHECK_MPI(MPI_Issend(out, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r));
      for (i = 0; i < 3; ++i) {
        CHECK_MPI(MPI_Test(&r, &flag, &st));
        CHECK(!flag, "MPI_Issend of %ld bytes completed before the receive was posted", n);
        CHECK_MPI(MPI_Request_get_status(r, &flag, &st));
        CHECK(!flag, "MPI_Request_get_status: Issend of %ld bytes done before the receive", n);
      }
      CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, 1, MPI_COMM_WORLD)); /* go */
    }
    if (R) {
      CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Recv(in, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st));
      check_message(in, &st, n, peer, tag, "Issend");
    }
    if (S) {
      CHECK_MPI(MPI_Wait(&r, &st));
      CHECK(r == MPI_REQUEST_NULL, "Wait did not free the Issend request");
    }

    /* Blocking MPI_Ssend (pairs only: with itself it would wait forever). The sender sends
     * "pre", then Ssend, then "marker"; the receiver, after "pre" arrived and before it posts
     * the Ssend's receive, must not see the marker. */
    if (S != R) {
      if (S) {
        CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, 2, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Ssend(out, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, 3, MPI_COMM_WORLD));
      } else {
        CHECK_MPI(MPI_Irecv(NULL, 0, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &marker));
        CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        /* Wait until the Ssend's message is visible, then check the marker has not come. */
        flag = 0;
        for (i = 0; !flag; ++i) {
          CHECK(i < 10000000, "the Ssend's message (%ld bytes) never shows in MPI_Iprobe", n);
          CHECK_MPI(MPI_Iprobe(peer, tag, MPI_COMM_WORLD, &flag, &st));
        }
        for (i = 0; i < 3; ++i) {
          CHECK_MPI(MPI_Test(&marker, &flag, MPI_STATUS_IGNORE));
          CHECK(!flag, "MPI_Ssend of %ld bytes returned before its receive was posted", n);
        }
        CHECK_MPI(MPI_Recv(in, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st));
        check_message(in, &st, n, peer, tag, "Ssend");
        CHECK_MPI(MPI_Wait(&marker, MPI_STATUS_IGNORE));
      }
    }
    free(out);
    free(in);
  }
}

/* ---- ready mode ---- */
static void rsend_test(int rank, int peer, int S, int R) {
  int k;
  for (k = 0; k < NSIZES; ++k) {
    const long n = kSizes[k];
    const int tag = 30 + k;
    unsigned char *out = mt_malloc((size_t)n), *in1 = mt_malloc((size_t)n + 8),
                  *in2 = mt_malloc((size_t)n + 8);
    MPI_Request r[2];
    MPI_Status st[2];
    mt_fill(out, n, rank, tag);
    if (R) {
      CHECK_MPI(MPI_Irecv(in1, (int)n + 8, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r[0]));
      CHECK_MPI(MPI_Irecv(in2, (int)n + 8, MPI_BYTE, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &r[1]));
      CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, 4, MPI_COMM_WORLD)); /* ready */
    }
    if (S) {
      MPI_Request sr;
      CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Rsend(out, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Irsend(out, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &sr));
      CHECK_MPI(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    }
    if (R) {
      CHECK_MPI(MPI_Waitall(2, r, st));
      check_message(in1, &st[0], n, peer, tag, "Rsend");
      check_message(in2, &st[1], n, peer, tag, "Irsend");
    }
    free(out);
    free(in1);
    free(in2);
  }
}

/* ---- buffered mode ---- */
static const long kBsizes[] = {0, 13, 70001, 1000, 100003, 65539, 1};
#define NBSEND ((int)(sizeof kBsizes / sizeof kBsizes[0]))
static void bsend_test(int rank, int peer, int S, int R) {
  /* NBSEND messages (several larger than any eager limit, sizes not multiples of 8), all
   * outstanding at once: the receiver posts nothing until the sender has sent them all and
   * reused its send buffer. The buffer is exactly sum(size + MPI_BSEND_OVERHEAD), which
   * MPI-3.1 section 3.6.1 says is enough. */
  long total = 0;
  int k;
  unsigned char *out = NULL, *buf = NULL;
  for (k = 0; k < NBSEND; ++k)
    total += kBsizes[k] + MPI_BSEND_OVERHEAD;
  if (S) {
    MPI_Request ib;
    void *addr = NULL;
    int bsize = -1;
    buf = mt_malloc((size_t)total);
    out = mt_malloc(100003);
    CHECK_MPI(MPI_Buffer_attach(buf, (int)total));
    for (k = 0; k < NBSEND; ++k) {
      int rc;
      mt_fill(out, kBsizes[k], rank, 50 + k);
      if (k == 2) {
        rc = MPI_Ibsend(out, (int)kBsizes[k], MPI_BYTE, peer, 50 + k, MPI_COMM_WORLD, &ib);
        if (rc == MPI_SUCCESS) CHECK_MPI(MPI_Wait(&ib, MPI_STATUS_IGNORE)); /* local completion */
      } else {
        rc = MPI_Bsend(out, (int)kBsizes[k], MPI_BYTE, peer, 50 + k, MPI_COMM_WORLD);
      }
      CHECK(rc == MPI_SUCCESS,
            "buffered send %d (%ld bytes) into a buffer of sum(size + MPI_BSEND_OVERHEAD) = %ld "
            "bytes for %d messages failed with %d",
            k, kBsizes[k], total, NBSEND, rc);
      memset(out, 0xCD, (size_t)kBsizes[k]); /* the data was copied: reuse the buffer at once */
    }
    CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, 5, MPI_COMM_WORLD)); /* go */
    if (S && R) {
      /* With itself: receive before detaching (detach waits for the messages to be sent). */
    } else {
      CHECK_MPI(MPI_Buffer_detach(&addr, &bsize));
      CHECK(addr == buf && bsize == (int)total, "Buffer_detach returned %p/%d, attached %p/%ld",
            addr, bsize, (void *)buf, total);
    }
  }
  if (R) {
    unsigned char *in = mt_malloc(100003);
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (k = NBSEND - 1; k >= 0; --k) {
      MPI_Status st;
      CHECK_MPI(MPI_Recv(in, 100003, MPI_BYTE, peer, 50 + k, MPI_COMM_WORLD, &st));
      check_message(in, &st, kBsizes[k], peer, 50 + k, k == 2 ? "Ibsend" : "Bsend");
    }
    free(in);
  }
  if (S && R) {
    void *addr = NULL;
    int bsize = -1;
    CHECK_MPI(MPI_Buffer_detach(&addr, &bsize));
    CHECK(addr == buf && bsize == (int)total, "Buffer_detach returned %p/%d, attached %p/%ld", addr,
          bsize, (void *)buf, total);
  }
  free(buf);
  free(out);
}

/* MPI_ERR_BUFFER under MPI_ERRORS_RETURN. */
static void bsend_errors(int rank, int peer, int S, int R) {
  const int big = 100003; /* larger than any eager limit */
  const int bufsize = 2 * (big + MPI_BSEND_OVERHEAD);
  unsigned char *out = mt_malloc((size_t)bufsize), *buf = NULL;
  int rc, k, third_sent = 0;
  MPI_Request gor = MPI_REQUEST_NULL;
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  if (S) {
    void *addr = NULL;
    int bsize = -1;
    mt_fill(out, 10, rank, 60);
    rc = MPI_Bsend(out, 10, MPI_BYTE, peer, 60, MPI_COMM_WORLD);
    CHECK(mt_class(rc) == MPI_ERR_BUFFER, "Bsend without an attached buffer returned %d", rc);
    buf = mt_malloc((size_t)bufsize);
    CHECK_MPI(MPI_Buffer_attach(buf, bufsize));
    /* A message that cannot fit even in the empty buffer. */
    rc = MPI_Bsend(out, bufsize, MPI_BYTE, peer, 61, MPI_COMM_WORLD);
    CHECK(mt_class(rc) == MPI_ERR_BUFFER, "Bsend of %d bytes into a %d-byte buffer returned %d",
          bufsize, bufsize, rc);
    /* Two large messages fill the buffer; nobody receives them yet. A third one fits only if
     * the implementation already moved one of them out of the buffer (transmitted it): so it
     * either fails with MPI_ERR_BUFFER and sends nothing, or succeeds and is delivered. */
    for (k = 0; k < 2; ++k) {
      mt_fill(out, big, rank, 62 + k);
      rc = MPI_Bsend(out, big, MPI_BYTE, peer, 62 + k, MPI_COMM_WORLD);
      CHECK(rc == MPI_SUCCESS,
            "Bsend %d of 2 (%d bytes) into a buffer of 2 x (%d + MPI_BSEND_OVERHEAD) bytes "
            "failed with %d",
            k + 1, big, big, rc);
    }
    mt_fill(out, big, rank, 64);
    rc = MPI_Bsend(out, big, MPI_BYTE, peer, 64, MPI_COMM_WORLD);
    CHECK(
        rc == MPI_SUCCESS || mt_class(rc) == MPI_ERR_BUFFER,
        "a third Bsend of %d bytes into a full buffer (2 x (%d + MPI_BSEND_OVERHEAD)) returned %d",
        big, big, rc);
    third_sent = rc == MPI_SUCCESS;
    CHECK_MPI(MPI_Isend(&third_sent, 1, MPI_INT, peer, 6, MPI_COMM_WORLD, &gor)); /* go */
    if (!R) {
      CHECK_MPI(MPI_Buffer_detach(&addr, &bsize));
      CHECK(addr == buf && bsize == bufsize, "Buffer_detach: %p/%d", addr, bsize);
      rc = MPI_Bsend(out, 10, MPI_BYTE, peer, 60, MPI_COMM_WORLD);
      CHECK(mt_class(rc) == MPI_ERR_BUFFER, "Bsend after Buffer_detach returned %d", rc);
    }
  }
  if (R) {
    unsigned char *in = mt_malloc((size_t)big);
    MPI_Status st;
    int flag = 1, third = -1;
    CHECK_MPI(MPI_Recv(&third, 1, MPI_INT, peer, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    if (third) {
      CHECK_MPI(MPI_Recv(in, big, MPI_BYTE, peer, 64, MPI_COMM_WORLD, &st));
      check_message(in, &st, big, peer, 64, "a third Bsend into a full buffer (it succeeded)");
    }
    for (k = 0; k < 2; ++k) {
      CHECK_MPI(MPI_Recv(in, big, MPI_BYTE, peer, 62 + k, MPI_COMM_WORLD, &st));
      check_message(in, &st, big, peer, 62 + k, "Bsend into a full buffer");
    }
    /* The failed sends sent nothing. */
    CHECK_MPI(MPI_Iprobe(peer, 60, MPI_COMM_WORLD, &flag, &st));
    CHECK(!flag, "a Bsend that failed (tag 60) delivered a message");
    CHECK_MPI(MPI_Iprobe(peer, 61, MPI_COMM_WORLD, &flag, &st));
    CHECK(!flag, "a Bsend that failed (tag 61) delivered a message");
    CHECK_MPI(MPI_Iprobe(peer, 64, MPI_COMM_WORLD, &flag, &st));
    CHECK(!flag, "a Bsend that failed (tag 64) delivered a message");
    free(in);
  }
  CHECK_MPI(MPI_Wait(&gor, MPI_STATUS_IGNORE));
  if (S && R) {
    void *addr = NULL;
    int bsize = -1;
    CHECK_MPI(MPI_Buffer_detach(&addr, &bsize));
    CHECK(addr == buf, "Buffer_detach: %p", addr);
  }
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  free(buf);
  free(out);
}

/* ---- cancel ---- */
static void cancel_test(int rank, int peer, int S, int R) {
  int data[4] = {rank, 1, 2, 3}, in[4] = {-1, -1, -1, -1}, flag = -1, i;
  MPI_Request r, sreq[2];
  MPI_Status st;
  if (R) {
    /* A receive that nothing matches yet, cancelled and completed by MPI_Wait. */
    CHECK_MPI(MPI_Irecv(in, 4, MPI_INT, peer, 70, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Cancel(&r));
    CHECK(r != MPI_REQUEST_NULL, "MPI_Cancel freed the request");
    CHECK_MPI(MPI_Wait(&r, &st));
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(flag, "a cancelled unmatched receive: MPI_Test_cancelled false");
    CHECK(in[0] == -1, "a cancelled receive wrote its buffer");
    /* An ANY_SOURCE receive, cancelled and completed by an MPI_Test loop. */
    CHECK_MPI(MPI_Irecv(in, 4, MPI_INT, MPI_ANY_SOURCE, 70, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Cancel(&r));
    flag = 0;
    for (i = 0; !flag; ++i) {
      CHECK(i < 10000000, "cancelled receive never completes under MPI_Test");
      CHECK_MPI(MPI_Test(&r, &flag, &st));
    }
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(flag, "a cancelled ANY_SOURCE receive: MPI_Test_cancelled false");
    /* A receive that has completed: cancelling it does nothing. */
    CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, 7, MPI_COMM_WORLD)); /* go */
  }
  if (S) {
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Isend(data, 4, MPI_INT, peer, 70, MPI_COMM_WORLD, &sreq[0]));
    CHECK_MPI(MPI_Isend(data, 4, MPI_INT, peer, 71, MPI_COMM_WORLD, &sreq[1]));
  }
  if (R) {
    /* The message with tag 70 goes to this receive, not to the cancelled ones. */
    CHECK_MPI(MPI_Recv(in, 4, MPI_INT, peer, 70, MPI_COMM_WORLD, &st));
    CHECK(in[0] == peer && in[3] == 3 && st.MPI_TAG == 70, "after cancel: %d %d", in[0], in[3]);
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(!flag, "a normal receive reports cancelled");
    in[0] = -1;
    CHECK_MPI(MPI_Irecv(in, 4, MPI_INT, peer, 71, MPI_COMM_WORLD, &r));
    flag = 0;
    for (i = 0; !flag; ++i) {
      CHECK(i < 10000000, "receive of tag 71 never completes");
      CHECK_MPI(MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE));
    }
    CHECK_MPI(MPI_Cancel(&r));
    CHECK_MPI(MPI_Wait(&r, &st));
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(!flag, "cancelling a completed receive made it cancelled");
    CHECK(in[0] == peer && st.MPI_SOURCE == peer && st.MPI_TAG == 71,
          "completed-then-cancelled receive: data %d source %d tag %d", in[0], st.MPI_SOURCE,
          st.MPI_TAG);
  }
  if (S) CHECK_MPI(MPI_Waitall(2, sreq, MPI_STATUSES_IGNORE));
}

/* ---- zero-byte messages in every mode ---- */
static void zero_bytes(int rank, int peer, int S, int R) {
  const int n = 6;
  MPI_Request rr[6];
  MPI_Status st[6];
  char bsbuf[6 * MPI_BSEND_OVERHEAD + 64];
  char dummy[1] = {0};
  int k;
  (void)rank;
  if (R) {
    for (k = 0; k < n; ++k)
      CHECK_MPI(MPI_Irecv(dummy, 1, MPI_CHAR, peer, 90 + k, MPI_COMM_WORLD, &rr[k]));
    CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, 8, MPI_COMM_WORLD)); /* ready */
  }
  if (S) {
    MPI_Request sr[2];
    void *addr;
    int bsize;
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Buffer_attach(bsbuf, (int)sizeof bsbuf));
    CHECK_MPI(MPI_Send(NULL, 0, MPI_INT, peer, 90, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Rsend(NULL, 0, MPI_INT, peer, 91, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Bsend(NULL, 0, MPI_INT, peer, 92, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Issend(NULL, 0, MPI_DOUBLE, peer, 93, MPI_COMM_WORLD, &sr[0]));
    CHECK_MPI(MPI_Isend(dummy, 0, MPI_CHAR, peer, 94, MPI_COMM_WORLD, &sr[1]));
    CHECK_MPI(MPI_Waitall(2, sr, MPI_STATUSES_IGNORE));
    if (S != R)
      CHECK_MPI(MPI_Ssend(NULL, 0, MPI_BYTE, peer, 95, MPI_COMM_WORLD));
    else
      CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, 95, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Buffer_detach(&addr, &bsize));
    CHECK(addr == (void *)bsbuf, "Buffer_detach address");
  }
  if (R) {
    CHECK_MPI(MPI_Waitall(n, rr, st));
    for (k = 0; k < n; ++k) {
      int count = -1;
      CHECK(st[k].MPI_SOURCE == peer && st[k].MPI_TAG == 90 + k,
            "zero-byte message %d: source %d tag %d", k, st[k].MPI_SOURCE, st[k].MPI_TAG);
      CHECK_MPI(MPI_Get_count(&st[k], MPI_CHAR, &count));
      CHECK(count == 0, "zero-byte message %d: count %d", k, count);
    }
  }
}

int main(int argc, char **argv) {
  int rank, size, swap;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  for (swap = 0; swap < 2; ++swap) {
    int peer = rank ^ 1, S, R;
    if (peer >= size) {
      peer = rank;
      S = R = 1;
    } else {
      S = (rank < peer) != swap;
      R = !S;
    }
    ssend_test(rank, peer, S, R);
    rsend_test(rank, peer, S, R);
    bsend_test(rank, peer, S, R);
    bsend_errors(rank, peer, S, R);
    cancel_test(rank, peer, S, R);
    zero_bytes(rank, peer, S, R);
    MPI_Barrier(MPI_COMM_WORLD);
  }

  mt_ok("p2p_modes");
  MPI_Finalize();
  return 0;
}
