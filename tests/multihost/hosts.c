/* tests/multihost/hosts.c — which ranks share a host: MPI_Get_processor_name,
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) and the host names must agree. Every rank of a
 * shared-memory group has the same processor name, ranks with the same name are in the same
 * group, the name is the host's (gethostname), and there are as many groups as distinct names.
 * With AMPI_MULTIHOST_NHOSTS=H (tests/multihost/multihost_test.sh runs it across H simulated
 * hosts) there must be exactly H groups; without it, one (ampirun starts one host's processes).
 * Point-to-point and a collective inside each group and across groups check that both paths
 * (same host: shared memory; other host: the network) carry data. */
#include "../mpi/mpitest.h"

#include <unistd.h>

int main(int argc, char **argv) {
  char name[MPI_MAX_PROCESSOR_NAME], host[256] = {0}, *all;
  int rank, size, len = 0, nrank, nsize, i, groups = 0, leader, expect = 1, sum = 0;
  MPI_Comm node;
  const char *env = getenv("AMPI_MULTIHOST_NHOSTS");
  (void)argc;
  (void)argv;
  if (env) expect = atoi(env);
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Get_processor_name(name, &len));
  CHECK(gethostname(host, sizeof host - 1) == 0, "gethostname failed");
  CHECK(strcmp(name, host) == 0, "processor name '%s', host name '%s'", name, host);
  CHECK((int)strlen(name) == len, "length %d of '%s'", len, name);

  all = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
  CHECK(all != NULL, "calloc");
  memset(name + len, 0, (size_t)(MPI_MAX_PROCESSOR_NAME - len));
  CHECK_MPI(MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME,
                          MPI_CHAR, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
  CHECK_MPI(MPI_Comm_rank(node, &nrank));
  CHECK_MPI(MPI_Comm_size(node, &nsize));
  {
    /* The group is exactly the world ranks whose name is mine, in world order. */
    int *members = malloc((size_t)nsize * sizeof(int)), same = 0, k = 0;
    CHECK(members != NULL, "malloc");
    CHECK_MPI(MPI_Allgather(&rank, 1, MPI_INT, members, 1, MPI_INT, node));
    for (i = 0; i < size; ++i) {
      if (strcmp(all + (size_t)i * MPI_MAX_PROCESSOR_NAME, name) != 0) continue;
      ++same;
      CHECK(k < nsize && members[k] == i, "world rank %d (on %s) missing from my group of %d", i,
            name, nsize);
      ++k;
    }
    CHECK(same == nsize, "%d ranks on %s, my shared-memory group has %d", same, name, nsize);
    free(members);
  }
  /* Distinct names = groups = expected hosts. */
  for (i = 0; i < size; ++i) {
    int j, first = 1;
    for (j = 0; j < i; ++j)
      if (strcmp(all + (size_t)i * MPI_MAX_PROCESSOR_NAME,
                 all + (size_t)j * MPI_MAX_PROCESSOR_NAME) == 0)
        first = 0;
    groups += first;
  }
  leader = nrank == 0;
  CHECK_MPI(MPI_Allreduce(&leader, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(sum == groups, "%d shared-memory groups, %d distinct host names", sum, groups);
  CHECK(groups == expect, "%d hosts, expected %d", groups, expect);
  {
    /* Data inside the group and around the world ring (crossing hosts where there are several). */
    int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1, gsum = 0;
    CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, right, 7, &got, 1, MPI_INT, left, 7, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    CHECK(got == left, "ring: got %d from %d", got, left);
    CHECK_MPI(MPI_Allreduce(&rank, &gsum, 1, MPI_INT, MPI_SUM, node));
    {
      int expect_sum = 0;
      for (i = 0; i < size; ++i)
        if (strcmp(all + (size_t)i * MPI_MAX_PROCESSOR_NAME, name) == 0) expect_sum += i;
      CHECK(gsum == expect_sum, "sum over my group %d, expected %d", gsum, expect_sum);
    }
  }
  free(all);
  CHECK_MPI(MPI_Comm_free(&node));
  if (rank == 0) printf("ok hosts (%d ranks, %d hosts)\n", size, groups);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
