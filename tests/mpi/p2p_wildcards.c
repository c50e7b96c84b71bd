/* p2p_wildcards: matching with MPI_ANY_SOURCE / MPI_ANY_TAG, ordering and probes.
 *  - a root receives from every rank with ANY_SOURCE + ANY_TAG (each rank sends several tags);
 *  - non-overtaking: every rank sends N messages with the same tag and increasing sequence
 *    numbers (mixing small and rendezvous-sized messages, sent with MPI_Isend), the root receives
 *    them with ANY_SOURCE and checks the order per sender;
 *  - tag matching: messages received in another order than they were sent, by tag, and
 *    ANY_TAG picking the earliest message that is left;
 *  - posted receives with mixed wildcards are matched in the order they were posted;
 *  - MPI_Probe (ANY_SOURCE / ANY_TAG) then MPI_Recv of the probed size, MPI_Iprobe polling
 *    loops, MPI_Iprobe of MPI_PROC_NULL and of a message that does not exist.
 * Works for any number of ranks (the root also sends to itself). */
#include "mpitest.h"

static int val(int src, int tag, int seq, int i) {
  return src * 1000003 + tag * 10007 + seq * 101 + i;
}

/* Every rank sends `ntags` messages (tags base..base+ntags-1, 3 ints each) to root; root gets them
 * all with ANY_SOURCE + ANY_TAG. */
static void any_any(int rank, int size, int root, int base, int ntags) {
  MPI_Request *req = mt_malloc((size_t)ntags * sizeof(MPI_Request));
  int *out = mt_malloc((size_t)ntags * 3 * sizeof(int)), t, i;
  for (t = 0; t < ntags; ++t) {
    for (i = 0; i < 3; ++i)
      out[t * 3 + i] = val(rank, base + t, 0, i);
    CHECK_MPI(MPI_Isend(&out[t * 3], 3, MPI_INT, root, base + t, MPI_COMM_WORLD, &req[t]));
  }
  if (rank == root) {
    int *got = mt_malloc((size_t)size * ntags * sizeof(int)), k, in[4];
    for (k = 0; k < size * ntags; ++k)
      got[k] = 0;
    for (k = 0; k < size * ntags; ++k) {
      MPI_Status st;
      int count = -1, s, tag;
      CHECK_MPI(MPI_Recv(in, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
      s = st.MPI_SOURCE;
      tag = st.MPI_TAG;
      CHECK(s >= 0 && s < size, "ANY_SOURCE: status source %d", s);
      CHECK(tag >= base && tag < base + ntags, "ANY_TAG: status tag %d not in [%d, %d)", tag, base,
            base + ntags);
      CHECK(!got[s * ntags + tag - base], "message (source %d, tag %d) received twice", s, tag);
      got[s * ntags + tag - base] = 1;
      CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
      CHECK(count == 3, "ANY/ANY: count %d", count);
      for (i = 0; i < 3; ++i)
        CHECK(in[i] == val(s, tag, 0, i), "ANY/ANY (source %d tag %d): element %d = %d", s, tag, i,
              in[i]);
    }
    free(got);
  }
  CHECK_MPI(MPI_Waitall(ntags, req, MPI_STATUSES_IGNORE));
  free(req);
  free(out);
}

/* Non-overtaking: N messages per sender, same tag, sequence numbers 0..N-1; every 7th message is
 * large (rendezvous-sized), the others small. */
#define NSEQ 60
#define BIG 20000 /* ints */
static int seq_len(int seq) {
  return seq % 7 == 3 ? BIG : 2 + seq % 5;
}

static void non_overtaking(int rank, int size, int root, int tag, int use_any_tag) {
  MPI_Request req[NSEQ];
  int *bufs[NSEQ], s, i;
  for (s = 0; s < NSEQ; ++s) {
    const int n = seq_len(s);
    bufs[s] = mt_malloc((size_t)n * sizeof(int));
    bufs[s][0] = rank;
    bufs[s][1] = s;
    for (i = 2; i < n; ++i)
      bufs[s][i] = val(rank, tag, s, i);
    CHECK_MPI(MPI_Isend(bufs[s], n, MPI_INT, root, tag, MPI_COMM_WORLD, &req[s]));
  }
  if (rank == root) {
    int *next = mt_malloc((size_t)size * sizeof(int)), *in = mt_malloc(BIG * sizeof(int)), k;
    for (k = 0; k < size; ++k)
      next[k] = 0;
    for (k = 0; k < size * NSEQ; ++k) {
      MPI_Status st;
      int count = -1, src, seq;
      CHECK_MPI(MPI_Recv(in, BIG, MPI_INT, MPI_ANY_SOURCE, use_any_tag ? MPI_ANY_TAG : tag,
                         MPI_COMM_WORLD, &st));
      src = in[0];
      seq = in[1];
      CHECK(st.MPI_SOURCE == src, "status source %d but the payload says %d", st.MPI_SOURCE, src);
      CHECK(st.MPI_TAG == tag, "status tag %d, expected %d", st.MPI_TAG, tag);
      CHECK(src >= 0 && src < size, "bad source %d", src);
      CHECK(seq == next[src], "from %d: sequence %d arrived when %d was expected (overtaking)", src,
            seq, next[src]);
      ++next[src];
      CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
      CHECK(count == seq_len(seq), "from %d seq %d: count %d, expected %d", src, seq, count,
            seq_len(seq));
      for (i = 2; i < count; ++i)
        CHECK(in[i] == val(src, tag, seq, i), "from %d seq %d: element %d = %d", src, seq, i,
              in[i]);
    }
    for (k = 0; k < size; ++k)
      CHECK(next[k] == NSEQ, "from %d: %d messages", k, next[k]);
    free(next);
    free(in);
  }
  CHECK_MPI(MPI_Waitall(NSEQ, req, MPI_STATUSES_IGNORE));
  for (s = 0; s < NSEQ; ++s)
    free(bufs[s]);
}

/* Tag matching between ring neighbours: tags 1..K sent in increasing order (Isend; message k
 * holds k*BIGSTEP ints so some are large), received in decreasing order by tag; then tags
 * 201,202,203 sent, 203 received first, then ANY_TAG must give 201 and then 202. */
#define KTAGS 12
static void tag_order(int rank, int size) {
  const int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  MPI_Request req[KTAGS + 3];
  int *bufs[KTAGS + 1], *in, k, i, small[3][2];
  MPI_Status st;
  in = mt_malloc((size_t)KTAGS * 3000 * sizeof(int));
  for (k = 1; k <= KTAGS; ++k) {
    const int n = k * 3000;
    bufs[k] = mt_malloc((size_t)n * sizeof(int));
    for (i = 0; i < n; ++i)
      bufs[k][i] = val(rank, k, 1, i);
    CHECK_MPI(MPI_Isend(bufs[k], n, MPI_INT, right, k, MPI_COMM_WORLD, &req[k - 1]));
  }
  for (k = KTAGS; k >= 1; --k) {
    int count = -1;
    CHECK_MPI(MPI_Recv(in, KTAGS * 3000, MPI_INT, left, k, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_TAG == k && st.MPI_SOURCE == left, "tag order: tag %d source %d", st.MPI_TAG,
          st.MPI_SOURCE);
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == k * 3000, "tag %d: count %d", k, count);
    for (i = 0; i < count; ++i)
      CHECK(in[i] == val(left, k, 1, i), "tag %d: element %d = %d", k, i, in[i]);
  }
  for (k = 0; k < 3; ++k) {
    small[k][0] = rank;
    small[k][1] = 201 + k;
    CHECK_MPI(MPI_Isend(small[k], 2, MPI_INT, right, 201 + k, MPI_COMM_WORLD, &req[KTAGS + k]));
  }
  CHECK_MPI(MPI_Recv(in, 2, MPI_INT, left, 203, MPI_COMM_WORLD, &st));
  CHECK(st.MPI_TAG == 203 && in[1] == 203, "tag 203: got tag %d payload %d", st.MPI_TAG, in[1]);
  CHECK_MPI(MPI_Recv(in, 2, MPI_INT, left, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
  CHECK(st.MPI_TAG == 201 && in[1] == 201,
        "ANY_TAG after 203: got tag %d (payload %d), expected "
        "201",
        st.MPI_TAG, in[1]);
  CHECK_MPI(MPI_Recv(in, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
  CHECK(st.MPI_TAG == 202 && in[1] == 202 && st.MPI_SOURCE == left,
        "ANY/ANY: got tag %d source %d, expected 202 from %d", st.MPI_TAG, st.MPI_SOURCE, left);
  CHECK_MPI(MPI_Waitall(KTAGS + 3, req, MPI_STATUSES_IGNORE));
  for (k = 1; k <= KTAGS; ++k)
    free(bufs[k]);
  free(in);
}

/* Posted receives are matched in the order they were posted, whatever mix of wildcards they
 * use: a message goes to the earliest posted receive that matches it. The left neighbour sends
 * the messages only after all receives are posted (barrier). */
static void posted_order(int rank, int size) {
  const int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  /* receive patterns (source, tag); L = left neighbour */
  enum { NR = 8 };
  const int src[NR] = {MPI_ANY_SOURCE, left,           MPI_ANY_SOURCE, left,
                       left,           MPI_ANY_SOURCE, left,           MPI_ANY_SOURCE};
  const int tag[NR] = {500, 500, MPI_ANY_TAG, MPI_ANY_TAG, 501, 501, 500, MPI_ANY_TAG};
  /* messages sent by the left neighbour, in this order, and the receive each must land in:
   * 500 -> r0; 500 -> r1; 501 -> r2 (ANY/ANY posted before the 501 receives); 500 -> r3;
   * 501 -> r4; 501 -> r5; 500 -> r6; 502 -> r7 */
  const int sent_tag[NR] = {500, 500, 501, 500, 501, 501, 500, 502};
  MPI_Request rr[NR], sr[NR];
  MPI_Status st[NR];
  int in[NR][2], out[NR][2], k;
  for (k = 0; k < NR; ++k) {
    in[k][0] = in[k][1] = -1;
    CHECK_MPI(MPI_Irecv(in[k], 2, MPI_INT, src[k], tag[k], MPI_COMM_WORLD, &rr[k]));
  }
  MPI_Barrier(MPI_COMM_WORLD); /* all receives are posted before any message is sent */
  for (k = 0; k < NR; ++k) {
    out[k][0] = rank;
    out[k][1] = k;
    CHECK_MPI(MPI_Isend(out[k], 2, MPI_INT, right, sent_tag[k], MPI_COMM_WORLD, &sr[k]));
  }
  CHECK_MPI(MPI_Waitall(NR, rr, st));
  for (k = 0; k < NR; ++k) {
    CHECK(in[k][0] == left && in[k][1] == k && st[k].MPI_SOURCE == left &&
              st[k].MPI_TAG == sent_tag[k],
          "posted receive %d (source %d, tag %d) got message #%d (from %d, tag %d), expected #%d "
          "with tag %d",
          k, src[k], tag[k], in[k][1], st[k].MPI_SOURCE, st[k].MPI_TAG, k, sent_tag[k]);
  }
  CHECK_MPI(MPI_Waitall(NR, sr, MPI_STATUSES_IGNORE));
}

/* Every rank sends one message of a size it alone knows to root (some rendezvous-sized); the
 * root probes with ANY_SOURCE/ANY_TAG, allocates what MPI_Get_count says and receives it. */
static int probe_len(int rank) {
  return (rank * 7919) % 5 == 0 ? 30000 + rank : (rank * 37) % 200;
}

static void probe_recv(int rank, int size, int root) {
  const int n = probe_len(rank), tag = 300 + rank % 17;
  int *out = mt_malloc((size_t)n * sizeof(int)), i, k;
  MPI_Request req;
  for (i = 0; i < n; ++i)
    out[i] = val(rank, tag, 3, i);
  CHECK_MPI(MPI_Isend(out, n, MPI_INT, root, tag, MPI_COMM_WORLD, &req));
  if (rank == root) {
    int *seen = mt_malloc((size_t)size * sizeof(int));
    for (k = 0; k < size; ++k)
      seen[k] = 0;
    for (k = 0; k < size; ++k) {
      MPI_Status st, st2;
      int count = -1, src, *in;
      CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
      src = st.MPI_SOURCE;
      CHECK(src >= 0 && src < size && !seen[src], "probe: source %d", src);
      seen[src] = 1;
      CHECK(st.MPI_TAG == 300 + src % 17, "probe: tag %d from %d", st.MPI_TAG, src);
      CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
      CHECK(count == probe_len(src), "probe: count %d from %d, expected %d", count, src,
            probe_len(src));
      /* A second probe of the same source finds the same message. */
      CHECK_MPI(MPI_Probe(src, MPI_ANY_TAG, MPI_COMM_WORLD, &st2));
      CHECK(st2.MPI_SOURCE == src && st2.MPI_TAG == st.MPI_TAG, "second probe differs");
      in = mt_malloc((size_t)count * sizeof(int));
      CHECK_MPI(MPI_Recv(in, count, MPI_INT, src, st.MPI_TAG, MPI_COMM_WORLD, &st2));
      CHECK_MPI(MPI_Get_count(&st2, MPI_INT, &count));
      CHECK(count == probe_len(src), "recv after probe: count %d", count);
      for (i = 0; i < count; ++i)
        CHECK(in[i] == val(src, st.MPI_TAG, 3, i), "probed message from %d: element %d = %d", src,
              i, in[i]);
      free(in);
    }
    free(seen);
  }
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  free(out);
}

/* Root polls with MPI_Iprobe; the others send only after the root told them to (the root tells
 * them before it starts polling, and may poll many times before a message arrives). */
static void iprobe_poll(int rank, int size, int root) {
  int go = 1, payload[2] = {rank, rank * 3}, i, flag = 0;
  MPI_Status st;
  if (rank == root) {
    MPI_Request *req = mt_malloc((size_t)size * sizeof(MPI_Request)), own;
    int *seen = mt_malloc((size_t)size * sizeof(int)), k, in[2];
    long polls = 0;
    /* Nothing has been sent with tag 400 yet. */
    CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 400, MPI_COMM_WORLD, &flag, &st));
    CHECK(!flag, "Iprobe found a message nobody sent (source %d tag %d)", st.MPI_SOURCE,
          st.MPI_TAG);
    for (i = 0; i < size; ++i) {
      seen[i] = 0;
      CHECK_MPI(MPI_Isend(&go, 1, MPI_INT, i, 401, MPI_COMM_WORLD, &req[i]));
    }
    /* The root itself answers now (nonblocking: it receives its own message in the loop). */
    CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, root, 401, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Isend(payload, 2, MPI_INT, root, 400, MPI_COMM_WORLD, &own));
    for (k = 0; k < size; ++k) {
      flag = 0;
      while (!flag) {
        CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 400, MPI_COMM_WORLD, &flag, &st));
        CHECK(++polls < 100000000L, "Iprobe: no message after %ld polls", polls);
      }
      CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < size && !seen[st.MPI_SOURCE] && st.MPI_TAG == 400,
            "Iprobe: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
      seen[st.MPI_SOURCE] = 1;
      CHECK_MPI(MPI_Recv(in, 2, MPI_INT, st.MPI_SOURCE, 400, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(in[0] == st.MPI_SOURCE && in[1] == st.MPI_SOURCE * 3, "Iprobe then Recv: %d %d", in[0],
            in[1]);
    }
    CHECK_MPI(MPI_Waitall(size, req, MPI_STATUSES_IGNORE));
    CHECK_MPI(MPI_Wait(&own, MPI_STATUS_IGNORE));
    free(req);
    free(seen);
  } else {
    CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, root, 401, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Send(payload, 2, MPI_INT, root, 400, MPI_COMM_WORLD));
  }
  /* MPI_PROC_NULL: found at once, empty. */
  {
    int count = -1;
    CHECK_MPI(MPI_Iprobe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    CHECK(flag && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG,
          "Iprobe(MPI_PROC_NULL): flag %d source %d tag %d", flag, st.MPI_SOURCE, st.MPI_TAG);
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == 0, "Iprobe(MPI_PROC_NULL): count %d", count);
    CHECK_MPI(MPI_Probe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "Probe(MPI_PROC_NULL): source %d", st.MPI_SOURCE);
  }
}

int main(int argc, char **argv) {
  int rank, size, root, step;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  step = size > 4 ? size / 3 + 1 : 1;

  for (root = 0; root < size; root += step)
    any_any(rank, size, root, 10, 5);
  MPI_Barrier(MPI_COMM_WORLD);
  non_overtaking(rank, size, 0, 77, 0);
  non_overtaking(rank, size, size - 1, 78, 1);
  MPI_Barrier(MPI_COMM_WORLD);
  tag_order(rank, size);
  MPI_Barrier(MPI_COMM_WORLD);
  posted_order(rank, size);
  MPI_Barrier(MPI_COMM_WORLD);
  for (root = 0; root < size; root += step)
    probe_recv(rank, size, root);
  MPI_Barrier(MPI_COMM_WORLD);
  for (root = 0; root < size; root += step) {
    iprobe_poll(rank, size, root);
    MPI_Barrier(MPI_COMM_WORLD);
  }

  /* Nothing is left unreceived. */
  {
    int flag = 1;
    MPI_Status st;
    CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    CHECK(!flag, "a message is left over: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  mt_ok("p2p_wildcards");
  MPI_Finalize();
  return 0;
}
