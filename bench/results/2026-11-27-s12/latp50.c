/* latp50.c — 8-byte blocking ping-pong between ranks 0 and 1, each iteration timed on its own
 * (clock_gettime, as OSU -z times each with MPI_Wtime); prints P10/P50/P90 of the one-way time
 * in ns (OSU prints 0.01 us steps). usage: latp50 [iterations] (default 200000, after 10000). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static int cmp(const void *a, const void *b){double x=*(const double*)a,y=*(const double*)b;return (x>y)-(x<y);}
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e9+t.tv_nsec;}
int main(int argc,char**argv){MPI_Init(&argc,&argv);int r;MPI_Comm_rank(MPI_COMM_WORLD,&r);
 int n=argc>1?atoi(argv[1]):200000; char buf[8]={0}; double *t=malloc(sizeof(double)*n);
 for(int w=0;w<10000;w++){ if(r==0){MPI_Send(buf,8,MPI_CHAR,1,1,MPI_COMM_WORLD);MPI_Recv(buf,8,MPI_CHAR,1,1,MPI_COMM_WORLD,MPI_STATUS_IGNORE);} else {MPI_Recv(buf,8,MPI_CHAR,0,1,MPI_COMM_WORLD,MPI_STATUS_IGNORE);MPI_Send(buf,8,MPI_CHAR,0,1,MPI_COMM_WORLD);} }
 for(int i=0;i<n;i++){ double a=now();
  if(r==0){MPI_Send(buf,8,MPI_CHAR,1,1,MPI_COMM_WORLD);MPI_Recv(buf,8,MPI_CHAR,1,1,MPI_COMM_WORLD,MPI_STATUS_IGNORE);} else {MPI_Recv(buf,8,MPI_CHAR,0,1,MPI_COMM_WORLD,MPI_STATUS_IGNORE);MPI_Send(buf,8,MPI_CHAR,0,1,MPI_COMM_WORLD);}
  t[i]=(now()-a)/2; }
 if(r==0){qsort(t,n,sizeof(double),cmp); printf("p10 %.1f p50 %.1f p90 %.1f ns\n",t[n/10],t[n/2],t[n*9/10]);}
 MPI_Finalize();return 0;}
