/* tests/comm/comm_groups.c — group constructors and queries: incl, excl, range_incl,
 * range_excl, union, intersection, difference, compare, translate_ranks, size, rank, free, and
 * the errors for bad ranks (MPI_ERR_RANK), bad ranges and arguments (MPI_ERR_ARG) and bad groups
 * (MPI_ERR_GROUP). Each result is compared member by member with a list computed here. The
 * groups are built over a world of any size; the expected lists are made by arithmetic. */
#include "mpitest.h"

/* The world ranks of `g`, in group order, via translate_ranks against the world group. */
static int members(MPI_Group g, MPI_Group world, int *out) {
  int n = 0, i;
  int *ranks;
  CHECK_MPI(MPI_Group_size(g, &n));
  ranks = malloc((size_t)(n + 1) * sizeof(int));
  for (i = 0; i < n; ++i)
    ranks[i] = i;
  CHECK_MPI(MPI_Group_translate_ranks(g, n, ranks, world, out));
  free(ranks);
  return n;
}

static void expect(MPI_Group g, MPI_Group world, const int *want, int n, int my_world_rank,
                   const char *what) {
  int got[512], m, i, r = -2, pos = MPI_UNDEFINED;
  m = members(g, world, got);
  CHECK(m == n, "%s: size %d, expected %d", what, m, n);
  for (i = 0; i < n; ++i) {
    CHECK(got[i] == want[i], "%s: member %d is world rank %d, expected %d", what, i, got[i],
          want[i]);
    if (want[i] == my_world_rank) pos = i;
  }
  CHECK_MPI(MPI_Group_rank(g, &r));
  CHECK(r == pos, "%s: my rank %d, expected %d", what, r, pos);
}

int main(int argc, char **argv) {
  int rank, size, i, n, result;
  int want[512], ranks[512];
  MPI_Group world, a, b, c;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK(size <= 256, "the test is written for up to 256 ranks");
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
  for (i = 0; i < size; ++i)
    want[i] = i;
  expect(world, world, want, size, rank, "world group");

  /* incl: every third rank, in reverse. */
  n = 0;
  for (i = size - 1; i >= 0; --i)
    if (i % 3 == 0) ranks[n++] = i;
  CHECK_MPI(MPI_Group_incl(world, n, ranks, &a));
  expect(a, world, ranks, n, rank, "incl(every third, reversed)");

  /* excl of the same ranks: the others, in world order. */
  CHECK_MPI(MPI_Group_excl(world, n, ranks, &b));
  {
    int m = 0;
    for (i = 0; i < size; ++i)
      if (i % 3) want[m++] = i;
    expect(b, world, want, m, rank, "excl(every third)");
  }

  /* union(a, b): a's members, then b's in b's order; intersection empty; difference = a. */
  CHECK_MPI(MPI_Group_union(a, b, &c));
  {
    int m = 0;
    for (i = 0; i < n; ++i)
      want[m++] = ranks[i];
    for (i = 0; i < size; ++i)
      if (i % 3) want[m++] = i;
    expect(c, world, want, m, rank, "union(a, b)");
    CHECK_MPI(MPI_Group_compare(c, world, &result));
    CHECK(result == (n == 1 ? MPI_IDENT : MPI_SIMILAR), "compare(union, world)=%d", result);
  }
  CHECK_MPI(MPI_Group_free(&c));
  CHECK_MPI(MPI_Group_intersection(a, b, &c));
  CHECK(c == MPI_GROUP_EMPTY, "intersection of disjoint groups is MPI_GROUP_EMPTY");
  CHECK_MPI(MPI_Group_difference(a, b, &c));
  CHECK_MPI(MPI_Group_compare(a, c, &result));
  CHECK(result == MPI_IDENT, "difference(a, b) == a, compare=%d", result);
  CHECK_MPI(MPI_Group_free(&c));
  CHECK_MPI(MPI_Group_difference(world, b, &c)); /* world order */
  {
    int m = 0;
    for (i = 0; i < size; ++i)
      if (i % 3 == 0) want[m++] = i;
    expect(c, world, want, m, rank, "difference(world, b)");
    CHECK_MPI(MPI_Group_compare(a, c, &result));
    CHECK(result == (m <= 1 ? MPI_IDENT : MPI_SIMILAR), "compare(a, world\\b)=%d", result);
  }
  CHECK_MPI(MPI_Group_free(&c));
  CHECK_MPI(MPI_Group_intersection(world, a, &c)); /* world order, a's members */
  CHECK_MPI(MPI_Group_compare(c, a, &result));
  CHECK(result == (n <= 1 ? MPI_IDENT : MPI_SIMILAR), "intersection(world, a)=%d", result);
  CHECK_MPI(MPI_Group_free(&c));
  CHECK_MPI(MPI_Group_compare(a, b, &result));
  CHECK(result == MPI_UNEQUAL, "compare(a, b)=%d", result);

  /* range_incl: {size-1, 0, -2}, the ranks of size-1's parity downwards; when that leaves out
   * rank 0, a second range {0, 0, 5} adds it. */
  {
    int range[2][3] = {{size - 1, 0, -2}, {0, 0, 1}};
    int m = 0, nr = 1;
    for (i = size - 1; i >= 0; i -= 2)
      want[m++] = i;
    if ((size - 1) % 2 == 1) { /* 0 not named yet: add it with a second range */
      range[1][0] = 0;
      range[1][1] = 0;
      range[1][2] = 5;
      want[m++] = 0;
      nr = 2;
    }
    CHECK_MPI(MPI_Group_range_incl(world, nr, range, &c));
    expect(c, world, want, m, rank, "range_incl");
    CHECK_MPI(MPI_Group_free(&c));
    /* range_excl of the same ranges: the rest, in world order. */
    CHECK_MPI(MPI_Group_range_excl(world, nr, range, &c));
    {
      int k = 0, j, named;
      for (i = 0; i < size; ++i) {
        named = 0;
        for (j = 0; j < m; ++j)
          named |= want[j] == i;
        if (!named) ranks[k++] = i;
      }
      if (k == 0)
        CHECK(c == MPI_GROUP_EMPTY, "range_excl of everything is MPI_GROUP_EMPTY");
      else
        expect(c, world, ranks, k, rank, "range_excl");
    }
    if (c != MPI_GROUP_EMPTY) CHECK_MPI(MPI_Group_free(&c));
  }

  /* translate_ranks: MPI_PROC_NULL maps to itself, non-members to MPI_UNDEFINED. */
  {
    int in[3] = {MPI_PROC_NULL, 0, size - 1}, out[3];
    CHECK_MPI(MPI_Group_translate_ranks(world, 3, in, a, out));
    CHECK(out[0] == MPI_PROC_NULL, "translate MPI_PROC_NULL gives %d", out[0]);
    /* in a (every third rank, reversed), world rank 0 is last; size-1 is first iff divisible. */
    CHECK(out[1] == n - 1, "world 0 is a's rank %d, got %d", n - 1, out[1]);
    CHECK(out[2] == ((size - 1) % 3 == 0 ? 0 : MPI_UNDEFINED), "world %d in a: %d", size - 1,
          out[2]);
  }

  /* The empty group: size 0, my rank MPI_UNDEFINED, the identity of set operations. */
  CHECK_MPI(MPI_Group_size(MPI_GROUP_EMPTY, &result));
  CHECK(result == 0, "MPI_GROUP_EMPTY size %d", result);
  CHECK_MPI(MPI_Group_rank(MPI_GROUP_EMPTY, &result));
  CHECK(result == MPI_UNDEFINED, "rank in MPI_GROUP_EMPTY %d", result);
  CHECK_MPI(MPI_Group_union(MPI_GROUP_EMPTY, a, &c));
  CHECK_MPI(MPI_Group_compare(a, c, &result));
  CHECK(result == MPI_IDENT, "union(empty, a) == a");
  CHECK_MPI(MPI_Group_free(&c));
  CHECK_MPI(MPI_Group_incl(world, 0, ranks, &c));
  CHECK(c == MPI_GROUP_EMPTY, "incl of none is MPI_GROUP_EMPTY");

  /* ---- errors ---- */
  {
    int bad[2] = {0, 0}, outr[2];
    int range[1][3] = {{0, size, 1}};
    MPI_Group g = MPI_GROUP_NULL;
    bad[0] = size;
    CHECK(mt_class(MPI_Group_incl(world, 1, bad, &g)) == MPI_ERR_RANK, "incl rank == size");
    bad[0] = 0;
    if (size >= 2)
      CHECK(mt_class(MPI_Group_incl(world, 2, bad, &g)) == MPI_ERR_RANK, "incl a repeated rank");
    bad[0] = -1;
    CHECK(mt_class(MPI_Group_excl(world, 1, bad, &g)) == MPI_ERR_RANK, "excl rank -1");
    CHECK(mt_class(MPI_Group_incl(world, -1, bad, &g)) == MPI_ERR_ARG, "incl n=-1");
    CHECK(mt_class(MPI_Group_range_incl(world, 1, range, &g)) == MPI_ERR_RANK,
          "range_incl past the end");
    range[0][1] = 0;
    range[0][2] = 0;
    CHECK(mt_class(MPI_Group_range_incl(world, 1, range, &g)) == MPI_ERR_ARG, "stride 0");
    range[0][0] = 0;
    range[0][1] = size - 1;
    range[0][2] = -1;
    if (size > 1)
      CHECK(mt_class(MPI_Group_range_excl(world, 1, range, &g)) == MPI_ERR_ARG,
            "a stride going away from last");
    bad[0] = size;
    CHECK(mt_class(MPI_Group_translate_ranks(world, 1, bad, a, outr)) == MPI_ERR_RANK,
          "translate rank == size");
    CHECK(mt_class(MPI_Group_size(MPI_GROUP_NULL, &result)) == MPI_ERR_GROUP,
          "size of MPI_GROUP_NULL");
    CHECK(mt_class(MPI_Group_union(a, MPI_GROUP_NULL, &g)) == MPI_ERR_GROUP,
          "union with MPI_GROUP_NULL");
    CHECK(g == MPI_GROUP_NULL, "no group made by the failed calls");
  }

  CHECK_MPI(MPI_Group_free(&a));
  CHECK(a == MPI_GROUP_NULL, "free sets MPI_GROUP_NULL");
  CHECK_MPI(MPI_Group_free(&b));
  CHECK_MPI(MPI_Group_free(&world));
  mt_ok("comm_groups");
  MPI_Finalize();
  return 0;
}
