/* tests/coll/coll_nbc_more.c — MPI_Ibarrier, MPI_Ibcast, MPI_Ireduce and MPI_Iallgather as
 * schedules driven by progress (src/coll/nbc.cpp), and their persistent forms: an Ibarrier that
 * cannot complete before the last rank enters it (that rank enters only after a message that
 * rank 0 sends once its MPI_Test has seen the barrier incomplete), every root, a non-commutative
 * user operation (rank order) and MPI_IN_PLACE at the root, in-place allgather, sizes 0 and up to
 * the schedules' largest and one past it (the helper task), four collectives in flight at once on
 * MPI_COMM_WORLD and a split communicator completed by MPI_Testall alone, the _init forms started
 * three times with new data, and MPI_Request_free of an active one. */
#include "mpitest.h"

/* x -> a*x + b (mod M): composition is not commutative; inout = in o inout applies inout first. */
#define M 1000003LL
typedef struct {
  long long a, b;
} affine;
static void compose(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)dt;
  affine *x = in, *y = inout;
  for (int i = 0; i < *len; ++i) {
    const affine r = {x[i].a * y[i].a % M, (x[i].a * y[i].b + x[i].b) % M};
    y[i] = r;
  }
}
static affine map_of(int r, int i) {
  affine f = {(r * 7 + i + 2) % M, (r * 13 + 3 * i + 1) % M};
  return f;
}
/* f0 o f1 o ... o f[p-1] at element i, over the ranks lo, lo + step, ... below hi */
static affine chain(int lo, int hi, int step, int i) {
  int last = lo;
  for (int r = lo; r < hi; r += step)
    last = r;
  affine w = map_of(last, i);
  for (int r = last - step; r >= lo; r -= step) {
    const affine x = map_of(r, i);
    const affine t = {x.a * w.a % M, (x.a * w.b + x.b) % M};
    w = t;
  }
  return w;
}

static int val(int r, int i, int salt) {
  return (r + 1) * 3 + i % 17 + salt * 101;
}

static void check_sum(const int *v, int n, int lo, int hi, int step, int salt, const char *what) {
  for (int i = 0; i < n; ++i) {
    long long s = 0;
    for (int r = lo; r < hi; r += step)
      s += val(r, i, salt);
    CHECK(v[i] == s, "%s n=%d i=%d got %d want %lld", what, n, i, v[i], s);
  }
}

/* Four collectives at once on `world` and `half` (rank hme of hp; its world ranks are
 * hlo, hlo + 2, ...), n ints each: bcast from `root` (world), reduce to root % hp (half, in place
 * at that root), non-commutative reduce to root (world), allgather (half; in place if `inplace`).
 */
static void round_of(MPI_Comm half, int n, int root, int inplace, MPI_Op op, MPI_Datatype aff) {
  int p, me, hp, hme;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(half, &hp);
  MPI_Comm_rank(half, &hme);
  const int hlo = me % 2, hroot = root % hp;
  int *b = malloc(sizeof(int) * (n + 1)), *r = malloc(sizeof(int) * (n + 1));
  int *g = malloc(sizeof(int) * ((size_t)n * hp + 1)), *gin = malloc(sizeof(int) * (n + 1));
  affine *f = malloc(sizeof(affine) * (n + 1)), *fr = malloc(sizeof(affine) * (n + 1));
  for (int i = 0; i < n; ++i) {
    b[i] = me == root ? val(root, i, 7) : -1;
    r[i] = val(me, i, 1);
    f[i] = map_of(me, i);
    gin[i] = val(me, i, 2);
    for (int k = 0; k < hp; ++k)
      g[k * n + i] = k == hme ? val(me, i, 2) : -1;
  }
  int rr[1] = {0};
  int *rout = hme == hroot ? r : rr;
  MPI_Request q[4];
  CHECK_MPI(MPI_Ibcast(b, n, MPI_INT, root, MPI_COMM_WORLD, &q[0]));
  CHECK_MPI(
      MPI_Ireduce(hme == hroot ? MPI_IN_PLACE : r, rout, n, MPI_INT, MPI_SUM, hroot, half, &q[1]));
  CHECK_MPI(MPI_Ireduce(f, fr, n, aff, op, root, MPI_COMM_WORLD, &q[2]));
  CHECK_MPI(MPI_Iallgather(inplace ? MPI_IN_PLACE : gin, n, MPI_INT, g, n, MPI_INT, half, &q[3]));
  int flag = 0;
  while (!flag) /* MPI_Test alone drives them */
    CHECK_MPI(MPI_Testall(4, q, &flag, MPI_STATUSES_IGNORE));
  for (int i = 0; i < n; ++i)
    CHECK(b[i] == val(root, i, 7), "ibcast n=%d root=%d i=%d got %d", n, root, i, b[i]);
  if (hme == hroot) check_sum(r, n, hlo, p, 2, 1, "ireduce (split, in place at the root)");
  if (me == root)
    for (int i = 0; i < n; ++i) {
      const affine w = chain(0, p, 1, i);
      CHECK(fr[i].a == w.a && fr[i].b == w.b, "non-commutative ireduce n=%d root=%d i=%d", n, root,
            i);
    }
  for (int k = 0; k < hp; ++k)
    for (int i = 0; i < n; ++i)
      CHECK(g[k * n + i] == val(hlo + 2 * k, i, 2), "iallgather n=%d block %d i=%d got %d", n, k, i,
            g[k * n + i]);
  free(b), free(r), free(g), free(gin), free(f), free(fr);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int p, me;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);

  /* The last rank enters the barrier only once rank 0 has seen it incomplete. */
  if (p > 1) {
    MPI_Request q;
    int token = 0, flag = 1;
    if (me == p - 1) {
      CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(token == 42, "token %d", token);
      CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &q));
    } else {
      CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &q));
      if (me == 0) {
        CHECK_MPI(MPI_Test(&q, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "MPI_Ibarrier completed before rank %d entered it", p - 1);
        token = 42;
        CHECK_MPI(MPI_Send(&token, 1, MPI_INT, p - 1, 5, MPI_COMM_WORLD));
      }
    }
    CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
  }

  MPI_Comm half;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half));
  MPI_Op op;
  CHECK_MPI(MPI_Op_create(compose, 0, &op));
  MPI_Datatype aff;
  CHECK_MPI(MPI_Type_contiguous(2, MPI_LONG_LONG, &aff));
  CHECK_MPI(MPI_Type_commit(&aff));

  /* 3072 ints: 12 KiB, the broadcast schedule's largest; 16384 / p ints fill the allgather's. */
  const int counts[] = {0, 1, 5, 3072 / p, 3072, 3073};
  for (int c = 0; c < 6; ++c)
    for (int root = 0; root < p; ++root)
      round_of(half, counts[c], root, (root + c) % 2, op, aff);

  /* Persistent forms, started three times with new data. */
  {
    int b[8], r[8], g[8 * 64], mine[8];
    MPI_Request q[4];
    const int root = p - 1;
    CHECK_MPI(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &q[0]));
    CHECK_MPI(MPI_Bcast_init(b, 8, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &q[1]));
    CHECK_MPI(
        MPI_Reduce_init(mine, r, 8, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &q[2]));
    CHECK_MPI(
        MPI_Allgather_init(mine, 8, MPI_INT, g, 8, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &q[3]));
    for (int it = 0; it < 3 && p <= 64; ++it) {
      for (int i = 0; i < 8; ++i) {
        b[i] = me == root ? val(root, i, it) : -1;
        mine[i] = val(me, i, it);
      }
      CHECK_MPI(MPI_Startall(4, q));
      CHECK_MPI(MPI_Waitall(4, q, MPI_STATUSES_IGNORE));
      for (int i = 0; i < 8; ++i)
        CHECK(b[i] == val(root, i, it), "bcast_init it=%d i=%d got %d", it, i, b[i]);
      if (me == 0) check_sum(r, 8, 0, p, 1, it, "reduce_init");
      for (int k = 0; k < p; ++k)
        for (int i = 0; i < 8; ++i)
          CHECK(g[k * 8 + i] == val(k, i, it), "allgather_init it=%d block %d i=%d", it, k, i);
    }
    for (int i = 0; i < 4; ++i)
      CHECK_MPI(MPI_Request_free(&q[i]));
  }

  /* MPI_Request_free of an active one: it still runs to its end (the barrier after it is on the
   * same communicator, so every rank has taken part in it by then). */
  {
    static int v[4]; /* outlives the block: the freed broadcast may still write it */
    MPI_Request q;
    for (int i = 0; i < 4; ++i)
      v[i] = me == 0 ? 9 + i : 0;
    CHECK_MPI(MPI_Ibcast(v, 4, MPI_INT, 0, MPI_COMM_WORLD, &q));
    CHECK_MPI(MPI_Request_free(&q));
    CHECK(q == MPI_REQUEST_NULL, "request_free left the handle");
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    int x = 1, y = 0;
    CHECK_MPI(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(y == p, "allreduce after a freed ibcast: %d", y);
  }

  CHECK_MPI(MPI_Type_free(&aff));
  CHECK_MPI(MPI_Op_free(&op));
  CHECK_MPI(MPI_Comm_free(&half));
  mt_ok("coll_nbc_more");
  MPI_Finalize();
  return 0;
}
