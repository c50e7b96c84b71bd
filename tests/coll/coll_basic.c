/* tests/coll/coll_basic.c — the data-movement collectives (bcast, gather(v), scatter(v),
 * allgather(v), alltoall(v/w)) and barrier on MPI_COMM_WORLD and a reversed-order communicator,
 * with counts 0, 1, odd and large (> 64 KiB), several roots and MPI_IN_PLACE. Every received
 * value is checked against a closed form of (sender, receiver, index). */
#include "mpitest.h"

static int val(int r, int i) {
  return r * 1000003 + i;
}
static int a2a(int s, int d, int i) {
  return s * 100000 + d * 1000 + (i % 997);
}
/* alltoallv counts from s to d, derived from the base count n */
static int vcnt(int n, int s, int d) {
  return n == 0 ? 0 : n / 2 + (s + 2 * d) % 5;
}

static void check_blocks(MPI_Comm comm, int n) {
  int p, me;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &me);
  size_t pn = (size_t)p * (size_t)(n ? n : 1);
  int *a = malloc(pn * sizeof(int) * 2 + 64), *b = malloc(pn * sizeof(int) * 2 + 64);
  int *cnt = malloc(sizeof(int) * p), *dsp = malloc(sizeof(int) * p);
  int *cnt2 = malloc(sizeof(int) * p), *dsp2 = malloc(sizeof(int) * p);
  CHECK(a && b && cnt && dsp && cnt2 && dsp2, "out of memory");

  for (int root = 0; root < p; root += (p > 2 ? p - 1 : 1)) {
    /* bcast */
    for (int i = 0; i < n; ++i)
      a[i] = me == root ? val(root, i) : -1;
    CHECK_MPI(MPI_Bcast(a, n, MPI_INT, root, comm));
    for (int i = 0; i < n; ++i)
      CHECK(a[i] == val(root, i), "bcast n=%d root=%d a[%d]=%d", n, root, i, a[i]);

    /* gather, then gather in place */
    for (int inplace = 0; inplace < 2; ++inplace) {
      for (int i = 0; i < n; ++i)
        b[i] = val(me, i);
      for (size_t i = 0; i < (size_t)p * n; ++i)
        a[i] = -1;
      if (inplace && me == root)
        for (int i = 0; i < n; ++i)
          a[(size_t)root * n + i] = val(me, i);
      CHECK_MPI(MPI_Gather(inplace && me == root ? MPI_IN_PLACE : b, n, MPI_INT, a, n, MPI_INT,
                           root, comm));
      if (me == root)
        for (int r = 0; r < p; ++r)
          for (int i = 0; i < n; ++i)
            CHECK(a[(size_t)r * n + i] == val(r, i),
                  "gather inplace=%d n=%d root=%d r=%d i=%d got %d", inplace, n, root, r, i,
                  a[(size_t)r * n + i]);
    }
    /* scatter, then scatter in place */
    for (int inplace = 0; inplace < 2; ++inplace) {
      if (me == root)
        for (int r = 0; r < p; ++r)
          for (int i = 0; i < n; ++i)
            a[(size_t)r * n + i] = val(r, i) + inplace;
      for (int i = 0; i < n; ++i)
        b[i] = -1;
      CHECK_MPI(MPI_Scatter(a, n, MPI_INT, inplace && me == root ? MPI_IN_PLACE : b, n, MPI_INT,
                            root, comm));
      const int *mine = inplace && me == root ? a + (size_t)root * n : b;
      for (int i = 0; i < n; ++i)
        CHECK(mine[i] == val(me, i) + inplace, "scatter inplace=%d n=%d root=%d i=%d got %d",
              inplace, n, root, i, mine[i]);
    }
    /* gatherv / scatterv: rank r has n + r % 3 elements, displaced with a gap of 2 */
    int total = 0;
    for (int r = 0; r < p; ++r) {
      cnt[r] = n ? n + r % 3 : 0;
      dsp[r] = total + 2 * r;
      total += cnt[r];
    }
    int span = total + 2 * p;
    int *big = malloc(sizeof(int) * (size_t)(span + 1));
    int *mine = malloc(sizeof(int) * (size_t)(n + 3));
    for (int i = 0; i < cnt[me]; ++i)
      mine[i] = val(me, i);
    for (int i = 0; i < span; ++i)
      big[i] = -7;
    CHECK_MPI(MPI_Gatherv(mine, cnt[me], MPI_INT, big, cnt, dsp, MPI_INT, root, comm));
    if (me == root) {
      for (int r = 0; r < p; ++r)
        for (int i = 0; i < cnt[r]; ++i)
          CHECK(big[dsp[r] + i] == val(r, i), "gatherv n=%d r=%d i=%d", n, r, i);
      for (int r = 0; r < p; ++r)
        CHECK(big[dsp[r] + cnt[r]] == -7 || dsp[r] + cnt[r] >= span, "gatherv wrote a gap");
    }
    for (int i = 0; i < cnt[me]; ++i)
      mine[i] = -1;
    if (me == root)
      for (int r = 0; r < p; ++r)
        for (int i = 0; i < cnt[r]; ++i)
          big[dsp[r] + i] = val(r, i) * 2;
    CHECK_MPI(MPI_Scatterv(big, cnt, dsp, MPI_INT, mine, cnt[me], MPI_INT, root, comm));
    for (int i = 0; i < cnt[me]; ++i)
      CHECK(mine[i] == val(me, i) * 2, "scatterv n=%d i=%d", n, i);
    /* gatherv in place at the root */
    if (me == root) {
      for (int i = 0; i < span; ++i)
        big[i] = -7;
      for (int i = 0; i < cnt[me]; ++i)
        big[dsp[me] + i] = val(me, i);
    }
    for (int i = 0; i < cnt[me]; ++i)
      mine[i] = val(me, i);
    CHECK_MPI(MPI_Gatherv(me == root ? MPI_IN_PLACE : mine, cnt[me], MPI_INT, big, cnt, dsp,
                          MPI_INT, root, comm));
    if (me == root)
      for (int r = 0; r < p; ++r)
        for (int i = 0; i < cnt[r]; ++i)
          CHECK(big[dsp[r] + i] == val(r, i), "gatherv in place n=%d r=%d", n, r);
    free(big);
    free(mine);
  }

  /* allgather, in place too */
  for (int inplace = 0; inplace < 2; ++inplace) {
    for (int i = 0; i < n; ++i)
      b[i] = val(me, i);
    for (size_t i = 0; i < (size_t)p * n; ++i)
      a[i] = -1;
    if (inplace)
      for (int i = 0; i < n; ++i)
        a[(size_t)me * n + i] = val(me, i);
    CHECK_MPI(MPI_Allgather(inplace ? MPI_IN_PLACE : b, n, MPI_INT, a, n, MPI_INT, comm));
    for (int r = 0; r < p; ++r)
      for (int i = 0; i < n; ++i)
        CHECK(a[(size_t)r * n + i] == val(r, i), "allgather inplace=%d n=%d r=%d i=%d got %d",
              inplace, n, r, i, a[(size_t)r * n + i]);
  }
  /* allgatherv (reverse order displacements), in place too */
  {
    int total = 0;
    for (int r = p - 1; r >= 0; --r) {
      cnt[r] = n ? (n + r) % 4 + n / 3 : 0;
      dsp[r] = total;
      total += cnt[r] + 1;
    }
    int *big = malloc(sizeof(int) * (size_t)(total + 1));
    for (int inplace = 0; inplace < 2; ++inplace) {
      for (int i = 0; i < cnt[me]; ++i)
        b[i] = val(me, i);
      for (int i = 0; i < total; ++i)
        big[i] = -3;
      if (inplace)
        for (int i = 0; i < cnt[me]; ++i)
          big[dsp[me] + i] = val(me, i);
      CHECK_MPI(MPI_Allgatherv(inplace ? MPI_IN_PLACE : b, cnt[me], MPI_INT, big, cnt, dsp, MPI_INT,
                               comm));
      for (int r = 0; r < p; ++r) {
        for (int i = 0; i < cnt[r]; ++i)
          CHECK(big[dsp[r] + i] == val(r, i), "allgatherv n=%d r=%d i=%d", n, r, i);
        CHECK(big[dsp[r] + cnt[r]] == -3, "allgatherv wrote a gap");
      }
    }
    free(big);
  }
  /* alltoall, in place too */
  for (int inplace = 0; inplace < 2; ++inplace) {
    int *src = inplace ? a : b;
    for (int d = 0; d < p; ++d)
      for (int i = 0; i < n; ++i)
        src[(size_t)d * n + i] = a2a(me, d, i);
    if (!inplace)
      for (size_t i = 0; i < (size_t)p * n; ++i)
        a[i] = -1;
    CHECK_MPI(MPI_Alltoall(inplace ? MPI_IN_PLACE : b, n, MPI_INT, a, n, MPI_INT, comm));
    for (int s = 0; s < p; ++s)
      for (int i = 0; i < n; ++i)
        CHECK(a[(size_t)s * n + i] == a2a(s, me, i), "alltoall inplace=%d n=%d s=%d i=%d", inplace,
              n, s, i);
  }
  /* alltoallv with varying counts, in place too; alltoallw with MPI_INT / MPI_SHORT blocks */
  {
    int stot = 0, rtot = 0;
    for (int j = 0; j < p; ++j) {
      cnt[j] = vcnt(n, me, j);
      dsp[j] = stot;
      stot += cnt[j] + 1;
      cnt2[j] = vcnt(n, j, me);
      dsp2[j] = rtot;
      rtot += cnt2[j] + 2;
    }
    int *sb = malloc(sizeof(int) * (size_t)(stot + 1)),
        *rb = malloc(sizeof(int) * (size_t)(rtot + 1));
    for (int inplace = 0; inplace < 2; ++inplace) {
      for (int i = 0; i < rtot; ++i)
        rb[i] = -5;
      for (int d = 0; d < p; ++d)
        for (int i = 0; i < cnt[d]; ++i)
          sb[dsp[d] + i] = a2a(me, d, i);
      if (inplace) /* in place: send and receive counts are the same, so use the symmetric part */
        break;
      CHECK_MPI(MPI_Alltoallv(sb, cnt, dsp, MPI_INT, rb, cnt2, dsp2, MPI_INT, comm));
      for (int s = 0; s < p; ++s) {
        for (int i = 0; i < cnt2[s]; ++i)
          CHECK(rb[dsp2[s] + i] == a2a(s, me, i), "alltoallv n=%d s=%d i=%d", n, s, i);
        CHECK(rb[dsp2[s] + cnt2[s]] == -5, "alltoallv wrote a gap");
      }
    }
    /* in place: symmetric counts c(s,d) = c(d,s) */
    for (int j = 0; j < p; ++j) {
      cnt[j] = n ? n / 2 + (me + j) % 3 : 0;
      dsp[j] = j == 0 ? 1 : dsp[j - 1] + cnt[j - 1] + 1;
    }
    int tot = dsp[p - 1] + cnt[p - 1] + 1;
    int *ib = malloc(sizeof(int) * (size_t)tot);
    for (int d = 0; d < p; ++d)
      for (int i = 0; i < cnt[d]; ++i)
        ib[dsp[d] + i] = a2a(me, d, i);
    CHECK_MPI(
        MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, ib, cnt, dsp, MPI_INT, comm));
    for (int s = 0; s < p; ++s)
      for (int i = 0; i < cnt[s]; ++i)
        CHECK(ib[dsp[s] + i] == a2a(s, me, i), "alltoallv in place n=%d s=%d", n, s);
    free(ib);
    /* alltoallw: pair (s, d) uses MPI_SHORT when s + d is odd, MPI_INT otherwise; byte
     * displacements */
    MPI_Datatype *st = malloc(sizeof(MPI_Datatype) * p), *rt = malloc(sizeof(MPI_Datatype) * p);
    int sbytes = 0, rbytes = 0;
    for (int j = 0; j < p; ++j) {
      st[j] = (me + j) % 2 ? MPI_SHORT : MPI_INT;
      rt[j] = st[j];
      cnt[j] = vcnt(n, me, j);
      cnt2[j] = vcnt(n, j, me);
      dsp[j] = sbytes;
      dsp2[j] = rbytes;
      sbytes += cnt[j] * 4 + 4;
      rbytes += cnt2[j] * 4 + 8;
    }
    char *ws = malloc((size_t)sbytes + 8), *wr = malloc((size_t)rbytes + 8);
    for (int d = 0; d < p; ++d)
      for (int i = 0; i < cnt[d]; ++i) {
        if (st[d] == MPI_SHORT)
          ((short *)(ws + dsp[d]))[i] = (short)(a2a(me, d, i) % 30000);
        else
          ((int *)(ws + dsp[d]))[i] = a2a(me, d, i);
      }
    CHECK_MPI(MPI_Alltoallw(ws, cnt, dsp, st, wr, cnt2, dsp2, rt, comm));
    for (int s = 0; s < p; ++s)
      for (int i = 0; i < cnt2[s]; ++i) {
        int got = rt[s] == MPI_SHORT ? ((short *)(wr + dsp2[s]))[i] : ((int *)(wr + dsp2[s]))[i];
        int want = rt[s] == MPI_SHORT ? a2a(s, me, i) % 30000 : a2a(s, me, i);
        CHECK(got == want, "alltoallw n=%d s=%d i=%d got %d want %d", n, s, i, got, want);
      }
    free(ws);
    free(wr);
    free(st);
    free(rt);
    free(sb);
    free(rb);
  }
  CHECK_MPI(MPI_Barrier(comm));
  free(a);
  free(b);
  free(cnt);
  free(dsp);
  free(cnt2);
  free(dsp2);
}

/* MPI_DOUBLE_INT has padding (12 bytes of data in 16): the collectives pack and unpack it. */
typedef struct {
  double v;
  int i;
} di_t;
static void check_padded(int n) {
  int p, me;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  size_t pn = (size_t)p * n + 1;
  di_t *a = malloc(sizeof(di_t) * pn), *b = malloc(sizeof(di_t) * pn);
  int *cnt = malloc(sizeof(int) * p), *dsp = malloc(sizeof(int) * p);
  for (int i = 0; i < n; ++i)
    a[i].v = me == 0 ? i * 0.5 : -1, a[i].i = me == 0 ? -i : 1;
  CHECK_MPI(MPI_Bcast(a, n, MPI_DOUBLE_INT, 0, MPI_COMM_WORLD));
  for (int i = 0; i < n; ++i)
    CHECK(a[i].v == i * 0.5 && a[i].i == -i, "padded bcast n=%d i=%d", n, i);
  for (int i = 0; i < n; ++i)
    a[i].v = me + i * 0.25, a[i].i = me * 7 + i;
  CHECK_MPI(MPI_Allgather(a, n, MPI_DOUBLE_INT, b, n, MPI_DOUBLE_INT, MPI_COMM_WORLD));
  for (int r = 0; r < p; ++r)
    for (int i = 0; i < n; ++i)
      CHECK(b[(size_t)r * n + i].v == r + i * 0.25 && b[(size_t)r * n + i].i == r * 7 + i,
            "padded allgather n=%d", n);
  CHECK_MPI(MPI_Gather(a, n, MPI_DOUBLE_INT, b, n, MPI_DOUBLE_INT, p - 1, MPI_COMM_WORLD));
  if (me == p - 1)
    for (int r = 0; r < p; ++r)
      for (int i = 0; i < n; ++i)
        CHECK(b[(size_t)r * n + i].i == r * 7 + i, "padded gather n=%d", n);
  /* allgatherv into reversed, gapped slots */
  for (int r = 0; r < p; ++r)
    cnt[r] = n, dsp[r] = (p - 1 - r) * (n + 1);
  di_t *c = malloc(sizeof(di_t) * ((size_t)p * (n + 1) + 1));
  CHECK_MPI(MPI_Allgatherv(a, n, MPI_DOUBLE_INT, c, cnt, dsp, MPI_DOUBLE_INT, MPI_COMM_WORLD));
  for (int r = 0; r < p; ++r)
    for (int i = 0; i < n; ++i)
      CHECK(c[dsp[r] + i].v == r + i * 0.25 && c[dsp[r] + i].i == r * 7 + i,
            "padded allgatherv n=%d r=%d", n, r);
  /* alltoall */
  for (int d = 0; d < p; ++d)
    for (int i = 0; i < n; ++i)
      a[(size_t)d * n + i].v = me * 100 + d, a[(size_t)d * n + i].i = i;
  CHECK_MPI(MPI_Alltoall(a, n, MPI_DOUBLE_INT, b, n, MPI_DOUBLE_INT, MPI_COMM_WORLD));
  for (int s = 0; s < p; ++s)
    for (int i = 0; i < n; ++i)
      CHECK(b[(size_t)s * n + i].v == s * 100 + me && b[(size_t)s * n + i].i == i,
            "padded alltoall n=%d s=%d", n, s);
  free(a), free(b), free(c), free(cnt), free(dsp);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int p, me;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  const int counts[] = {0, 1, 7, 20000};
  for (int k = 0; k < 4; ++k)
    check_blocks(MPI_COMM_WORLD, counts[k]);
  /* the same on a communicator whose ranks run in the reverse order of the world's */
  MPI_Comm rev;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, p - me, &rev));
  for (int k = 0; k < 3; ++k)
    check_blocks(rev, counts[k]);
  MPI_Comm_free(&rev);
  /* bcast of 1 MiB of doubles (scatter + allgather) from the last rank */
  {
    int n = 1 << 17;
    double *d = malloc(sizeof(double) * n);
    for (int i = 0; i < n; ++i)
      d[i] = me == p - 1 ? i * 0.25 : -1;
    CHECK_MPI(MPI_Bcast(d, n, MPI_DOUBLE, p - 1, MPI_COMM_WORLD));
    for (int i = 0; i < n; ++i)
      CHECK(d[i] == i * 0.25, "big bcast d[%d]=%g", i, d[i]);
    free(d);
  }
  /* bad arguments: the right error class, and nothing sent (every rank fails locally) */
  {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int x[4] = {0}, *y = malloc(sizeof(int) * 2 * p);
    MPI_Request r;
    CHECK(mt_class(MPI_Allgather(x, 1, MPI_INT, y, 2, MPI_INT, MPI_COMM_WORLD)) == MPI_ERR_TRUNCATE,
          "allgather 1 vs 2");
    CHECK(mt_class(MPI_Bcast(x, -1, MPI_INT, 0, MPI_COMM_WORLD)) == MPI_ERR_COUNT,
          "bcast count -1");
    CHECK(mt_class(MPI_Bcast(x, 1, MPI_INT, p, MPI_COMM_WORLD)) == MPI_ERR_ROOT, "bcast root=size");
    CHECK(mt_class(MPI_Gather(x, 1, MPI_DATATYPE_NULL, y, 1, MPI_INT, 0, MPI_COMM_WORLD)) ==
              MPI_ERR_TYPE,
          "null type");
    CHECK(mt_class(MPI_Ibarrier(MPI_COMM_WORLD, NULL)) == MPI_ERR_ARG, "ibarrier request=NULL");
    CHECK(mt_class(MPI_Ibcast(x, 1, MPI_INT, 0, MPI_COMM_NULL, &r)) == MPI_ERR_COMM,
          "ibcast MPI_COMM_NULL");
    CHECK(mt_class(MPI_Alltoall(NULL, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD)) == MPI_ERR_BUFFER,
          "alltoall NULL");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    free(y);
  }
  check_padded(5);
  check_padded(9000);
  mt_ok("coll_basic");
  MPI_Finalize();
  return 0;
}
