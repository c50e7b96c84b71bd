// tests/gpu/gpu_runtime.cu — an MPI program built the way users build CUDA codes: nvcc with
// -ccbin mpicxx, the CUDA runtime API, kernels, cudaMalloc buffers given to MPI; linked with the
// static runtime (nvcc's default) or the shared one. It must run to the end and exit 0, also when
// it ends as the OSU benchmarks do (argument "reset"): after MPI_Finalize it destroys a stream it
// made at the start, then calls cudaDeviceReset(). The reset destroys the context in which the
// library made its streams and IPC mappings (a library that touches them at exit crashes:
// SIGSEGV, status 139, seen with OSU 7.4 -d cuda), and with several ranks in a process the one
// that the other ranks' streams live in (their cudaStreamDestroy crashed next).
// Exits 77 (CTest: skipped) before MPI_Init where no GPU is usable.
#include <mpi.h>

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK_CUDA(call)                                                                           \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));  \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)
#define EXPECT(cond, ...)                                                                          \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      std::fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                    \
      std::fprintf(stderr, __VA_ARGS__);                                                           \
      std::fprintf(stderr, "\n");                                                                  \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                \
    }                                                                                              \
  } while (0)

__global__ void fill(int *x, int n, int base) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = base + i;
}

__global__ void count_wrong(const int *x, int n, int base, int *wrong) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] != base + i) atomicAdd(wrong, 1);
}

int main(int argc, char **argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no usable GPU: skipped\n");
    return 77;
  }
  // As OSU does: a GPU per process from the launcher's local rank, before MPI_Init.
  const char *lr = std::getenv("LOCAL_RANK");
  CHECK_CUDA(cudaSetDevice(lr ? std::atoi(lr) % devices : 0));
  const bool reset = argc > 1 && std::strcmp(argv[1], "reset") == 0;
  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreate(&stream));

  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;

  // A ring of device buffers: 2 ints (copied at once), 16 KiB and 1 MiB (asynchronous copies
  // between ranks of a process, CUDA IPC between processes).
  for (const int n : {2, 4096, 262144}) {
    int *send = nullptr, *recv = nullptr, *wrong = nullptr;
    CHECK_CUDA(cudaMalloc(&send, n * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&recv, n * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&wrong, sizeof(int)));
    CHECK_CUDA(cudaMemset(recv, 0xff, n * sizeof(int)));
    CHECK_CUDA(cudaMemset(wrong, 0, sizeof(int)));
    fill<<<(n + 255) / 256, 256>>>(send, n, rank * 1000000);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    MPI_Request reqs[2];
    MPI_Irecv(recv, n, MPI_INT, left, n, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(send, n, MPI_INT, right, n, MPI_COMM_WORLD, &reqs[1]);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    count_wrong<<<(n + 255) / 256, 256>>>(recv, n, left * 1000000, wrong);
    int bad = -1;
    CHECK_CUDA(cudaMemcpy(&bad, wrong, sizeof bad, cudaMemcpyDeviceToHost));
    EXPECT(bad == 0, "rank %d: %d of %d ints from rank %d wrong", rank, bad, n, left);
    // A collective on device memory too.
    int sum = 0;
    MPI_Allreduce(MPI_IN_PLACE, wrong, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_CUDA(cudaMemcpy(&sum, wrong, sizeof sum, cudaMemcpyDeviceToHost));
    EXPECT(sum == 0, "rank %d: allreduce of device zeros gave %d", rank, sum);
    CHECK_CUDA(cudaFree(send));
    CHECK_CUDA(cudaFree(recv));
    CHECK_CUDA(cudaFree(wrong));
  }
  MPI_Finalize();
  if (reset) {
    CHECK_CUDA(cudaStreamDestroy(stream));
    CHECK_CUDA(cudaDeviceReset());
  }
  if (rank == 0) std::printf("ok gpu_runtime%s (%d ranks)\n", reset ? " reset" : "", size);
  return 0;
}
