/* tests/comm/comm_create.c — communicator constructors: dup (traffic kept apart), dup_with_info,
 * split (colour and key), split_type, create, create_group (two disjoint groups at once),
 * compare, names, info hints, free, disconnect, get_parent. Expected sizes and ranks are computed
 * by arithmetic on world ranks, and every new communicator is used for an allreduce of the world
 * ranks of its members, checked against the sum computed independently. */
#include "mpitest.h"

#include <unistd.h>

/* Sum over the members of `comm` of their world ranks (an allreduce on comm). */
static int sum_world_ranks(MPI_Comm comm) {
  int me = 0, sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, comm));
  return sum;
}

static void check_members(MPI_Comm comm, int expect_size, int expect_rank, int expect_sum,
                          const char *what) {
  int size = -1, rank = -1;
  CHECK(comm != MPI_COMM_NULL, "%s: got MPI_COMM_NULL", what);
  CHECK_MPI(MPI_Comm_size(comm, &size));
  CHECK_MPI(MPI_Comm_rank(comm, &rank));
  CHECK(size == expect_size, "%s: size %d, expected %d", what, size, expect_size);
  CHECK(rank == expect_rank, "%s: rank %d, expected %d", what, rank, expect_rank);
  CHECK(sum_world_ranks(comm) == expect_sum, "%s: sum of members' world ranks", what);
}

int main(int argc, char **argv) {
  int rank, size, result, len, q;
  char name[MPI_MAX_OBJECT_NAME];
  MPI_Comm dup, split, other;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int all_sum = size * (size - 1) / 2;

  /* ---- names of the predefined communicators ---- */
  CHECK_MPI(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
  CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14, "world name '%s'", name);
  CHECK_MPI(MPI_Comm_get_name(MPI_COMM_SELF, name, &len));
  CHECK(strcmp(name, "MPI_COMM_SELF") == 0 && len == 13, "self name '%s'", name);

  /* ---- dup: congruent, unnamed, traffic kept apart from the parent's ---- */
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  check_members(dup, size, rank, all_sum, "dup");
  CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &result));
  CHECK(result == MPI_IDENT, "compare(world, world)=%d", result);
  CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, dup, &result));
  CHECK(result == MPI_CONGRUENT, "compare(world, dup)=%d", result);
  CHECK_MPI(MPI_Comm_get_name(dup, name, &len));
  CHECK(len == 0 && name[0] == '\0', "a dup has no name, got '%s'", name);
  CHECK_MPI(MPI_Comm_set_name(dup, "my dup"));
  CHECK_MPI(MPI_Comm_get_name(dup, name, &len));
  CHECK(strcmp(name, "my dup") == 0 && len == 6, "dup name '%s'", name);
  {
    /* Same tag, same peers on both communicators; the receive on dup is posted first but must
     * get the message sent on dup, not the one sent earlier on world. */
    const int to = (rank + 1) % size, from = (rank + size - 1) % size;
    int a = 1000 + rank, b = 2000 + rank, ra = -1, rb = -1;
    MPI_Request req[4];
    CHECK_MPI(MPI_Irecv(&rb, 1, MPI_INT, from, 7, dup, &req[0]));
    CHECK_MPI(MPI_Isend(&a, 1, MPI_INT, to, 7, MPI_COMM_WORLD, &req[1]));
    CHECK_MPI(MPI_Isend(&b, 1, MPI_INT, to, 7, dup, &req[2]));
    CHECK_MPI(MPI_Irecv(&ra, 1, MPI_INT, from, 7, MPI_COMM_WORLD, &req[3]));
    CHECK_MPI(MPI_Waitall(4, req, MPI_STATUSES_IGNORE));
    CHECK(ra == 1000 + from && rb == 2000 + from, "world got %d, dup got %d (from %d)", ra, rb,
          from);
  }

  /* ---- split by colour rank % 3, key -rank: members in decreasing world rank ---- */
  {
    const int color = rank % 3;
    int esize = 0, erank = 0, esum = 0;
    for (q = 0; q < size; ++q)
      if (q % 3 == color) {
        ++esize;
        esum += q;
        if (q > rank) ++erank;
      }
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, -rank, &split));
    check_members(split, esize, erank, esum, "split(rank%3, -rank)");
    CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, split, &result));
    CHECK(result == (size <= 1       ? MPI_CONGRUENT
                     : esize == size ? MPI_SIMILAR
                                     : MPI_UNEQUAL),
          "compare(world, split)=%d", result);
    /* The split communicator of a dup gives the same grouping. */
    CHECK_MPI(MPI_Comm_split(dup, color, -rank, &other));
    CHECK_MPI(MPI_Comm_compare(split, other, &result));
    CHECK(result == MPI_CONGRUENT, "compare(split, split of dup)=%d", result);
    CHECK_MPI(MPI_Comm_free(&other));
    CHECK(other == MPI_COMM_NULL, "free sets MPI_COMM_NULL");
    CHECK_MPI(MPI_Comm_free(&split));
  }
  /* Key ties keep the parent's order; one colour: congruent with the parent. */
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 5, 0, &split));
  CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, split, &result));
  CHECK(result == MPI_CONGRUENT, "compare(world, split(5, 0))=%d", result);
  CHECK_MPI(MPI_Comm_free(&split));
  /* MPI_UNDEFINED: odd ranks get MPI_COMM_NULL, even ones a communicator of the even ranks. */
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2 ? MPI_UNDEFINED : 0, rank, &split));
  if (rank % 2) {
    CHECK(split == MPI_COMM_NULL, "an MPI_UNDEFINED colour gives MPI_COMM_NULL");
  } else {
    int esum = 0;
    for (q = 0; q < size; q += 2)
      esum += q;
    check_members(split, (size + 1) / 2, rank / 2, esum, "split(even)");
    CHECK_MPI(MPI_Comm_free(&split));
  }
  CHECK(mt_class(MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &split)) == MPI_ERR_ARG,
        "a negative colour");

  /* ---- split_type: the ranks whose host name is mine (names hashed, gathered by allreduce) ----
   */
  {
    char host[MPI_MAX_PROCESSOR_NAME];
    unsigned h = 5381;
    int esize = 0, erank = 0, esum = 0, i;
    int *hashes = calloc((size_t)size, sizeof(int)), *all = calloc((size_t)size, sizeof(int));
    CHECK_MPI(MPI_Get_processor_name(host, &len));
    CHECK(len == (int)strlen(host) && len > 0, "processor name '%s' (%d)", host, len);
    for (i = 0; host[i]; ++i)
      h = h * 33u + (unsigned char)host[i];
    hashes[rank] = (int)(h & 0x7fffffff);
    CHECK_MPI(MPI_Allreduce(hashes, all, size, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (q = 0; q < size; ++q)
      if (all[q] == all[rank]) {
        ++esize;
        esum += q;
        if (q < rank) ++erank;
      }
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &split));
    check_members(split, esize, erank, esum, "split_type(shared)");
    CHECK_MPI(MPI_Comm_free(&split));
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &split));
    CHECK(split == MPI_COMM_NULL, "split_type(MPI_UNDEFINED)");
    CHECK(mt_class(MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &split)) ==
              MPI_ERR_ARG,
          "an unknown split_type");
    free(hashes);
    free(all);
  }

  /* ---- create: the even world ranks in decreasing order ---- */
  {
    MPI_Group world_group, evens;
    const int n = (size + 1) / 2;
    int *ranks = malloc((size_t)n * sizeof(int)), i, esum = 0;
    for (i = 0; i < n; ++i) {
      ranks[i] = 2 * (n - 1 - i);
      esum += ranks[i];
    }
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
    CHECK_MPI(MPI_Group_incl(world_group, n, ranks, &evens));
    CHECK_MPI(MPI_Comm_create(dup, evens, &split));
    if (rank % 2) {
      CHECK(split == MPI_COMM_NULL, "create: a non-member gets MPI_COMM_NULL");
    } else {
      check_members(split, n, n - 1 - rank / 2, esum, "create(evens reversed)");
      CHECK_MPI(MPI_Comm_free(&split));
    }

    /* create_group: evens and odds at the same time, with the same tag; only members call. */
    {
      MPI_Group mine;
      int m = 0, msum = 0;
      for (q = rank % 2; q < size; q += 2) {
        ranks[m++] = q;
        msum += q;
      }
      CHECK_MPI(MPI_Group_incl(world_group, m, ranks, &mine));
      CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, mine, 42, &split));
      check_members(split, m, rank / 2, msum, "create_group(parity)");
      /* The new communicator's traffic is its own: a dup of it works too. */
      CHECK_MPI(MPI_Comm_dup(split, &other));
      check_members(other, m, rank / 2, msum, "dup of create_group");
      CHECK_MPI(MPI_Comm_free(&other));
      CHECK_MPI(MPI_Comm_free(&split));
      CHECK_MPI(MPI_Group_free(&mine));
      /* Only rank 0 alone: no other rank takes part. */
      if (rank == 0) {
        int zero = 0;
        CHECK_MPI(MPI_Group_incl(world_group, 1, &zero, &mine));
        CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, mine, 0, &split));
        check_members(split, 1, 0, 0, "create_group({0})");
        CHECK_MPI(MPI_Comm_free(&split));
        CHECK_MPI(MPI_Group_free(&mine));
      }
      CHECK(mt_class(MPI_Comm_create_group(MPI_COMM_WORLD, world_group, -1, &split)) == MPI_ERR_TAG,
            "create_group with a negative tag");
    }
    CHECK_MPI(MPI_Group_free(&evens));
    CHECK_MPI(MPI_Group_free(&world_group));
    free(ranks);
  }

  /* ---- info hints: dup_with_info, set_info, get_info ---- */
  {
    MPI_Info info, used;
    char value[MPI_MAX_INFO_VAL + 1];
    int flag = 0, nkeys = -1;
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "ampi_test_hint", "yes"));
    CHECK_MPI(MPI_Comm_dup_with_info(dup, info, &other));
    CHECK_MPI(MPI_Info_free(&info));
    check_members(other, size, rank, all_sum, "dup_with_info");
    CHECK_MPI(MPI_Comm_get_info(other, &used));
    CHECK_MPI(MPI_Info_get(used, "ampi_test_hint", MPI_MAX_INFO_VAL, value, &flag));
    CHECK(flag && strcmp(value, "yes") == 0, "get_info after dup_with_info: flag %d '%s'", flag,
          value);
    CHECK_MPI(MPI_Info_free(&used));
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "second", "2"));
    CHECK_MPI(MPI_Comm_set_info(other, info));
    CHECK_MPI(MPI_Info_free(&info));
    CHECK_MPI(MPI_Comm_get_info(other, &used));
    CHECK_MPI(MPI_Info_get_nkeys(used, &nkeys));
    CHECK(nkeys == 2, "two hints after set_info, got %d", nkeys);
    CHECK_MPI(MPI_Info_free(&used));
    /* A dup keeps the hints; MPI_INFO_NULL means none. */
    CHECK_MPI(MPI_Comm_dup(other, &split));
    CHECK_MPI(MPI_Comm_get_info(split, &used));
    CHECK_MPI(MPI_Info_get_nkeys(used, &nkeys));
    CHECK(nkeys == 2, "a dup keeps the hints, got %d", nkeys);
    CHECK_MPI(MPI_Info_free(&used));
    CHECK_MPI(MPI_Comm_free(&split));
    CHECK_MPI(MPI_Comm_dup_with_info(other, MPI_INFO_NULL, &split));
    CHECK_MPI(MPI_Comm_get_info(split, &used));
    CHECK_MPI(MPI_Info_get_nkeys(used, &nkeys));
    CHECK(nkeys == 0, "dup_with_info(MPI_INFO_NULL) has no hints, got %d", nkeys);
    CHECK_MPI(MPI_Info_free(&used));
    CHECK_MPI(MPI_Comm_free(&split));
    /* disconnect frees like free, collectively. */
    CHECK_MPI(MPI_Comm_disconnect(&other));
    CHECK(other == MPI_COMM_NULL, "disconnect sets MPI_COMM_NULL");
  }

  /* ---- many communicators made and freed: the last one still works ---- */
  {
    int i;
    for (i = 0; i < 100; ++i) {
      CHECK_MPI(MPI_Comm_dup(i % 2 ? dup : MPI_COMM_WORLD, &other));
      if (i % 10 == 0) check_members(other, size, rank, all_sum, "dup in a loop");
      CHECK_MPI(MPI_Comm_free(&other));
    }
  }

  /* ---- errors, and the parent ---- */
  {
    MPI_Comm world = MPI_COMM_WORLD, null = MPI_COMM_NULL, parent = MPI_COMM_WORLD;
    CHECK(mt_class(MPI_Comm_free(&world)) == MPI_ERR_COMM, "freeing MPI_COMM_WORLD");
    CHECK(mt_class(MPI_Comm_dup(null, &other)) == MPI_ERR_COMM, "dup of MPI_COMM_NULL");
    CHECK(mt_class(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &other)) == MPI_ERR_GROUP,
          "create with MPI_GROUP_NULL");
    /* Every communicator is an intracommunicator: the intercommunicator queries reject it. */
    {
      MPI_Group g;
      CHECK(mt_class(MPI_Comm_remote_size(dup, &result)) == MPI_ERR_COMM, "remote_size");
      CHECK(mt_class(MPI_Comm_remote_group(dup, &g)) == MPI_ERR_COMM, "remote_group");
      CHECK(mt_class(MPI_Intercomm_merge(dup, 0, &other)) == MPI_ERR_COMM, "Intercomm_merge");
    }
    CHECK_MPI(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL, "no parent");
    CHECK_MPI(MPI_Comm_test_inter(dup, &result));
    CHECK(result == 0, "an intracommunicator");
  }

  CHECK_MPI(MPI_Comm_free(&dup));
  mt_ok("comm_create");
  MPI_Finalize();
  return 0;
}
