/* tests/privatize/priv_globals.c — per-rank copies of C globals: initialised and zeroed globals,
 * static globals, function statics, a constructor's effect and what an error handler called by
 * the library changes are each rank's own; destructor functions and atexit handlers run once per
 * rank after its MPI_Finalize (the CTest run checks their output lines), also for a rank that ends
 * with exit() (argument "exit5"). */
#include "../mpi/mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int initialised = 42;   /* .data */
int zeroed;             /* .bss */
static long table[256]; /* static .bss array */
static int constructed; /* how often this copy's constructor ran */
static int my_rank = -1;
static const char *phase = "before main";

__attribute__((constructor)) static void construct(void) {
  ++constructed;
  phase = "constructed";
}

__attribute__((destructor)) static void destruct(void) {
  printf("destructor rank %d phase %s\n", my_rank, phase);
  fflush(stdout);
}

static void at_exit(void) {
  printf("atexit rank %d\n", my_rank);
  fflush(stdout);
}

static int next_ticket(void) {
  static int ticket = 100; /* a function static */
  return ticket++;
}

/* A callback that the library calls: it sees the globals of the rank's own copy. */
static int handler_calls;
static void on_error(MPI_Comm *comm, int *code, ...) {
  (void)comm;
  handler_calls += *code == MPI_ERR_OTHER ? 1 : 100;
  zeroed += 1;
}

/* Where gdb_test.sh stops each rank (in its own copy) to read its statics. */
__attribute__((noinline)) void priv_checked(void) {
  __asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv) {
  CHECK(constructed == 1, "rank %d", my_rank);
  CHECK(initialised == 42 && zeroed == 0 && table[255] == 0, "rank %d", my_rank);
  CHECK(phase[0] == 'c', "rank %d", my_rank);
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  my_rank = rank;
  atexit(at_exit);
  /* Every rank writes its own values, then lets the others write theirs. */
  initialised = 1000 + rank;
  zeroed = 2000 + rank;
  for (int i = 0; i < 256; ++i)
    table[i] = (long)rank * 256 + i;
  for (int i = 0; i < rank % 5; ++i)
    next_ticket();
  MPI_Errhandler handler;
  MPI_Comm_create_errhandler(on_error, &handler);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, handler);
  MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(handler_calls == 1, "rank %d", my_rank);
  zeroed -= 1;
  CHECK(initialised == 1000 + rank, "rank %d", my_rank);
  CHECK(zeroed == 2000 + rank, "rank %d", my_rank);
  for (int i = 0; i < 256; ++i)
    CHECK(table[i] == (long)rank * 256 + i, "rank %d", my_rank);
  CHECK(next_ticket() == 100 + rank % 5, "rank %d", my_rank);
  CHECK(constructed == 1, "rank %d", my_rank);
  /* The sum over ranks of a value kept in a global is what the ranks' own values add up to. */
  long mine = initialised, sum = 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  CHECK(sum == 1000L * size + (long)size * (size - 1) / 2, "rank %d", my_rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Errhandler_free(&handler);
  priv_checked();
  phase = "finalized";
  MPI_Finalize();
  if (rank == 0) printf("ok priv_globals (%d ranks)\n", size);
  /* "exit5": the last rank ends with exit(5), the others return 0; the process's status is 5. */
  if (argc > 1 && strcmp(argv[1], "exit5") == 0 && rank == size - 1) exit(5);
  return 0;
}
