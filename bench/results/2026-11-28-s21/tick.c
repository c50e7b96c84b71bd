// bench/results/2026-11-28-s21/tick.c — a machine's own tail: P50 and P99 of a fixed piece of
// work (a memcpy of BYTES there and back, REPS times) timed 20,000 times on one pinned CPU, no
// MPI, no other process. Usage: tick BYTES REPS
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3; }
static int cmp(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv) {
  size_t bytes = argc > 1 ? strtoul(argv[1], 0, 0) : 32768; int reps = argc > 2 ? atoi(argv[2]) : 1;
  cpu_set_t s; CPU_ZERO(&s); CPU_SET(0, &s); sched_setaffinity(0, sizeof s, &s);
  char *a = malloc(bytes), *b = malloc(bytes); memset(a, 1, bytes); memset(b, 2, bytes);
  enum { N = 20000 }; static double t[N];
  for (int i = 0; i < N; ++i) { double t0 = now(); for (int r = 0; r < reps; ++r) { memcpy(b, a, bytes); memcpy(a, b, bytes); } t[i] = now() - t0; }
  qsort(t, N, sizeof t[0], cmp);
  printf("%zu B x%d: P50 %.2f us P99 %.2f us ratio %.2f max %.1f\n", bytes, reps, t[N / 2], t[N * 99 / 100], t[N * 99 / 100] / t[N / 2], t[N - 1]);
  return a[0] + b[0] == 0;
}
