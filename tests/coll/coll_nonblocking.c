/* tests/coll/coll_nonblocking.c — the non-blocking collectives: each I-variant checked against
 * closed forms (counts 1, odd and > 64 KiB), many of them in flight at once on one communicator
 * (and on a duplicate), completed through MPI_Wait, Waitall, Waitany, Waitsome, Test, Testall,
 * Testany and Testsome, with point-to-point traffic and blocking collectives run while they are
 * pending, and MPI_Request_free on one. */
#include "mpitest.h"

static int val(int r, int i) {
  return r * 1000 + i;
}
static long long sum_val(int lo, int hi, int i) {
  long long s = 0;
  for (int r = lo; r < hi; ++r)
    s += val(r, i);
  return s;
}

static void run(int n, int mode) {
  int p, me;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  const size_t pn = (size_t)p * n;
  int *bc = malloc(sizeof(int) * n), *ar1 = malloc(sizeof(int) * n), *ar2 = malloc(sizeof(int) * n);
  int *src = malloc(sizeof(int) * pn), *ga = malloc(sizeof(int) * pn),
      *ag = malloc(sizeof(int) * pn);
  int *sc = malloc(sizeof(int) * n), *a2s = malloc(sizeof(int) * pn),
      *a2r = malloc(sizeof(int) * pn);
  int *scn = malloc(sizeof(int) * n), *exs = malloc(sizeof(int) * n),
      *rsb = malloc(sizeof(int) * n);
  int *rsin = malloc(sizeof(int) * pn), *red = malloc(sizeof(int) * n),
      *agv = malloc(sizeof(int) * pn);
  int *cnt = malloc(sizeof(int) * p), *dsp = malloc(sizeof(int) * p),
      *gv = malloc(sizeof(int) * pn);
  int *sv = malloc(sizeof(int) * n), *a2v = malloc(sizeof(int) * pn),
      *rscnt = malloc(sizeof(int) * p);
  int *rs = malloc(sizeof(int) * n);
  for (int i = 0; i < n; ++i) {
    bc[i] = me == p - 1 ? val(p - 1, i) : -1;
    ar1[i] = val(me, i);
    ar2[i] = 2 * val(me, i);
    src[i] = val(me, i);
  }
  for (int d = 0; d < p; ++d)
    for (int i = 0; i < n; ++i) {
      a2s[(size_t)d * n + i] = me * 100000 + d * 100 + i % 100;
      rsin[(size_t)d * n + i] = val(me, d * n + i);
      ga[(size_t)d * n + i] = val(d, i) + 7; /* scatter source at the root */
    }
  for (int r = 0; r < p; ++r)
    cnt[r] = n, dsp[r] = r * n, rscnt[r] = n;

  MPI_Request q[18];
  int k = 0;
  CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &q[k++]));
  CHECK_MPI(MPI_Ibcast(bc, n, MPI_INT, p - 1, MPI_COMM_WORLD, &q[k++]));
  CHECK_MPI(MPI_Iallreduce(MPI_IN_PLACE, ar1, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[k++]));
  CHECK_MPI(MPI_Iallreduce(MPI_IN_PLACE, ar2, n, MPI_INT, MPI_SUM, dup, &q[k++]));
  CHECK_MPI(MPI_Iallgather(src, n, MPI_INT, ag, n, MPI_INT, MPI_COMM_WORLD, &q[k++]));
  CHECK_MPI(MPI_Iscatter(ga, n, MPI_INT, sc, n, MPI_INT, 0, MPI_COMM_WORLD, &q[k++]));
  CHECK_MPI(MPI_Ialltoall(a2s, n, MPI_INT, a2r, n, MPI_INT, MPI_COMM_WORLD, &q[k++]));
  CHECK_MPI(MPI_Iscan(src, scn, n, MPI_INT, MPI_SUM, dup, &q[k++]));
  CHECK_MPI(MPI_Iexscan(src, exs, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[k++]));
  CHECK_MPI(MPI_Ireduce_scatter_block(rsin, rsb, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[k++]));
  CHECK_MPI(MPI_Ireduce(src, red, n, MPI_INT, MPI_MAX, p / 2, MPI_COMM_WORLD, &q[k++]));
  CHECK_MPI(MPI_Iallgatherv(src, n, MPI_INT, agv, cnt, dsp, MPI_INT, dup, &q[k++]));
  CHECK_MPI(MPI_Igatherv(src, n, MPI_INT, gv, cnt, dsp, MPI_INT, 0, MPI_COMM_WORLD, &q[k++]));
  CHECK_MPI(MPI_Iscatterv(ga, cnt, dsp, MPI_INT, sv, n, MPI_INT, p - 1, MPI_COMM_WORLD, &q[k++]));
  CHECK_MPI(
      MPI_Ialltoallv(a2s, cnt, dsp, MPI_INT, a2v, cnt, dsp, MPI_INT, MPI_COMM_WORLD, &q[k++]));
  CHECK_MPI(MPI_Ireduce_scatter(rsin, rs, rscnt, MPI_INT, MPI_SUM, dup, &q[k++]));
  int *gat = malloc(sizeof(int) * pn);
  CHECK_MPI(MPI_Igather(src, n, MPI_INT, gat, n, MPI_INT, p - 1, MPI_COMM_WORLD, &q[k++]));
  MPI_Request freed;
  CHECK_MPI(MPI_Ibarrier(dup, &freed));
  CHECK_MPI(MPI_Request_free(&freed));

  /* while they are pending: a ring exchange and a blocking collective */
  int token = me, got = -1;
  CHECK_MPI(MPI_Sendrecv(&token, 1, MPI_INT, (me + 1) % p, 5, &got, 1, MPI_INT, (me - 1 + p) % p, 5,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(got == (me - 1 + p) % p, "ring token %d", got);
  int one = 1, all = 0;
  CHECK_MPI(MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(all == p, "blocking allreduce amid non-blocking ones: %d", all);

  switch (mode) {
  case 0:
    CHECK_MPI(MPI_Waitall(k, q, MPI_STATUSES_IGNORE));
    break;
  case 1: /* Waitany, one by one */
    for (int done = 0; done < k; ++done) {
      int idx = -1;
      MPI_Status st;
      CHECK_MPI(MPI_Waitany(k, q, &idx, &st));
      CHECK(idx >= 0 && idx < k && q[idx] == MPI_REQUEST_NULL, "waitany index %d", idx);
    }
    break;
  case 2: { /* Waitsome */
    int left = k, outc, idx[18];
    while (left > 0) {
      CHECK_MPI(MPI_Waitsome(k, q, &outc, idx, MPI_STATUSES_IGNORE));
      CHECK(outc >= 1, "waitsome outcount %d", outc);
      left -= outc;
    }
    break;
  }
  case 3: { /* Test on each, then Testall, Testany, Testsome */
    int flag = 0;
    while (!flag)
      CHECK_MPI(MPI_Test(&q[0], &flag, MPI_STATUS_IGNORE));
    CHECK(q[0] == MPI_REQUEST_NULL, "test did not free the request");
    int idx, outc, ids[18];
    do
      CHECK_MPI(MPI_Testany(k, q, &idx, &flag, MPI_STATUS_IGNORE));
    while (!flag);
    do
      CHECK_MPI(MPI_Testsome(k, q, &outc, ids, MPI_STATUSES_IGNORE));
    while (outc == 0);
    flag = 0;
    while (!flag)
      CHECK_MPI(MPI_Testall(k, q, &flag, MPI_STATUSES_IGNORE));
    break;
  }
  default: /* MPI_Wait in reverse order */
    for (int j = k - 1; j >= 0; --j)
      CHECK_MPI(MPI_Wait(&q[j], MPI_STATUS_IGNORE));
  }
  for (int j = 0; j < k; ++j)
    CHECK(q[j] == MPI_REQUEST_NULL, "request %d still active", j);

  for (int i = 0; i < n; ++i) {
    CHECK(bc[i] == val(p - 1, i), "ibcast n=%d i=%d", n, i);
    CHECK(ar1[i] == sum_val(0, p, i), "iallreduce n=%d i=%d got %d", n, i, ar1[i]);
    CHECK(ar2[i] == 2 * sum_val(0, p, i), "iallreduce (dup) n=%d i=%d", n, i);
    CHECK(sc[i] == val(me, i) + 7, "iscatter n=%d i=%d", n, i);
    CHECK(sv[i] == val(me, i) + 7, "iscatterv n=%d i=%d", n, i);
    CHECK(scn[i] == sum_val(0, me + 1, i), "iscan n=%d i=%d", n, i);
    if (me > 0) CHECK(exs[i] == sum_val(0, me, i), "iexscan n=%d i=%d", n, i);
    CHECK(rsb[i] == sum_val(0, p, me * n + i), "ireduce_scatter_block n=%d i=%d", n, i);
    CHECK(rs[i] == sum_val(0, p, me * n + i), "ireduce_scatter n=%d i=%d", n, i);
    if (me == p / 2) CHECK(red[i] == val(p - 1, i), "ireduce n=%d i=%d", n, i);
  }
  for (int r = 0; r < p; ++r)
    for (int i = 0; i < n; ++i) {
      const size_t at = (size_t)r * n + i;
      CHECK(ag[at] == val(r, i), "iallgather n=%d r=%d i=%d", n, r, i);
      CHECK(agv[at] == val(r, i), "iallgatherv n=%d r=%d i=%d", n, r, i);
      CHECK(a2r[at] == r * 100000 + me * 100 + i % 100, "ialltoall n=%d r=%d i=%d", n, r, i);
      CHECK(a2v[at] == r * 100000 + me * 100 + i % 100, "ialltoallv n=%d r=%d i=%d", n, r, i);
      if (me == 0) CHECK(gv[at] == val(r, i), "igatherv n=%d r=%d i=%d", n, r, i);
      if (me == p - 1) CHECK(gat[at] == val(r, i), "igather n=%d r=%d i=%d", n, r, i);
    }
  CHECK_MPI(MPI_Barrier(dup)); /* after the freed Ibarrier on dup */
  CHECK_MPI(MPI_Comm_free(&dup));
  free(bc), free(ar1), free(ar2), free(src), free(ga), free(ag), free(sc), free(a2s), free(a2r);
  free(scn), free(exs), free(rsb), free(rsin), free(red), free(agv), free(cnt), free(dsp), free(gv);
  free(sv), free(a2v), free(rscnt), free(rs), free(gat);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int counts[] = {1, 7, 20000};
  for (int mode = 0; mode < 5; ++mode)
    for (int k = 0; k < 3; ++k)
      run(counts[k], mode);
  /* many small ones in flight on one communicator, issued in the same order everywhere */
  {
    int p, me;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    enum { N = 64 };
    MPI_Request q[N];
    int v[N];
    for (int j = 0; j < N; ++j) {
      v[j] = me + j;
      CHECK_MPI(MPI_Iallreduce(MPI_IN_PLACE, &v[j], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[j]));
    }
    CHECK_MPI(MPI_Waitall(N, q, MPI_STATUSES_IGNORE));
    for (int j = 0; j < N; ++j)
      CHECK(v[j] == p * (p - 1) / 2 + p * j, "iallreduce #%d gave %d", j, v[j]);
  }
  mt_ok("coll_nonblocking");
  MPI_Finalize();
  return 0;
}
