/* scripts/sanitizer/canary.c — the MPI program of the sanitizer-only tests (label `sanitizer`,
 * defined by cmake/Sanitizers.cmake in a build with AMPI_SANITIZE). Each run commits one error,
 * named by argv[1], in the last rank, on that rank's own stack, after every rank has gone through
 * a few context switches; the test checks that the sanitizer reports it, in the right function.
 * They show that the sanitizer build is armed: the rank stacks are known to ASan (fiber
 * annotations in src/ult/scheduler.cpp), UBSan ends the program, and LeakSanitizer reports a
 * leak of ours (scripts/lsan.supp does not hide it).
 *
 *   heap     a write past a malloc'ed block           -> AddressSanitizer: heap-buffer-overflow
 *   stack    a write past an array on the rank stack  -> AddressSanitizer: stack-buffer-overflow
 *   free     a read of a freed block                  -> AddressSanitizer: heap-use-after-free
 *   leak     a block that nothing points to at exit  -> LeakSanitizer: detected memory leaks
 *   overflow signed int overflow                      -> runtime error: signed integer overflow
 *   none     no error: the job must end cleanly (exit() from a deep frame of every rank) */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* UBSan stays out of the ASan cases: its bounds and object-size checks would catch some first. */
#if defined(__GNUC__)
#define ASAN_CASE __attribute__((noinline, no_sanitize_undefined))
#else
#define ASAN_CASE __attribute__((noinline))
#endif

static void *volatile keep;
static volatile int sink;
static volatile int sixteen = 16;
static volatile int int_max = INT_MAX;

ASAN_CASE static void canary_heap_overflow(void) {
  char *p = malloc(16);
  p[sixteen] = 1;
  keep = p;
}

ASAN_CASE static void canary_stack_overflow(void) {
  char buf[16];
  memset(buf, 1, sizeof buf);
  buf[sixteen] = 2;
  sink = buf[3];
}

ASAN_CASE static void canary_use_after_free(void) {
  char *p = malloc(16);
  keep = p;
  free(p);
  sink = ((volatile char *)keep)[1];
}

ASAN_CASE static void canary_leak(void) {
  keep = malloc(4242);
  memset(keep, 0, 4242);
  keep = NULL;
}

__attribute__((noinline)) static int canary_signed_overflow(int x) {
  return x + 1;
}

/* Uses some stack and switches to the other ranks at every level, then ends the rank with exit()
 * from the deepest frame. */
__attribute__((noinline)) static void deep_exit(int depth) {
  char frame[256];
  memset(frame, depth, sizeof frame);
  MPI_Barrier(MPI_COMM_WORLD);
  sink = frame[depth % 256];
  if (depth == 0) {
    MPI_Finalize();
    exit(0);
  }
  deep_exit(depth - 1);
  sink = frame[0];
}

int main(int argc, char **argv) {
  int rank = 0, size = 0;
  const char *what = argc > 1 ? argv[1] : "none";
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 0; i < 3; ++i)
    MPI_Barrier(MPI_COMM_WORLD);
  if (strcmp(what, "none") == 0) {
    if (rank == 0) printf("ok canary none (%d ranks)\n", size);
    fflush(stdout);
    deep_exit(20);
  }
  if (rank == size - 1) {
    fprintf(stderr, "canary: rank %d: %s\n", rank, what);
    if (strcmp(what, "heap") == 0)
      canary_heap_overflow();
    else if (strcmp(what, "stack") == 0)
      canary_stack_overflow();
    else if (strcmp(what, "free") == 0)
      canary_use_after_free();
    else if (strcmp(what, "leak") == 0)
      canary_leak();
    else if (strcmp(what, "overflow") == 0)
      sink = canary_signed_overflow(int_max);
    else {
      fprintf(stderr, "canary: unknown case '%s'\n", what);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (strcmp(what, "leak") != 0)
      fprintf(stderr, "canary: NOT REACHED: %s went unnoticed\n", what);
  }
  MPI_Finalize();
  return 0;
}
