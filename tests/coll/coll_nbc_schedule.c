/* tests/coll/coll_nbc_schedule.c — MPI_Iallreduce as a schedule driven by progress
 * (src/coll/nbc.cpp): progress made inside a blocking receive (a rank blocked in MPI_Recv must
 * still take its collective's steps, or its partner, which waits for that collective before
 * sending, never sends), completion through MPI_Test alone, a non-commutative user operation
 * (rank order), a padded pair type (MPI_DOUBLE_INT with MPI_MINLOC), separate and in-place
 * buffers, count 0, the largest vector the schedule takes and the next size (the helper task), on
 * MPI_COMM_WORLD and a split communicator at once, and MPI_Request_free of an active one. */
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

static int val(int r, int i) {
  return (r + 1) * 3 + i % 17;
}

static void check_sum(const int *v, int n, int lo, int hi, int step, const char *what) {
  for (int i = 0; i < n; ++i) {
    long long s = 0;
    for (int r = lo; r < hi; r += step)
      s += val(r, i);
    CHECK(v[i] == s, "%s n=%d i=%d got %d want %lld", what, n, i, v[i], s);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int p, me;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);

  /* Progress inside a blocking receive: even ranks receive from their odd partner before they
   * wait; the partner sends only once the collective is complete. */
  {
    int v = val(me, 0), token = -1;
    MPI_Request q;
    CHECK_MPI(MPI_Iallreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q));
    const int partner = me ^ 1;
    if (partner < p) {
      if (me % 2 == 0) {
        CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, partner, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(token == partner, "token %d", token);
        CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
      } else {
        CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Send(&me, 1, MPI_INT, partner, 9, MPI_COMM_WORLD));
      }
    } else {
      CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
    }
    check_sum(&v, 1, 0, p, 1, "allreduce around a blocking receive");
  }

  MPI_Comm half;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half));
  int hp, hme;
  MPI_Comm_size(half, &hp);
  MPI_Comm_rank(half, &hme);

  MPI_Op op;
  CHECK_MPI(MPI_Op_create(compose, 0, &op));
  MPI_Datatype aff;
  CHECK_MPI(MPI_Type_contiguous(2, MPI_LONG_LONG, &aff));
  CHECK_MPI(MPI_Type_commit(&aff));

  const int counts[] = {0, 1, 5, 16384, 16385}; /* 16384 ints: 64 KiB, the schedule's largest */
  for (int c = 0; c < 5; ++c) {
    const int n = counts[c];
    int *in = malloc(sizeof(int) * (n + 1)), *out = malloc(sizeof(int) * (n + 1));
    int *hin = malloc(sizeof(int) * (n + 1));
    affine *f = malloc(sizeof(affine) * (n + 1));
    struct {
      double v;
      int r;
    } loc[4], locr[4];
    for (int i = 0; i < n; ++i) {
      in[i] = val(me, i);
      hin[i] = val(me, i);
      f[i] = map_of(me, i);
    }
    for (int i = 0; i < 4; ++i) {
      loc[i].v = (double)((me * 5 + i * 3) % 7);
      loc[i].r = me;
    }
    MPI_Request q[4];
    CHECK_MPI(MPI_Iallreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[0]));
    CHECK_MPI(MPI_Iallreduce(MPI_IN_PLACE, hin, n, MPI_INT, MPI_SUM, half, &q[1]));
    CHECK_MPI(MPI_Iallreduce(MPI_IN_PLACE, f, n, aff, op, MPI_COMM_WORLD, &q[2]));
    CHECK_MPI(MPI_Iallreduce(loc, locr, 4, MPI_DOUBLE_INT, MPI_MINLOC, half, &q[3]));
    /* MPI_Test alone drives them */
    int flag = 0;
    while (!flag)
      CHECK_MPI(MPI_Testall(4, q, &flag, MPI_STATUSES_IGNORE));
    check_sum(out, n, 0, p, 1, "iallreduce (world)");
    check_sum(hin, n, me % 2, p, 2, "iallreduce (split, in place)");
    for (int i = 0; i < n; ++i) {
      affine w = map_of(p - 1, i); /* f0 o f1 o ... o f[p-1]: the last applied first */
      for (int r = p - 2; r >= 0; --r) {
        const affine x = map_of(r, i);
        const affine t = {x.a * w.a % M, (x.a * w.b + x.b) % M};
        w = t;
      }
      CHECK(f[i].a == w.a && f[i].b == w.b, "non-commutative n=%d i=%d", n, i);
    }
    for (int i = 0; i < 4; ++i) {
      double best = 1e9;
      int who = -1;
      for (int r = me % 2; r < p; r += 2) {
        const double v = (double)((r * 5 + i * 3) % 7);
        if (v < best) best = v, who = r;
      }
      CHECK(locr[i].v == best && locr[i].r == who, "minloc i=%d got %g@%d want %g@%d", i, locr[i].v,
            locr[i].r, best, who);
    }
    (void)hme;
    (void)hp;
    free(in), free(out), free(hin), free(f);
  }

  /* MPI_Request_free of an active one: it still runs to its end (the barrier after it is on the
   * same communicator, so every rank has taken part in it by then). */
  {
    static int v = 1, w = 0; /* outlive the block: the freed collective may still write w */
    MPI_Request q;
    CHECK_MPI(MPI_Iallreduce(&v, &w, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q));
    CHECK_MPI(MPI_Request_free(&q));
    CHECK(q == MPI_REQUEST_NULL, "request_free left the handle");
    int x = 1, y = 0;
    CHECK_MPI(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(y == p, "allreduce after a freed iallreduce: %d", y);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  }

  CHECK_MPI(MPI_Type_free(&aff));
  CHECK_MPI(MPI_Op_free(&op));
  CHECK_MPI(MPI_Comm_free(&half));
  mt_ok("coll_nbc_schedule");
  MPI_Finalize();
  return 0;
}
