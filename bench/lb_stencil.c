/* bench/lb_stencil.c — an imbalanced 1-D stencil for load balancing (issue 22): rank r of N does
 * w(r) times the base work per iteration, w rising from 1 at rank 0 to 4 at rank N-1 (so with
 * ranks in blocks over 2 PEs, the second PE has 3.25 / 1.75 of the first's work), then exchanges
 * one halo cell with each neighbour; every K iterations it calls AMPI_Migrate, where AMPI's load
 * balancer (AMPI_LB) may move ranks between PEs (with the hint ampi_load_balance=sync, which
 * Charm++'s AMPI needs to balance at all, and ours ignores). Plain MPI otherwise: AMPI_Migrate is a
 * weak symbol, absent (never called) under Open MPI or MPICH, so the same source runs there.
 *
 *   usage: lb_stencil [--iters I] [--every K] [--updates U] [--cells C] [--drift [P]] [--balanced]
 *                     [--verbose]
 *   --updates U  cell updates per iteration of a weight-1 rank in a 16-rank job (default 300000);
 *                scaled by 16 / N, so the job's total work does not depend on N
 *   --drift P    the weights shift by N/4 ranks every P iterations (default 3 K): heavy ranks move
 *   --balanced   every rank does the average weight (2.5): the same total work spread evenly, the
 *                time the balancer aims for
 *
 * Prints one line: time per iteration (ms, the whole run including the migration points / iters),
 * and the PEs' max/avg load (CPU time of the ranks' work, summed per PE) over the first
 * interval of K iterations, the last one, and the mean over intervals. PEs are found again after
 * each migration point: with AMPI_My_pe where it exists (Charm++'s AMPI: the AMPI_MY_WTH
 * attribute), else by MPI_Comm_split_type with MPI_COMM_TYPE_HW_GUIDED and "core" (ours: the
 * ranks a PE runs), else each rank is its own PE. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* AMPI's migration point and the PE running the calling rank (ours and Charm++'s AMPI have both);
 * null addresses where the MPI library has none. */
extern int AMPI_Migrate(MPI_Info hints) __attribute__((weak));
extern int AMPI_My_pe(void) __attribute__((weak));

static int nranks;
static int npes_seen; /* PEs found at the last load report */

/* CPU time of the calling OS thread: a rank's work, whatever else the machine runs (under AMPI
 * the thread is the PE's, which runs one rank at a time; elsewhere it is the rank's own). */
static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The weight of rank r at iteration it (1..4). */
static double weight(int r, int it, int drift_period, int balanced) {
  if (balanced) return 2.5;
  int shift = drift_period > 0 ? (it / drift_period) * (nranks / 4) : 0;
  int q = (r + shift) % nranks;
  return nranks > 1 ? 1.0 + 3.0 * q / (nranks - 1) : 1.0;
}

/* One sweep of the 3-point stencil over u[1..n] (halos u[0], u[n+1]) into v, then back. */
static void sweep(double *u, double *v, int n) {
  for (int i = 1; i <= n; ++i)
    v[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1];
  for (int i = 1; i <= n; ++i)
    u[i] = v[i];
}

/* A communicator of the ranks on this rank's PE (see the header). */
static MPI_Comm pe_comm(void) {
  MPI_Comm c = MPI_COMM_NULL;
  if (AMPI_My_pe) {
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, AMPI_My_pe(), rank, &c);
    return c;
  }
#ifdef AMPI_MY_WTH /* Charm++'s AMPI: the worker thread (PE) as an attribute of MPI_COMM_WORLD */
  {
    int rank, flag = 0, *wth = NULL;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_get_attr(MPI_COMM_WORLD, AMPI_MY_WTH, &wth, &flag);
    if (flag && wth) {
      MPI_Comm_split(MPI_COMM_WORLD, *wth, rank, &c);
      return c;
    }
  }
#endif
#ifdef MPI_COMM_TYPE_HW_GUIDED
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "mpi_hw_resource_type", "core");
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &c);
  MPI_Info_free(&info);
#endif
  if (c == MPI_COMM_NULL) MPI_Comm_dup(MPI_COMM_SELF, &c);
  return c;
}

/* max / avg over PEs of the PEs' summed busy time `mine` (this rank's share). */
static double pe_imbalance(double mine) {
  MPI_Comm pc = pe_comm();
  int pr;
  MPI_Comm_rank(pc, &pr);
  double pe_sum = 0;
  MPI_Reduce(&mine, &pe_sum, 1, MPI_DOUBLE, MPI_SUM, 0, pc);
  MPI_Comm_free(&pc);
  double in[2] = {pr == 0 ? pe_sum : 0.0, pr == 0 ? 1.0 : 0.0}, sums[2], max = 0;
  double lead = pr == 0 ? pe_sum : 0.0;
  MPI_Allreduce(in, sums, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&lead, &max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  npes_seen = (int)sums[1];
  return sums[0] > 0 ? max / (sums[0] / sums[1]) : 1.0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  int iters = 100, every = 10, cells = 1024, drift = -1, balanced = 0, verbose = 0;
  long updates = 300000;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const char *next = i + 1 < argc ? argv[i + 1] : NULL;
    int has_num = next && next[0] >= '0' && next[0] <= '9';
    if (!strcmp(a, "--iters") && next)
      iters = atoi(argv[++i]);
    else if (!strcmp(a, "--every") && next)
      every = atoi(argv[++i]);
    else if (!strcmp(a, "--updates") && next)
      updates = atol(argv[++i]);
    else if (!strcmp(a, "--cells") && next)
      cells = atoi(argv[++i]);
    else if (!strcmp(a, "--drift"))
      drift = has_num ? atoi(argv[++i]) : 0;
    else if (!strcmp(a, "--balanced"))
      balanced = 1;
    else if (!strcmp(a, "--verbose"))
      verbose = 1;
    else {
      if (rank == 0) fprintf(stderr, "lb_stencil: unknown argument %s (see the source)\n", a);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (iters < 1 || every < 1 || cells < 1 || updates < 1) {
    if (rank == 0) fprintf(stderr, "lb_stencil: iters, every, cells, updates must be >= 1\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (drift == 0) drift = 3 * every;
  const double base_sweeps = (double)updates * 16.0 / nranks / cells;
  double *u = calloc((size_t)cells + 2, sizeof *u), *v = calloc((size_t)cells + 2, sizeof *v);
  for (int i = 1; i <= cells; ++i)
    u[i] = rank + i * 1e-3;
  const int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  const int right = rank < nranks - 1 ? rank + 1 : MPI_PROC_NULL;

  MPI_Info hints;
  MPI_Info_create(&hints);
  MPI_Info_set(hints, "ampi_load_balance", "sync");
  double busy = 0, first = 0, last = 0, sum_imb = 0;
  int intervals = 0, migrations = 0;
  double carry = 0; /* fractional sweeps carried to the next iteration */
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int it = 0; it < iters; ++it) {
    double c0 = cpu_now();
    double want = base_sweeps * weight(rank, it, drift, balanced) + carry;
    int n = (int)want;
    carry = want - n;
    for (int s = 0; s < n; ++s)
      sweep(u, v, cells);
    busy += cpu_now() - c0;
    MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 0, &u[cells + 1], 1, MPI_DOUBLE, right, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[cells], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    if ((it + 1) % every == 0 || it + 1 == iters) {
      /* The load of the interval that ends here, on the PEs the ranks ran on during it. */
      double imb = pe_imbalance(busy);
      if (intervals == 0) first = imb;
      last = imb;
      sum_imb += imb;
      ++intervals;
      if (verbose && rank == 0)
        printf("# interval %d (iterations to %d): max/avg PE load %.3f\n", intervals, it + 1, imb);
      busy = 0;
      if (AMPI_Migrate && it + 1 < iters) {
        AMPI_Migrate(hints);
        ++migrations;
      }
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const double t = MPI_Wtime() - t0;
  double check = 0, local = 0;
  for (int i = 1; i <= cells; ++i)
    local += u[i];
  MPI_Reduce(&local, &check, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    const char *lb = getenv("AMPI_LB");
    printf("lb_stencil ranks %d mode %s lb %s iters %d every %d ms_per_iter %.3f "
           "load_first %.3f load_last %.3f load_mean %.3f pes %d migrations %d checksum %.6e\n",
           nranks, balanced ? "balanced" : (drift > 0 ? "drift" : "fixed"),
           AMPI_Migrate ? (lb ? lb : "none") : "absent", iters, every, t / iters * 1e3, first, last,
           sum_imb / intervals, npes_seen, migrations, check);
  }
  MPI_Info_free(&hints);
  free(u);
  free(v);
  MPI_Finalize();
  return 0;
}
