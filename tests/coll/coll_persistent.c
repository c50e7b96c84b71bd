/* tests/coll/coll_persistent.c — the persistent collectives of MPI-4.0 section 6.13 (every
 * MPI_<Coll>_init): each request is started several times with new inputs written between the
 * starts and its results checked against closed forms each time; all of them in flight at once,
 * started by one MPI_Startall together with persistent point-to-point requests (a ring exchange),
 * completed by MPI_Waitall or by MPI_Test loops; inactive requests complete at once in
 * MPI_Wait; errors: starting an active request, freeing an active one, cancelling one, and
 * arguments checked at _init time (count, root, info, request). */
#include "mpitest.h"

enum { NCOLL = 22 };
#define UNTOUCHED (-77)

static int val(int r, int i, int round) {
  return r * 1000 + i + round * 7;
}

struct bufs {
  int n, p, me;
  int *bc, *ar_in, *ar_out, *red, *scn, *exs, *rsb, *rs, *rsin;
  int *src, *ga, *gv, *sc, *sv, *ag, *agv, *a2s, *a2r, *a2v, *a2w, *gat;
  int *cnt, *dsp, *bdsp, *nsend, *nag, *nagv, *na2a, *na2av, *na2aw;
  int ncnt[2], ndsp[2], nbdsp_i[2];
  MPI_Aint nbdsp[2];
  MPI_Datatype types[64], ntypes[2];
};

static void fill(struct bufs *b, int round) {
  const int n = b->n, p = b->p, me = b->me;
  for (int i = 0; i < n; ++i) {
    b->bc[i] = me == p - 1 ? val(p - 1, i, round) : -1;
    b->ar_in[i] = val(me, i, round);
    b->src[i] = val(me, i, round);
    b->nsend[i] = val(me, i, round) + 3;
    b->nsend[n + i] = val(me, i, round) + 5;
  }
  for (int d = 0; d < p; ++d)
    for (int i = 0; i < n; ++i) {
      b->a2s[d * n + i] = me * 100000 + d * 100 + i % 100 + round;
      b->rsin[d * n + i] = val(me, d * n + i, round);
      b->ga[d * n + i] = val(d, i, round) + 11;
    }
  for (int i = 0; i < p * n; ++i)
    b->gv[i] = b->ag[i] = b->agv[i] = b->a2r[i] = b->a2v[i] = b->a2w[i] = b->gat[i] = UNTOUCHED;
  for (int i = 0; i < 2 * n; ++i)
    b->nag[i] = b->nagv[i] = b->na2a[i] = b->na2av[i] = b->na2aw[i] = UNTOUCHED;
}

static long long sum_val(int p, int i, int round) {
  long long s = 0;
  for (int r = 0; r < p; ++r)
    s += val(r, i, round);
  return s;
}

/* Ring neighbours of a periodic 1-D Cartesian communicator: slot 0 is me-1, slot 1 is me+1; what
 * arrives in slot k was sent by nb[k] towards its slot k^1. */
static void check(const struct bufs *b, int round, int skip_barrier_like) {
  const int n = b->n, p = b->p, me = b->me;
  const int nb[2] = {(me - 1 + p) % p, (me + 1) % p};
  (void)skip_barrier_like;
  for (int i = 0; i < n; ++i) {
    CHECK(b->bc[i] == val(p - 1, i, round), "round %d bcast[%d]=%d", round, i, b->bc[i]);
    CHECK(b->ar_out[i] == (int)sum_val(p, i, round), "round %d allreduce[%d]=%d", round, i,
          b->ar_out[i]);
    long long pre = 0;
    for (int r = 0; r <= me; ++r)
      pre += val(r, i, round);
    CHECK(b->scn[i] == (int)pre, "round %d scan[%d]=%d", round, i, b->scn[i]);
    if (me > 0)
      CHECK(b->exs[i] == (int)(pre - val(me, i, round)), "round %d exscan[%d]=%d", round, i,
            b->exs[i]);
    long long rsum = 0;
    for (int r = 0; r < p; ++r)
      rsum += val(r, me * n + i, round);
    CHECK(b->rsb[i] == (int)rsum, "round %d reduce_scatter_block[%d]=%d", round, i, b->rsb[i]);
    CHECK(b->rs[i] == (int)rsum, "round %d reduce_scatter[%d]=%d", round, i, b->rs[i]);
    if (me == p / 2)
      CHECK(b->red[i] == val(p - 1, i, round), "round %d reduce(max)[%d]=%d", round, i, b->red[i]);
    CHECK(b->sc[i] == val(me, i, round) + 11, "round %d scatter[%d]=%d", round, i, b->sc[i]);
    CHECK(b->sv[i] == val(me, i, round) + 11, "round %d scatterv[%d]=%d", round, i, b->sv[i]);
  }
  for (int d = 0; d < p; ++d)
    for (int i = 0; i < n; ++i) {
      const int k = d * n + i;
      CHECK(b->ag[k] == val(d, i, round), "round %d allgather[%d]=%d", round, k, b->ag[k]);
      CHECK(b->agv[k] == val(d, i, round), "round %d allgatherv[%d]=%d", round, k, b->agv[k]);
      const int a2 = d * 100000 + me * 100 + i % 100 + round;
      CHECK(b->a2r[k] == a2, "round %d alltoall[%d]=%d want %d", round, k, b->a2r[k], a2);
      CHECK(b->a2v[k] == a2, "round %d alltoallv[%d]=%d", round, k, b->a2v[k]);
      CHECK(b->a2w[k] == a2, "round %d alltoallw[%d]=%d", round, k, b->a2w[k]);
      if (me == 0)
        CHECK(b->gv[k] == val(d, i, round), "round %d gatherv[%d]=%d", round, k, b->gv[k]);
      if (me == p - 1)
        CHECK(b->gat[k] == val(d, i, round), "round %d gather[%d]=%d", round, k, b->gat[k]);
    }
  for (int s = 0; s < 2; ++s)
    for (int i = 0; i < n; ++i) {
      const int k = s * n + i;
      const int all = val(nb[s], i, round) + 3; /* allgather: nb's first block */
      const int a2a = val(nb[s], i, round) + ((s ^ 1) ? 5 : 3);
      CHECK(b->nag[k] == all, "round %d neighbor_allgather[%d]=%d want %d", round, k, b->nag[k],
            all);
      CHECK(b->nagv[k] == all, "round %d neighbor_allgatherv[%d]=%d", round, k, b->nagv[k]);
      CHECK(b->na2a[k] == a2a, "round %d neighbor_alltoall[%d]=%d want %d", round, k, b->na2a[k],
            a2a);
      CHECK(b->na2av[k] == a2a, "round %d neighbor_alltoallv[%d]=%d", round, k, b->na2av[k]);
      CHECK(b->na2aw[k] == a2a, "round %d neighbor_alltoallw[%d]=%d", round, k, b->na2aw[k]);
    }
}

static int *ints(size_t n) {
  int *a = malloc(sizeof(int) * (n ? n : 1));
  CHECK(a != NULL, "malloc");
  return a;
}

static void run(int n) {
  struct bufs b;
  MPI_Comm_size(MPI_COMM_WORLD, &b.p);
  MPI_Comm_rank(MPI_COMM_WORLD, &b.me);
  b.n = n;
  const int p = b.p, me = b.me;
  const size_t pn = (size_t)p * n;
  b.bc = ints(n), b.ar_in = ints(n), b.ar_out = ints(n), b.red = ints(n), b.scn = ints(n);
  b.exs = ints(n), b.rsb = ints(n), b.rs = ints(n), b.rsin = ints(pn), b.src = ints(n);
  b.ga = ints(pn), b.gv = ints(pn), b.sc = ints(n), b.sv = ints(n), b.ag = ints(pn);
  b.agv = ints(pn), b.a2s = ints(pn), b.a2r = ints(pn), b.a2v = ints(pn), b.a2w = ints(pn);
  b.gat = ints(pn), b.cnt = ints(p), b.dsp = ints(p), b.bdsp = ints(p), b.nsend = ints(2 * n);
  b.nag = ints(2 * n), b.nagv = ints(2 * n), b.na2a = ints(2 * n), b.na2av = ints(2 * n);
  b.na2aw = ints(2 * n);
  for (int r = 0; r < p; ++r)
    b.cnt[r] = n, b.dsp[r] = r * n, b.bdsp[r] = r * n * (int)sizeof(int), b.types[r] = MPI_INT;
  for (int s = 0; s < 2; ++s)
    b.ncnt[s] = n, b.ndsp[s] = s * n, b.nbdsp[s] = (MPI_Aint)s * n * (MPI_Aint)sizeof(int),
    b.ntypes[s] = MPI_INT;

  MPI_Comm ring, dup;
  const int dims[1] = {p}, periods[1] = {1};
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  MPI_Info info;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "mpi_assert_no_any_source", "true"));

  /* q[0..NCOLL-1]: the collectives; q[NCOLL], q[NCOLL+1]: a persistent ring send and receive */
  MPI_Request q[NCOLL + 2];
  int k = 0;
  const MPI_Comm W = MPI_COMM_WORLD;
  const MPI_Info I = MPI_INFO_NULL;
  CHECK_MPI(MPI_Barrier_init(W, I, &q[k++]));
  CHECK_MPI(MPI_Bcast_init(b.bc, n, MPI_INT, p - 1, W, info, &q[k++]));
  CHECK_MPI(MPI_Allreduce_init(b.ar_in, b.ar_out, n, MPI_INT, MPI_SUM, dup, I, &q[k++]));
  CHECK_MPI(MPI_Reduce_init(b.src, b.red, n, MPI_INT, MPI_MAX, p / 2, W, I, &q[k++]));
  CHECK_MPI(MPI_Scan_init(b.src, b.scn, n, MPI_INT, MPI_SUM, W, I, &q[k++]));
  CHECK_MPI(MPI_Exscan_init(b.src, b.exs, n, MPI_INT, MPI_SUM, dup, I, &q[k++]));
  CHECK_MPI(MPI_Reduce_scatter_block_init(b.rsin, b.rsb, n, MPI_INT, MPI_SUM, W, I, &q[k++]));
  CHECK_MPI(MPI_Reduce_scatter_init(b.rsin, b.rs, b.cnt, MPI_INT, MPI_SUM, W, I, &q[k++]));
  CHECK_MPI(MPI_Gather_init(b.src, n, MPI_INT, b.gat, n, MPI_INT, p - 1, W, I, &q[k++]));
  CHECK_MPI(MPI_Gatherv_init(b.src, n, MPI_INT, b.gv, b.cnt, b.dsp, MPI_INT, 0, W, I, &q[k++]));
  CHECK_MPI(MPI_Scatter_init(b.ga, n, MPI_INT, b.sc, n, MPI_INT, 0, W, I, &q[k++]));
  CHECK_MPI(
      MPI_Scatterv_init(b.ga, b.cnt, b.dsp, MPI_INT, b.sv, n, MPI_INT, p - 1, dup, I, &q[k++]));
  CHECK_MPI(MPI_Allgather_init(b.src, n, MPI_INT, b.ag, n, MPI_INT, W, I, &q[k++]));
  CHECK_MPI(MPI_Allgatherv_init(b.src, n, MPI_INT, b.agv, b.cnt, b.dsp, MPI_INT, dup, I, &q[k++]));
  CHECK_MPI(MPI_Alltoall_init(b.a2s, n, MPI_INT, b.a2r, n, MPI_INT, W, I, &q[k++]));
  CHECK_MPI(MPI_Alltoallv_init(b.a2s, b.cnt, b.dsp, MPI_INT, b.a2v, b.cnt, b.dsp, MPI_INT, W, I,
                               &q[k++]));
  CHECK_MPI(MPI_Alltoallw_init(b.a2s, b.cnt, b.bdsp, b.types, b.a2w, b.cnt, b.bdsp, b.types, dup, I,
                               &q[k++]));
  CHECK_MPI(MPI_Neighbor_allgather_init(b.nsend, n, MPI_INT, b.nag, n, MPI_INT, ring, I, &q[k++]));
  CHECK_MPI(MPI_Neighbor_allgatherv_init(b.nsend, n, MPI_INT, b.nagv, b.ncnt, b.ndsp, MPI_INT, ring,
                                         I, &q[k++]));
  CHECK_MPI(MPI_Neighbor_alltoall_init(b.nsend, n, MPI_INT, b.na2a, n, MPI_INT, ring, I, &q[k++]));
  CHECK_MPI(MPI_Neighbor_alltoallv_init(b.nsend, b.ncnt, b.ndsp, MPI_INT, b.na2av, b.ncnt, b.ndsp,
                                        MPI_INT, ring, I, &q[k++]));
  CHECK_MPI(MPI_Neighbor_alltoallw_init(b.nsend, b.ncnt, b.nbdsp, b.ntypes, b.na2aw, b.ncnt,
                                        b.nbdsp, b.ntypes, ring, I, &q[k++]));
  CHECK(k == NCOLL, "%d collectives", k);
  int token = -1, mine = -1;
  CHECK_MPI(MPI_Send_init(&mine, 1, MPI_INT, (me + 1) % p, 5, W, &q[k++]));
  CHECK_MPI(MPI_Recv_init(&token, 1, MPI_INT, (me - 1 + p) % p, 5, W, &q[k++]));
  /* The communicators may go: the requests keep what they need. */
  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK_MPI(MPI_Info_free(&info));

  /* Inactive requests complete at once, with an empty status. */
  for (int i = 0; i < NCOLL; ++i) {
    int flag = 0;
    CHECK_MPI(MPI_Test(&q[i], &flag, MPI_STATUS_IGNORE));
    CHECK(flag && q[i] != MPI_REQUEST_NULL, "inactive request %d: flag %d", i, flag);
  }

  for (int round = 0; round < 4; ++round) {
    fill(&b, round);
    mine = me * 10 + round;
    token = -1;
    if (round % 2 == 0) {
      /* all at once, with the point-to-point pair, in one Startall */
      CHECK_MPI(MPI_Startall(NCOLL + 2, q));
      if (round == 2) { /* Test-driven completion */
        int done = 0;
        while (!done)
          CHECK_MPI(MPI_Testall(NCOLL + 2, q, &done, MPI_STATUSES_IGNORE));
      } else {
        CHECK_MPI(MPI_Waitall(NCOLL + 2, q, MPI_STATUSES_IGNORE));
      }
    } else {
      /* one at a time, in the same order on every rank */
      for (int i = 0; i < NCOLL; ++i) {
        CHECK_MPI(MPI_Start(&q[i]));
        if (round == 3) {
          int flag = 0;
          while (!flag)
            CHECK_MPI(MPI_Test(&q[i], &flag, MPI_STATUS_IGNORE));
        } else {
          CHECK_MPI(MPI_Wait(&q[i], MPI_STATUS_IGNORE));
        }
      }
      CHECK_MPI(MPI_Startall(2, &q[NCOLL]));
      CHECK_MPI(MPI_Waitall(2, &q[NCOLL], MPI_STATUSES_IGNORE));
    }
    for (int i = 0; i < NCOLL + 2; ++i)
      CHECK(q[i] != MPI_REQUEST_NULL, "round %d: persistent request %d became NULL", round, i);
    check(&b, round, 0);
    CHECK(token == ((me - 1 + p) % p) * 10 + round, "round %d ring token %d", round, token);
  }

  /* Errors (returned, not fatal). */
  CHECK_MPI(MPI_Comm_set_errhandler(W, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Start(&q[0])); /* a barrier, active until waited for */
  int ec = -1;
  MPI_Error_class(MPI_Start(&q[0]), &ec);
  CHECK(ec == MPI_ERR_REQUEST, "MPI_Start of an active request: class %d", ec);
  MPI_Error_class(MPI_Startall(1, &q[0]), &ec);
  CHECK(ec == MPI_ERR_REQUEST, "MPI_Startall of an active request: class %d", ec);
  MPI_Request keep = q[0];
  MPI_Error_class(MPI_Request_free(&keep), &ec);
  CHECK(ec == MPI_ERR_REQUEST && keep == q[0], "MPI_Request_free of an active one: class %d", ec);
  MPI_Error_class(MPI_Cancel(&q[0]), &ec);
  CHECK(ec == MPI_ERR_REQUEST, "MPI_Cancel of a persistent collective: class %d", ec);
  CHECK_MPI(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
  MPI_Request nb;
  CHECK_MPI(MPI_Ibarrier(W, &nb));
  MPI_Error_class(MPI_Cancel(&nb), &ec);
  CHECK(ec == MPI_ERR_REQUEST, "MPI_Cancel of a non-blocking collective: class %d", ec);
  CHECK_MPI(MPI_Wait(&nb, MPI_STATUS_IGNORE));
  CHECK(nb == MPI_REQUEST_NULL, "a completed non-blocking collective's handle is freed");

  MPI_Request bad = MPI_REQUEST_NULL;
  MPI_Error_class(MPI_Allreduce_init(b.ar_in, b.ar_out, -1, MPI_INT, MPI_SUM, W, I, &bad), &ec);
  CHECK(ec == MPI_ERR_COUNT && bad == MPI_REQUEST_NULL, "negative count: class %d", ec);
  MPI_Error_class(MPI_Bcast_init(b.bc, n, MPI_INT, p, W, I, &bad), &ec);
  CHECK(ec == MPI_ERR_ROOT && bad == MPI_REQUEST_NULL, "bad root: class %d", ec);
  MPI_Error_class(MPI_Barrier_init(W, I, NULL), &ec);
  CHECK(ec == MPI_ERR_ARG, "request=NULL: class %d", ec);
  MPI_Error_class(MPI_Barrier_init(W, (MPI_Info)0x1c00ffff, &bad), &ec);
  CHECK(ec == MPI_ERR_INFO && bad == MPI_REQUEST_NULL, "bad info: class %d", ec);
  MPI_Error_class(MPI_Allreduce_init(b.ar_in, b.ar_out, n, MPI_INT, MPI_OP_NULL, W, I, &bad), &ec);
  CHECK(ec == MPI_ERR_OP && bad == MPI_REQUEST_NULL, "MPI_OP_NULL: class %d", ec);
  CHECK_MPI(MPI_Comm_set_errhandler(W, MPI_ERRORS_ARE_FATAL));

  for (int i = 0; i < NCOLL + 2; ++i) {
    CHECK_MPI(MPI_Request_free(&q[i]));
    CHECK(q[i] == MPI_REQUEST_NULL, "freed request %d", i);
  }
  CHECK_MPI(MPI_Comm_free(&ring));
  free(b.bc), free(b.ar_in), free(b.ar_out), free(b.red), free(b.scn), free(b.exs), free(b.rsb);
  free(b.rs), free(b.rsin), free(b.src), free(b.ga), free(b.gv), free(b.sc), free(b.sv);
  free(b.ag), free(b.agv), free(b.a2s), free(b.a2r), free(b.a2v), free(b.a2w), free(b.gat);
  free(b.cnt), free(b.dsp), free(b.bdsp), free(b.nsend), free(b.nag), free(b.nagv), free(b.na2a);
  free(b.na2av), free(b.na2aw);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  run(1);
  run(37);
  run(20000); /* 80 KB blocks: rendezvous-size messages */
  mt_ok("coll_persistent");
  MPI_Finalize();
  return 0;
}
