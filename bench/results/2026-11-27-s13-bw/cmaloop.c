/* cmaloop.c — the single-copy path without MPI: a parent pinned to cpu 0 reads 64 KiB (argv[1])
 * from its child's buffer with process_vm_readv, over and over for 2 s; the child, pinned to cpu 1,
 * sleeps (argv[2] = 0), spins on loads of a private line (1), or spins with pause (2). Prints the
 * MB/s per 50 ms slice: slow phases with a sleeping child are the VM's, not a library's. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <immintrin.h>
static double now(void) { struct timespec x; clock_gettime(CLOCK_MONOTONIC, &x); return x.tv_sec + x.tv_nsec * 1e-9; }
static void pin(int c) { cpu_set_t s; CPU_ZERO(&s); CPU_SET(c, &s); sched_setaffinity(0, sizeof s, &s); }
int main(int argc, char **argv) {
  size_t n = argc > 1 ? strtoul(argv[1], 0, 0) : 65536;
  int mode = argc > 2 ? atoi(argv[2]) : 0;
  char *src; posix_memalign((void **)&src, 4096, n); memset(src, 'a', n);
  volatile long *own = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  pid_t c = fork();
  if (c == 0) {
    pin(1);
    for (;;) {
      if (mode == 0) pause();
      else if (mode == 1) (void)*own;
      else { (void)*own; _mm_pause(); }
    }
  }
  pin(0);
  char *dst; posix_memalign((void **)&dst, 4096, n); memset(dst, 'b', n);
  usleep(10000);
  printf("%zu B, child %s: MB/s per 50 ms:", n, mode == 0 ? "sleeps" : mode == 1 ? "spins" : "spins+pause");
  double t0 = now(), end = t0 + 2.0, slice = t0 + 0.05, total = 0; long k = 0, kt = 0;
  while (1) {
    struct iovec l = {dst, n}, r = {src, n};
    if (process_vm_readv(c, &l, 1, &r, 1, 0) != (ssize_t)n) { perror("process_vm_readv"); break; }
    k++;
    double t = now();
    if (t >= slice) { printf(" %.0f", k * n / 0.05 / 1e6 * 0.05 / (t - slice + 0.05)); kt += k; k = 0; slice = t + 0.05; if (t >= end) break; }
  }
  printf("\n  overall %.0f MB/s\n", kt * (double)n / (now() - t0) / 1e6);
  kill(c, SIGKILL); waitpid(c, 0, 0);
  return 0;
}
