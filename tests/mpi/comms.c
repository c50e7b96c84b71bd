/* comms: communicators and groups.
 *  - MPI_Comm_split with MPI_UNDEFINED (MPI_COMM_NULL back), colors and keys with ties (ties keep
 *    the parent's order): sizes, ranks and the member order checked with a ring exchange of world
 *    ranks and an Allreduce;
 *  - traffic isolation: the same (source, tag) on MPI_COMM_WORLD, a dup and a dup of the dup,
 *    received in the opposite order, also with ANY_SOURCE/ANY_TAG; collectives on one
 *    communicator while point-to-point messages are pending on another;
 *  - MPI_Comm_compare: IDENT, CONGRUENT (dup; split with one color and ascending keys),
 *    SIMILAR (reversed keys), UNEQUAL (halves; MPI_COMM_SELF);
 *  - names: predefined names, dup has an empty name, set/get per rank, long names truncated;
 *  - MPI_Comm_group, MPI_Group_size/rank/incl/translate_ranks (MPI_PROC_NULL, MPI_UNDEFINED for
 *    non-members), MPI_Group_free;
 *  - MPI_TAG_UB (>= 32767, usable as a tag) through MPI_Comm_get_attr and MPI_Attr_get, also on a
 *    dup; the other predefined attributes of MPI_COMM_WORLD have sane values; MPI_Comm_test_inter;
 *  - 1000 MPI_Comm_dup + MPI_Comm_free in a loop, 100 splits + frees, 64 live dups at once.
 * Works for any number of ranks. */
#include "mpitest.h"

/* ---- split ---- */
static int color_of(int w) {
  return w % 3 == 2 ? MPI_UNDEFINED : w % 3;
}
static int key_of(int w) {
  return (w / 4) % 3;
} /* ties: ranks 0-3 key 0, 4-7 key 1, ... */

static void split_test(int rank, int size) {
  MPI_Comm sub;
  int *members = mt_malloc((size_t)size * sizeof(int)), n = 0, w, i, j, me = -1;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color_of(rank), key_of(rank), &sub));
  if (color_of(rank) == MPI_UNDEFINED) {
    CHECK(sub == MPI_COMM_NULL, "MPI_UNDEFINED color did not give MPI_COMM_NULL");
    free(members);
    return;
  }
  CHECK(sub != MPI_COMM_NULL, "color %d gave MPI_COMM_NULL", color_of(rank));
  for (w = 0; w < size; ++w)
    if (color_of(w) == color_of(rank)) members[n++] = w;
  for (i = 1; i < n; ++i) /* stable insertion sort by key */
    for (j = i; j > 0 && key_of(members[j - 1]) > key_of(members[j]); --j) {
      const int t = members[j];
      members[j] = members[j - 1];
      members[j - 1] = t;
    }
  for (i = 0; i < n; ++i)
    if (members[i] == rank) me = i;
  {
    int csize = -1, crank = -1, left_w = -1, sum = 0, want = 0;
    MPI_Status st;
    CHECK_MPI(MPI_Comm_size(sub, &csize));
    CHECK_MPI(MPI_Comm_rank(sub, &crank));
    CHECK(csize == n && crank == me, "split: size %d rank %d, expected %d %d", csize, crank, n, me);
    /* Ring in the new communicator: the left neighbour is members[me - 1]. */
    CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, (crank + 1) % csize, 5, &left_w, 1, MPI_INT,
                           (crank - 1 + csize) % csize, 5, sub, &st));
    CHECK(left_w == members[(me - 1 + n) % n],
          "split: left neighbour is world rank %d, expected %d", left_w, members[(me - 1 + n) % n]);
    CHECK(st.MPI_SOURCE == (crank - 1 + csize) % csize,
          "split: status source %d is not a rank of "
          "the new communicator",
          st.MPI_SOURCE);
    CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, sub));
    for (i = 0; i < n; ++i)
      want += members[i];
    CHECK(sum == want, "split: sum of world ranks %d, expected %d", sum, want);
  }
  CHECK_MPI(MPI_Comm_free(&sub));
  CHECK(sub == MPI_COMM_NULL, "MPI_Comm_free did not set MPI_COMM_NULL");
  free(members);
}

/* ---- isolation ---- */
static void isolation_test(int rank, int size) {
  const int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  MPI_Comm d1, d2;
  MPI_Request req[3];
  MPI_Status st;
  int out[3], in = -1, k;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d1));
  CHECK_MPI(MPI_Comm_dup(d1, &d2));
  /* Same destination and tag on three communicators, sent world, d1, d2. */
  for (k = 0; k < 3; ++k)
    out[k] = rank * 10 + k;
  CHECK_MPI(MPI_Isend(&out[0], 1, MPI_INT, right, 9, MPI_COMM_WORLD, &req[0]));
  CHECK_MPI(MPI_Isend(&out[1], 1, MPI_INT, right, 9, d1, &req[1]));
  CHECK_MPI(MPI_Isend(&out[2], 1, MPI_INT, right, 9, d2, &req[2]));
  /* A collective on d1 while the point-to-point messages wait (it must not take them). */
  {
    int v = 1, sum = 0;
    CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, d1));
    CHECK(sum == size, "Allreduce on d1 with messages pending: %d", sum);
    CHECK_MPI(MPI_Barrier(d2));
    CHECK_MPI(MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD));
    CHECK(v == 1, "Bcast: %d", v);
  }
  /* Received in the opposite order, with wildcards. */
  CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, d2, &st));
  CHECK(in == left * 10 + 2 && st.MPI_SOURCE == left && st.MPI_TAG == 9,
        "d2 got %d from %d (tag %d), expected %d", in, st.MPI_SOURCE, st.MPI_TAG, left * 10 + 2);
  CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, left, 9, d1, &st));
  CHECK(in == left * 10 + 1, "d1 got %d, expected %d", in, left * 10 + 1);
  CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &st));
  CHECK(in == left * 10, "MPI_COMM_WORLD got %d, expected %d", in, left * 10);
  CHECK_MPI(MPI_Waitall(3, req, MPI_STATUSES_IGNORE));

  /* MPI_COMM_SELF is separate from everything else too. */
  CHECK_MPI(MPI_Isend(&out[0], 1, MPI_INT, rank, 9, MPI_COMM_WORLD, &req[0]));
  CHECK_MPI(MPI_Isend(&out[1], 1, MPI_INT, 0, 9, MPI_COMM_SELF, &req[1]));
  CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &st));
  CHECK(in == out[1] && st.MPI_SOURCE == 0, "MPI_COMM_SELF got %d from %d", in, st.MPI_SOURCE);
  CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, rank, 9, MPI_COMM_WORLD, &st));
  CHECK(in == out[0], "MPI_COMM_WORLD (self message) got %d", in);
  CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));

  CHECK_MPI(MPI_Comm_free(&d2));
  CHECK_MPI(MPI_Comm_free(&d1));
}

/* ---- compare ---- */
static const char *cmp_name(int r) {
  switch (r) {
  case MPI_IDENT:
    return "MPI_IDENT";
  case MPI_CONGRUENT:
    return "MPI_CONGRUENT";
  case MPI_SIMILAR:
    return "MPI_SIMILAR";
  case MPI_UNEQUAL:
    return "MPI_UNEQUAL";
  }
  return "(not a comparison result)";
}

#define EXPECT_CMP(a, b, want)                                                                     \
  do {                                                                                             \
    int r_ = -1;                                                                                   \
    CHECK_MPI(MPI_Comm_compare(a, b, &r_));                                                        \
    CHECK(r_ == (want), "MPI_Comm_compare(%s, %s) = %s, expected %s", #a, #b, cmp_name(r_),        \
          cmp_name(want));                                                                         \
  } while (0)

static void compare_test(int rank, int size) {
  MPI_Comm dup, same, rev, half, world_copy = MPI_COMM_WORLD;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 7, rank, &same));
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 7, size - rank, &rev));
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
  EXPECT_CMP(MPI_COMM_WORLD, MPI_COMM_WORLD, MPI_IDENT);
  EXPECT_CMP(MPI_COMM_WORLD, world_copy, MPI_IDENT);
  EXPECT_CMP(dup, dup, MPI_IDENT);
  EXPECT_CMP(MPI_COMM_WORLD, dup, MPI_CONGRUENT);
  EXPECT_CMP(dup, MPI_COMM_WORLD, MPI_CONGRUENT);
  EXPECT_CMP(same, MPI_COMM_WORLD, MPI_CONGRUENT);
  EXPECT_CMP(same, dup, MPI_CONGRUENT);
  EXPECT_CMP(MPI_COMM_SELF, MPI_COMM_SELF, MPI_IDENT);
  if (size > 1) {
    EXPECT_CMP(rev, MPI_COMM_WORLD, MPI_SIMILAR);
    EXPECT_CMP(MPI_COMM_WORLD, rev, MPI_SIMILAR);
    EXPECT_CMP(half, MPI_COMM_WORLD, MPI_UNEQUAL);
    EXPECT_CMP(MPI_COMM_SELF, MPI_COMM_WORLD, MPI_UNEQUAL);
  } else {
    EXPECT_CMP(rev, MPI_COMM_WORLD, MPI_CONGRUENT);
    EXPECT_CMP(half, MPI_COMM_WORLD, MPI_CONGRUENT);
    EXPECT_CMP(MPI_COMM_SELF, MPI_COMM_WORLD, MPI_CONGRUENT);
  }
  if (size > 2) EXPECT_CMP(half, rev, MPI_UNEQUAL);
  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK_MPI(MPI_Comm_free(&same));
  CHECK_MPI(MPI_Comm_free(&rev));
  CHECK_MPI(MPI_Comm_free(&half));
}

/* ---- names ---- */
static void names_test(int rank) {
  char name[MPI_MAX_OBJECT_NAME], want[MPI_MAX_OBJECT_NAME], longname[3 * MPI_MAX_OBJECT_NAME];
  int len = -1, inter = -1;
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
  CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == (int)strlen(name),
        "name of MPI_COMM_WORLD: '%s' (%d)", name, len);
  CHECK_MPI(MPI_Comm_get_name(MPI_COMM_SELF, name, &len));
  CHECK(strcmp(name, "MPI_COMM_SELF") == 0 && len == (int)strlen(name),
        "name of MPI_COMM_SELF: '%s' (%d)", name, len);
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_MPI(MPI_Comm_get_name(dup, name, &len));
  CHECK(len == 0 && name[0] == '\0', "a dup's name is '%s' (MPI_Comm_dup does not copy names)",
        name);
  /* Names are local: every rank gives its own. */
  snprintf(want, sizeof want, "dup of rank %d", rank);
  CHECK_MPI(MPI_Comm_set_name(dup, want));
  MPI_Barrier(dup);
  CHECK_MPI(MPI_Comm_get_name(dup, name, &len));
  CHECK(strcmp(name, want) == 0 && len == (int)strlen(want), "name '%s' (%d), expected '%s'", name,
        len, want);
  /* A name longer than MPI_MAX_OBJECT_NAME - 1 is truncated. */
  memset(longname, 'n', sizeof longname - 1);
  longname[sizeof longname - 1] = '\0';
  CHECK_MPI(MPI_Comm_set_name(dup, longname));
  CHECK_MPI(MPI_Comm_get_name(dup, name, &len));
  CHECK(len <= MPI_MAX_OBJECT_NAME - 1 && (int)strlen(name) == len && len > 0,
        "long name: length %d", len);
  CHECK(strncmp(name, longname, (size_t)len) == 0, "long name: not a prefix");
  /* Renaming MPI_COMM_WORLD is allowed; the dup keeps its own name. */
  CHECK_MPI(MPI_Comm_set_name(MPI_COMM_WORLD, "world"));
  CHECK_MPI(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
  CHECK(strcmp(name, "world") == 0, "renamed MPI_COMM_WORLD: '%s'", name);
  CHECK_MPI(MPI_Comm_set_name(MPI_COMM_WORLD, "MPI_COMM_WORLD"));
  CHECK_MPI(MPI_Comm_test_inter(dup, &inter));
  CHECK(inter == 0, "MPI_Comm_test_inter(dup) = %d", inter);
  CHECK_MPI(MPI_Comm_free(&dup));
}

/* ---- groups ---- */
static void group_test(int rank, int size) {
  MPI_Group wg, rg, hg;
  MPI_Comm half;
  int *ranks = mt_malloc((size_t)(size + 2) * sizeof(int)),
      *out = mt_malloc((size_t)(size + 2) * sizeof(int)), i, n = -1, r = -1, hsize;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  CHECK_MPI(MPI_Group_size(wg, &n));
  CHECK_MPI(MPI_Group_rank(wg, &r));
  CHECK(n == size && r == rank, "world group: size %d rank %d", n, r);
  /* Reversed: group rank i is world rank size-1-i. */
  for (i = 0; i < size; ++i)
    ranks[i] = size - 1 - i;
  CHECK_MPI(MPI_Group_incl(wg, size, ranks, &rg));
  CHECK_MPI(MPI_Group_size(rg, &n));
  CHECK_MPI(MPI_Group_rank(rg, &r));
  CHECK(n == size && r == size - 1 - rank, "reversed group: size %d rank %d", n, r);
  for (i = 0; i < size; ++i)
    ranks[i] = i;
  ranks[size] = MPI_PROC_NULL;
  CHECK_MPI(MPI_Group_translate_ranks(rg, size + 1, ranks, wg, out));
  for (i = 0; i < size; ++i)
    CHECK(out[i] == size - 1 - i, "translate reversed -> world: %d -> %d", i, out[i]);
  CHECK(out[size] == MPI_PROC_NULL, "translate MPI_PROC_NULL -> %d", out[size]);

  /* The group of the even/odd half: non-members translate to MPI_UNDEFINED. */
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, 0, &half));
  CHECK_MPI(MPI_Comm_group(half, &hg));
  CHECK_MPI(MPI_Group_size(hg, &hsize));
  CHECK(hsize == (size - rank % 2 + 1) / 2, "half group size %d", hsize);
  for (i = 0; i < size; ++i)
    ranks[i] = i;
  CHECK_MPI(MPI_Group_translate_ranks(wg, size, ranks, hg, out));
  for (i = 0; i < size; ++i)
    CHECK(out[i] == (i % 2 == rank % 2 ? i / 2 : MPI_UNDEFINED), "translate world %d -> half: %d",
          i, out[i]);
  /* A group of the other half's members: this rank is not in it. */
  if (size > 1) {
    MPI_Group other;
    int m = 0;
    for (i = 0; i < size; ++i)
      if (i % 2 != rank % 2) ranks[m++] = i;
    CHECK_MPI(MPI_Group_incl(wg, m, ranks, &other));
    CHECK_MPI(MPI_Group_rank(other, &r));
    CHECK(r == MPI_UNDEFINED, "Group_rank of a non-member: %d", r);
    CHECK_MPI(MPI_Group_free(&other));
    CHECK(other == MPI_GROUP_NULL, "MPI_Group_free did not set MPI_GROUP_NULL");
  }
  CHECK_MPI(MPI_Group_free(&hg));
  CHECK_MPI(MPI_Group_free(&rg));
  CHECK_MPI(MPI_Group_free(&wg));
  CHECK(wg == MPI_GROUP_NULL, "MPI_Group_free did not set MPI_GROUP_NULL");
  CHECK_MPI(MPI_Comm_free(&half));
  free(ranks);
  free(out);
}

/* ---- attributes ---- */
static void tag_ub_test(int rank) {
  int *value = NULL, flag = 0, ub, got = -1;
  MPI_Comm dup;
  MPI_Request r;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &flag));
  CHECK(flag && value, "MPI_TAG_UB is not set on MPI_COMM_WORLD");
  ub = *value;
  CHECK(ub >= 32767, "MPI_TAG_UB = %d < 32767", ub);
  value = NULL;
  flag = 0;
  CHECK_MPI(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &value, &flag));
  CHECK(flag && value && *value == ub, "MPI_Attr_get(MPI_TAG_UB) differs");
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  value = NULL;
  flag = 0;
  CHECK_MPI(MPI_Comm_get_attr(dup, MPI_TAG_UB, &value, &flag));
  CHECK(flag && value && *value == ub, "MPI_TAG_UB on a dup differs");
  /* The other predefined attributes of MPI_COMM_WORLD, where set, have sane values. */
  {
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &value, &flag));
    CHECK(!flag || *value == MPI_PROC_NULL || (*value >= 0 && *value < size), "MPI_HOST = %d",
          *value);
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &value, &flag));
    CHECK(!flag || *value == MPI_PROC_NULL || *value == MPI_ANY_SOURCE ||
              (*value >= 0 && *value < size),
          "MPI_IO = %d", *value);
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &value, &flag));
    CHECK(!flag || *value == 0 || *value == 1, "MPI_WTIME_IS_GLOBAL = %d", *value);
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &value, &flag));
    CHECK(!flag || *value >= size, "MPI_UNIVERSE_SIZE = %d < %d", *value, size);
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &value, &flag));
    CHECK(!flag || *value >= 0, "MPI_APPNUM = %d", *value);
  }
  /* The largest tag is usable. */
  CHECK_MPI(MPI_Isend(&rank, 1, MPI_INT, rank, ub, dup, &r));
  CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, rank, ub, dup, MPI_STATUS_IGNORE));
  CHECK(got == rank, "message with tag MPI_TAG_UB: %d", got);
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Comm_free(&dup));
}

/* ---- many communicators ---- */
static void many_test(int rank, int size) {
  MPI_Comm c, live[64];
  int i, sum;
  for (i = 0; i < 1000; ++i) {
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK(c != MPI_COMM_NULL && c != MPI_COMM_WORLD, "dup %d: bad handle", i);
    if (i % 100 == 0) {
      int v = 1;
      CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_SUM, c));
      CHECK(v == size, "dup %d: Allreduce %d", i, v);
    }
    CHECK_MPI(MPI_Comm_free(&c));
    CHECK(c == MPI_COMM_NULL, "dup %d: MPI_Comm_free did not set MPI_COMM_NULL", i);
  }
  for (i = 0; i < 100; ++i) {
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, (rank + i) % 3, -rank, &c));
    CHECK_MPI(MPI_Comm_free(&c));
  }
  /* 64 live at once, each used, freed in another order. */
  for (i = 0; i < 64; ++i)
    CHECK_MPI(MPI_Comm_dup(i == 0 ? MPI_COMM_WORLD : live[i - 1], &live[i]));
  for (i = 0; i < 64; ++i) {
    int j;
    for (j = 0; j < i; ++j)
      CHECK(live[i] != live[j], "two live communicators share a handle");
    sum = i;
    CHECK_MPI(MPI_Bcast(&sum, 1, MPI_INT, size - 1, live[i]));
    CHECK(sum == i, "Bcast on live dup %d: %d", i, sum);
  }
  for (i = 0; i < 64; i += 2)
    CHECK_MPI(MPI_Comm_free(&live[i]));
  for (i = 1; i < 64; i += 2) {
    int v = rank;
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MAX, live[i]));
    CHECK(v == size - 1, "Allreduce on dup %d after others were freed: %d", i, v);
    CHECK_MPI(MPI_Comm_free(&live[i]));
  }
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  split_test(rank, size);
  isolation_test(rank, size);
  compare_test(rank, size);
  names_test(rank);
  group_test(rank, size);
  tag_ub_test(rank);
  many_test(rank, size);

  MPI_Barrier(MPI_COMM_WORLD);
  mt_ok("comms");
  MPI_Finalize();
  return 0;
}
