/* osu/osu_coll.c — the timing loop of our OSU-compatible collective benchmarks (barrier, bcast,
 * reduce, allreduce, allgather, alltoall): per message size, OSU 7's method — each call timed on
 * its own, a barrier between calls, warm-up calls skipped — then the average, minimum and maximum
 * over the ranks of the per-rank mean, printed in OSU 7's columns (-f adds min, max, iterations).
 */
#include "osu_coll.h"
#include "osu_common.h"

#include <stdio.h>

static const char *const names[] = {"osu_barrier",   "osu_bcast",     "osu_reduce",
                                    "osu_allreduce", "osu_allgather", "osu_alltoall"};
static const char *const titles[] = {
    "Barrier Latency Test",   "Broadcast Latency Test",
    "Reduce Latency Test",    "Allreduce Latency Test",
    "Allgather Latency Test", "All-to-All Personalized Exchange Latency Test"};

static void run_once(enum osu_coll_op op, void *s, void *r, size_t size, MPI_Comm comm,
                     int nprocs) {
  (void)nprocs;
  switch (op) {
  case OSU_OP_BARRIER:
    OSU_CHECK(MPI_Barrier(comm));
    break;
  case OSU_OP_BCAST:
    OSU_CHECK(MPI_Bcast(s, (int)size, MPI_CHAR, 0, comm));
    break;
  case OSU_OP_REDUCE:
    OSU_CHECK(MPI_Reduce(s, r, (int)(size / sizeof(float)), MPI_FLOAT, MPI_SUM, 0, comm));
    break;
  case OSU_OP_ALLREDUCE:
    OSU_CHECK(MPI_Allreduce(s, r, (int)(size / sizeof(float)), MPI_FLOAT, MPI_SUM, comm));
    break;
  case OSU_OP_ALLGATHER:
    OSU_CHECK(MPI_Allgather(s, (int)size, MPI_CHAR, r, (int)size, MPI_CHAR, comm));
    break;
  case OSU_OP_ALLTOALL:
    OSU_CHECK(MPI_Alltoall(s, (int)size, MPI_CHAR, r, (int)size, MPI_CHAR, comm));
    break;
  }
}

int osu_coll_main(int argc, char **argv, enum osu_coll_op op) {
  int rank = 0, nprocs = 0;
  osu_opts o;
  const int rc = osu_start(&o, names[op], titles[op], op == OSU_OP_BARRIER ? OSU_BARRIER : OSU_COLL,
                           OSU_PROCS_AT_LEAST_TWO, &argc, &argv, &rank, &nprocs);
  if (rc >= 0) return rc;
  osu_init_device(&o, rank);
  const char place = o.cuda ? 'D' : 'H';
  size_t min = o.min_size, max = o.max_size;
  if (op == OSU_OP_BARRIER) min = max = 0;
  if (op == OSU_OP_REDUCE || op == OSU_OP_ALLREDUCE) {
    if (min < sizeof(float)) min = sizeof(float);
  } else if (min == 0 && op != OSU_OP_BARRIER) {
    min = 1;
  }
  /* Per-rank memory limit (-M): the gathering collectives hold nprocs blocks. */
  const size_t blocks = (op == OSU_OP_ALLGATHER || op == OSU_OP_ALLTOALL) ? (size_t)nprocs : 1;
  if (max * blocks > o.mem_limit) {
    max = o.mem_limit / blocks;
    if (rank == 0)
      fprintf(stderr,
              "Warning! Limiting max message size to: %zu. Increase -M, --mem-limit for "
              "higher message sizes.\n",
              max);
  }
  const size_t sbytes = (op == OSU_OP_ALLTOALL ? max * blocks : max) + sizeof(float);
  const size_t rbytes = max * blocks + sizeof(float);
  char *s = osu_alloc(place, sbytes), *r = osu_alloc(place, rbytes);
  osu_fill(s, place, 1, sbytes);
  osu_fill(r, place, 0, rbytes);
  osu_print_header(&o, rank, 0);
  for (size_t size = min; size <= max; size = size ? size * 2 : 1) {
    const int iters = osu_iters(&o, size), skip = osu_skip(&o, size);
    double timer = 0.0;
    OSU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < iters + skip; ++i) {
      double t0 = MPI_Wtime();
      run_once(op, s, r, size, MPI_COMM_WORLD, nprocs);
      double t1 = MPI_Wtime();
      if (i >= skip) timer += t1 - t0;
      OSU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    }
    double avg = 0, mn = 0, mx = 0;
    osu_coll_stats(timer * 1e6 / iters, MPI_COMM_WORLD, &avg, &mn, &mx);
    osu_print_coll_row(&o, rank, size, avg, mn, mx, iters);
    if (op == OSU_OP_BARRIER) break;
  }
  osu_free(s, place);
  osu_free(r, place);
  OSU_CHECK(MPI_Finalize());
  return 0;
}
