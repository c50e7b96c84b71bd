/* tests/smp/smp_threads.c — SMP mode (AMPI_PES, ampirun --pes-per-process): the PEs of a process
 * are OS threads that run at once. argv[1] = the number of distinct OS threads the ranks must run
 * on (the job's PE count: one rank per PE in the layouts of CMakeLists.txt; 1 when all ranks share
 * one PE). Each rank records its thread id, then spins for K ms of its thread's CPU time
 * (CLOCK_THREAD_CPUTIME_ID) doing checksummed work; rank 0 checks that every rank's work was done,
 * that the thread ids are as many as expected, and prints the wall time against the sum of CPU
 * times (informational only: speed is never asserted). Then partners exchange messages of 8 B to
 * 4 MiB (eager, ring and single-copy sizes) and check every byte, and an allreduce closes. */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define K_MS 100

static double clock_ms(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void fail(const char *what, int rank) {
  fprintf(stderr, "smp_threads: rank %d: %s\n", rank, what);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int expected = argc > 1 ? atoi(argv[1]) : 1;
  const long tid = syscall(SYS_gettid);

  MPI_Barrier(MPI_COMM_WORLD);
  const double wall0 = clock_ms(CLOCK_MONOTONIC);
  const double cpu0 = clock_ms(CLOCK_THREAD_CPUTIME_ID);
  uint64_t sum = (uint64_t)rank + 1, iterations = 0;
  while (clock_ms(CLOCK_THREAD_CPUTIME_ID) - cpu0 < K_MS) {
    for (int i = 0; i < 1000; ++i)
      sum = sum * 6364136223846793005ull + 1442695040888963407ull;
    ++iterations;
  }
  const double cpu = clock_ms(CLOCK_THREAD_CPUTIME_ID) - cpu0;
  /* Still on the same OS thread (a rank never changes PE in this milestone). */
  if (syscall(SYS_gettid) != tid) fail("ran on another thread after spinning", rank);
  MPI_Barrier(MPI_COMM_WORLD);
  const double wall = clock_ms(CLOCK_MONOTONIC) - wall0;

  struct {
    long tid;
    double cpu;
    uint64_t iterations, sum;
  } mine = {tid, cpu, iterations, sum}, *all = malloc(sizeof mine * (size_t)size);
  MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    int distinct = 0;
    double cpu_sum = 0;
    for (int r = 0; r < size; ++r) {
      if (all[r].iterations == 0 || all[r].cpu < K_MS || all[r].sum == 0)
        fail("a rank's work was not done", r);
      cpu_sum += all[r].cpu;
      int seen = 0;
      for (int q = 0; q < r; ++q)
        seen |= all[q].tid == all[r].tid;
      distinct += !seen;
    }
    if (distinct != expected) {
      fprintf(stderr, "smp_threads: the %d ranks ran on %d OS threads, expected %d\n", size,
              distinct, expected);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    printf("smp_threads: %d ranks on %d threads; wall %.0f ms for %.0f ms of CPU (ratio %.2f)\n",
           size, distinct, wall, cpu_sum, wall / cpu_sum);
  }
  free(all);

  /* Messages between partners (rank ^ 1: the other PE of the process in the 1:2:2 layout). */
  const int partner = rank ^ 1;
  if (partner < size) {
    for (size_t bytes = 8; bytes <= (4u << 20); bytes *= 4) {
      unsigned char *out = malloc(bytes), *in = malloc(bytes);
      for (size_t i = 0; i < bytes; ++i)
        out[i] = (unsigned char)(i * 7 + (size_t)rank);
      MPI_Sendrecv(out, (int)bytes, MPI_BYTE, partner, (int)(bytes & 0x7fff), in, (int)bytes,
                   MPI_BYTE, partner, (int)(bytes & 0x7fff), MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (size_t i = 0; i < bytes; ++i)
        if (in[i] != (unsigned char)(i * 7 + (size_t)partner)) fail("wrong data", rank);
      free(out);
      free(in);
    }
  }
  int one = 1, total = 0;
  MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (total != size) fail("allreduce", rank);
  if (rank == 0) printf("ok smp_threads\n");
  MPI_Finalize();
  return 0;
}
