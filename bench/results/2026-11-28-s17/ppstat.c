/* bench/results/2026-11-28-s17/ppstat.c — 8-byte (or argv[2]) ping-pong, 1000 warm-up iterations, then
 * argv[1] timed ones: P50/P90/P99 of the one-way time. mpicc -O2 ppstat.c -o ppstat */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int argc,char**argv){MPI_Init(&argc,&argv);int r;MPI_Comm_rank(MPI_COMM_WORLD,&r);int n=atoi(argv[1]);int sz=argc>2?atoi(argv[2]):8;
char*buf=calloc(sz,1);double*t=malloc(sizeof(double)*n);
for(int w=0;w<1000;w++){if(r==0){MPI_Send(buf,sz,MPI_CHAR,1,1,MPI_COMM_WORLD);MPI_Recv(buf,sz,MPI_CHAR,1,1,MPI_COMM_WORLD,MPI_STATUS_IGNORE);}else{MPI_Recv(buf,sz,MPI_CHAR,0,1,MPI_COMM_WORLD,MPI_STATUS_IGNORE);MPI_Send(buf,sz,MPI_CHAR,0,1,MPI_COMM_WORLD);}}
for(int i=0;i<n;i++){double t0=MPI_Wtime();if(r==0){MPI_Send(buf,sz,MPI_CHAR,1,1,MPI_COMM_WORLD);MPI_Recv(buf,sz,MPI_CHAR,1,1,MPI_COMM_WORLD,MPI_STATUS_IGNORE);}else{MPI_Recv(buf,sz,MPI_CHAR,0,1,MPI_COMM_WORLD,MPI_STATUS_IGNORE);MPI_Send(buf,sz,MPI_CHAR,0,1,MPI_COMM_WORLD);}t[i]=(MPI_Wtime()-t0)*1e6/2;}
if(r==0){qsort(t,n,sizeof(double),cmp);printf("P50 %.3f P90 %.3f P99 %.3f us\n",t[n/2],t[n*9/10],t[n*99/100]);}
MPI_Finalize();}
