/* tests/coll/coll_reduce.c — reduce, allreduce, reduce_scatter(_block), scan, exscan and
 * MPI_Reduce_local: predefined operations on several types, counts 0, 1, odd and large
 * (> 64 KiB), MPI_IN_PLACE, MINLOC/MAXLOC on the pair types, a commutative user operation and a
 * non-commutative one (2x2 matrix product mod a prime, which must be applied in rank order).
 * Expected values are closed forms of the rank numbers or products computed locally. */
#include "mpitest.h"

#define MOD 1000003LL

/* The 2x2 matrix of rank r: [[r + 1, 1], [1, 0]] (these do not commute). */
static void rank_matrix(int r, int i, long long *m) {
  m[0] = r + 1 + i % 3;
  m[1] = 1;
  m[2] = 1;
  m[3] = i % 2;
}
static void matmul(const long long *a, const long long *b, long long *out) {
  long long r0 = (a[0] * b[0] + a[1] * b[2]) % MOD, r1 = (a[0] * b[1] + a[1] * b[3]) % MOD;
  long long r2 = (a[2] * b[0] + a[3] * b[2]) % MOD, r3 = (a[2] * b[1] + a[3] * b[3]) % MOD;
  out[0] = r0, out[1] = r1, out[2] = r2, out[3] = r3;
}
/* inout = in x inout, on `*len` long longs (len / 4 matrices) */
static void matmul_op(void *in, void *inout, int *len, MPI_Datatype *type) {
  CHECK(*type == MPI_LONG_LONG, "user op got the wrong datatype");
  const long long *a = in;
  long long *b = inout;
  for (int k = 0; k < *len / 4; ++k)
    matmul(a + 4 * k, b + 4 * k, b + 4 * k);
}
/* product of the matrices of ranks [lo, hi) for element i */
static void expected_product(int lo, int hi, int i, long long *out) {
  long long m[4];
  out[0] = 1, out[1] = 0, out[2] = 0, out[3] = 1;
  for (int r = lo; r < hi; ++r) {
    rank_matrix(r, i, m);
    matmul(out, m, out);
  }
}
static void sum_op(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  const int *a = in;
  int *b = inout;
  for (int i = 0; i < *len; ++i)
    b[i] += a[i];
}

static int val(int r, int i) {
  return r + 3 * i;
}
/* sum over ranks [lo, hi) of val(r, i) */
static long long sum_val(int lo, int hi, int i) {
  long long s = 0;
  for (int r = lo; r < hi; ++r)
    s += val(r, i);
  return s;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int p, me;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  const int counts[] = {0, 1, 7, 20000};
  MPI_Op matop, sumop;
  CHECK_MPI(MPI_Op_create(matmul_op, 0, &matop));
  CHECK_MPI(MPI_Op_create(sum_op, 1, &sumop));
  int commute = -1;
  CHECK_MPI(MPI_Op_commutative(matop, &commute));
  CHECK(commute == 0, "matop commutative=%d", commute);
  CHECK_MPI(MPI_Op_commutative(sumop, &commute));
  CHECK(commute == 1, "sumop commutative=%d", commute);
  CHECK_MPI(MPI_Op_commutative(MPI_SUM, &commute));
  CHECK(commute == 1, "MPI_SUM commutative=%d", commute);

  for (int k = 0; k < 4; ++k) {
    const int n = counts[k];
    int *in = malloc(sizeof(int) * (n + 1) * (p + 1)),
        *out = malloc(sizeof(int) * (n + 1) * (p + 1));
    double *din = malloc(sizeof(double) * (n + 1)), *dout = malloc(sizeof(double) * (n + 1));
    for (int i = 0; i < n; ++i)
      in[i] = val(me, i), din[i] = val(me, i) * 0.5;
    /* allreduce: SUM, MAX, MIN, BXOR; in place; user commutative sum */
    CHECK_MPI(MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < n; ++i)
      CHECK(out[i] == sum_val(0, p, i), "allreduce sum n=%d i=%d got %d", n, i, out[i]);
    CHECK_MPI(MPI_Allreduce(din, dout, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < n; ++i)
      CHECK(dout[i] == sum_val(0, p, i) * 0.5, "allreduce dsum n=%d i=%d", n, i);
    CHECK_MPI(MPI_Allreduce(in, out, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    for (int i = 0; i < n; ++i)
      CHECK(out[i] == val(p - 1, i), "allreduce max n=%d i=%d", n, i);
    CHECK_MPI(MPI_Allreduce(in, out, n, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    for (int i = 0; i < n; ++i)
      CHECK(out[i] == val(0, i), "allreduce min n=%d i=%d", n, i);
    CHECK_MPI(MPI_Allreduce(in, out, n, MPI_INT, MPI_BXOR, MPI_COMM_WORLD));
    for (int i = 0; i < n; ++i) {
      int x = 0;
      for (int r = 0; r < p; ++r)
        x ^= val(r, i);
      CHECK(out[i] == x, "allreduce bxor n=%d i=%d", n, i);
    }
    for (int i = 0; i < n; ++i)
      out[i] = val(me, i);
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < n; ++i)
      CHECK(out[i] == sum_val(0, p, i), "allreduce in place n=%d i=%d", n, i);
    CHECK_MPI(MPI_Allreduce(in, out, n, MPI_INT, sumop, MPI_COMM_WORLD));
    for (int i = 0; i < n; ++i)
      CHECK(out[i] == sum_val(0, p, i), "allreduce user sum n=%d i=%d", n, i);

    /* reduce to every root (in place at the root on odd roots) */
    for (int root = 0; root < p; ++root) {
      const int inplace = root % 2;
      for (int i = 0; i < n; ++i)
        out[i] = inplace && me == root ? val(me, i) : -1;
      CHECK_MPI(MPI_Reduce(inplace && me == root ? MPI_IN_PLACE : in, out, n, MPI_INT, MPI_SUM,
                           root, MPI_COMM_WORLD));
      if (me == root)
        for (int i = 0; i < n; ++i)
          CHECK(out[i] == sum_val(0, p, i), "reduce root=%d n=%d i=%d", root, n, i);
    }
    /* reduce_scatter_block: rank r gets elements [r*n, (r+1)*n) of the sum; in place too */
    for (int inplace = 0; inplace < 2; ++inplace) {
      int *full = inplace ? out : in;
      for (int j = 0; j < p * n; ++j)
        full[j] = val(me, j);
      if (!inplace)
        for (int i = 0; i < n; ++i)
          out[i] = -1;
      CHECK_MPI(MPI_Reduce_scatter_block(inplace ? MPI_IN_PLACE : in, out, n, MPI_INT, MPI_SUM,
                                         MPI_COMM_WORLD));
      for (int i = 0; i < n; ++i)
        CHECK(out[i] == sum_val(0, p, me * n + i), "reduce_scatter_block inplace=%d n=%d i=%d",
              inplace, n, i);
    }
    /* reduce_scatter with counts n + r % 2 (n > 0) */
    {
      int *rc = malloc(sizeof(int) * p), total = 0, start = 0;
      for (int r = 0; r < p; ++r) {
        rc[r] = n ? n / 2 + r % 2 : 0;
        if (r < me) start += rc[r];
        total += rc[r];
      }
      int *full = malloc(sizeof(int) * (total + 1)), *mine = malloc(sizeof(int) * (total + 1));
      for (int j = 0; j < total; ++j)
        full[j] = val(me, j);
      CHECK_MPI(MPI_Reduce_scatter(full, mine, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
      for (int i = 0; i < rc[me]; ++i)
        CHECK(mine[i] == sum_val(0, p, start + i), "reduce_scatter n=%d i=%d", n, i);
      CHECK_MPI(MPI_Reduce_scatter(MPI_IN_PLACE, full, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
      for (int i = 0; i < rc[me]; ++i)
        CHECK(full[i] == sum_val(0, p, start + i), "reduce_scatter in place n=%d i=%d", n, i);
      free(rc);
      free(full);
      free(mine);
    }
    /* scan and exscan (in place too) */
    for (int i = 0; i < n; ++i)
      in[i] = val(me, i);
    CHECK_MPI(MPI_Scan(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < n; ++i)
      CHECK(out[i] == sum_val(0, me + 1, i), "scan n=%d i=%d", n, i);
    CHECK_MPI(MPI_Scan(MPI_IN_PLACE, in, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < n; ++i)
      CHECK(in[i] == sum_val(0, me + 1, i), "scan in place n=%d i=%d", n, i);
    for (int i = 0; i < n; ++i)
      in[i] = val(me, i), out[i] = -9;
    CHECK_MPI(MPI_Exscan(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    if (me > 0)
      for (int i = 0; i < n; ++i)
        CHECK(out[i] == sum_val(0, me, i), "exscan n=%d i=%d", n, i);
    CHECK_MPI(MPI_Exscan(MPI_IN_PLACE, in, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    if (me > 0)
      for (int i = 0; i < n; ++i)
        CHECK(in[i] == sum_val(0, me, i), "exscan in place n=%d i=%d", n, i);

    /* the non-commutative matrix product: allreduce, reduce at each root, scan, exscan,
     * reduce_scatter_block; large enough counts to take every algorithm */
    const int nm = n / 4 + (n > 0); /* matrices */
    long long *ma = malloc(sizeof(long long) * 4 * (nm * p + 1)),
              *mb = malloc(sizeof(long long) * 4 * (nm * p + 1));
    long long want[4];
    for (int i = 0; i < nm; ++i)
      rank_matrix(me, i, ma + 4 * i);
    CHECK_MPI(MPI_Allreduce(ma, mb, 4 * nm, MPI_LONG_LONG, matop, MPI_COMM_WORLD));
    for (int i = 0; i < nm; ++i) {
      expected_product(0, p, i, want);
      CHECK(memcmp(mb + 4 * i, want, sizeof want) == 0, "allreduce matop n=%d i=%d", nm, i);
    }
    for (int root = 0; root < p; root += (p > 2 ? p - 2 : 1)) {
      CHECK_MPI(MPI_Reduce(ma, mb, 4 * nm, MPI_LONG_LONG, matop, root, MPI_COMM_WORLD));
      if (me == root)
        for (int i = 0; i < nm; ++i) {
          expected_product(0, p, i, want);
          CHECK(memcmp(mb + 4 * i, want, sizeof want) == 0, "reduce matop root=%d i=%d", root, i);
        }
    }
    CHECK_MPI(MPI_Scan(ma, mb, 4 * nm, MPI_LONG_LONG, matop, MPI_COMM_WORLD));
    for (int i = 0; i < nm; ++i) {
      expected_product(0, me + 1, i, want);
      CHECK(memcmp(mb + 4 * i, want, sizeof want) == 0, "scan matop i=%d", i);
    }
    CHECK_MPI(MPI_Exscan(ma, mb, 4 * nm, MPI_LONG_LONG, matop, MPI_COMM_WORLD));
    if (me > 0)
      for (int i = 0; i < nm; ++i) {
        expected_product(0, me, i, want);
        CHECK(memcmp(mb + 4 * i, want, sizeof want) == 0, "exscan matop i=%d", i);
      }
    for (int j = 0; j < nm * p; ++j)
      rank_matrix(me, j, ma + 4 * j);
    CHECK_MPI(MPI_Reduce_scatter_block(ma, mb, 4 * nm, MPI_LONG_LONG, matop, MPI_COMM_WORLD));
    for (int i = 0; i < nm; ++i) {
      expected_product(0, p, me * nm + i, want);
      CHECK(memcmp(mb + 4 * i, want, sizeof want) == 0, "reduce_scatter_block matop i=%d", i);
    }
    /* Reduce_local with the user op: mb = ma x mb */
    for (int i = 0; i < nm; ++i)
      rank_matrix(1, i, ma + 4 * i), rank_matrix(2, i, mb + 4 * i);
    CHECK_MPI(MPI_Reduce_local(ma, mb, 4 * nm, MPI_LONG_LONG, matop));
    for (int i = 0; i < nm; ++i) {
      expected_product(1, 3, i, want);
      CHECK(memcmp(mb + 4 * i, want, sizeof want) == 0, "reduce_local matop i=%d", i);
    }
    free(ma);
    free(mb);

    /* MINLOC / MAXLOC on MPI_DOUBLE_INT (padded), MPI_2INT, MPI_FLOAT_INT, MPI_LONG_INT */
    {
      struct {
        double v;
        int i;
      } *d = malloc(sizeof(*d) * (n + 1)), *dr = malloc(sizeof(*d) * (n + 1));
      struct {
        int v;
        int i;
      } *t = malloc(sizeof(*t) * (n + 1)), *tr = malloc(sizeof(*t) * (n + 1));
      struct {
        long v;
        int i;
      } *l = malloc(sizeof(*l) * (n + 1)), *lr = malloc(sizeof(*l) * (n + 1));
      struct {
        float v;
        int i;
      } *f = malloc(sizeof(*f) * (n + 1)), *fr = malloc(sizeof(*f) * (n + 1));
      /* value (r * 5 + i) % p: ties broken by the lowest rank */
      for (int i = 0; i < n; ++i) {
        int v = (me * 5 + i) % p;
        d[i].v = v, d[i].i = me, t[i].v = v, t[i].i = me, l[i].v = v, l[i].i = me,
        f[i].v = (float)v, f[i].i = me;
      }
      CHECK_MPI(MPI_Allreduce(d, dr, n, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Allreduce(t, tr, n, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Allreduce(l, lr, n, MPI_LONG_INT, MPI_MAXLOC, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Reduce(f, fr, n, MPI_FLOAT_INT, MPI_MINLOC, 0, MPI_COMM_WORLD));
      for (int i = 0; i < n; ++i) {
        int minv = p, minr = -1, maxv = -1, maxr = -1;
        for (int r = 0; r < p; ++r) {
          int v = (r * 5 + i) % p;
          if (v < minv) minv = v, minr = r;
          if (v > maxv) maxv = v, maxr = r;
        }
        CHECK(dr[i].v == minv && dr[i].i == minr,
              "minloc double_int n=%d i=%d got (%g,%d) want (%d,%d)", n, i, dr[i].v, dr[i].i, minv,
              minr);
        CHECK(tr[i].v == maxv && tr[i].i == maxr, "maxloc 2int n=%d i=%d", n, i);
        CHECK(lr[i].v == maxv && lr[i].i == maxr, "maxloc long_int n=%d i=%d", n, i);
        if (me == 0) CHECK(fr[i].v == minv && fr[i].i == minr, "minloc float_int n=%d i=%d", n, i);
      }
      free(d), free(dr), free(t), free(tr), free(l), free(lr), free(f), free(fr);
    }
    free(in);
    free(out);
    free(din);
    free(dout);
  }
  /* The char types are C integers for reductions (as in Open MPI and MPICH; the OSU reduction
   * benchmarks default to MPI_SUM on MPI_CHAR): arithmetic wraps modulo 256 as in C. */
  {
    enum { NC = 300 };
    signed char sc[NC], scr[NC];
    unsigned char uc[NC], ucr[NC];
    char cc[NC], ccr[NC];
    for (int i = 0; i < NC; ++i)
      sc[i] = (signed char)(me * 7 + i - 100), uc[i] = (unsigned char)(me * 11 + i),
      cc[i] = (char)(me + i % 5);
    CHECK_MPI(MPI_Allreduce(cc, ccr, NC, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Allreduce(sc, scr, NC, MPI_SIGNED_CHAR, MPI_MIN, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Reduce(uc, ucr, NC, MPI_UNSIGNED_CHAR, MPI_PROD, p - 1, MPI_COMM_WORLD));
    for (int i = 0; i < NC; ++i) {
      int sum = 0, mn = 127;
      unsigned prod = 1;
      for (int r = 0; r < p; ++r) {
        sum += r + i % 5;
        if ((signed char)(r * 7 + i - 100) < mn) mn = (signed char)(r * 7 + i - 100);
        prod = (prod * (unsigned char)(r * 11 + i)) & 0xff;
      }
      CHECK(ccr[i] == (char)sum, "MPI_SUM on MPI_CHAR i=%d got %d want %d", i, ccr[i], (char)sum);
      CHECK(scr[i] == mn, "MPI_MIN on MPI_SIGNED_CHAR i=%d got %d want %d", i, scr[i], mn);
      if (me == p - 1)
        CHECK(ucr[i] == prod, "MPI_PROD on MPI_UNSIGNED_CHAR i=%d got %u want %u", i, ucr[i], prod);
    }
    MPI_Request req;
    CHECK_MPI(MPI_Iallreduce(cc, ccr, NC, MPI_CHAR, MPI_MAX, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int i = 0; i < NC; ++i)
      CHECK(ccr[i] == (char)(p - 1 + i % 5), "MPI_MAX on MPI_CHAR i=%d", i);
    int rc[64];
    for (int r = 0; r < p && r < 64; ++r)
      rc[r] = 1;
    if (p <= 64) {
      CHECK_MPI(MPI_Reduce_scatter(cc, ccr, rc, MPI_CHAR, MPI_BOR, MPI_COMM_WORLD));
      int bor = 0;
      for (int r = 0; r < p; ++r)
        bor |= r + me % 5;
      CHECK(ccr[0] == (char)bor, "MPI_BOR on MPI_CHAR got %d want %d", ccr[0], bor);
    }
  }
  /* a reduction the datatype does not allow is MPI_ERR_OP */
  {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    float x = 1, y;
    int e = MPI_Allreduce(&x, &y, 1, MPI_FLOAT, MPI_BAND, MPI_COMM_WORLD);
    CHECK(mt_class(e) == MPI_ERR_OP, "MPI_BAND on MPI_FLOAT gave %d", e);
    wchar_t wx = 1, wy;
    e = MPI_Allreduce(&wx, &wy, 1, MPI_WCHAR, MPI_SUM, MPI_COMM_WORLD);
    CHECK(mt_class(e) == MPI_ERR_OP, "MPI_SUM on MPI_WCHAR gave %d", e);
    e = MPI_Reduce(&x, &y, 1, MPI_FLOAT, MPI_SUM, p, MPI_COMM_WORLD);
    CHECK(mt_class(e) == MPI_ERR_ROOT, "root=size gave %d", e);
    MPI_Op bad = MPI_SUM;
    e = MPI_Op_free(&bad);
    CHECK(mt_class(e) == MPI_ERR_OP, "freeing MPI_SUM gave %d", e);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  }
  CHECK_MPI(MPI_Op_free(&matop));
  CHECK(matop == MPI_OP_NULL, "MPI_Op_free did not reset the handle");
  CHECK_MPI(MPI_Op_free(&sumop));
  mt_ok("coll_reduce");
  MPI_Finalize();
  return 0;
}
