/* tests/comm/intercomm.c — intercommunicators: MPI_Intercomm_create from splits of WORLD (ranks
 * interleaved between the groups, so that ranks of one PE sit in both; and two halves of unequal
 * size), the queries, point-to-point (ranks address the remote group; MPI_ANY_SOURCE, probe,
 * mprobe, persistent requests; status.MPI_SOURCE is the remote rank), every collective in its
 * blocking and non-blocking form with MPI_ROOT/MPI_PROC_NULL roots, dup/split/create/compare on
 * intercommunicators, MPI_Intercomm_merge (high/low and the tie), the errors MPI defines (scan,
 * topologies). Every value is the sender's world rank mixed with the indices, so each result is
 * checked against what arithmetic on the remote group's world ranks says it must be. */
#include "mpitest.h"

typedef struct {
  MPI_Comm ic;
  int rank, size, rsize, wrank;
  int lw[64], rw[64]; /* world ranks of the local and remote groups */
  int group;          /* 0 or 1: which of the two groups this rank is in */
} Inter;

static int val(int world, int i) {
  return world * 1000 + i;
}

static void world_ranks(MPI_Group g, int n, int *out) {
  MPI_Group wg;
  int idx[64];
  for (int i = 0; i < n; ++i)
    idx[i] = i;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  CHECK_MPI(MPI_Group_translate_ranks(g, n, idx, wg, out));
  CHECK_MPI(MPI_Group_free(&wg));
}

static void describe(Inter *x, MPI_Comm ic, int group) {
  MPI_Group lg, rg;
  int flag = 0;
  x->ic = ic;
  x->group = group;
  MPI_Comm_rank(MPI_COMM_WORLD, &x->wrank);
  CHECK_MPI(MPI_Comm_test_inter(ic, &flag));
  CHECK(flag == 1, "test_inter=%d", flag);
  CHECK_MPI(MPI_Comm_rank(ic, &x->rank));
  CHECK_MPI(MPI_Comm_size(ic, &x->size));
  CHECK_MPI(MPI_Comm_remote_size(ic, &x->rsize));
  CHECK(x->size <= 64 && x->rsize <= 64, "sizes %d %d", x->size, x->rsize);
  CHECK_MPI(MPI_Comm_group(ic, &lg));
  CHECK_MPI(MPI_Comm_remote_group(ic, &rg));
  world_ranks(lg, x->size, x->lw);
  world_ranks(rg, x->rsize, x->rw);
  CHECK(x->lw[x->rank] == x->wrank, "local group rank %d is world %d, not me (%d)", x->rank,
        x->lw[x->rank], x->wrank);
  CHECK_MPI(MPI_Group_free(&lg));
  CHECK_MPI(MPI_Group_free(&rg));
}

static void check_p2p(const Inter *x) {
  /* Every rank sends one message to every remote rank; receives with MPI_ANY_SOURCE. */
  MPI_Request reqs[64];
  int out[64], seen[64] = {0};
  for (int i = 0; i < x->rsize; ++i) {
    out[i] = val(x->wrank, i);
    CHECK_MPI(MPI_Isend(&out[i], 1, MPI_INT, i, 7, x->ic, &reqs[i]));
  }
  for (int k = 0; k < x->rsize; ++k) {
    MPI_Status st;
    int v = -1;
    CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, 7, x->ic, &st));
    CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < x->rsize, "probe source %d", st.MPI_SOURCE);
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, 7, x->ic, &st));
    CHECK(v == val(x->rw[st.MPI_SOURCE], x->rank), "from remote %d got %d, expected %d",
          st.MPI_SOURCE, v, val(x->rw[st.MPI_SOURCE], x->rank));
    CHECK(!seen[st.MPI_SOURCE], "two messages from remote %d", st.MPI_SOURCE);
    seen[st.MPI_SOURCE] = 1;
  }
  CHECK_MPI(MPI_Waitall(x->rsize, reqs, MPI_STATUSES_IGNORE));
  /* Persistent requests and mprobe with the remote rank (rank % rsize) as partner. */
  {
    const int peer = x->rank % x->rsize;
    int n_in = 0; /* remote ranks r with r % size == my rank send to me */
    for (int r = 0; r < x->rsize; ++r)
      if (r % x->size == x->rank) ++n_in;
    int v = val(x->wrank, 99), got = -1;
    MPI_Request s;
    CHECK_MPI(MPI_Send_init(&v, 1, MPI_INT, peer, 8, x->ic, &s));
    CHECK_MPI(MPI_Start(&s));
    for (int k = 0; k < n_in; ++k) {
      MPI_Message m;
      MPI_Status st;
      CHECK_MPI(MPI_Mprobe(MPI_ANY_SOURCE, 8, x->ic, &m, &st));
      CHECK_MPI(MPI_Mrecv(&got, 1, MPI_INT, &m, &st));
      CHECK(st.MPI_SOURCE % x->size == x->rank && got == val(x->rw[st.MPI_SOURCE], 99),
            "mrecv from %d got %d", st.MPI_SOURCE, got);
    }
    CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Request_free(&s));
  }
  {
    int bad = 0;
    CHECK(mt_class(MPI_Send(&bad, 1, MPI_INT, x->rsize, 0, x->ic)) == MPI_ERR_RANK,
          "send to rank remote_size");
  }
}

/* Sum over the remote group of f(world). */
static long remote_sum(const Inter *x, int i) {
  long s = 0;
  for (int r = 0; r < x->rsize; ++r)
    s += val(x->rw[r], i);
  return s;
}

/* The collectives; nb: their non-blocking forms. Group `g` acts as root group where there is one
 * root (both take turns). */
static void check_coll(const Inter *x, int nb) {
  MPI_Request rq;
  const MPI_Comm ic = x->ic;
  const int R = x->rsize, L = x->size;
#define RUN(call, icall)                                                                           \
  do {                                                                                             \
    if (nb) {                                                                                      \
      CHECK_MPI(icall);                                                                            \
      CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));                                                 \
    } else                                                                                         \
      CHECK_MPI(call);                                                                             \
  } while (0)
  RUN(MPI_Barrier(ic), MPI_Ibarrier(ic, &rq));
  for (int g = 0; g < 2; ++g) {
    const int in_root_group = x->group == g;
    /* the root is local rank 0 of group g; in the other group it is remote rank 0 */
    const int root = in_root_group ? (x->rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    const int root_world = in_root_group ? x->lw[0] : x->rw[0];
    int b = in_root_group ? val(x->wrank, 5) : -1;
    RUN(MPI_Bcast(&b, 1, MPI_INT, root, ic), MPI_Ibcast(&b, 1, MPI_INT, root, ic, &rq));
    if (root != MPI_PROC_NULL)
      CHECK(b == val(root_world, 5), "bcast got %d, expected %d", b, val(root_world, 5));
    long s = val(x->wrank, 1), r = -1;
    RUN(MPI_Reduce(&s, &r, 1, MPI_LONG, MPI_SUM, root, ic),
        MPI_Ireduce(&s, &r, 1, MPI_LONG, MPI_SUM, root, ic, &rq));
    if (root == MPI_ROOT) CHECK(r == remote_sum(x, 1), "reduce got %ld", r);
    int gbuf[64], one = val(x->wrank, 2);
    RUN(MPI_Gather(&one, 1, MPI_INT, gbuf, 1, MPI_INT, root, ic),
        MPI_Igather(&one, 1, MPI_INT, gbuf, 1, MPI_INT, root, ic, &rq));
    if (root == MPI_ROOT)
      for (int i = 0; i < R; ++i)
        CHECK(gbuf[i] == val(x->rw[i], 2), "gather[%d]=%d", i, gbuf[i]);
    int counts[64], displs[64], vbuf[64 * 3];
    for (int i = 0; i < R; ++i) {
      counts[i] = i % 3;
      displs[i] = 3 * i;
    }
    int mine3[3] = {val(x->wrank, 0), val(x->wrank, 1), val(x->wrank, 2)};
    RUN(MPI_Gatherv(mine3, x->rank % 3, MPI_INT, vbuf, counts, displs, MPI_INT, root, ic),
        MPI_Igatherv(mine3, x->rank % 3, MPI_INT, vbuf, counts, displs, MPI_INT, root, ic, &rq));
    if (root == MPI_ROOT)
      for (int i = 0; i < R; ++i)
        for (int k = 0; k < i % 3; ++k)
          CHECK(vbuf[3 * i + k] == val(x->rw[i], k), "gatherv[%d][%d]", i, k);
    int sbuf[64 * 3], got = -1, got3[3] = {-1, -1, -1};
    for (int i = 0; i < R; ++i)
      for (int k = 0; k < 3; ++k)
        sbuf[3 * i + k] = val(x->wrank, 10 * i + k);
    RUN(MPI_Scatter(sbuf, 3, MPI_INT, got3, 3, MPI_INT, root, ic),
        MPI_Iscatter(sbuf, 3, MPI_INT, got3, 3, MPI_INT, root, ic, &rq));
    if (!in_root_group)
      for (int k = 0; k < 3; ++k)
        CHECK(got3[k] == val(root_world, 10 * x->rank + k), "scatter[%d]=%d", k, got3[k]);
    RUN(MPI_Scatterv(sbuf, counts, displs, MPI_INT, got3, x->rank % 3, MPI_INT, root, ic),
        MPI_Iscatterv(sbuf, counts, displs, MPI_INT, got3, x->rank % 3, MPI_INT, root, ic, &rq));
    if (!in_root_group)
      for (int k = 0; k < x->rank % 3; ++k)
        CHECK(got3[k] == val(root_world, 10 * x->rank + k), "scatterv[%d]=%d", k, got3[k]);
    (void)got;
  }
  {
    long s = val(x->wrank, 3), r = -1;
    RUN(MPI_Allreduce(&s, &r, 1, MPI_LONG, MPI_SUM, ic),
        MPI_Iallreduce(&s, &r, 1, MPI_LONG, MPI_SUM, ic, &rq));
    CHECK(r == remote_sum(x, 3), "allreduce got %ld expected %ld", r, remote_sum(x, 3));
  }
  {
    int one = val(x->wrank, 4), all[64];
    RUN(MPI_Allgather(&one, 1, MPI_INT, all, 1, MPI_INT, ic),
        MPI_Iallgather(&one, 1, MPI_INT, all, 1, MPI_INT, ic, &rq));
    for (int i = 0; i < R; ++i)
      CHECK(all[i] == val(x->rw[i], 4), "allgather[%d]=%d", i, all[i]);
    int counts[64], displs[64], vbuf[64 * 2], mine2[2] = {val(x->wrank, 0), val(x->wrank, 1)};
    for (int i = 0; i < R; ++i) {
      counts[i] = 2 - i % 2;
      displs[i] = 2 * (R - 1 - i);
    }
    RUN(MPI_Allgatherv(mine2, 2 - x->rank % 2, MPI_INT, vbuf, counts, displs, MPI_INT, ic),
        MPI_Iallgatherv(mine2, 2 - x->rank % 2, MPI_INT, vbuf, counts, displs, MPI_INT, ic, &rq));
    for (int i = 0; i < R; ++i)
      for (int k = 0; k < counts[i]; ++k)
        CHECK(vbuf[displs[i] + k] == val(x->rw[i], k), "allgatherv[%d][%d]", i, k);
  }
  {
    int sb[64], rb[64];
    for (int i = 0; i < R; ++i)
      sb[i] = val(x->wrank, 20 + i);
    RUN(MPI_Alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, ic),
        MPI_Ialltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, ic, &rq));
    for (int i = 0; i < R; ++i)
      CHECK(rb[i] == val(x->rw[i], 20 + x->rank), "alltoall[%d]=%d", i, rb[i]);
    /* v: remote rank i gets (i + my rank) % 2 + 1 elements from me */
    int sc[64], sd[64], rc[64], rd[64], sv[128], rv[128];
    MPI_Datatype st[64], rt[64];
    for (int i = 0; i < R; ++i) {
      sc[i] = (i + x->rank) % 2 + 1;
      sd[i] = 2 * i;
      sv[2 * i] = val(x->wrank, 30 + i);
      sv[2 * i + 1] = val(x->wrank, 60 + i);
      rc[i] = (x->rank + i) % 2 + 1;
      rd[i] = 2 * i;
      st[i] = rt[i] = MPI_INT;
    }
    RUN(MPI_Alltoallv(sv, sc, sd, MPI_INT, rv, rc, rd, MPI_INT, ic),
        MPI_Ialltoallv(sv, sc, sd, MPI_INT, rv, rc, rd, MPI_INT, ic, &rq));
    for (int i = 0; i < R; ++i) {
      CHECK(rv[2 * i] == val(x->rw[i], 30 + x->rank), "alltoallv[%d]", i);
      if (rc[i] == 2) CHECK(rv[2 * i + 1] == val(x->rw[i], 60 + x->rank), "alltoallv[%d]+1", i);
    }
    for (int i = 0; i < R; ++i) {
      sd[i] *= (int)sizeof(int);
      rd[i] *= (int)sizeof(int);
    }
    for (int i = 0; i < 2 * R; ++i)
      rv[i] = -1;
    RUN(MPI_Alltoallw(sv, sc, sd, st, rv, rc, rd, rt, ic),
        MPI_Ialltoallw(sv, sc, sd, st, rv, rc, rd, rt, ic, &rq));
    for (int i = 0; i < R; ++i)
      CHECK(rv[2 * i] == val(x->rw[i], 30 + x->rank), "alltoallw[%d]", i);
  }
  {
    /* reduce_scatter: the sum over the remote group of their vectors, scattered here by counts;
     * both groups provide vectors of the same total length: the total is max(L, R) * 2 split
     * over the local ranks. */
    const int total = 2 * (L > R ? L : R);
    int counts[64], vec[128], res[128], off = 0;
    for (int i = 0; i < L; ++i)
      counts[i] = total / L + (i < total % L ? 1 : 0);
    for (int i = 0; i < x->rank; ++i)
      off += counts[i];
    for (int k = 0; k < total; ++k)
      vec[k] = val(x->wrank, k);
    RUN(MPI_Reduce_scatter(vec, res, counts, MPI_INT, MPI_SUM, ic),
        MPI_Ireduce_scatter(vec, res, counts, MPI_INT, MPI_SUM, ic, &rq));
    for (int k = 0; k < counts[x->rank]; ++k)
      CHECK(res[k] == (int)remote_sum(x, off + k), "reduce_scatter[%d]=%d", k, res[k]);
    if (L == R) {
      RUN(MPI_Reduce_scatter_block(vec, res, 2, MPI_INT, MPI_SUM, ic),
          MPI_Ireduce_scatter_block(vec, res, 2, MPI_INT, MPI_SUM, ic, &rq));
      for (int k = 0; k < 2; ++k)
        CHECK(res[k] == (int)remote_sum(x, 2 * x->rank + k), "reduce_scatter_block[%d]", k);
    }
  }
#undef RUN
}

static void check_errors(const Inter *x) {
  int a = 1, b = 0, dims[1] = {0}, periods[1] = {0};
  MPI_Comm cart = MPI_COMM_NULL;
  CHECK(mt_class(MPI_Scan(&a, &b, 1, MPI_INT, MPI_SUM, x->ic)) == MPI_ERR_COMM, "scan");
  CHECK(mt_class(MPI_Exscan(&a, &b, 1, MPI_INT, MPI_SUM, x->ic)) == MPI_ERR_COMM, "exscan");
  dims[0] = x->size;
  CHECK(mt_class(MPI_Cart_create(x->ic, 1, dims, periods, 0, &cart)) == MPI_ERR_COMM,
        "cart_create");
  CHECK(mt_class(MPI_Bcast(&a, 1, MPI_INT, x->rsize, x->ic)) == MPI_ERR_ROOT, "bcast root");
}

/* Merge with `high` given per group; returns the merged communicator after checking it. */
static void check_merge(const Inter *x, int high_group0, int high_group1) {
  MPI_Comm m;
  const int high = x->group == 0 ? high_group0 : high_group1;
  const int other_high = x->group == 0 ? high_group1 : high_group0;
  int first = high != other_high ? high < other_high : x->lw[0] < x->rw[0];
  int rank = -1, size = -1;
  CHECK_MPI(MPI_Intercomm_merge(x->ic, high, &m));
  CHECK_MPI(MPI_Comm_rank(m, &rank));
  CHECK_MPI(MPI_Comm_size(m, &size));
  CHECK(size == x->size + x->rsize, "merged size %d", size);
  if (high != other_high)
    CHECK(rank == x->rank + (first ? 0 : x->rsize), "merged rank %d (high %d)", rank, high);
  /* every member's world rank in merged order */
  int all[128];
  CHECK_MPI(MPI_Allgather(&x->wrank, 1, MPI_INT, all, 1, MPI_INT, m));
  CHECK(all[rank] == x->wrank, "merged slot");
  if (high != other_high) {
    const int *lo = first ? x->lw : x->rw, *hi = first ? x->rw : x->lw;
    const int nlo = first ? x->size : x->rsize;
    for (int i = 0; i < size; ++i)
      CHECK(all[i] == (i < nlo ? lo[i] : hi[i - nlo]), "merged order at %d", i);
  }
  CHECK_MPI(MPI_Comm_free(&m));
}

static void check_derived(const Inter *x) {
  MPI_Comm d, s, c;
  MPI_Group lg, sub;
  int result = -1;
  Inter y;
  CHECK_MPI(MPI_Comm_dup(x->ic, &d));
  CHECK_MPI(MPI_Comm_compare(x->ic, d, &result));
  CHECK(result == MPI_CONGRUENT, "compare(inter, dup)=%d", result);
  CHECK_MPI(MPI_Comm_compare(x->ic, MPI_COMM_WORLD, &result));
  CHECK(result == MPI_UNEQUAL, "compare(inter, world)=%d", result);
  describe(&y, d, x->group);
  check_p2p(&y);
  {
    long s1 = x->wrank, r = 0;
    CHECK_MPI(MPI_Allreduce(&s1, &r, 1, MPI_LONG, MPI_SUM, d));
    long e = 0;
    for (int i = 0; i < x->rsize; ++i)
      e += x->rw[i];
    CHECK(r == e, "allreduce on dup");
  }
  CHECK_MPI(MPI_Comm_free(&d));
  /* split: color = local rank % 2, key = -rank (reversed); an even-ranked remote member exists
   * always (remote rank 0), an odd one only if the remote group has 2 or more. */
  CHECK_MPI(MPI_Comm_split(x->ic, x->rank % 2, -x->rank, &s));
  if (x->rank % 2 == 1 && x->rsize < 2) {
    CHECK(s == MPI_COMM_NULL, "split with no remote member of my color");
  } else {
    CHECK(s != MPI_COMM_NULL, "split gave MPI_COMM_NULL");
    describe(&y, s, x->group);
    int n = 0;
    for (int i = 0; i < x->size; ++i)
      n += i % 2 == x->rank % 2;
    int rn = 0;
    for (int i = 0; i < x->rsize; ++i)
      rn += i % 2 == x->rank % 2;
    CHECK(y.size == n && y.rsize == rn, "split sizes %d/%d, expected %d/%d", y.size, y.rsize, n,
          rn);
    /* reversed key: the highest old rank of my color is rank 0 */
    CHECK(y.rw[0] == x->rw[(rn - 1) * 2 + x->rank % 2], "split remote order");
    check_coll(&y, 0);
    CHECK_MPI(MPI_Comm_free(&s));
  }
  /* create: the local group without its rank 0 (when it has more than one member) */
  CHECK_MPI(MPI_Comm_group(x->ic, &lg));
  {
    int excl[1] = {0};
    if (x->size > 1)
      CHECK_MPI(MPI_Group_excl(lg, 1, excl, &sub));
    else
      sub = lg;
  }
  CHECK_MPI(MPI_Comm_create(x->ic, sub, &c));
  {
    const int in = x->size == 1 || x->rank > 0;
    const int remote_n = x->rsize > 1 ? x->rsize - 1 : 1;
    if (!in) {
      CHECK(c == MPI_COMM_NULL, "create: not a member but got a communicator");
    } else {
      CHECK(c != MPI_COMM_NULL, "create: member but got MPI_COMM_NULL");
      describe(&y, c, x->group);
      CHECK(y.rsize == remote_n, "create remote size %d", y.rsize);
      check_coll(&y, 1);
      CHECK_MPI(MPI_Comm_free(&c));
    }
  }
  if (sub != lg) CHECK_MPI(MPI_Group_free(&sub));
  CHECK_MPI(MPI_Group_free(&lg));
}

/* MPI_Comm_idup: several in flight on WORLD and on the intercommunicator, interleaved with other
 * non-blocking collectives; each new communicator is used after its request completes. */
static void check_idup(const Inter *x) {
  MPI_Comm w[3], ic2, back;
  MPI_Request rq[6];
  long one = 1, n = 0, rs = 0;
  CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &w[0], &rq[0]));
  CHECK_MPI(MPI_Comm_idup(x->ic, &ic2, &rq[1]));
  CHECK_MPI(MPI_Iallreduce(&one, &n, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &rq[2]));
  CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &w[1], &rq[3]));
  CHECK_MPI(MPI_Comm_dup(x->ic, &back)); /* a blocking creation while idups are in flight */
  CHECK_MPI(MPI_Comm_idup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &w[2], &rq[4]));
  CHECK_MPI(MPI_Iallreduce(&one, &rs, 1, MPI_LONG, MPI_SUM, x->ic, &rq[5]));
  CHECK_MPI(MPI_Waitall(6, rq, MPI_STATUSES_IGNORE));
  int wsize;
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  CHECK(n == wsize, "iallreduce on world %ld", n);
  CHECK(rs == x->rsize, "iallreduce on intercomm %ld", rs);
  /* Each copy of WORLD keeps its own traffic: the same tag and peers on all three at once. */
  {
    int to = (x->wrank + 1) % wsize, from = (x->wrank + wsize - 1) % wsize, got[3];
    MPI_Request r[6];
    for (int i = 0; i < 3; ++i)
      CHECK_MPI(MPI_Irecv(&got[i], 1, MPI_INT, from, 0, w[2 - i], &r[i]));
    int sv[3];
    for (int i = 0; i < 3; ++i) {
      sv[i] = val(x->wrank, i);
      CHECK_MPI(MPI_Isend(&sv[i], 1, MPI_INT, to, 0, w[i], &r[3 + i]));
    }
    CHECK_MPI(MPI_Waitall(6, r, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 3; ++i)
      CHECK(got[i] == val(from, 2 - i), "idup'd world %d got %d", 2 - i, got[i]);
  }
  Inter y;
  describe(&y, ic2, x->group);
  check_p2p(&y);
  check_coll(&y, 1);
  describe(&y, back, x->group);
  check_coll(&y, 0);
  for (int i = 0; i < 3; ++i)
    CHECK_MPI(MPI_Comm_free(&w[i]));
  CHECK_MPI(MPI_Comm_free(&ic2));
  CHECK_MPI(MPI_Comm_free(&back));
}

static void run(int group, MPI_Comm local, int remote_leader, int tag) {
  MPI_Comm ic;
  Inter x;
  CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, remote_leader, tag, &ic));
  describe(&x, ic, group);
  CHECK(x.rw[0] == remote_leader, "remote leader is world %d, expected %d", x.rw[0], remote_leader);
  check_p2p(&x);
  check_coll(&x, 0);
  check_coll(&x, 1);
  check_errors(&x);
  check_merge(&x, 0, 1);
  check_merge(&x, 1, 0);
  check_merge(&x, 0, 0);
  check_derived(&x);
  check_idup(&x);
  CHECK_MPI(MPI_Comm_free(&ic));
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Comm local;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (size < 2 || size > 64) {
    mt_skip("intercomm", "needs 2..64 ranks");
    MPI_Finalize();
    return 0;
  }
  /* Interleaved groups: even and odd world ranks (ranks of one PE in both groups). */
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &local));
  MPI_Comm_set_errhandler(local, MPI_ERRORS_RETURN);
  run(rank % 2, local, rank % 2 == 0 ? 1 : 0, 11);
  CHECK_MPI(MPI_Comm_free(&local));
  /* Halves of unequal size: world ranks [0, h) and [h, size), h = size / 3 + 1. */
  const int h = size / 3 + 1, g = rank < h ? 0 : 1;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, g, rank, &local));
  run(g, local, g == 0 ? h : 0, 12);
  CHECK_MPI(MPI_Comm_free(&local));
  mt_ok("intercomm");
  MPI_Finalize();
  return 0;
}
