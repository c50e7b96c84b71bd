/* floor.c — the floor of a one-way 8-byte handoff on this VM: two threads pinned to cores 0 and 1
 * ping-pong one cache line each way (no MPI), timed per iteration like latp50.c. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <stdatomic.h>
static _Alignas(64) _Atomic long a; static _Alignas(64) _Atomic long b;
static int N=1000000; static double *t;
static double now(void){struct timespec x;clock_gettime(CLOCK_MONOTONIC,&x);return x.tv_sec*1e9+x.tv_nsec;}
static int cmp(const void *p,const void *q){double x=*(double*)p,y=*(double*)q;return (x>y)-(x<y);}
static void pin(int c){cpu_set_t s;CPU_ZERO(&s);CPU_SET(c,&s);pthread_setaffinity_np(pthread_self(),sizeof s,&s);}
static void *peer(void *u){pin(1);for(long i=1;i<=N+10000;i++){while(atomic_load_explicit(&a,memory_order_acquire)!=i);atomic_store_explicit(&b,i,memory_order_release);}return 0;}
int main(){t=malloc(sizeof(double)*N);pthread_t th;pthread_create(&th,0,peer,0);pin(0);
for(long i=1;i<=N+10000;i++){double s=now();atomic_store_explicit(&a,i,memory_order_release);while(atomic_load_explicit(&b,memory_order_acquire)!=i);double e=now();if(i>10000)t[i-10001]=(e-s)/2;}
pthread_join(th,0);qsort(t,N,sizeof(double),cmp);printf("floor one-way p10 %.1f p50 %.1f ns (with clock)\n",t[N/10],t[N/2]);}
