// bench/gpu_launch_threads.cu — how kernel launches and waits scale with the number of host
// threads that share one CUDA context (virtual ranks over several PEs of one process) against as
// many processes (each its own context; under MPS when its daemon runs). Each of T workers runs
// ITERS iterations of K tiny kernels on a stream of its own, then waits for them in one of three
// ways: cudaStreamSynchronize ("sync"), cudaEventQuery in a loop ("event", how a PE polls its
// copies), or a host word that the stream writes (cuStreamWriteValue32) read with plain loads
// ("word": no driver call while waiting). With C, each iteration also asks the driver C times for
// the buffer id of the worker's device memory (cuPointerGetAttribute, as the pointer cache checks
// a device hit), between the launches and the wait. Prints microseconds per iteration (all
// workers at once).
//   gpu_launch_threads sync|event|word threads|procs T ITERS [K [C]]
// GLT_BYSTANDERS=B (threads only): B more threads of the process each launch one kernel that
// spins until the workers are done and wait for it in cudaStreamSynchronize meanwhile, as the
// PEs whose ranks wait for their sweep do; whether a waiting thread slows the others' launches.
// GLT_GREEN=1 (threads only): each worker runs in a green context of its own (the device's SMs
// split T ways, cuGreenCtxCreate; the memory is the primary context's), current on its thread,
// with its stream made there (cuGreenCtxStreamCreate): whether launches of threads that do not
// share one context still wait for each other.
// No MPI: it measures the driver, the floor under jacobi3d_cuda's iterations.
#include <cuda.h>
#include <cuda_runtime.h>

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

__global__ void tick(int *p) {
  if (threadIdx.x == 0) p[blockIdx.x] += 1;
}

// Spins until *stop (mapped host memory) is set.
__global__ void spin_until(volatile int *stop) {
  while (*stop == 0) {
  }
}

enum class Wait { Sync, Event, Word };

void check(cudaError_t e, const char *what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

void check(CUresult e, const char *what) {
  if (e != CUDA_SUCCESS) {
    const char *s = nullptr;
    cuGetErrorString(e, &s);
    std::fprintf(stderr, "%s: %s\n", what, s ? s : "?");
    std::exit(1);
  }
}

// One worker: its stream, event and word; `go` starts every worker at once.
void worker(Wait how, int iters, int kernels, int checks, std::atomic<int> *go,
            std::atomic<int> *ready, CUgreenCtx green = nullptr) {
  cudaStream_t s;
  if (green) {
    CUcontext ctx;
    check(cuCtxFromGreenCtx(&ctx, green), "cuCtxFromGreenCtx");
    check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    CUstream cs;
    check(cuGreenCtxStreamCreate(&cs, green, CU_STREAM_NON_BLOCKING, 0), "cuGreenCtxStreamCreate");
    s = reinterpret_cast<cudaStream_t>(cs);
  } else {
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  cudaEvent_t ev;
  check(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), "cudaEventCreate");
  int *counter;
  check(cudaMalloc(&counter, 64 * sizeof(int)), "cudaMalloc");
  void *host = nullptr;
  check(cuMemHostAlloc(&host, 64, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE),
        "cuMemHostAlloc");
  CUdeviceptr dev;
  check(cuMemHostGetDevicePointer(&dev, host, 0), "cuMemHostGetDevicePointer");
  auto *word = static_cast<volatile std::uint32_t *>(host);
  *word = 0;
  ready->fetch_add(1);
  while (go->load(std::memory_order_acquire) == 0) {
  }
  for (int it = 1; it <= iters; ++it) {
    for (int k = 0; k < kernels; ++k)
      tick<<<1, 32, 0, s>>>(counter);
    for (int c = 0; c < checks; ++c) {
      unsigned long long id = 0;
      check(cuPointerGetAttribute(&id, CU_POINTER_ATTRIBUTE_BUFFER_ID,
                                  reinterpret_cast<CUdeviceptr>(counter)),
            "cuPointerGetAttribute");
    }
    switch (how) {
    case Wait::Sync:
      check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
      break;
    case Wait::Event:
      check(cudaEventRecord(ev, s), "cudaEventRecord");
      while (cudaEventQuery(ev) == cudaErrorNotReady) {
      }
      break;
    case Wait::Word:
      check(
          cuStreamWriteValue32(reinterpret_cast<CUstream>(s), dev, static_cast<cuuint32_t>(it), 0),
          "cuStreamWriteValue32");
      while (*word != static_cast<std::uint32_t>(it)) {
      }
      break;
    }
  }
  check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s sync|event|word threads|procs T ITERS [K [C]]\n", argv[0]);
    return 2;
  }
  const Wait how = !std::strcmp(argv[1], "sync")    ? Wait::Sync
                   : !std::strcmp(argv[1], "event") ? Wait::Event
                                                    : Wait::Word;
  const bool procs = !std::strcmp(argv[2], "procs");
  const int t = std::atoi(argv[3]), iters = std::atoi(argv[4]);
  const int kernels = argc > 5 ? std::atoi(argv[5]) : 7;
  const int checks = argc > 6 ? std::atoi(argv[6]) : 0;
  if (procs) {
    // The flags live in shared memory: every child has set up its stream before `go` is set.
    auto *shared = static_cast<std::atomic<int> *>(
        mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
    new (&shared[0]) std::atomic<int>(0); // go
    new (&shared[1]) std::atomic<int>(0); // ready
    for (int i = 0; i < t; ++i)
      if (fork() == 0) {
        check(cudaFree(nullptr), "cudaFree(0)");
        worker(how, iters, kernels, checks, &shared[0], &shared[1]);
        _exit(0);
      }
    while (shared[1].load() < t) {
    }
    const auto t0 = std::chrono::steady_clock::now();
    shared[0].store(1, std::memory_order_release);
    int bad = 0;
    for (int i = 0; i < t; ++i) {
      int st = 0;
      wait(&st);
      bad |= !WIFEXITED(st) || WEXITSTATUS(st) != 0;
    }
    const double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%-5s procs   %2d  %8.2f us/iter\n", argv[1], t, us / iters);
    return bad;
  }
  check(cudaFree(nullptr), "cudaFree(0)");
  // Both kernels loaded now: with lazy loading (CUDA's default) a worker's first launch would load
  // `tick` and wait behind the bystanders' endless kernels (it hung so on an H200; the measured
  // runs set CUDA_MODULE_LOADING=EAGER, and this line has not run on a GPU since).
  cudaFuncAttributes fa;
  check(cudaFuncGetAttributes(&fa, tick), "cudaFuncGetAttributes");
  check(cudaFuncGetAttributes(&fa, spin_until), "cudaFuncGetAttributes");
  const char *b = std::getenv("GLT_BYSTANDERS");
  const int bystanders = b ? std::atoi(b) : 0;
  int *stop = nullptr;
  check(cudaHostAlloc(reinterpret_cast<void **>(&stop), sizeof(int), cudaHostAllocMapped),
        "cudaHostAlloc");
  *stop = 0;
  std::atomic<int> spinning{0};
  std::vector<std::thread> bs;
  for (int i = 0; i < bystanders; ++i)
    bs.emplace_back([stop, &spinning] {
      cudaStream_t s;
      check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
      spin_until<<<1, 1, 0, s>>>(stop);
      spinning.fetch_add(1);
      check(cudaStreamSynchronize(s), "cudaStreamSynchronize (bystander)");
      check(cudaStreamDestroy(s), "cudaStreamDestroy");
    });
  while (spinning.load() < bystanders) {
  }
  // Green contexts, one per worker: the SMs split into t groups of a size the device allows.
  std::vector<CUgreenCtx> greens(static_cast<std::size_t>(t), nullptr);
  const char *g = std::getenv("GLT_GREEN");
  const bool green = g && std::atoi(g) != 0;
  int sms_each = 0;
  if (green) {
    CUdevice dev;
    check(cuDeviceGet(&dev, 0), "cuDeviceGet");
    CUdevResource all{};
    check(cuDeviceGetDevResource(dev, &all, CU_DEV_RESOURCE_TYPE_SM), "cuDeviceGetDevResource");
    const unsigned align = all.sm.smCoscheduledAlignment ? all.sm.smCoscheduledAlignment : 2;
    unsigned each = all.sm.smCount / static_cast<unsigned>(t) / align * align;
    if (each < all.sm.minSmPartitionSize) each = all.sm.minSmPartitionSize;
    std::vector<CUdevResource> parts(static_cast<std::size_t>(t));
    unsigned n = static_cast<unsigned>(t);
    CUdevResource rest{};
    check(cuDevSmResourceSplitByCount(parts.data(), &n, &all, &rest, 0, each),
          "cuDevSmResourceSplitByCount");
    if (n < static_cast<unsigned>(t)) {
      std::fprintf(stderr, "only %u green partitions of %u SMs (of %u)\n", n, each, all.sm.smCount);
      return 1;
    }
    sms_each = static_cast<int>(parts[0].sm.smCount);
    for (int i = 0; i < t; ++i) {
      CUdevResourceDesc desc;
      check(cuDevResourceGenerateDesc(&desc, &parts[static_cast<std::size_t>(i)], 1),
            "cuDevResourceGenerateDesc");
      check(cuGreenCtxCreate(&greens[static_cast<std::size_t>(i)], desc, dev,
                             CU_GREEN_CTX_DEFAULT_STREAM),
            "cuGreenCtxCreate");
    }
  }
  std::atomic<int> go{0}, ready{0};
  std::vector<std::thread> ws;
  for (int i = 0; i < t; ++i)
    ws.emplace_back(worker, how, iters, kernels, checks, &go, &ready,
                    greens[static_cast<std::size_t>(i)]);
  while (ready.load() < t) {
  }
  const auto t0 = std::chrono::steady_clock::now();
  go.store(1, std::memory_order_release);
  for (auto &w : ws)
    w.join();
  const double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  __atomic_store_n(stop, 1, __ATOMIC_RELEASE);
  for (auto &x : bs)
    x.join();
  std::printf("%-5s threads %2d  %8.2f us/iter (K %d, C %d, bystanders %d, green %d SMs)\n",
              argv[1], t, us / iters, kernels, checks, bystanders, sms_each);
  return 0;
}
