/* tests/migrate/migrate_p2p.c — MPIX_Migrate (issue 22): ranks move between the PEs of their
 * process at the migration point and take their messages, requests, globals, thread-locals and
 * communicators along.
 *
 * Usage: migrate_p2p MODE PES [ROUNDS]
 *   MODE rotate: each call asks for the "rotate" strategy (hint ampi_lb): every rank but each PE's
 *               leader must land on another PE of its own process (PES per process);
 *   MODE none:   the strategy is none: nobody moves;
 *   MODE never:  MPIX_Migrate is never called: nobody moves either.
 * Each round: every rank posts receives (MPI_ANY_SOURCE, MPI_ANY_TAG) for a random pattern of
 * messages; the messages are sent just before MPIX_Migrate (so some are still in flight when it
 * starts); after it, every payload and each sender's order are checked, and collectives on
 * MPI_COMM_WORLD and on a communicator split before the first round. At the end, a receive posted
 * before a migration is satisfied by the left neighbour after it. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_value;               /* privatized: one per rank */
static _Thread_local int t_value; /* the program's thread_local: one per rank */

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "rank %d: FAILED %s: ", rank, #cond);                                        \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fprintf(stderr, "\n");                                                                       \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                \
    }                                                                                              \
  } while (0)

static unsigned next(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return (*s >> 16) & 0x7fff;
}

/* Read through a call that the compiler cannot see into: the value after the migration comes from
 * the thread the rank runs on now. */
__attribute__((noinline)) static int read_tls(void) {
  return t_value;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3) {
    fprintf(stderr, "usage: migrate_p2p rotate|none|never PES [ROUNDS]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *mode = argv[1];
  const int per = atoi(argv[2]);
  const int rounds = argc > 3 ? atoi(argv[3]) : 4;
  const int call = strcmp(mode, "never") != 0;
  MPI_Info hints;
  MPI_Info_create(&hints);
  MPI_Info_set(hints, "ampi_lb", strcmp(mode, "rotate") == 0 ? "rotate" : "none");

  int pe0;
  MPIX_Get_pe(&pe0);
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  int half_size;
  MPI_Comm_size(half, &half_size);

  int *cnt = malloc(sizeof(int) * (size_t)size * (size_t)size);
  int moved_total = 0;
  for (int round = 0; round < rounds; ++round) {
    unsigned seed = 1234u + (unsigned)round * 7919u;
    int expect = 0;
    for (int s = 0; s < size; ++s)
      for (int d = 0; d < size; ++d) {
        cnt[s * size + d] = (int)(next(&seed) % 4);
        if (d == rank) expect += cnt[s * size + d];
      }
    int(*in)[4] = malloc(sizeof(int[4]) * (size_t)(expect + 1));
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)(expect + 1));
    for (int i = 0; i < expect; ++i)
      MPI_Irecv(in[i], 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req[i]);
    MPI_Barrier(MPI_COMM_WORLD); /* every receive is posted before any send */
    for (int d = 0; d < size; ++d)
      for (int k = 0; k < cnt[rank * size + d]; ++k) {
        int out[4] = {rank, round, k, rank * 100003 + round * 101 + k};
        MPI_Send(out, 4, MPI_INT, d, k, MPI_COMM_WORLD);
      }
    g_value = rank * 1000 + round;
    t_value = rank * 1000 + round + 7;
    int before, after;
    MPIX_Get_pe(&before);
    if (call) MPIX_Migrate(hints);
    MPIX_Get_pe(&after);
    CHECK(after / per == pe0 / per, "round %d: PE %d is not of the process of PE %d", round, after,
          pe0);
    if (strcmp(mode, "rotate") != 0)
      CHECK(after == pe0, "round %d: moved from PE %d to %d", round, pe0, after);
    moved_total += after != before;
    CHECK(g_value == rank * 1000 + round, "round %d: global %d", round, g_value);
    CHECK(read_tls() == rank * 1000 + round + 7, "round %d: thread_local %d", round, read_tls());

    MPI_Waitall(expect, req, MPI_STATUSES_IGNORE);
    int *last = malloc(sizeof(int) * (size_t)size);
    int *got = calloc((size_t)size, sizeof(int));
    for (int s = 0; s < size; ++s)
      last[s] = -1;
    for (int i = 0; i < expect; ++i) {
      const int s = in[i][0], k = in[i][2];
      CHECK(s >= 0 && s < size && in[i][1] == round, "round %d: message %d from %d of round %d",
            round, i, s, in[i][1]);
      CHECK(in[i][3] == s * 100003 + round * 101 + k, "round %d: payload of %d #%d", round, s, k);
      CHECK(k == last[s] + 1, "round %d: from %d, #%d after #%d (order)", round, s, k, last[s]);
      last[s] = k;
      ++got[s];
    }
    for (int s = 0; s < size; ++s)
      CHECK(got[s] == cnt[s * size + rank], "round %d: %d messages from %d, expected %d", round,
            got[s], s, cnt[s * size + rank]);
    free(last);
    free(got);
    free(in);
    free(req);

    /* Collectives on communicators made before the migration. */
    int sum = 0, hsum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == size * (size - 1) / 2, "round %d: allreduce %d", round, sum);
    MPI_Allreduce(&rank, &hsum, 1, MPI_INT, MPI_SUM, half);
    int want = 0;
    for (int r = rank % 2; r < size; r += 2)
      want += r;
    CHECK(hsum == want, "round %d: allreduce on the split %d, expected %d", round, hsum, want);
    int bval = rank == 0 ? 4242 + round : -1;
    MPI_Bcast(&bval, 1, MPI_INT, 0, half);
    CHECK(rank % 2 != 0 || bval == 4242 + round, "round %d: bcast %d", round, bval);
  }

  /* A receive posted before a migration and satisfied after it, from the left neighbour. */
  int late = -1, token = rank;
  MPI_Request late_req;
  MPI_Irecv(&late, 1, MPI_INT, (rank + size - 1) % size, 5, MPI_COMM_WORLD, &late_req);
  if (call) MPIX_Migrate(hints);
  MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, 5, MPI_COMM_WORLD);
  MPI_Wait(&late_req, MPI_STATUS_IGNORE);
  CHECK(late == (rank + size - 1) % size, "late receive got %d", late);

  int moved_all = 0;
  MPI_Allreduce(&moved_total, &moved_all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (strcmp(mode, "rotate") == 0 && per > 1 && size > per)
    CHECK(moved_all > 0, "nobody moved in %d rounds", rounds);
  if (strcmp(mode, "rotate") != 0) CHECK(moved_all == 0, "%d moves", moved_all);
  free(cnt);
  MPI_Comm_free(&half);
  MPI_Info_free(&hints);
  if (rank == 0) printf("ok migrate_p2p %s: %d moves\n", mode, moved_all);
  MPI_Finalize();
  return 0;
}
