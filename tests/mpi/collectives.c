/* collectives: MPI_Barrier, MPI_Bcast, MPI_Reduce, MPI_Allreduce, checked against values
 * computed locally from the formula that produced every rank's contribution.
 *  - Barrier: no rank leaves before the last one entered (MPI_Wtime is one clock here: all
 *    ranks live in one process; MPI_WTIME_IS_GLOBAL is checked first), and many barriers in a
 *    row;
 *  - Bcast from every root: 0, 1, 7, 1000 and 30000 ints (above the eager limit), doubles and
 *    chars; 1 MiB from the first and last root;
 *  - Reduce to every root: MPI_SUM/PROD/MAX/MIN/LAND/BOR/BXOR on MPI_INT, SUM/MAX/MIN on
 *    MPI_DOUBLE and MPI_LONG, BOR/BXOR on MPI_UNSIGNED, LAND/LOR/LXOR, MPI_MINLOC/MPI_MAXLOC on
 *    MPI_2INT and MPI_DOUBLE_INT, with and without MPI_IN_PLACE at the root;
 *  - Reduce of 0 elements, NULL receive buffers at non-root ranks; MPI_Reduce_local and
 *    MPI_Op_commutative with predefined ops;
 *  - Allreduce: counts 0, 1, 7, 1000, 20000 doubles, with and without MPI_IN_PLACE, and 1M
 *    doubles (MPI_IN_PLACE, on MPI_COMM_WORLD); every integer op and MPI_MAXLOC;
 * on MPI_COMM_WORLD, on MPI_Comm_split halves (odd/even), on a split with reversed keys, on
 * MPI_Comm_dup and on MPI_COMM_SELF. Contributions depend on the world rank, so the
 * communicator's rank order is checked too (the expected member list is computed locally). */
#include "mpitest.h"

#include <math.h>

typedef struct {
  MPI_Comm comm;
  const char *name;
  int size, rank;
  int *world; /* world rank of each member, in communicator rank order */
} Comm;

/* ---- contributions ---- */
static int v_sum(int w, int i) {
  return w * 7 + i * 3 - 50;
}
static int v_prod(int w, int i) {
  if ((w * 3 + i) % 11 == 0) return 2;
  return (w + i) % 5 == 0 ? -1 : 1;
}
static int v_mm(int w, int i) {
  return (w * 37 + i * 11) % 101 - 50;
}
static int v_land(int w, int i) {
  return (w + i) % 13 != 0 ? (i % 3) + 1 : 0;
}
static int v_lor(int w, int i) {
  return (w * 5 + i) % 17 == 0 ? i + 1 : 0;
}
static int v_bor(int w, int i) {
  return 1 << ((w + i) % 31);
}
static unsigned v_bxor(int w, int i) {
  return (unsigned)w * 2654435761u ^ (unsigned)i * 40503u;
}
static double v_dbl(int w, int i) {
  return (double)((w * 13 + i * 7) % 1000) * 0.5 - 100.0;
}
static long v_long(int w, int i) {
  return (long)w * 100000L - (long)i * 3L;
}
static int v_loc(int w, int i) {
  return (w * 29 + i * 5) % 17;
} /* many ties */

typedef struct {
  int val, loc;
} IntInt;
typedef struct {
  double val;
  int loc;
} DblInt;

enum {
  OP_SUM,
  OP_PROD,
  OP_MAX,
  OP_MIN,
  OP_LAND,
  OP_LOR,
  OP_LXOR,
  OP_BOR,
  OP_BXOR,
  OP_BAND,
  NINTOPS
};
static MPI_Op int_op(int k) {
  static const MPI_Op ops[NINTOPS] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN,  MPI_LAND,
                                      MPI_LOR, MPI_LXOR, MPI_BOR, MPI_BXOR, MPI_BAND};
  return ops[k];
}
static const char *const kIntOpNames[NINTOPS] = {"SUM", "PROD", "MAX", "MIN",  "LAND",
                                                 "LOR", "LXOR", "BOR", "BXOR", "BAND"};

static int int_contrib(int k, int w, int i) {
  switch (k) {
  case OP_SUM:
    return v_sum(w, i);
  case OP_PROD:
    return v_prod(w, i);
  case OP_MAX:
  case OP_MIN:
    return v_mm(w, i);
  case OP_LAND:
    return v_land(w, i);
  case OP_LOR:
  case OP_LXOR:
    return v_lor(w, i);
  case OP_BOR:
  case OP_BAND:
    return v_bor(w, i) | (k == OP_BAND ? ~(1 << ((w * 3 + i) % 29)) : 0);
  case OP_BXOR:
    return (int)(v_bxor(w, i) & 0x7fffffff);
  }
  return 0;
}

static int int_expected(const Comm *c, int k, int i) {
  int r, acc = int_contrib(k, c->world[0], i);
  for (r = 1; r < c->size; ++r) {
    const int x = int_contrib(k, c->world[r], i);
    switch (k) {
    case OP_SUM:
      acc += x;
      break;
    case OP_PROD:
      acc *= x;
      break;
    case OP_MAX:
      acc = x > acc ? x : acc;
      break;
    case OP_MIN:
      acc = x < acc ? x : acc;
      break;
    case OP_LAND:
      acc = acc && x;
      break;
    case OP_LOR:
      acc = acc || x;
      break;
    case OP_LXOR:
      acc = !acc != !x;
      break;
    case OP_BOR:
      acc |= x;
      break;
    case OP_BXOR:
      acc ^= x;
      break;
    case OP_BAND:
      acc &= x;
      break;
    }
  }
  return acc;
}

/* Logical ops give 0 or 1 (any non-zero for a single contribution, which MPI returns as is).
 * Compare truth values for those. */
static int int_matches(int k, int got, int want, int single) {
  if ((k == OP_LAND || k == OP_LOR || k == OP_LXOR) && !single)
    return (got != 0) == (want != 0) && (got == 0 || got == 1);
  if (k == OP_LAND || k == OP_LOR || k == OP_LXOR) return (got != 0) == (want != 0);
  return got == want;
}

/* ---- Barrier ---- */
static void barrier_test(const Comm *c) {
  int i, flag = 0, *global = NULL, one_clock, len = 0;
  double t_enter, t_exit, max_enter = 0, min_exit = 0, in[1], out[1];
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  /* One clock for all ranks: MPI_WTIME_IS_GLOBAL, or ampi (all ranks in one process). */
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &global, &flag));
  CHECK_MPI(MPI_Get_library_version(version, &len));
  one_clock = (flag && global && *global) || strstr(version, "ampi") != NULL;
  for (i = 0; i < 50; ++i)
    CHECK_MPI(MPI_Barrier(c->comm));
  /* The last rank enters late: it spins until the clock moved (a few microseconds). */
  if (c->rank == c->size - 1) {
    const double t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < 2e-3)
      ;
  }
  t_enter = MPI_Wtime();
  CHECK_MPI(MPI_Barrier(c->comm));
  t_exit = MPI_Wtime();
  in[0] = t_enter;
  CHECK_MPI(MPI_Allreduce(in, out, 1, MPI_DOUBLE, MPI_MAX, c->comm));
  max_enter = out[0];
  in[0] = t_exit;
  CHECK_MPI(MPI_Allreduce(in, out, 1, MPI_DOUBLE, MPI_MIN, c->comm));
  min_exit = out[0];
  if (one_clock)
    CHECK(max_enter <= min_exit,
          "%s: a rank left MPI_Barrier at %.9f before the last one "
          "entered at %.9f",
          c->name, min_exit, max_enter);
}

/* ---- Bcast ---- */
static void bcast_test(const Comm *c) {
  static const int kCounts[] = {0, 1, 7, 1000, 30000};
  int root, k, i;
  int *ibuf = mt_malloc(30000 * sizeof(int));
  double dbuf[5];
  char cbuf[13];
  for (root = 0; root < c->size; ++root) {
    const int wroot = c->world[root];
    for (k = 0; k < 5; ++k) {
      const int n = kCounts[k];
      for (i = 0; i < n; ++i)
        ibuf[i] = c->rank == root ? wroot * 1000 + k * 100 + i : -1;
      CHECK_MPI(MPI_Bcast(ibuf, n, MPI_INT, root, c->comm));
      for (i = 0; i < n; ++i)
        CHECK(ibuf[i] == wroot * 1000 + k * 100 + i,
              "%s: Bcast of %d ints from root %d: element %d = %d", c->name, n, root, i, ibuf[i]);
    }
    for (i = 0; i < 5; ++i)
      dbuf[i] = c->rank == root ? wroot + i * 0.25 : -1.0;
    CHECK_MPI(MPI_Bcast(dbuf, 5, MPI_DOUBLE, root, c->comm));
    for (i = 0; i < 5; ++i)
      CHECK(dbuf[i] == wroot + i * 0.25, "%s: Bcast doubles from %d: %g", c->name, root, dbuf[i]);
    for (i = 0; i < 13; ++i)
      cbuf[i] = c->rank == root ? (char)('a' + (wroot + i) % 26) : '?';
    CHECK_MPI(MPI_Bcast(cbuf, 13, MPI_CHAR, root, c->comm));
    for (i = 0; i < 13; ++i)
      CHECK(cbuf[i] == (char)('a' + (wroot + i) % 26), "%s: Bcast chars from %d", c->name, root);
  }
  /* 1 MiB from the first and the last root. */
  {
    unsigned char *big = mt_malloc(1 << 20);
    int roots[2] = {0, c->size - 1}, j;
    long bad;
    for (j = 0; j < 2; ++j) {
      root = roots[j];
      if (c->rank == root)
        mt_fill(big, 1 << 20, c->world[root], 77);
      else
        memset(big, 0, 1 << 20);
      CHECK_MPI(MPI_Bcast(big, 1 << 20, MPI_BYTE, root, c->comm));
      bad = mt_verify(big, 1 << 20, c->world[root], 77);
      CHECK(bad < 0, "%s: Bcast of 1 MiB from %d: byte %ld differs", c->name, root, bad);
    }
    free(big);
  }
  free(ibuf);
}

/* ---- Reduce ---- */
#define RN 5 /* elements per reduction */
static void reduce_ints(const Comm *c, int root, int in_place) {
  int k, i;
  const int me = c->world[c->rank];
  for (k = 0; k < NINTOPS; ++k) {
    int send[RN], recv[RN];
    for (i = 0; i < RN; ++i) {
      send[i] = int_contrib(k, me, i);
      recv[i] = -999;
    }
    if (in_place && c->rank == root) {
      memcpy(recv, send, sizeof send);
      CHECK_MPI(MPI_Reduce(MPI_IN_PLACE, recv, RN, MPI_INT, int_op(k), root, c->comm));
    } else if (c->rank == root) {
      CHECK_MPI(MPI_Reduce(send, recv, RN, MPI_INT, int_op(k), root, c->comm));
    } else if (in_place) {
      CHECK_MPI(MPI_Reduce(send, recv, RN, MPI_INT, int_op(k), root, c->comm));
    } else {
      /* The receive buffer is not significant at a non-root rank: NULL is fine. */
      CHECK_MPI(MPI_Reduce(send, NULL, RN, MPI_INT, int_op(k), root, c->comm));
    }
    if (c->rank == root) {
      for (i = 0; i < RN; ++i) {
        const int want = int_expected(c, k, i);
        CHECK(int_matches(k, recv[i], want, c->size == 1),
              "%s: Reduce(MPI_%s%s) to root %d: element %d = %d, expected %d", c->name,
              kIntOpNames[k], in_place ? ", MPI_IN_PLACE" : "", root, i, recv[i], want);
      }
    }
    for (i = 0; i < RN; ++i)
      CHECK(in_place && c->rank == root ? 1 : send[i] == int_contrib(k, me, i),
            "%s: Reduce(MPI_%s) modified the send buffer", c->name, kIntOpNames[k]);
  }
}

static void reduce_others(const Comm *c, int root, int in_place) {
  const int me = c->world[c->rank];
  const int isroot = c->rank == root;
  int i, r;
  /* doubles: SUM (the values are multiples of 0.5, so every order gives the same sum), MAX, MIN */
  {
    static const MPI_Op ops[3] = {MPI_SUM, MPI_MAX, MPI_MIN};
    int k;
    for (k = 0; k < 3; ++k) {
      double s[RN], d[RN];
      for (i = 0; i < RN; ++i)
        d[i] = s[i] = v_dbl(me, i);
      CHECK_MPI(MPI_Reduce(in_place && isroot ? MPI_IN_PLACE : s, d, RN, MPI_DOUBLE, ops[k], root,
                           c->comm));
      if (isroot)
        for (i = 0; i < RN; ++i) {
          double want = v_dbl(c->world[0], i);
          for (r = 1; r < c->size; ++r) {
            const double x = v_dbl(c->world[r], i);
            want = k == 0 ? want + x : k == 1 ? (x > want ? x : want) : (x < want ? x : want);
          }
          CHECK(d[i] == want, "%s: Reduce double op %d root %d: %g, expected %g", c->name, k, root,
                d[i], want);
        }
    }
  }
  /* long SUM and MAX */
  {
    long s[RN], d[RN], want;
    for (i = 0; i < RN; ++i)
      d[i] = s[i] = v_long(me, i);
    CHECK_MPI(
        MPI_Reduce(in_place && isroot ? MPI_IN_PLACE : s, d, RN, MPI_LONG, MPI_SUM, root, c->comm));
    if (isroot)
      for (i = 0; i < RN; ++i) {
        for (want = 0, r = 0; r < c->size; ++r)
          want += v_long(c->world[r], i);
        CHECK(d[i] == want, "%s: Reduce long SUM: %ld, expected %ld", c->name, d[i], want);
      }
    for (i = 0; i < RN; ++i)
      d[i] = s[i] = v_long(me, i);
    CHECK_MPI(
        MPI_Reduce(in_place && isroot ? MPI_IN_PLACE : s, d, RN, MPI_LONG, MPI_MAX, root, c->comm));
    if (isroot)
      for (i = 0; i < RN; ++i) {
        for (want = v_long(c->world[0], i), r = 1; r < c->size; ++r)
          if (v_long(c->world[r], i) > want) want = v_long(c->world[r], i);
        CHECK(d[i] == want, "%s: Reduce long MAX: %ld, expected %ld", c->name, d[i], want);
      }
  }
  /* unsigned BXOR and BOR */
  {
    unsigned s[RN], d[RN], want;
    for (i = 0; i < RN; ++i)
      d[i] = s[i] = v_bxor(me, i);
    CHECK_MPI(MPI_Reduce(in_place && isroot ? MPI_IN_PLACE : s, d, RN, MPI_UNSIGNED, MPI_BXOR, root,
                         c->comm));
    if (isroot)
      for (i = 0; i < RN; ++i) {
        for (want = 0, r = 0; r < c->size; ++r)
          want ^= v_bxor(c->world[r], i);
        CHECK(d[i] == want, "%s: Reduce unsigned BXOR: %u, expected %u", c->name, d[i], want);
      }
    for (i = 0; i < RN; ++i)
      d[i] = s[i] = v_bxor(me, i) >> 7;
    CHECK_MPI(MPI_Reduce(in_place && isroot ? MPI_IN_PLACE : s, d, RN, MPI_UNSIGNED, MPI_BOR, root,
                         c->comm));
    if (isroot)
      for (i = 0; i < RN; ++i) {
        for (want = 0, r = 0; r < c->size; ++r)
          want |= v_bxor(c->world[r], i) >> 7;
        CHECK(d[i] == want, "%s: Reduce unsigned BOR: %u, expected %u", c->name, d[i], want);
      }
  }
  /* MINLOC / MAXLOC on MPI_2INT (val = v_loc, loc = world rank: ties go to the smaller loc) */
  {
    IntInt s[RN], d[RN];
    int k;
    for (k = 0; k < 2; ++k) {
      for (i = 0; i < RN; ++i) {
        s[i].val = v_loc(me, i);
        s[i].loc = me;
        d[i] = s[i];
      }
      CHECK_MPI(MPI_Reduce(in_place && isroot ? MPI_IN_PLACE : s, d, RN, MPI_2INT,
                           k ? MPI_MAXLOC : MPI_MINLOC, root, c->comm));
      if (isroot)
        for (i = 0; i < RN; ++i) {
          IntInt want = {v_loc(c->world[0], i), c->world[0]};
          for (r = 1; r < c->size; ++r) {
            const IntInt x = {v_loc(c->world[r], i), c->world[r]};
            const int better = k ? x.val > want.val : x.val < want.val;
            if (better || (x.val == want.val && x.loc < want.loc)) want = x;
          }
          CHECK(d[i].val == want.val && d[i].loc == want.loc,
                "%s: Reduce %s on MPI_2INT root %d element %d: (%d, %d), expected (%d, %d)",
                c->name, k ? "MAXLOC" : "MINLOC", root, i, d[i].val, d[i].loc, want.val, want.loc);
        }
    }
  }
  /* MINLOC / MAXLOC on MPI_DOUBLE_INT */
  {
    DblInt s[RN], d[RN];
    int k;
    for (k = 0; k < 2; ++k) {
      for (i = 0; i < RN; ++i) {
        s[i].val = v_loc(me, i) * 0.5 - 3.0;
        s[i].loc = me;
        d[i] = s[i];
      }
      CHECK_MPI(MPI_Reduce(in_place && isroot ? MPI_IN_PLACE : s, d, RN, MPI_DOUBLE_INT,
                           k ? MPI_MAXLOC : MPI_MINLOC, root, c->comm));
      if (isroot)
        for (i = 0; i < RN; ++i) {
          DblInt want = {v_loc(c->world[0], i) * 0.5 - 3.0, c->world[0]};
          for (r = 1; r < c->size; ++r) {
            const DblInt x = {v_loc(c->world[r], i) * 0.5 - 3.0, c->world[r]};
            const int better = k ? x.val > want.val : x.val < want.val;
            if (better || (x.val == want.val && x.loc < want.loc)) want = x;
          }
          CHECK(d[i].val == want.val && d[i].loc == want.loc,
                "%s: Reduce %s on MPI_DOUBLE_INT root %d element %d: (%g, %d), expected (%g, %d)",
                c->name, k ? "MAXLOC" : "MINLOC", root, i, d[i].val, d[i].loc, want.val, want.loc);
        }
    }
  }
}

static void reduce_test(const Comm *c) {
  int root, in_place;
  /* count 0 */
  for (root = 0; root < c->size; root += (c->size > 3 ? c->size / 3 : 1)) {
    int dummy = 5;
    CHECK_MPI(
        MPI_Reduce(&dummy, c->rank == root ? &dummy : NULL, 0, MPI_INT, MPI_SUM, root, c->comm));
    CHECK(dummy == 5, "%s: Reduce of 0 ints wrote a buffer", c->name);
  }
  for (root = 0; root < c->size; ++root)
    for (in_place = 0; in_place < 2; ++in_place) {
      reduce_ints(c, root, in_place);
      reduce_others(c, root, in_place);
    }
  /* A larger reduction above the eager limit, to the last root. */
  {
    const int n = 50000, me = c->world[c->rank], root2 = c->size - 1;
    int *s = mt_malloc(n * sizeof(int)), *d = mt_malloc(n * sizeof(int)), i, r;
    for (i = 0; i < n; ++i)
      s[i] = v_sum(me, i);
    CHECK_MPI(MPI_Reduce(s, d, n, MPI_INT, MPI_SUM, root2, c->comm));
    if (c->rank == root2)
      for (i = 0; i < n; ++i) {
        int want = 0;
        for (r = 0; r < c->size; ++r)
          want += v_sum(c->world[r], i);
        CHECK(d[i] == want, "%s: Reduce of %d ints: element %d = %d, expected %d", c->name, n, i,
              d[i], want);
      }
    free(s);
    free(d);
  }
}

/* ---- Allreduce ---- */
static double v_big(int w, long i) {
  return (double)((w + i) % 1000);
} /* exact sums */

/* `large`: also 1M doubles (in place only, to keep the run short). */
static void allreduce_test(const Comm *c, int large) {
  static const long kCounts[] = {0, 1, 7, 1000, 20000, 1L << 20};
  const int me = c->world[c->rank];
  int k, r, in_place;
  long i;
  for (k = 0; k < (large ? 6 : 5); ++k) {
    const long n = kCounts[k];
    double *s = mt_malloc((size_t)n * sizeof(double)), *d = mt_malloc((size_t)n * sizeof(double));
    for (in_place = 0; in_place < 2; ++in_place) {
      if (n == (1L << 20) && !in_place) continue;
      for (i = 0; i < n; ++i) {
        s[i] = v_big(me, i);
        d[i] = in_place ? s[i] : -1.0;
      }
      CHECK_MPI(
          MPI_Allreduce(in_place ? MPI_IN_PLACE : s, d, (int)n, MPI_DOUBLE, MPI_SUM, c->comm));
      for (i = 0; i < n; ++i) {
        /* sum over members of ((w + i) % 1000) */
        double want = 0;
        if (i < 4096 || i % 997 == 0 || i == n - 1) {
          for (r = 0; r < c->size; ++r)
            want += v_big(c->world[r], i);
          CHECK(d[i] == want, "%s: Allreduce(SUM%s) of %ld doubles: element %ld = %g, expected %g",
                c->name, in_place ? ", MPI_IN_PLACE" : "", n, i, d[i], want);
        }
      }
    }
    free(s);
    free(d);
  }
  /* Every integer op once, and MAXLOC on MPI_2INT, with MPI_IN_PLACE. */
  for (k = 0; k < NINTOPS; ++k) {
    int buf[RN], j;
    for (j = 0; j < RN; ++j)
      buf[j] = int_contrib(k, me, j);
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, buf, RN, MPI_INT, int_op(k), c->comm));
    for (j = 0; j < RN; ++j)
      CHECK(int_matches(k, buf[j], int_expected(c, k, j), c->size == 1),
            "%s: Allreduce(MPI_%s, MPI_IN_PLACE): element %d = %d, expected %d", c->name,
            kIntOpNames[k], j, buf[j], int_expected(c, k, j));
  }
  {
    IntInt p = {v_loc(me, 0), me}, q, want = {v_loc(c->world[0], 0), c->world[0]};
    CHECK_MPI(MPI_Allreduce(&p, &q, 1, MPI_2INT, MPI_MAXLOC, c->comm));
    for (r = 1; r < c->size; ++r) {
      const IntInt x = {v_loc(c->world[r], 0), c->world[r]};
      if (x.val > want.val || (x.val == want.val && x.loc < want.loc)) want = x;
    }
    CHECK(q.val == want.val && q.loc == want.loc,
          "%s: Allreduce MAXLOC: (%d, %d), expected (%d, %d)", c->name, q.val, q.loc, want.val,
          want.loc);
  }
}

/* ---- local reductions ---- */
static void local_test(void) {
  static const MPI_Op ops[] = {MPI_SUM,  MPI_PROD, MPI_MAX, MPI_MIN,  MPI_LAND,   MPI_LOR,
                               MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC};
  int in[4] = {1, -2, 30, 7}, inout[4] = {10, 20, -30, 7}, i, commute = -1;
  double din[3] = {0.5, -1.5, 2.0}, dio[3] = {4.0, 4.0, 4.0};
  IntInt pin[2] = {{3, 9}, {5, 1}}, pio[2] = {{3, 2}, {4, 0}};
  CHECK_MPI(MPI_Reduce_local(in, inout, 4, MPI_INT, MPI_SUM));
  CHECK(inout[0] == 11 && inout[1] == 18 && inout[2] == 0 && inout[3] == 14,
        "Reduce_local SUM: %d %d %d %d", inout[0], inout[1], inout[2], inout[3]);
  CHECK_MPI(MPI_Reduce_local(in, inout, 4, MPI_INT, MPI_MAX));
  CHECK(inout[0] == 11 && inout[1] == 18 && inout[2] == 30 && inout[3] == 14,
        "Reduce_local MAX: %d %d %d %d", inout[0], inout[1], inout[2], inout[3]);
  CHECK_MPI(MPI_Reduce_local(din, dio, 3, MPI_DOUBLE, MPI_PROD));
  CHECK(dio[0] == 2.0 && dio[1] == -6.0 && dio[2] == 8.0, "Reduce_local PROD: %g %g %g", dio[0],
        dio[1], dio[2]);
  CHECK_MPI(MPI_Reduce_local(pin, pio, 2, MPI_2INT, MPI_MINLOC));
  CHECK(pio[0].val == 3 && pio[0].loc == 2 && pio[1].val == 4 && pio[1].loc == 0,
        "Reduce_local MINLOC: (%d,%d) (%d,%d)", pio[0].val, pio[0].loc, pio[1].val, pio[1].loc);
  CHECK_MPI(MPI_Reduce_local(in, inout, 0, MPI_INT, MPI_SUM));
  for (i = 0; i < (int)(sizeof ops / sizeof ops[0]); ++i) {
    CHECK_MPI(MPI_Op_commutative(ops[i], &commute));
    CHECK(commute == 1, "MPI_Op_commutative of predefined op %d: %d", i, commute);
  }
}

/* ---- communicators ---- */
static void run_all(const Comm *c, int large) {
  int size = -1, rank = -1;
  CHECK_MPI(MPI_Comm_size(c->comm, &size));
  CHECK_MPI(MPI_Comm_rank(c->comm, &rank));
  CHECK(size == c->size && rank == c->rank, "%s: size %d rank %d, expected %d %d", c->name, size,
        rank, c->size, c->rank);
  barrier_test(c);
  bcast_test(c);
  reduce_test(c);
  allreduce_test(c, large);
}

/* Members of the split of MPI_COMM_WORLD by color(w) with key(w), computed locally. */
static void make_split(Comm *c, int wrank, int wsize, int (*color)(int), int (*key)(int),
                       const char *name) {
  int w, n = 0, i, j;
  c->world = mt_malloc((size_t)wsize * sizeof(int));
  for (w = 0; w < wsize; ++w)
    if (color(w) == color(wrank)) c->world[n++] = w;
  /* stable sort by key (ties keep world order) */
  for (i = 1; i < n; ++i)
    for (j = i; j > 0 && key(c->world[j - 1]) > key(c->world[j]); --j) {
      const int t = c->world[j];
      c->world[j] = c->world[j - 1];
      c->world[j - 1] = t;
    }
  c->size = n;
  c->rank = -1;
  for (i = 0; i < n; ++i)
    if (c->world[i] == wrank) c->rank = i;
  c->name = name;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color(wrank), key(wrank), &c->comm));
}

static int parity(int w) {
  return w % 2;
}
static int zero(int w) {
  (void)w;
  return 0;
}
static int ident_key(int w) {
  return w;
}
static int reversed_key(int w) {
  return -w;
}

int main(int argc, char **argv) {
  int rank, size, w;
  Comm world, half, rev, dup, self;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  local_test();
  world.comm = MPI_COMM_WORLD;
  world.name = "MPI_COMM_WORLD";
  world.size = size;
  world.rank = rank;
  world.world = mt_malloc((size_t)size * sizeof(int));
  for (w = 0; w < size; ++w)
    world.world[w] = w;
  run_all(&world, 1);

  make_split(&half, rank, size, parity, ident_key, "split(odd/even)");
  run_all(&half, 0);
  make_split(&rev, rank, size, zero, reversed_key, "split(reversed keys)");
  run_all(&rev, 0);

  dup = world;
  dup.name = "dup(MPI_COMM_WORLD)";
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup.comm));
  run_all(&dup, 0);

  self.comm = MPI_COMM_SELF;
  self.name = "MPI_COMM_SELF";
  self.size = 1;
  self.rank = 0;
  self.world = &rank;
  barrier_test(&self);
  bcast_test(&self);
  reduce_test(&self);

  CHECK_MPI(MPI_Comm_free(&half.comm));
  CHECK_MPI(MPI_Comm_free(&rev.comm));
  CHECK_MPI(MPI_Comm_free(&dup.comm));
  free(half.world);
  free(rev.world);
  free(world.world);

  MPI_Barrier(MPI_COMM_WORLD);
  mt_ok("collectives");
  MPI_Finalize();
  return 0;
}
