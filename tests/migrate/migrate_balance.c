/* tests/migrate/migrate_balance.c — an imbalanced program becomes balanced (issue 22): under
 * AMPI_LB=greedy or refine (the environment: busy time is measured only then), the ranks that
 * start on the last PE of their process do HEAVY times the work of the others, so that PE holds
 * nearly all the load. After a migration point the heavy ranks must be spread over the PEs of
 * their process: no PE may hold more than one heavy rank above an even share. Placement, not
 * time, is checked, so a loaded machine does not decide the outcome; a rank preempted during its
 * light work may look heavy in one round, so each round's work and point are repeated (at most
 * ROUNDS) until the placement is even, and the test fails if it never is. Under AMPI_LB=none the
 * same program leaves every heavy rank where it started (checked by the .none variant).
 *
 * Usage: migrate_balance PES EXPECT [ROUNDS]   (EXPECT: "spread" or "stay") */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { kHeavy = 40 }; /* heavy ranks do this many times the light ranks' work */
static const double kLightSeconds = 0.001;

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "rank %d: FAILED %s: ", rank, #cond);                                        \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fprintf(stderr, "\n");                                                                       \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                \
    }                                                                                              \
  } while (0)

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* CPU work without giving the PE to another rank: the busy time the scheduler charges. */
static double spin(double seconds) {
  volatile double x = 0;
  const double end = now() + seconds;
  while (now() < end)
    for (int i = 0; i < 1000; ++i)
      x += 1e-9 * i;
  return x;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3) {
    fprintf(stderr, "usage: migrate_balance PES spread|stay [ROUNDS]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int per = atoi(argv[1]);
  const int spread = strcmp(argv[2], "spread") == 0;
  const int rounds = argc > 3 ? atoi(argv[3]) : 4;
  int pe0;
  MPIX_Get_pe(&pe0);
  const int heavy = pe0 % per == per - 1; /* the last PE of each process holds the heavy ranks */

  int *pes = malloc(2 * (size_t)size * sizeof(int));
  CHECK(pes != NULL, "malloc");
  int even = 0, round = 0;
  for (; round < rounds && !even; ++round) {
    spin(heavy ? kHeavy * kLightSeconds : kLightSeconds);
    MPIX_Migrate(MPI_INFO_NULL);
    int mine[2], pe;
    MPIX_Get_pe(&pe);
    mine[0] = pe;
    mine[1] = heavy;
    MPI_Allgather(mine, 2, MPI_INT, pes, 2, MPI_INT, MPI_COMM_WORLD);
    /* Heavy ranks per PE, and per process (PEs pe / per): every PE of a process must hold at most
     * ceil(heavy ranks of the process / per). */
    int npes = 0;
    for (int w = 0; w < size; ++w)
      if (pes[2 * w] + 1 > npes) npes = pes[2 * w] + 1;
    npes = (npes + per - 1) / per * per;
    int *count = calloc((size_t)npes, sizeof(int));
    CHECK(count != NULL, "calloc");
    for (int w = 0; w < size; ++w)
      if (pes[2 * w + 1]) ++count[pes[2 * w]];
    even = 1;
    int moved = 0;
    for (int q = 0; q < npes / per; ++q) {
      int total = 0, max = 0;
      for (int p = q * per; p < (q + 1) * per; ++p) {
        total += count[p];
        if (count[p] > max) max = count[p];
      }
      if (max > (total + per - 1) / per) even = 0;
      if (count[q * per + per - 1] != total) moved = 1;
    }
    if (!spread) {
      CHECK(!moved, "AMPI_LB=none moved a heavy rank off its PE (round %d)", round);
      even = 0; /* run every round: nobody may ever move */
    }
    free(count);
  }
  if (spread)
    CHECK(even, "the heavy ranks were still not spread over their process's PEs after %d rounds",
          rounds);
  if (rank == 0)
    printf("migrate_balance: %s after %d round(s)\n", spread ? "spread" : "stayed", round);
  free(pes);
  MPI_Finalize();
  return 0;
}
