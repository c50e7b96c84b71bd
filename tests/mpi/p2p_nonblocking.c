/* p2p_nonblocking: nonblocking point-to-point and the completion functions.
 *  - Isend/Irecv with both ring neighbours, completed by MPI_Waitall (small and large);
 *  - a fan-in to each rank in turn completed by MPI_Waitany, MPI_Waitsome, MPI_Testany,
 *    MPI_Testsome and MPI_Testall polling loops;
 *  - completion functions on MPI_REQUEST_NULL and empty lists;
 *  - 1000 outstanding MPI_Isend to one receiver before it posts any receive (some of them too
 *    large to be buffered), received in reverse order;
 *  - MPI_Request_free of sends (a small one and a large one);
 *  - MPI_Test / MPI_Request_get_status polling loops that can only end if the other ranks make
 *    progress meanwhile.
 * Works for any number of ranks (with one rank, the peers are the rank itself). */
#include "mpitest.h"

static int val(int src, int dst, int tag, int i) {
  return src * 1000003 + dst * 1009 + tag * 31 + i;
}

static void ring_waitall(int rank, int size) {
  static const int kCounts[] = {0, 1, 100, 20000, 300000};
  const int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  int k;
  for (k = 0; k < 5; ++k) {
    const int n = kCounts[k];
    int *sr = mt_malloc((size_t)n * sizeof(int)), *sl = mt_malloc((size_t)n * sizeof(int));
    int *rr = mt_malloc((size_t)n * sizeof(int)), *rl = mt_malloc((size_t)n * sizeof(int));
    MPI_Request req[4];
    MPI_Status st[4];
    int i, count;
    for (i = 0; i < n; ++i) {
      sr[i] = val(rank, right, 1, i);
      sl[i] = val(rank, left, 2, i);
    }
    /* Receives first for even k, sends first for odd k. */
    if (k % 2 == 0) {
      CHECK_MPI(MPI_Irecv(rl, n, MPI_INT, left, 1, MPI_COMM_WORLD, &req[0]));
      CHECK_MPI(MPI_Irecv(rr, n, MPI_INT, right, 2, MPI_COMM_WORLD, &req[1]));
      CHECK_MPI(MPI_Isend(sr, n, MPI_INT, right, 1, MPI_COMM_WORLD, &req[2]));
      CHECK_MPI(MPI_Isend(sl, n, MPI_INT, left, 2, MPI_COMM_WORLD, &req[3]));
    } else {
      CHECK_MPI(MPI_Isend(sr, n, MPI_INT, right, 1, MPI_COMM_WORLD, &req[2]));
      CHECK_MPI(MPI_Isend(sl, n, MPI_INT, left, 2, MPI_COMM_WORLD, &req[3]));
      CHECK_MPI(MPI_Irecv(rl, n, MPI_INT, left, 1, MPI_COMM_WORLD, &req[0]));
      CHECK_MPI(MPI_Irecv(rr, n, MPI_INT, right, 2, MPI_COMM_WORLD, &req[1]));
    }
    CHECK_MPI(MPI_Waitall(4, req, st));
    for (i = 0; i < 4; ++i)
      CHECK(req[i] == MPI_REQUEST_NULL, "Waitall left request %d non-null", i);
    CHECK(st[0].MPI_SOURCE == left && st[0].MPI_TAG == 1, "from left: source %d tag %d",
          st[0].MPI_SOURCE, st[0].MPI_TAG);
    CHECK(st[1].MPI_SOURCE == right && st[1].MPI_TAG == 2, "from right: source %d tag %d",
          st[1].MPI_SOURCE, st[1].MPI_TAG);
    CHECK_MPI(MPI_Get_count(&st[0], MPI_INT, &count));
    CHECK(count == n, "from left: count %d, expected %d", count, n);
    CHECK_MPI(MPI_Get_count(&st[1], MPI_INT, &count));
    CHECK(count == n, "from right: count %d, expected %d", count, n);
    for (i = 0; i < n; ++i) {
      CHECK(rl[i] == val(left, rank, 1, i), "n=%d from left: element %d = %d", n, i, rl[i]);
      CHECK(rr[i] == val(right, rank, 2, i), "n=%d from right: element %d = %d", n, i, rr[i]);
    }
    free(sr);
    free(sl);
    free(rr);
    free(rl);
  }
}

enum { WAITANY, WAITSOME, TESTANY, TESTSOME, TESTALL, NMETHODS };
static const char *const kMethodNames[] = {"Waitany", "Waitsome", "Testany", "Testsome", "Testall"};

/* Every rank sends `n` ints to `root`; the root posts one receive per rank (with MPI_REQUEST_NULL
 * holes between them) and completes them with `method`. */
static void fan_in(int rank, int size, int root, int method, int n) {
  const int tag = 50 + method;
  int *out = mt_malloc((size_t)n * sizeof(int)), i;
  MPI_Request sreq;
  for (i = 0; i < n; ++i)
    out[i] = val(rank, root, tag, i);
  CHECK_MPI(MPI_Isend(out, n, MPI_INT, root, tag, MPI_COMM_WORLD, &sreq));
  if (rank == root) {
    const int nreq = 2 * size + 1; /* request 2*s+1 receives from rank s; the others are NULL */
    MPI_Request *req = mt_malloc((size_t)nreq * sizeof(MPI_Request));
    MPI_Status *st = mt_malloc((size_t)nreq * sizeof(MPI_Status));
    int *idx = mt_malloc((size_t)nreq * sizeof(int));
    int *seen = mt_malloc((size_t)size * sizeof(int));
    int **in = mt_malloc((size_t)size * sizeof(int *));
    int done = 0, calls = 0, s;
    for (i = 0; i < nreq; ++i)
      req[i] = MPI_REQUEST_NULL;
    for (s = 0; s < size; ++s) {
      seen[s] = 0;
      in[s] = mt_malloc((size_t)n * sizeof(int));
      CHECK_MPI(MPI_Irecv(in[s], n, MPI_INT, s, tag, MPI_COMM_WORLD, &req[2 * s + 1]));
    }
    while (done < size) {
      int outcount = 0, flag = 0, index = -1;
      ++calls;
      CHECK(calls < 100000000, "%s: no progress after %d calls", kMethodNames[method], calls);
      switch (method) {
      case WAITANY:
        CHECK_MPI(MPI_Waitany(nreq, req, &index, &st[0]));
        CHECK(index != MPI_UNDEFINED, "Waitany returned MPI_UNDEFINED with %d pending",
              size - done);
        idx[0] = index;
        outcount = 1;
        break;
      case WAITSOME:
        CHECK_MPI(MPI_Waitsome(nreq, req, &outcount, idx, st));
        CHECK(outcount != MPI_UNDEFINED && outcount >= 1, "Waitsome outcount %d with %d pending",
              outcount, size - done);
        break;
      case TESTANY:
        CHECK_MPI(MPI_Testany(nreq, req, &index, &flag, &st[0]));
        if (flag) {
          CHECK(index != MPI_UNDEFINED, "Testany: flag set, index MPI_UNDEFINED, %d pending",
                size - done);
          idx[0] = index;
          outcount = 1;
        } else {
          CHECK(index == MPI_UNDEFINED, "Testany: flag 0 but index %d", index);
        }
        break;
      case TESTSOME:
        CHECK_MPI(MPI_Testsome(nreq, req, &outcount, idx, st));
        CHECK(outcount != MPI_UNDEFINED && outcount >= 0, "Testsome outcount %d, %d pending",
              outcount, size - done);
        break;
      case TESTALL:
        CHECK_MPI(MPI_Testall(nreq, req, &flag, st));
        if (flag) {
          for (i = 0; i < nreq; ++i) {
            CHECK(req[i] == MPI_REQUEST_NULL, "Testall: request %d not freed", i);
            if (i % 2 == 1)
              idx[outcount++] = i;
            else
              CHECK(st[i].MPI_SOURCE == MPI_ANY_SOURCE && st[i].MPI_TAG == MPI_ANY_TAG,
                    "Testall: status %d of a null request: source %d tag %d", i, st[i].MPI_SOURCE,
                    st[i].MPI_TAG);
          }
        } else {
          for (i = 1; i < nreq; i += 2)
            CHECK(req[i] != MPI_REQUEST_NULL, "Testall (flag 0) freed request %d", i);
        }
        break;
      }
      for (i = 0; i < outcount; ++i) {
        const int j = idx[i];
        const MPI_Status *sp = method == TESTALL                          ? &st[j]
                               : (method == WAITANY || method == TESTANY) ? &st[0]
                                                                          : &st[i];
        int count = -1, e;
        CHECK(j >= 0 && j < nreq && j % 2 == 1, "%s completed index %d (never a receive)",
              kMethodNames[method], j);
        s = (j - 1) / 2;
        CHECK(!seen[s], "%s: index %d completed twice", kMethodNames[method], j);
        seen[s] = 1;
        ++done;
        CHECK(req[j] == MPI_REQUEST_NULL, "%s: completed request %d not set to MPI_REQUEST_NULL",
              kMethodNames[method], j);
        CHECK(sp->MPI_SOURCE == s && sp->MPI_TAG == tag, "%s: index %d: source %d tag %d",
              kMethodNames[method], j, sp->MPI_SOURCE, sp->MPI_TAG);
        CHECK_MPI(MPI_Get_count(sp, MPI_INT, &count));
        CHECK(count == n, "%s: count %d expected %d", kMethodNames[method], count, n);
        for (e = 0; e < n; ++e)
          CHECK(in[s][e] == val(s, root, tag, e), "%s: from %d element %d = %d",
                kMethodNames[method], s, e, in[s][e]);
      }
    }
    /* All requests are null now: the completion functions say so. */
    {
      int index = 0, outcount = 0, flag = 0;
      MPI_Status one;
      CHECK_MPI(MPI_Waitany(nreq, req, &index, &one));
      CHECK(index == MPI_UNDEFINED, "Waitany on null requests: index %d", index);
      CHECK_MPI(MPI_Testany(nreq, req, &index, &flag, &one));
      CHECK(flag && index == MPI_UNDEFINED, "Testany on null requests: flag %d index %d", flag,
            index);
      CHECK_MPI(MPI_Waitsome(nreq, req, &outcount, idx, st));
      CHECK(outcount == MPI_UNDEFINED, "Waitsome on null requests: outcount %d", outcount);
      CHECK_MPI(MPI_Testsome(nreq, req, &outcount, idx, st));
      CHECK(outcount == MPI_UNDEFINED, "Testsome on null requests: outcount %d", outcount);
      CHECK_MPI(MPI_Testall(nreq, req, &flag, MPI_STATUSES_IGNORE));
      CHECK(flag, "Testall on null requests: flag 0");
      CHECK_MPI(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
    }
    for (s = 0; s < size; ++s)
      free(in[s]);
    free(in);
    free(seen);
    free(idx);
    free(st);
    free(req);
  }
  CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
  CHECK(sreq == MPI_REQUEST_NULL, "MPI_Wait did not free the send request");
  free(out);
}

static void null_requests(void) {
  MPI_Request r = MPI_REQUEST_NULL;
  MPI_Status st;
  int flag = 0, index = 0, outcount = 0, count = -1;
  st.MPI_SOURCE = 77;
  st.MPI_TAG = 77;
  CHECK_MPI(MPI_Wait(&r, &st));
  CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG,
        "Wait(MPI_REQUEST_NULL): empty status expected, got source %d tag %d", st.MPI_SOURCE,
        st.MPI_TAG);
  CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
  CHECK(count == 0, "Wait(MPI_REQUEST_NULL): count %d", count);
  CHECK_MPI(MPI_Test(&r, &flag, &st));
  CHECK(flag, "Test(MPI_REQUEST_NULL): flag 0");
  CHECK_MPI(MPI_Request_get_status(r, &flag, &st));
  CHECK(flag, "Request_get_status(MPI_REQUEST_NULL): flag 0");
  CHECK_MPI(MPI_Waitall(0, NULL, MPI_STATUSES_IGNORE));
  CHECK_MPI(MPI_Testall(0, NULL, &flag, MPI_STATUSES_IGNORE));
  CHECK(flag, "Testall of 0 requests: flag 0");
  CHECK_MPI(MPI_Waitany(0, NULL, &index, MPI_STATUS_IGNORE));
  CHECK(index == MPI_UNDEFINED, "Waitany of 0 requests: index %d", index);
  CHECK_MPI(MPI_Waitsome(0, NULL, &outcount, NULL, MPI_STATUSES_IGNORE));
  CHECK(outcount == MPI_UNDEFINED, "Waitsome of 0 requests: outcount %d", outcount);
}

/* 1000 Isends from each rank to its right neighbour before the neighbour posts anything; every
 * 100th message is larger than any eager limit. Received in reverse tag order. */
#define MANY 1000
static int many_len(int i) {
  return (i % 100 == 37) ? 40000 : 1 + i % 13;
}

static void many_outstanding(int rank, int size) {
  const int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  MPI_Request *req = mt_malloc(MANY * sizeof(MPI_Request));
  int **bufs = mt_malloc(MANY * sizeof(int *));
  int *in = mt_malloc(40000 * sizeof(int));
  int i, j, flag = 0;
  for (i = 0; i < MANY; ++i) {
    const int n = many_len(i);
    bufs[i] = mt_malloc((size_t)n * sizeof(int));
    for (j = 0; j < n; ++j)
      bufs[i][j] = val(rank, right, i, j);
    CHECK_MPI(MPI_Isend(bufs[i], n, MPI_INT, right, i, MPI_COMM_WORLD, &req[i]));
  }
  /* Look at the requests once (whether they completed yet is the implementation's business). */
  for (i = 0; i < MANY; i += 50) {
    CHECK_MPI(MPI_Request_get_status(req[i], &flag, MPI_STATUS_IGNORE));
    CHECK(req[i] != MPI_REQUEST_NULL, "Request_get_status freed request %d", i);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (i = MANY - 1; i >= 0; --i) {
    const int n = many_len(i);
    MPI_Status st;
    int count = -1;
    CHECK_MPI(MPI_Recv(in, 40000, MPI_INT, left, i, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == i, "many: source %d tag %d", st.MPI_SOURCE,
          st.MPI_TAG);
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == n, "many: message %d has %d ints, expected %d", i, count, n);
    for (j = 0; j < n; ++j)
      CHECK(in[j] == val(left, rank, i, j), "many: message %d element %d = %d", i, j, in[j]);
  }
  CHECK_MPI(MPI_Waitall(MANY, req, MPI_STATUSES_IGNORE));
  for (i = 0; i < MANY; ++i) {
    CHECK(req[i] == MPI_REQUEST_NULL, "many: request %d not freed by Waitall", i);
    free(bufs[i]);
  }
  free(bufs);
  free(req);
  free(in);
}

/* MPI_Request_free on active sends: the messages still arrive. The sender learns that they did
 * from the receiver's acknowledgement, and only then frees the buffers. */
static void request_free(int rank, int size) {
  const int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  const int big = 200000;
  int small[3] = {rank, rank + 1, rank + 2}, *large = mt_malloc((size_t)big * sizeof(int));
  int *in = mt_malloc((size_t)big * sizeof(int)), i, ack = -1;
  MPI_Request r;
  MPI_Status st;
  for (i = 0; i < big; ++i)
    large[i] = val(rank, right, 7, i);
  CHECK_MPI(MPI_Isend(small, 3, MPI_INT, right, 70, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Request_free(&r));
  CHECK(r == MPI_REQUEST_NULL, "Request_free did not set MPI_REQUEST_NULL");
  CHECK_MPI(MPI_Isend(large, big, MPI_INT, right, 71, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Request_free(&r));
  CHECK(r == MPI_REQUEST_NULL, "Request_free did not set MPI_REQUEST_NULL");

  CHECK_MPI(MPI_Recv(in, 3, MPI_INT, left, 70, MPI_COMM_WORLD, &st));
  CHECK(in[0] == left && in[1] == left + 1 && in[2] == left + 2, "freed small send: %d %d %d",
        in[0], in[1], in[2]);
  CHECK_MPI(MPI_Recv(in, big, MPI_INT, left, 71, MPI_COMM_WORLD, &st));
  for (i = 0; i < big; ++i)
    CHECK(in[i] == val(left, rank, 7, i), "freed large send: element %d = %d", i, in[i]);
  /* Acknowledge to the left, wait for the right's acknowledgement. */
  CHECK_MPI(
      MPI_Sendrecv(&rank, 1, MPI_INT, left, 72, &ack, 1, MPI_INT, right, 72, MPI_COMM_WORLD, &st));
  CHECK(ack == right, "ack %d", ack);
  free(large);
  free(in);
}

/* Polling loops that only end if the other ranks run meanwhile. */
static void polling(int rank, int size) {
  const int last = size - 1;
  const int big = 300000; /* rendezvous-sized */
  MPI_Request r, gor;
  MPI_Status st;
  int flag = 0, value = -1, go = 1, i;
  long polls = 0;
  int *buf = mt_malloc((size_t)big * sizeof(int));

  /* (1) Rank 0 posts a receive from the last rank, tells it to go, and polls with MPI_Test. The
   * last rank sends only after the go message. */
  if (rank == 0) {
    CHECK_MPI(MPI_Irecv(&value, 1, MPI_INT, last, 80, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Test(&r, &flag, &st));
    CHECK(!flag, "MPI_Test completed a receive whose message was never sent");
    CHECK(r != MPI_REQUEST_NULL, "MPI_Test (flag 0) freed the request");
    /* nonblocking: with one rank the go message goes to the rank itself */
    CHECK_MPI(MPI_Isend(&go, 1, MPI_INT, last, 81, MPI_COMM_WORLD, &gor));
  }
  if (rank == last) {
    CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, 0, 81, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    value = 4242;
    CHECK_MPI(MPI_Send(&value, 1, MPI_INT, 0, 80, MPI_COMM_WORLD));
  }
  if (rank == 0) {
    polls = 0;
    while (!flag) {
      CHECK_MPI(MPI_Test(&r, &flag, &st));
      CHECK(++polls < 100000000L, "MPI_Test polled %ld times without completion", polls);
    }
    CHECK(r == MPI_REQUEST_NULL, "MPI_Test (flag 1) did not free the request");
    CHECK(value == 4242 && st.MPI_SOURCE == last && st.MPI_TAG == 80,
          "polled receive: value %d source %d tag %d", value, st.MPI_SOURCE, st.MPI_TAG);
    CHECK_MPI(MPI_Wait(&gor, MPI_STATUS_IGNORE));
  }

  /* (2) Rank 0 sends a large message to the last rank with MPI_Isend and polls with
   * MPI_Request_get_status, then MPI_Test; the last rank posts the receive only after a go
   * message that rank 0 sends after the MPI_Isend. */
  if (rank == 0) {
    for (i = 0; i < big; ++i)
      buf[i] = val(0, last, 9, i);
    CHECK_MPI(MPI_Isend(buf, big, MPI_INT, last, 82, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Request_get_status(r, &flag, &st));
    CHECK_MPI(MPI_Isend(&go, 1, MPI_INT, last, 83, MPI_COMM_WORLD, &gor));
  }
  if (rank == last) {
    int *in = mt_malloc((size_t)big * sizeof(int));
    CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, 0, 83, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Recv(in, big, MPI_INT, 0, 82, MPI_COMM_WORLD, &st));
    for (i = 0; i < big; ++i)
      CHECK(in[i] == val(0, last, 9, i), "polled large message: element %d = %d", i, in[i]);
    free(in);
  }
  if (rank == 0) {
    flag = 0;
    polls = 0;
    while (!flag) {
      CHECK_MPI(MPI_Request_get_status(r, &flag, &st));
      CHECK(++polls < 100000000L, "MPI_Request_get_status polled %ld times", polls);
    }
    CHECK(r != MPI_REQUEST_NULL, "MPI_Request_get_status freed the request");
    CHECK_MPI(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
    CHECK(flag, "MPI_Test after MPI_Request_get_status returned flag 1: flag 0");
    CHECK(r == MPI_REQUEST_NULL, "MPI_Test did not free the request");
    CHECK_MPI(MPI_Wait(&gor, MPI_STATUS_IGNORE));
  }

  /* (3) Every rank polls with MPI_Testall for messages from all its ring neighbours, which are
   * sent in a daisy chain: rank r sends to r+1 only after it received from r-1 (rank 0 starts).
   * Each rank must keep polling until the chain reaches it. */
  {
    const int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    int token = -1;
    MPI_Request rr;
    CHECK_MPI(MPI_Irecv(&token, 1, MPI_INT, left, 84, MPI_COMM_WORLD, &rr));
    if (rank == 0) {
      int zero = 0;
      CHECK_MPI(MPI_Send(&zero, 1, MPI_INT, right, 84, MPI_COMM_WORLD));
    }
    flag = 0;
    polls = 0;
    while (!flag) {
      CHECK_MPI(MPI_Testall(1, &rr, &flag, MPI_STATUSES_IGNORE));
      CHECK(++polls < 100000000L, "daisy chain: Testall polled %ld times", polls);
    }
    CHECK(token == (rank == 0 ? size - 1 : rank - 1), "daisy chain: token %d", token);
    if (rank != 0 && size > 1) {
      ++token;
      CHECK_MPI(MPI_Send(&token, 1, MPI_INT, right, 84, MPI_COMM_WORLD));
    }
  }
  free(buf);
}

int main(int argc, char **argv) {
  int rank, size, root, method;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  null_requests();
  ring_waitall(rank, size);
  MPI_Barrier(MPI_COMM_WORLD);

  /* Each method with a few roots and message sizes (small, and large enough for rendezvous). */
  for (method = 0; method < NMETHODS; ++method) {
    for (root = 0; root < size; root += (size > 4 ? size / 4 + 1 : 1)) {
      fan_in(rank, size, root, method, 1 + method);
      fan_in(rank, size, (root + 1) % size, method, 30000);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);

  many_outstanding(rank, size);
  MPI_Barrier(MPI_COMM_WORLD);
  request_free(rank, size);
  MPI_Barrier(MPI_COMM_WORLD);
  polling(rank, size);

  MPI_Barrier(MPI_COMM_WORLD);
  mt_ok("p2p_nonblocking");
  MPI_Finalize();
  return 0;
}
