// tests/tools/hello_nvcc.cu — an MPI program compiled by nvcc with -ccbin mpicxx. It defines a
// kernel but never launches it and calls no CUDA runtime function, so it runs without a GPU.
#include <mpi.h>

#include <cstdio>

__global__ void scale(float *x, float a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

int main(int argc, char **argv) {
  int rank = -1, size = -1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::printf("hello from nvcc rank %d of %d\n", rank, size);
  MPI_Finalize();
  return 0;
}
