// bench/results/2026-11-28-s18/rawpp.c — the floor for a one-way small message between two
// processes of this machine: two cache lines in shared memory, one written by each side; a round
// trip is two line transfers. Prints the median and P99 of the one-way time (RTT/2) per batch of
// 1000 round trips, over 200 batches. Usage: rawpp [1: spin with pause]
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
struct line { _Alignas(64) _Atomic uint64_t seq; uint64_t payload; };
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e9+t.tv_nsec;}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int argc,char**argv){
  int pausing = argc>1 ? atoi(argv[1]) : 0;
  struct line *l = mmap(0,4096,PROT_READ|PROT_WRITE,MAP_SHARED|MAP_ANONYMOUS,-1,0);
  enum {B=200,N=1000};
  pid_t p=fork();
  cpu_set_t s; CPU_ZERO(&s); CPU_SET(p==0?1:0,&s); sched_setaffinity(0,sizeof s,&s);
  if(p==0){ for(uint64_t i=1;i<=(uint64_t)(B+10)*N;i++){ while(atomic_load_explicit(&l[0].seq,memory_order_acquire)!=i) if(pausing) __builtin_ia32_pause();
      l[1].payload=l[0].payload; atomic_store_explicit(&l[1].seq,i,memory_order_release);} _exit(0);}
  double r[B]; uint64_t i=1;
  for(int b=-10;b<B;b++){ double t0=now();
    for(int k=0;k<N;k++,i++){ l[0].payload=i; atomic_store_explicit(&l[0].seq,i,memory_order_release);
      while(atomic_load_explicit(&l[1].seq,memory_order_acquire)!=i) if(pausing) __builtin_ia32_pause(); }
    if(b>=0) r[b]=(now()-t0)/N/2; }
  wait(0); qsort(r,B,sizeof*r,cmp);
  printf("one-way ns: min %.1f median %.1f p99 %.1f (pause=%d)\n",r[0],r[B/2],r[B*99/100],pausing);
}
