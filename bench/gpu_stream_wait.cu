// bench/gpu_stream_wait.cu — streams of one CUDA context that wait for the host, as MPIX stream
// enqueue (src/mpi/stream.cpp) makes them wait for MPI: S streams each run ITERS iterations of
// [a short kernel, an event the host polls, a wait until the host has written the iteration's
// number into a word of mapped host memory, a short kernel]; one host thread plays the PE,
// writing a stream's word once its event is done, and queues each stream at most AHEAD
// iterations ahead of the GPU. The wait is cuStreamWaitValue32 ("memop") or a one-thread kernel
// that polls the word ("kernel"). Prints microseconds per iteration (all streams at once).
//   gpu_stream_wait memop|kernel S ITERS AHEAD
#include <cuda.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

__global__ void busy(int *p, long long cycles) {
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
  if (threadIdx.x == 0) p[blockIdx.x] += 1;
}

__global__ void wait_geq(const std::uint32_t *word, std::uint32_t value) {
  for (;;) {
    std::uint32_t v;
    asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(word) : "memory");
    if (static_cast<std::int32_t>(v - value) >= 0) return;
    __nanosleep(500);
  }
}

void check(cudaError_t e, const char *what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

void check(CUresult e, const char *what) {
  if (e != CUDA_SUCCESS) {
    std::fprintf(stderr, "%s: %d\n", what, static_cast<int>(e));
    std::exit(1);
  }
}

struct Lane {
  cudaStream_t s;
  std::vector<cudaEvent_t> reached, done; // per slot (AHEAD of them)
  volatile std::uint32_t *word;
  CUdeviceptr word_dev;
  int *scratch;
  int queued = 0, released = 0, finished = 0;
};

} // namespace

int main(int argc, char **argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s memop|kernel S ITERS AHEAD\n", argv[0]);
    return 2;
  }
  const bool kernel = !std::strcmp(argv[1], "kernel");
  const int streams = std::atoi(argv[2]), iters = std::atoi(argv[3]), ahead = std::atoi(argv[4]);
  check(cudaFree(nullptr), "cudaFree(0)");
  std::vector<Lane> lanes(static_cast<std::size_t>(streams));
  for (Lane &l : lanes) {
    check(cudaStreamCreateWithFlags(&l.s, cudaStreamNonBlocking), "cudaStreamCreate");
    l.reached.resize(static_cast<std::size_t>(ahead));
    l.done.resize(static_cast<std::size_t>(ahead));
    for (int i = 0; i < ahead; ++i) {
      check(cudaEventCreateWithFlags(&l.reached[i], cudaEventDisableTiming), "cudaEventCreate");
      check(cudaEventCreateWithFlags(&l.done[i], cudaEventDisableTiming), "cudaEventCreate");
    }
    void *h = nullptr;
    check(cuMemHostAlloc(&h, 64, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE),
          "cuMemHostAlloc");
    check(cuMemHostGetDevicePointer(&l.word_dev, h, 0), "cuMemHostGetDevicePointer");
    l.word = static_cast<volatile std::uint32_t *>(h);
    *l.word = 0;
    check(cudaMalloc(&l.scratch, 64 * sizeof(int)), "cudaMalloc");
  }
  const long long cycles = 2000; // about 1 us
  const auto t0 = std::chrono::steady_clock::now();
  int left = streams;
  while (left > 0) {
    for (Lane &l : lanes) {
      // Queue while fewer than AHEAD iterations are unfinished.
      while (l.queued < iters && l.queued - l.finished < ahead) {
        const int it = ++l.queued, slot = it % ahead;
        busy<<<1, 32, 0, l.s>>>(l.scratch, cycles);
        check(cudaEventRecord(l.reached[slot], l.s), "cudaEventRecord");
        if (kernel)
          wait_geq<<<1, 1, 0, l.s>>>(reinterpret_cast<const std::uint32_t *>(l.word_dev),
                                     static_cast<std::uint32_t>(it));
        else
          check(cuStreamWaitValue32(reinterpret_cast<CUstream>(l.s), l.word_dev,
                                    static_cast<cuuint32_t>(it), CU_STREAM_WAIT_VALUE_GEQ),
                "cuStreamWaitValue32");
        busy<<<1, 32, 0, l.s>>>(l.scratch, cycles);
        check(cudaEventRecord(l.done[slot], l.s), "cudaEventRecord");
      }
      // Release the next iteration once the stream has reached its wait (the "MPI" is done).
      if (l.released < l.queued &&
          cudaEventQuery(l.reached[(l.released + 1) % ahead]) == cudaSuccess) {
        ++l.released;
        *l.word = static_cast<std::uint32_t>(l.released);
      }
      if (l.finished < l.released &&
          cudaEventQuery(l.done[(l.finished + 1) % ahead]) == cudaSuccess) {
        if (++l.finished == iters) --left;
      }
    }
  }
  const double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%-6s streams %2d ahead %d  %9.2f us/iter\n", argv[1], streams, ahead, us / iters);
  return 0;
}
