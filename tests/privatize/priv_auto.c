/* tests/privatize/priv_auto.c — AMPI_PRIVATIZE=auto makes per-rank copies exactly when the program
 * has something of its own to privatize (src/privatize/own_data.cpp). Built in variants
 * (PRIV_AUTO_*): none (no writable data, constructor or exit handler of its own: the ranks share
 * one program), a global, a function's static, a constructor, an atexit handler. Each rank
 * publishes the address of its main: one address for all ranks means one shared program, one per
 * rank means per-rank copies; rank 0 prints how many distinct addresses it saw. Where a variant
 * has a variable, every rank stores its rank in it, lets every other rank run (a barrier), and
 * checks that it still holds its own. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(PRIV_AUTO_GLOBAL)
#define VARIANT "global"
int counter;
static int *slot(void) {
  return &counter;
}
#elif defined(PRIV_AUTO_STATIC)
#define VARIANT "static"
static int *slot(void) {
  static int count;
  return &count;
}
#elif defined(PRIV_AUTO_CTOR)
#define VARIANT "ctor"
__attribute__((constructor)) static void announce(void) {
  printf("constructor ran at %p\n", (void *)&announce);
}
#elif defined(PRIV_AUTO_ATEXIT)
#define VARIANT "atexit"
static void bye(void) {
  printf("atexit ran\n");
}
#else
#define VARIANT "none"
#endif

static int cmp(const void *a, const void *b) {
  const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  int rank, size, bad = 0, any_bad = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
#if defined(PRIV_AUTO_GLOBAL) || defined(PRIV_AUTO_STATIC)
  *slot() = rank + 1;
  MPI_Barrier(MPI_COMM_WORLD);
  if (*slot() != rank + 1) {
    printf("rank %d: its variable holds %d, not %d\n", rank, *slot(), rank + 1);
    bad = 1;
  }
#endif
#if defined(PRIV_AUTO_ATEXIT)
  atexit(bye);
#endif
  uint64_t mine = (uint64_t)(uintptr_t)&main;
  uint64_t *all = malloc(sizeof *all * (size_t)size);
  if (!all) MPI_Abort(MPI_COMM_WORLD, 2);
  MPI_Gather(&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) {
    qsort(all, (size_t)size, sizeof *all, cmp);
    int distinct = 1;
    for (int i = 1; i < size; ++i)
      distinct += all[i] != all[i - 1];
    if (!any_bad)
      printf("ok priv_auto %s (%d ranks, main at %d distinct addresses)\n", VARIANT, size,
             distinct);
  }
  free(all);
  MPI_Finalize();
  return any_bad;
}
