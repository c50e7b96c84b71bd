/* tests/coll/coll_pe.c — the PE-aware collectives (src/coll/pe_coll.cpp): barrier, bcast, reduce,
 * allreduce, gather and allgather on communicators whose ranks share PEs in several ways — the
 * world, its ranks reversed, interleaved so that each PE's ranks are not a contiguous block (the
 * path falls back there for order-sensitive operations), and the two halves of a split by parity
 * (sub-communicators that share a context id, used at the same time). Every result is checked
 * against a reference computed locally from the ranks' numbers: predefined operations on each
 * class of type (integer, floating, logical, bitwise, MAXLOC pair), a non-commutative user
 * operation (2x2 matrix product mod a prime, in rank order) at every root, MPI_IN_PLACE, a
 * strided derived datatype, every root, small and large (> 64 KiB) data, and non-blocking
 * instances in flight together with a blocking one on the same communicator. Run with one and
 * two processes, and with round-robin placement (interleaved world ranks). */
#include "mpitest.h"

#define MOD 1000003LL

static void matmul(const long long *a, const long long *b, long long *out) {
  long long r0 = (a[0] * b[0] + a[1] * b[2]) % MOD, r1 = (a[0] * b[1] + a[1] * b[3]) % MOD;
  long long r2 = (a[2] * b[0] + a[3] * b[2]) % MOD, r3 = (a[2] * b[1] + a[3] * b[3]) % MOD;
  out[0] = r0, out[1] = r1, out[2] = r2, out[3] = r3;
}
/* inout = in x inout */
static void matmul_op(void *in, void *inout, int *len, MPI_Datatype *type) {
  CHECK(*type == MPI_LONG_LONG, "user op got the wrong datatype");
  for (int k = 0; k < *len / 4; ++k)
    matmul((const long long *)in + 4 * k, (long long *)inout + 4 * k, (long long *)inout + 4 * k);
}
/* rank w's matrix for element i (world rank numbers: distinct per rank) */
static void rank_matrix(int w, int i, long long *m) {
  m[0] = w + 2 + i % 5;
  m[1] = 1 + w % 3;
  m[2] = 1;
  m[3] = i % 2;
}

static int ival(int w, int i) {
  return (w * 37 + i * 11) % 1001 - 300;
}

/* One communicator's checks; `world[r]` is the world rank of its rank r. */
static void check_comm(MPI_Comm c, const char *what) {
  int me, p;
  MPI_Comm_rank(c, &me);
  MPI_Comm_size(c, &p);
  int *world = malloc(sizeof(int) * p);
  int wme;
  MPI_Comm_rank(MPI_COMM_WORLD, &wme);
  CHECK_MPI(MPI_Allgather(&wme, 1, MPI_INT, world, 1, MPI_INT, c));
  for (int r = 0; r < p; ++r)
    CHECK(r == me ? world[r] == wme : 1, "%s: allgather of world ranks wrong", what);

  const int counts[] = {1, 7, 20000};
  for (int ci = 0; ci < 3; ++ci) {
    const int n = counts[ci];
    int *in = malloc(sizeof(int) * n), *out = malloc(sizeof(int) * n);
    double *din = malloc(sizeof(double) * n), *dout = malloc(sizeof(double) * n);
    unsigned *uin = malloc(sizeof(unsigned) * n), *uout = malloc(sizeof(unsigned) * n);
    for (int i = 0; i < n; ++i) {
      in[i] = ival(wme, i);
      din[i] = (double)ival(wme, i + 3) * 0.5;
      uin[i] = (unsigned)(wme * 2654435761u + (unsigned)i * 40503u);
    }
    /* integer sum, not in place and in place */
    CHECK_MPI(MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, c));
    for (int i = 0; i < n; ++i) {
      long long s = 0;
      for (int r = 0; r < p; ++r)
        s += ival(world[r], i);
      CHECK(out[i] == s, "%s: allreduce sum n=%d [%d] = %d, want %lld", what, n, i, out[i], s);
    }
    memcpy(out, in, sizeof(int) * n);
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, out, n, MPI_INT, MPI_MIN, c));
    for (int i = 0; i < n; ++i) {
      int m = ival(world[0], i);
      for (int r = 1; r < p; ++r)
        m = ival(world[r], i) < m ? ival(world[r], i) : m;
      CHECK(out[i] == m, "%s: in-place allreduce min n=%d [%d] = %d, want %d", what, n, i, out[i],
            m);
    }
    /* floating max, bitwise xor, logical and */
    CHECK_MPI(MPI_Allreduce(din, dout, n, MPI_DOUBLE, MPI_MAX, c));
    CHECK_MPI(MPI_Allreduce(uin, uout, n, MPI_UNSIGNED, MPI_BXOR, c));
    for (int i = 0; i < n; ++i) {
      double m = (double)ival(world[0], i + 3) * 0.5;
      unsigned x = 0;
      for (int r = 0; r < p; ++r) {
        double v = (double)ival(world[r], i + 3) * 0.5;
        m = v > m ? v : m;
        x ^= (unsigned)(world[r] * 2654435761u + (unsigned)i * 40503u);
      }
      CHECK(dout[i] == m, "%s: allreduce max double n=%d [%d]", what, n, i);
      CHECK(uout[i] == x, "%s: allreduce bxor n=%d [%d]", what, n, i);
    }
    for (int i = 0; i < n; ++i)
      in[i] = (wme + i) % (p + 1) != 0;
    CHECK_MPI(MPI_Allreduce(in, out, n, MPI_INT, MPI_LAND, c));
    for (int i = 0; i < n; ++i) {
      int a = 1;
      for (int r = 0; r < p; ++r)
        a = a && (world[r] + i) % (p + 1) != 0;
      CHECK(out[i] == a, "%s: allreduce land n=%d [%d]", what, n, i);
    }
    /* reduce (sum, in place at the root) and bcast at every root */
    for (int root = 0; root < p; ++root) {
      for (int i = 0; i < n; ++i)
        in[i] = ival(wme, i + root);
      if (me == root) {
        memcpy(out, in, sizeof(int) * n);
        CHECK_MPI(MPI_Reduce(MPI_IN_PLACE, out, n, MPI_INT, MPI_SUM, root, c));
        for (int i = 0; i < n; ++i) {
          long long s = 0;
          for (int r = 0; r < p; ++r)
            s += ival(world[r], i + root);
          CHECK(out[i] == s, "%s: reduce root %d n=%d [%d]", what, root, n, i);
        }
      } else {
        CHECK_MPI(MPI_Reduce(in, NULL, n, MPI_INT, MPI_SUM, root, c));
      }
      for (int i = 0; i < n; ++i)
        out[i] = me == root ? ival(root, i) : -1;
      CHECK_MPI(MPI_Bcast(out, n, MPI_INT, root, c));
      for (int i = 0; i < n; ++i)
        CHECK(out[i] == ival(root, i), "%s: bcast root %d n=%d [%d]", what, root, n, i);
    }
    free(in), free(out), free(din), free(dout), free(uin), free(uout);
  }

  /* MAXLOC on MPI_DOUBLE_INT */
  {
    struct {
      double v;
      int i;
    } a[3], b[3];
    for (int k = 0; k < 3; ++k)
      a[k].v = (double)((wme * 13 + k * 5) % 7), a[k].i = wme;
    CHECK_MPI(MPI_Allreduce(a, b, 3, MPI_DOUBLE_INT, MPI_MAXLOC, c));
    for (int k = 0; k < 3; ++k) {
      double best = -1;
      int at = -1;
      for (int r = 0; r < p; ++r) {
        double v = (double)((world[r] * 13 + k * 5) % 7);
        if (v > best || (v == best && world[r] < at)) best = v, at = world[r];
      }
      CHECK(b[k].v == best && b[k].i == at, "%s: maxloc [%d] = (%g,%d), want (%g,%d)", what, k,
            b[k].v, b[k].i, best, at);
    }
  }

  /* Past the chunk of the combine (8 KiB of the accumulator, src/coll/pe_coll.cpp) with counts
     that leave a partial last chunk: MAXLOC on MPI_DOUBLE_INT (12 packed bytes, not a divisor of
     the chunk), in place and not; MPI_SHORT sum with an odd count (the vector loops' tails) */
  {
    const int n = 5003;
    struct di {
      double v;
      int i;
    } *a = malloc(sizeof(struct di) * n), *b = malloc(sizeof(struct di) * n);
    for (int k = 0; k < n; ++k)
      a[k].v = (double)((wme * 29 + k * 7) % 11), a[k].i = wme;
    for (int inplace = 0; inplace < 2; ++inplace) {
      if (inplace) memcpy(b, a, sizeof(struct di) * n);
      CHECK_MPI(
          MPI_Allreduce(inplace ? MPI_IN_PLACE : (void *)a, b, n, MPI_DOUBLE_INT, MPI_MAXLOC, c));
      for (int k = 0; k < n; ++k) {
        double best = -1;
        int at = -1;
        for (int r = 0; r < p; ++r) {
          double v = (double)((world[r] * 29 + k * 7) % 11);
          if (v > best || (v == best && world[r] < at)) best = v, at = world[r];
        }
        CHECK(b[k].v == best && b[k].i == at,
              "%s: maxloc n=%d in_place=%d [%d] = (%g,%d), want (%g,%d)", what, n, inplace, k,
              b[k].v, b[k].i, best, at);
      }
    }
    free(a), free(b);
    const int m = 70001;
    short *s = malloc(sizeof(short) * m);
    for (int k = 0; k < m; ++k)
      s[k] = (short)((wme * 3 + k) % 97);
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, s, m, MPI_SHORT, MPI_SUM, c));
    for (int k = 0; k < m; ++k) {
      int want = 0;
      for (int r = 0; r < p; ++r)
        want += (world[r] * 3 + k) % 97;
      CHECK(s[k] == (short)want, "%s: short sum n=%d [%d] = %d, want %d", what, m, k, s[k], want);
    }
    free(s);
  }

  /* non-commutative user operation: allreduce, and reduce at every root, in rank order */
  {
    MPI_Op op;
    CHECK_MPI(MPI_Op_create(matmul_op, 0, &op));
    const int sizes[] = {1, 3000};
    for (int si = 0; si < 2; ++si) {
      const int nm = sizes[si];
      long long *in = malloc(sizeof(long long) * 4 * nm), *out = malloc(sizeof(long long) * 4 * nm);
      long long *want = malloc(sizeof(long long) * 4 * nm);
      for (int k = 0; k < nm; ++k) {
        long long m[4];
        rank_matrix(wme, k, in + 4 * k);
        want[4 * k] = 1, want[4 * k + 1] = 0, want[4 * k + 2] = 0, want[4 * k + 3] = 1;
        for (int r = 0; r < p; ++r) {
          rank_matrix(world[r], k, m);
          matmul(want + 4 * k, m, want + 4 * k);
        }
      }
      CHECK_MPI(MPI_Allreduce(in, out, 4 * nm, MPI_LONG_LONG, op, c));
      for (int k = 0; k < 4 * nm; ++k)
        CHECK(out[k] == want[k], "%s: non-commutative allreduce (%d matrices) [%d]", what, nm, k);
      for (int root = 0; root < p; ++root) {
        memset(out, 0, sizeof(long long) * 4 * nm);
        CHECK_MPI(MPI_Reduce(in, me == root ? out : NULL, 4 * nm, MPI_LONG_LONG, op, root, c));
        if (me == root)
          for (int k = 0; k < 4 * nm; ++k)
            CHECK(out[k] == want[k], "%s: non-commutative reduce root %d [%d]", what, root, k);
      }
      free(in), free(out), free(want);
    }
    CHECK_MPI(MPI_Op_free(&op));
  }

  /* gather at every root (in place at the root), allgather (in place and not) */
  {
    const int blocks[] = {3, 5000};
    for (int bi = 0; bi < 2; ++bi) {
      const int b = blocks[bi];
      int *mine = malloc(sizeof(int) * b), *all = malloc(sizeof(int) * b * p);
      for (int i = 0; i < b; ++i)
        mine[i] = ival(wme, i);
      for (int root = 0; root < p; ++root) {
        if (me == root) {
          for (int i = 0; i < b * p; ++i)
            all[i] = -7;
          memcpy(all + me * b, mine, sizeof(int) * b);
          CHECK_MPI(MPI_Gather(MPI_IN_PLACE, b, MPI_INT, all, b, MPI_INT, root, c));
          for (int r = 0; r < p; ++r)
            for (int i = 0; i < b; ++i)
              CHECK(all[r * b + i] == ival(world[r], i), "%s: gather root %d block %d [%d]", what,
                    root, r, i);
        } else {
          CHECK_MPI(MPI_Gather(mine, b, MPI_INT, NULL, 0, MPI_INT, root, c));
        }
      }
      for (int i = 0; i < b * p; ++i)
        all[i] = -7;
      CHECK_MPI(MPI_Allgather(mine, b, MPI_INT, all, b, MPI_INT, c));
      for (int r = 0; r < p; ++r)
        for (int i = 0; i < b; ++i)
          CHECK(all[r * b + i] == ival(world[r], i), "%s: allgather block %d [%d]", what, r, i);
      for (int i = 0; i < b * p; ++i)
        all[i] = -7;
      memcpy(all + me * b, mine, sizeof(int) * b);
      CHECK_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, b, MPI_INT, c));
      for (int r = 0; r < p; ++r)
        for (int i = 0; i < b; ++i)
          CHECK(all[r * b + i] == ival(world[r], i), "%s: in-place allgather block %d [%d]", what,
                r, i);
      free(mine), free(all);
    }
  }

  /* a strided datatype: every other int of 2n ints, summed */
  {
    enum { N = 100 };
    int in[2 * N], out[2 * N];
    MPI_Datatype vec;
    CHECK_MPI(MPI_Type_vector(N, 1, 2, MPI_INT, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    for (int i = 0; i < 2 * N; ++i)
      in[i] = ival(wme, i), out[i] = -5;
    CHECK_MPI(MPI_Allreduce(in, out, 1, vec, MPI_SUM, c));
    for (int i = 0; i < 2 * N; ++i) {
      long long s = 0;
      for (int r = 0; r < p; ++r)
        s += ival(world[r], i);
      CHECK(i % 2 ? out[i] == -5 : out[i] == s, "%s: vector-type allreduce [%d] = %d", what, i,
            out[i]);
    }
    CHECK_MPI(MPI_Type_free(&vec));
  }

  /* non-blocking instances in flight together, with a blocking one and a barrier among them,
     completed in reverse order */
  {
    enum { K = 4, N = 600 };
    int in[K][N], out[K][N], bc[N], ag[8], bl[N];
    MPI_Request req[K + 2];
    int *agall = malloc(sizeof(int) * 8 * p);
    for (int k = 0; k < K; ++k) {
      for (int i = 0; i < N; ++i)
        in[k][i] = ival(wme, i + k);
      CHECK_MPI(MPI_Iallreduce(in[k], out[k], N, MPI_INT, MPI_SUM, c, &req[k]));
    }
    for (int i = 0; i < N; ++i)
      bc[i] = me == p - 1 ? ival(1000, i) : 0;
    CHECK_MPI(MPI_Ibcast(bc, N, MPI_INT, p - 1, c, &req[K]));
    for (int i = 0; i < 8; ++i)
      ag[i] = ival(wme, i);
    CHECK_MPI(MPI_Iallgather(ag, 8, MPI_INT, agall, 8, MPI_INT, c, &req[K + 1]));
    CHECK_MPI(MPI_Allreduce(in[0], bl, N, MPI_INT, MPI_MAX, c));
    CHECK_MPI(MPI_Barrier(c));
    for (int k = K + 1; k >= 0; --k)
      CHECK_MPI(MPI_Wait(&req[k], MPI_STATUS_IGNORE));
    for (int i = 0; i < N; ++i) {
      int m = ival(world[0], i);
      for (int r = 0; r < p; ++r)
        m = ival(world[r], i) > m ? ival(world[r], i) : m;
      CHECK(bl[i] == m, "%s: blocking allreduce among non-blocking ones [%d]", what, i);
      CHECK(bc[i] == ival(1000, i), "%s: ibcast [%d]", what, i);
      for (int k = 0; k < K; ++k) {
        long long s = 0;
        for (int r = 0; r < p; ++r)
          s += ival(world[r], i + k);
        CHECK(out[k][i] == s, "%s: iallreduce %d [%d]", what, k, i);
      }
    }
    for (int r = 0; r < p; ++r)
      for (int i = 0; i < 8; ++i)
        CHECK(agall[r * 8 + i] == ival(world[r], i), "%s: iallgather block %d", what, r);
    free(agall);
  }
  free(world);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  check_comm(MPI_COMM_WORLD, "world");
  for (int rep = 0; rep < 3; ++rep)
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  MPI_Comm rev, inter, half;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, &rev));
  check_comm(rev, "reversed");
  /* interleave the two halves of the world: with block placement over two processes, consecutive
     ranks alternate between the processes */
  const int h = (size + 1) / 2;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, rank < h ? 2 * rank : 2 * (rank - h) + 1, &inter));
  check_comm(inter, "interleaved");
  /* two sub-communicators from one split (one context id), busy at the same time */
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
  check_comm(half, rank % 2 ? "odd half" : "even half");
  CHECK_MPI(MPI_Comm_free(&rev));
  CHECK_MPI(MPI_Comm_free(&inter));
  CHECK_MPI(MPI_Comm_free(&half));
  mt_ok("coll_pe");
  MPI_Finalize();
  return 0;
}
