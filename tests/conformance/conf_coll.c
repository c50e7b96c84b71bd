/* tests/conformance/conf_coll.c — every blocking collective of MPI-4.1 chapter 6 on an
 * intracommunicator, checked against values computed locally; the predefined reductions on the
 * char types (C integers, 6.9.2) and MINLOC/MAXLOC on every value-index pair type, ties included
 * (the lowest index wins, 6.9.4). */
#include "../mpi/mpitest.h"

#include <stddef.h>

#define PAIR_CHECK(TYPE, CTYPE, VT, MPI_T)                                                         \
  do {                                                                                             \
    struct {                                                                                       \
      VT value;                                                                                    \
      int index;                                                                                   \
    } in[2], out[2];                                                                               \
    in[0].value = (VT)(rank % 2); /* ties: every even rank has 0, every odd 1 */                   \
    in[0].index = rank;                                                                            \
    in[1].value = (VT)(size - rank); /* unique: rank 0 has the largest */                          \
    in[1].index = rank;                                                                            \
    CHECK_MPI(MPI_Allreduce(in, out, 2, MPI_T, MPI_MINLOC, MPI_COMM_WORLD));                       \
    CHECK(out[0].value == (VT)0 && out[0].index == 0, TYPE " MINLOC tie: value %g index %d",       \
          (double)out[0].value, out[0].index);                                                     \
    CHECK(out[1].value == (VT)1 && out[1].index == size - 1, TYPE " MINLOC: index %d",             \
          out[1].index);                                                                           \
    CHECK_MPI(MPI_Allreduce(in, out, 2, MPI_T, MPI_MAXLOC, MPI_COMM_WORLD));                       \
    CHECK(out[0].value == (VT)(size > 1) && out[0].index == (size > 1),                            \
          TYPE " MAXLOC tie: value %g index %d", (double)out[0].value, out[0].index);              \
    CHECK(out[1].value == (VT)size && out[1].index == 0, TYPE " MAXLOC: index %d", out[1].index);  \
  } while (0)

static void pairs(int rank, int size) {
  PAIR_CHECK("MPI_SHORT_INT", short_int, short, MPI_SHORT_INT);
  PAIR_CHECK("MPI_2INT", two_int, int, MPI_2INT);
  PAIR_CHECK("MPI_LONG_INT", long_int, long, MPI_LONG_INT);
  PAIR_CHECK("MPI_FLOAT_INT", float_int, float, MPI_FLOAT_INT);
  PAIR_CHECK("MPI_DOUBLE_INT", double_int, double, MPI_DOUBLE_INT);
  PAIR_CHECK("MPI_LONG_DOUBLE_INT", ld_int, long double, MPI_LONG_DOUBLE_INT);
  /* Through MPI_Reduce too (a root, not every rank). */
  struct {
    short v;
    int i;
  } a = {(short)(rank / 2), rank}, b = {-1, -1};
  CHECK_MPI(MPI_Reduce(&a, &b, 1, MPI_SHORT_INT, MPI_MAXLOC, 0, MPI_COMM_WORLD));
  if (rank == 0)
    CHECK(b.v == (size - 1) / 2 && b.i == ((size - 1) / 2) * 2, "Reduce MAXLOC short: %d at %d",
          b.v, b.i);
}

static void char_ops(int rank, int size) {
  signed char sc = 1, scr = 0;
  unsigned char uc = (unsigned char)(rank + 1), ucr = 0;
  char c = 1, cr = 0;
  CHECK_MPI(MPI_Allreduce(&sc, &scr, 1, MPI_SIGNED_CHAR, MPI_SUM, MPI_COMM_WORLD));
  CHECK(scr == size, "MPI_SUM on MPI_SIGNED_CHAR: %d", scr);
  CHECK_MPI(MPI_Allreduce(&c, &cr, 1, MPI_CHAR, MPI_PROD, MPI_COMM_WORLD));
  CHECK(cr == 1, "MPI_PROD on MPI_CHAR: %d", cr);
  CHECK_MPI(MPI_Allreduce(&uc, &ucr, 1, MPI_UNSIGNED_CHAR, MPI_MAX, MPI_COMM_WORLD));
  CHECK(ucr == size, "MPI_MAX on MPI_UNSIGNED_CHAR: %d", ucr);
  CHECK_MPI(MPI_Allreduce(&uc, &ucr, 1, MPI_UNSIGNED_CHAR, MPI_BOR, MPI_COMM_WORLD));
  unsigned char want = 0;
  for (int r = 0; r < size; ++r)
    want |= (unsigned char)(r + 1);
  CHECK(ucr == want, "MPI_BOR on MPI_UNSIGNED_CHAR: %d, not %d", ucr, want);
}

static void all_collectives(int rank, int size) {
  int *sbuf = malloc(sizeof(int) * (size_t)size * 2),
      *rbuf = malloc(sizeof(int) * (size_t)size * 2);
  int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
  int v;
  CHECK(sbuf && rbuf && counts && displs, "malloc");
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  for (int root = 0; root < size; root += (size > 3 ? size / 3 : 1)) {
    v = rank == root ? 42 + root : -1;
    CHECK_MPI(MPI_Bcast(&v, 1, MPI_INT, root, MPI_COMM_WORLD));
    CHECK(v == 42 + root, "Bcast from %d: %d", root, v);
    v = rank;
    int sum = -1;
    CHECK_MPI(MPI_Reduce(&v, &sum, 1, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
    if (rank == root) CHECK(sum == size * (size - 1) / 2, "Reduce to %d: %d", root, sum);
    /* Gather / Scatter */
    CHECK_MPI(MPI_Gather(&v, 1, MPI_INT, rbuf, 1, MPI_INT, root, MPI_COMM_WORLD));
    if (rank == root)
      for (int i = 0; i < size; ++i)
        CHECK(rbuf[i] == i, "Gather[%d] = %d", i, rbuf[i]);
    for (int i = 0; i < size; ++i)
      sbuf[i] = i * 3;
    int got = -1;
    CHECK_MPI(MPI_Scatter(sbuf, 1, MPI_INT, &got, 1, MPI_INT, root, MPI_COMM_WORLD));
    CHECK(got == rank * 3, "Scatter: %d", got);
    /* Gatherv / Scatterv: rank i contributes i % 2 + 1 ints. */
    int n = rank % 2 + 1, off = 0;
    for (int i = 0; i < size; ++i) {
      counts[i] = i % 2 + 1;
      displs[i] = off;
      off += counts[i];
    }
    int mine[2] = {rank, rank};
    CHECK_MPI(MPI_Gatherv(mine, n, MPI_INT, rbuf, counts, displs, MPI_INT, root, MPI_COMM_WORLD));
    if (rank == root)
      for (int i = 0; i < size; ++i)
        for (int k = 0; k < counts[i]; ++k)
          CHECK(rbuf[displs[i] + k] == i, "Gatherv from %d: %d", i, rbuf[displs[i] + k]);
    for (int i = 0; i < off; ++i)
      sbuf[i] = i;
    int two[2] = {-1, -1};
    CHECK_MPI(MPI_Scatterv(sbuf, counts, displs, MPI_INT, two, n, MPI_INT, root, MPI_COMM_WORLD));
    for (int k = 0; k < n; ++k)
      CHECK(two[k] == displs[rank] + k, "Scatterv: %d", two[k]);
  }
  v = rank + 1;
  int r = 0;
  CHECK_MPI(MPI_Allreduce(&v, &r, 1, MPI_INT, MPI_PROD, MPI_COMM_WORLD));
  int fact = 1;
  for (int i = 1; i <= size; ++i)
    fact *= i;
  CHECK(r == fact, "Allreduce PROD: %d", r);
  CHECK_MPI(MPI_Scan(&v, &r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(r == (rank + 1) * (rank + 2) / 2, "Scan: %d", r);
  r = -7;
  CHECK_MPI(MPI_Exscan(&v, &r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  if (rank > 0) CHECK(r == rank * (rank + 1) / 2, "Exscan: %d", r);
  CHECK_MPI(MPI_Allgather(&rank, 1, MPI_INT, rbuf, 1, MPI_INT, MPI_COMM_WORLD));
  for (int i = 0; i < size; ++i)
    CHECK(rbuf[i] == i, "Allgather[%d] = %d", i, rbuf[i]);
  for (int i = 0; i < size; ++i) {
    counts[i] = 1;
    displs[i] = size - 1 - i; /* reversed placement */
  }
  CHECK_MPI(MPI_Allgatherv(&rank, 1, MPI_INT, rbuf, counts, displs, MPI_INT, MPI_COMM_WORLD));
  for (int i = 0; i < size; ++i)
    CHECK(rbuf[size - 1 - i] == i, "Allgatherv: %d", rbuf[size - 1 - i]);
  for (int i = 0; i < size; ++i)
    sbuf[i] = rank * 100 + i;
  CHECK_MPI(MPI_Alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, MPI_COMM_WORLD));
  for (int i = 0; i < size; ++i)
    CHECK(rbuf[i] == i * 100 + rank, "Alltoall[%d] = %d", i, rbuf[i]);
  for (int i = 0; i < size; ++i) {
    counts[i] = 1;
    displs[i] = i;
  }
  CHECK_MPI(
      MPI_Alltoallv(sbuf, counts, displs, MPI_INT, rbuf, counts, displs, MPI_INT, MPI_COMM_WORLD));
  for (int i = 0; i < size; ++i)
    CHECK(rbuf[i] == i * 100 + rank, "Alltoallv[%d] = %d", i, rbuf[i]);
  {
    int *bd = malloc(sizeof(int) * (size_t)size);
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)size);
    CHECK(bd && types, "malloc");
    for (int i = 0; i < size; ++i) {
      bd[i] = i * (int)sizeof(int);
      types[i] = MPI_INT;
    }
    CHECK_MPI(MPI_Alltoallw(sbuf, counts, bd, types, rbuf, counts, bd, types, MPI_COMM_WORLD));
    for (int i = 0; i < size; ++i)
      CHECK(rbuf[i] == i * 100 + rank, "Alltoallw[%d] = %d", i, rbuf[i]);
    free(bd);
    free(types);
  }
  for (int i = 0; i < size; ++i)
    sbuf[i] = i + rank;
  CHECK_MPI(MPI_Reduce_scatter_block(sbuf, &r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(r == size * rank + size * (size - 1) / 2, "Reduce_scatter_block: %d", r);
  for (int i = 0; i < size; ++i)
    counts[i] = 1;
  CHECK_MPI(MPI_Reduce_scatter(sbuf, &r, counts, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  CHECK(r == rank + size - 1, "Reduce_scatter: %d", r);
  /* MPI_IN_PLACE */
  v = rank;
  CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  CHECK(v == size - 1, "Allreduce in place: %d", v);
  free(sbuf);
  free(rbuf);
  free(counts);
  free(displs);
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  all_collectives(rank, size);
  pairs(rank, size);
  char_ops(rank, size);
  mt_ok("conf_coll");
  MPI_Finalize();
  return 0;
}
