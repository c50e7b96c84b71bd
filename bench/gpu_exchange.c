/* bench/gpu_exchange.c — Jacobi3D's halo exchange without its kernels: the ranks form a 3-D grid
 * (MPI_Dims_create) and each iteration every rank posts MPI_Irecv from and MPI_Isend to each of
 * its face neighbours (device buffers of N*N doubles, cudaMalloc), then MPI_Waitall. With -k US a
 * kernel of about US microseconds is queued on the rank's stream before each exchange and waited
 * for after it (the GPU stays busy while messages move, as in Jacobi3D). Prints the mean time
 * per iteration (max over ranks) in microseconds: one process of virtual ranks against one
 * process per rank, same source.
 *   gpu_exchange [-n N] [-i ITERS] [-k US]   (default N 128, ITERS 2000, no kernel) */
#include <cuda_runtime.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gpu_exchange_busy(cudaStream_t s, double us); /* bench/gpu_exchange_kernel.cu */

int main(int argc, char **argv) {
  int n = 128, iters = 2000;
  double busy_us = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "-n"))
      n = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-i"))
      iters = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-k"))
      busy_us = atof(argv[i + 1]);
  }
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) return 77;
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int dims[3] = {0, 0, 0}, periods[3] = {0, 0, 0};
  MPI_Dims_create(size, 3, dims);
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
  int nbr[6], nn = 0;
  for (int d = 0; d < 3; ++d)
    MPI_Cart_shift(cart, d, 1, &nbr[2 * d], &nbr[2 * d + 1]);
  const size_t bytes = (size_t)n * n * sizeof(double);
  double *sbuf[6], *rbuf[6];
  for (int f = 0; f < 6; ++f) {
    cudaMalloc((void **)&sbuf[f], bytes);
    cudaMalloc((void **)&rbuf[f], bytes);
    cudaMemset(sbuf[f], 0, bytes);
    if (nbr[f] != MPI_PROC_NULL) ++nn;
  }
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaDeviceSynchronize();
  MPI_Request req[12];
  double t0 = 0;
  for (int it = -100; it < iters; ++it) {
    if (it == 0) {
      MPI_Barrier(cart);
      t0 = MPI_Wtime();
    }
    if (busy_us > 0) gpu_exchange_busy(s, busy_us);
    int nr = 0;
    for (int f = 0; f < 6; ++f)
      if (nbr[f] != MPI_PROC_NULL)
        MPI_Irecv(rbuf[f], n * n, MPI_DOUBLE, nbr[f], f ^ 1, cart, &req[nr++]);
    for (int f = 0; f < 6; ++f)
      if (nbr[f] != MPI_PROC_NULL)
        MPI_Isend(sbuf[f], n * n, MPI_DOUBLE, nbr[f], f, cart, &req[nr++]);
    MPI_Waitall(nr, req, MPI_STATUSES_IGNORE);
    if (busy_us > 0) cudaStreamSynchronize(s);
  }
  double t = (MPI_Wtime() - t0) / iters * 1e6, tmax = 0;
  MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, cart);
  if (rank == 0)
    printf("ranks %d (%dx%dx%d), %d neighbours, %zu KiB faces, kernel %.0f us: %.2f us per "
           "iteration\n",
           size, dims[0], dims[1], dims[2], nn, bytes / 1024, busy_us, tmax);
  for (int f = 0; f < 6; ++f)
    cudaFree(sbuf[f]), cudaFree(rbuf[f]);
  MPI_Comm_free(&cart);
  MPI_Finalize();
  return 0;
}
