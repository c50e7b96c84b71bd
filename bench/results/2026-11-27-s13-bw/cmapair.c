/* cmapair.c — can two cores copy a window faster than one? Parent (cpu 0) and child (cpu 1) each
 * hold a SIZE buffer; for 1.5 s per mode: mode 0, the parent reads every message from the child
 * with process_vm_readv (ampi's and Open MPI's single copy today); mode 1, parent reads and child
 * writes (process_vm_writev into the parent's buffer) at the same time, each half the messages.
 * mode 2, as 1 with both copying into the same buffer (osu_bw's single receive buffer).
 * Prints MB/s of messages moved (both together in mode 1). cmapair SIZE */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static double now(void) { struct timespec x; clock_gettime(CLOCK_MONOTONIC, &x); return x.tv_sec + x.tv_nsec * 1e-9; }
static void pin(int c) { cpu_set_t s; CPU_ZERO(&s); CPU_SET(c, &s); sched_setaffinity(0, sizeof s, &s); }
struct sh { _Atomic int go; _Atomic long child_done; char *pdst; };
int main(int argc, char **argv) {
  size_t n = argc > 1 ? strtoul(argv[1], 0, 0) : 65536;
  struct sh *sh = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  char *src; posix_memalign((void **)&src, 4096, n); memset(src, 'a', n);
  char *dst; posix_memalign((void **)&dst, 4096, n);
  pid_t parent = getpid();
  sh->pdst = dst;
  pid_t c = fork();
  if (c == 0) {
    pin(1);
    for (;;) {
      int g = atomic_load(&sh->go);
      if (g == 2) _exit(0);
      if (g == 1) {
        struct iovec l = {src, n}, r = {sh->pdst, n};
        if (process_vm_writev(parent, &l, 1, &r, 1, 0) != (ssize_t)n) { perror("writev"); _exit(1); }
        atomic_fetch_add(&sh->child_done, 1);
      }
    }
  }
  pin(0);
  memset(dst, 'b', n);
  char *dst2; posix_memalign((void **)&dst2, 4096, n); memset(dst2, 'b', n);
  for (int rep = 0; rep < 3; rep++)
    for (int mode = 0; mode < 3; mode++) {
      sh->child_done = 0;
      double t0 = now(); long k = 0;
      if (mode >= 1) atomic_store(&sh->go, 1);
      while (now() - t0 < 0.5) {
        struct iovec l = {mode == 2 ? dst : dst2, n}, r = {src, n};
        if (process_vm_readv(c, &l, 1, &r, 1, 0) != (ssize_t)n) { perror("readv"); return 1; }
        k++;
      }
      atomic_store(&sh->go, 0);
      double t = now() - t0;
      long kc = atomic_load(&sh->child_done);
      printf("%zu B %s: %.0f MB/s (parent %ld, child %ld)\n", n, mode == 2 ? "read+write, one dst" : mode ? "read+write        " : "read only         ", (k + kc) * (double)n / t / 1e6, k, kc);
    }
  atomic_store(&sh->go, 2); waitpid(c, 0, 0);
  return 0;
}
