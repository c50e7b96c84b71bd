/* probe.c — what state this VM's two vCPUs are in, for telling osu_bw's modes apart: one-way
 * cache-line handoff between threads pinned to cpu 0 and 1, and a 64 KiB memcpy loop on cpu 0
 * (its data in L2) while cpu 1 is idle, spins on loads of its own line, or spins with pause.
 * If the copy slows when the other vCPU spins, the two share a physical core (SMT siblings). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <immintrin.h>
static _Alignas(64) _Atomic long a;
static _Alignas(64) _Atomic long b;
static _Alignas(64) _Atomic int mode; /* 0 idle (sleep), 1 load spin, 2 pause spin, 3 quit */
static _Alignas(64) volatile long own;
static double now(void) { struct timespec x; clock_gettime(CLOCK_MONOTONIC, &x); return x.tv_sec * 1e9 + x.tv_nsec; }
static void pin(int c) { cpu_set_t s; CPU_ZERO(&s); CPU_SET(c, &s); pthread_setaffinity_np(pthread_self(), sizeof s, &s); }
enum { N = 200000 };
static void *peer(void *u) {
  (void)u; pin(1);
  for (long i = 1; i <= N; i++) { while (atomic_load_explicit(&a, memory_order_acquire) != i); atomic_store_explicit(&b, i, memory_order_release); }
  for (;;) {
    int m = atomic_load(&mode);
    if (m == 3) break;
    if (m == 0) { struct timespec ts = {0, 1000000}; nanosleep(&ts, 0); }
    else if (m == 1) for (int k = 0; k < 100000; k++) (void)own;
    else for (int k = 0; k < 10000; k++) { (void)own; _mm_pause(); }
  }
  return 0;
}
static double copybw(char *d, const char *s, size_t n, int reps) {
  for (int i = 0; i < 100; i++) memcpy(d, s, n);
  double t0 = now();
  for (int i = 0; i < reps; i++) { memcpy(d, s, n); __asm__ volatile("" ::: "memory"); }
  return (double)n * reps / (now() - t0); /* GB/s */
}
int main(void) {
  pthread_t th; pthread_create(&th, 0, peer, 0); pin(0);
  double t0 = now();
  for (long i = 1; i <= N; i++) { atomic_store_explicit(&a, i, memory_order_release); while (atomic_load_explicit(&b, memory_order_acquire) != i); }
  double pp = (now() - t0) / N / 2;
  size_t n = 65536; char *s = aligned_alloc(4096, n), *d = aligned_alloc(4096, n);
  memset(s, 1, n); memset(d, 2, n);
  double bw[3];
  for (int m = 0; m < 3; m++) { atomic_store(&mode, m); struct timespec ts = {0, 2000000}; nanosleep(&ts, 0); bw[m] = copybw(d, s, n, 20000); }
  atomic_store(&mode, 3); pthread_join(th, 0);
  printf("handoff %.1f ns  copy64K GB/s: idle %.1f  loadspin %.1f  pausespin %.1f\n", pp, bw[0], bw[1], bw[2]);
  return 0;
}
