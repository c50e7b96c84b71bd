// tests/gpu/gpu_overlap.cu — virtual ranks of one process sharing a GPU (src/core/cudart.cpp),
// built as users build CUDA codes (nvcc -ccbin mpicxx, static or shared CUDA runtime):
//   overlap KIND  ranks that each run a kernel of K ms and wait for it with KIND (stream, device,
//                 event, memcpy, symbol, memcpy2d) finish together in well under 2K: checked
//                 against K measured in the same run with one rank working (the others wait in
//                 MPI_Barrier), no absolute time.
//   own           a rank's default stream is its own: while rank 0's kernel on stream 0 waits for
//                 a word that rank 0 sets only after rank 1 has told it so, rank 1 runs a kernel
//                 on stream 0, synchronizes the device and stream 0 and finds its work done.
//                 With one stream for all, rank 1 would wait for rank 0's kernel, which would
//                 then end by its 5 s timeout: that is what fails the test (no timing).
//   iinvoke       MPIX_GPU_Iinvoke: the request is not complete while the stream's kernel waits
//                 for a word, and completes once it is set.
//   enqueue       MPICH's MPIX_Stream calls: data made by a kernel on one rank's stream is sent
//                 with MPIX_Send_enqueue / MPIX_Isend_enqueue and received on the other's stream
//                 (MPIX_Recv_enqueue / MPIX_Irecv_enqueue + MPIX_Waitall_enqueue), checked by a
//                 kernel on the receiving stream.
//   enqueue_free  a rank's cudaFree while another rank's stream waits (MPIX_Recv_enqueue) for a
//                 message the first sends after it: no hang (see enqueue_free()).
//   default_sync  a rank's kernel on each default stream (0, cudaStreamLegacy,
//                 cudaStreamPerThread) spins a few ms and then sets a word of mapped host memory;
//                 cudaStreamSynchronize on that same default stream must return only after it
//                 (the word is read right after). Run with one PE and with a PE per rank (where a
//                 rank's waits do not yield).
//   fault         a rank's stream ends in an error (a kernel that traps after a few ms): its
//                 waiting cudaStreamSynchronize, which yields, returns that error rather than
//                 waiting for ever (the PE learns of the end from a word the stream would have
//                 written, AMPI_GPU_COMPLETION_WORDS, or from an event; it asks the stream too).
//                 Each rank checks it; the job then ends with host communication only (the
//                 process's context is lost).
//   bench KIND ITERS US   the measurement of issue 18 (not a test): each rank runs a kernel of US
//                 microseconds, waits with KIND and swaps a 32 KiB device halo with both ring
//                 neighbours; prints the time per iteration over the kernel's time.
// Exits 77 (CTest: skipped) before MPI_Init where no GPU is usable.
#include <mpi.h>

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK_CUDA(call)                                                                           \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));  \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                \
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

__device__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Busy for `ns` nanoseconds of the GPU's clock; writes a value to `out` (so it is a real kernel).
__global__ void spin(unsigned long long ns, int *out) {
  const unsigned long long end = now_ns() + ns;
  while (now_ns() < end) {
  }
  if (out) *out = 42;
}

// Waits until *word != 0 (host memory, mapped) or `timeout_ns` passed; *timed_out says which.
__global__ void wait_word(volatile int *word, unsigned long long timeout_ns, int *timed_out) {
  const unsigned long long end = now_ns() + timeout_ns;
  while (*word == 0 && now_ns() < end) {
  }
  *timed_out = *word == 0;
}

__global__ void fill(int *x, int n, int base) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = base + i;
}

__global__ void count_wrong(const int *x, int n, int base, int *wrong) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] != base + i) atomicAdd(wrong, 1);
}

__device__ int symbol_value;

// Every kernel of this file launched once and waited for, before the ranks' kernels overlap: with
// lazy module loading (CUDA's default) a rank's first launch of a kernel loads it, and loading
// waits for the kernels running on the device (the other ranks' too), blocking the PE (README).
static void warm_up() {
  int *d = nullptr;
  if (cudaMalloc(&d, 2 * sizeof(int)) != cudaSuccess) return;
  int one = 1;
  cudaMemcpy(d, &one, sizeof one, cudaMemcpyHostToDevice);
  spin<<<1, 1>>>(0, d);
  wait_word<<<1, 1>>>(d, 0, d + 1);
  fill<<<1, 1>>>(d, 0, 0);
  count_wrong<<<1, 1>>>(d, 0, 0, d + 1);
  cudaDeviceSynchronize();
  cudaFree(d);
}

// One kernel of `ns` and the wait of kind `kind` (on `s`, or the default stream).
static void kernel_and_wait(const char *kind, unsigned long long ns, int *dev, int *host,
                            cudaStream_t s, cudaEvent_t ev) {
  if (std::strcmp(kind, "stream") == 0) {
    spin<<<1, 1, 0, s>>>(ns, dev);
    CHECK_CUDA(cudaStreamSynchronize(s));
  } else if (std::strcmp(kind, "device") == 0) {
    spin<<<1, 1>>>(ns, dev);
    CHECK_CUDA(cudaDeviceSynchronize());
  } else if (std::strcmp(kind, "event") == 0) {
    spin<<<1, 1>>>(ns, dev);
    CHECK_CUDA(cudaEventRecord(ev, 0));
    CHECK_CUDA(cudaEventSynchronize(ev));
  } else if (std::strcmp(kind, "memcpy") == 0) {
    *host = 0;
    spin<<<1, 1>>>(ns, dev);
    CHECK_CUDA(cudaMemcpy(host, dev, sizeof(int), cudaMemcpyDeviceToHost));
    EXPECT(*host == 42, "cudaMemcpy after the kernel read %d, not 42", *host);
  } else if (std::strcmp(kind, "memcpy2d") == 0) {
    *host = 0;
    spin<<<1, 1>>>(ns, dev);
    CHECK_CUDA(
        cudaMemcpy2D(host, sizeof(int), dev, sizeof(int), sizeof(int), 1, cudaMemcpyDeviceToHost));
    EXPECT(*host == 42, "cudaMemcpy2D after the kernel read %d, not 42", *host);
  } else if (std::strcmp(kind, "symbol") == 0) {
    int v = 0;
    spin<<<1, 1>>>(ns, nullptr);
    CHECK_CUDA(cudaMemcpyFromSymbol(&v, symbol_value, sizeof v));
  } else {
    EXPECT(false, "unknown wait kind %s", kind);
  }
}

// Busy for `ns` like spin, then sets *word (mapped host memory).
__global__ void spin_then_set(unsigned long long ns, volatile int *word) {
  const unsigned long long end = now_ns() + ns;
  while (now_ns() < end) {
  }
  __threadfence_system();
  *word = 1;
}

// The default_sync case: cudaStreamSynchronize of a default stream waits for the rank's kernel
// launched on it (which went to the rank's own stream).
static void default_sync(int rank) {
  int *word = nullptr;
  CHECK_CUDA(cudaHostAlloc(&word, sizeof(int), cudaHostAllocMapped));
  MPI_Barrier(MPI_COMM_WORLD); // (allocations may synchronize the whole device)
  const cudaStream_t streams[] = {nullptr, cudaStreamLegacy, cudaStreamPerThread};
  const char *names[] = {"0", "cudaStreamLegacy", "cudaStreamPerThread"};
  for (int i = 0; i < 3; ++i) {
    *reinterpret_cast<volatile int *>(word) = 0;
    spin_then_set<<<1, 1, 0, streams[i]>>>(20ull * 1000 * 1000, word);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaStreamSynchronize(streams[i]));
    EXPECT(*reinterpret_cast<volatile int *>(word) == 1,
           "rank %d: cudaStreamSynchronize(%s) returned before the kernel launched on it ended",
           rank, names[i]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_CUDA(cudaFreeHost(word));
}

// Busy for `ns` like spin, then traps: the stream's work ends in an error.
__global__ void spin_then_trap(unsigned long long ns) {
  const unsigned long long end = now_ns() + ns;
  while (now_ns() < end) {
  }
  __trap();
}

// The fault case: every rank's stream ends in an error; its yielding wait reports it.
static void fault(int rank) {
  cudaStream_t s = nullptr;
  CHECK_CUDA(cudaStreamCreate(&s));
  MPI_Barrier(MPI_COMM_WORLD);
  spin_then_trap<<<1, 1, 0, s>>>(20ull * 1000 * 1000);
  const cudaError_t e = cudaStreamSynchronize(s);
  EXPECT(e != cudaSuccess, "rank %d: cudaStreamSynchronize after a trap returned cudaSuccess",
         rank);
  std::printf("rank %d: the trap's stream: %s\n", rank, cudaGetErrorName(e));
  std::fflush(stdout);
  // (Only host communication from here: the process's context is unusable after the trap.)
  int all = 0, one = 1;
  MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}

static int overlap(const char *kind, int rank, int size) {
  cudaStream_t s = nullptr;
  cudaEvent_t ev = nullptr;
  int *dev = nullptr;
  CHECK_CUDA(cudaStreamCreate(&s));
  CHECK_CUDA(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
  CHECK_CUDA(cudaMalloc(&dev, sizeof(int)));
  int *host = static_cast<int *>(std::malloc(sizeof(int))); // pageable, as most codes have
  // Allocations may synchronize the whole device (for the whole process): all made before any
  // rank's kernel runs.
  MPI_Barrier(MPI_COMM_WORLD);
  const unsigned long long k_ns = 100ull * 1000 * 1000; // 100 ms
  kernel_and_wait(kind, 1000, dev, host, s, ev);        // warm-up (module load, streams)
  MPI_Barrier(MPI_COMM_WORLD);
  // K with rank 0 working alone (the others wait in MPI_Barrier).
  double alone = 0;
  if (rank == 0) {
    const double t0 = MPI_Wtime();
    kernel_and_wait(kind, k_ns, dev, host, s, ev);
    alone = MPI_Wtime() - t0;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  kernel_and_wait(kind, k_ns, dev, host, s, ev);
  MPI_Barrier(MPI_COMM_WORLD);
  const double together = MPI_Wtime() - t0;
  MPI_Bcast(&alone, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("%s: %d ranks together %.1f ms, one alone %.1f ms (%.2fx)\n", kind, size,
                together * 1e3, alone * 1e3, together / alone);
  // Serialized, `size` ranks would take size x K.
  EXPECT(together < 1.5 * alone, "%s: %d ranks took %.1f ms together, one alone %.1f ms", kind,
         size, together * 1e3, alone * 1e3);
  // cudaFree synchronizes the whole device, for the whole process (README): only once no rank's
  // kernel waits for another rank.
  MPI_Barrier(MPI_COMM_WORLD);
  std::free(host);
  CHECK_CUDA(cudaFree(dev));
  CHECK_CUDA(cudaEventDestroy(ev));
  CHECK_CUDA(cudaStreamDestroy(s));
  return 0;
}

static int own_stream(int rank) {
  int *word = nullptr, *flags = nullptr, *dev = nullptr;
  CHECK_CUDA(cudaHostAlloc(&word, sizeof(int), cudaHostAllocMapped));
  CHECK_CUDA(cudaMallocManaged(&flags, 2 * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&dev, sizeof(int)));
  *word = 0;
  flags[0] = flags[1] = -1;
  MPI_Barrier(MPI_COMM_WORLD); // (allocations may synchronize the whole device)
  if (rank == 0) {
    wait_word<<<1, 1>>>(word, 5ull * 1000 * 1000 * 1000, flags); // on stream 0
    CHECK_CUDA(cudaGetLastError());
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Recv(nullptr, 0, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    *reinterpret_cast<volatile int *>(word) = 1;
    CHECK_CUDA(cudaDeviceSynchronize());
    EXPECT(flags[0] == 0, "rank 0's kernel was not released by rank 1 (timed out)");
  } else if (rank == 1) {
    MPI_Barrier(MPI_COMM_WORLD); // rank 0's kernel is queued now
    spin<<<1, 1>>>(1000, dev);   // stream 0, as rank 0's kernel
    CHECK_CUDA(cudaDeviceSynchronize());
    EXPECT(cudaStreamQuery(0) == cudaSuccess, "rank 1's stream 0 is busy: it is rank 0's");
    int v = 0;
    CHECK_CUDA(cudaMemcpy(&v, dev, sizeof v, cudaMemcpyDeviceToHost));
    EXPECT(v == 42, "rank 1 read %d, not 42", v);
    MPI_Send(nullptr, 0, MPI_INT, 0, 7, MPI_COMM_WORLD);
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD); // (cudaFree waits for the whole device)
  CHECK_CUDA(cudaFree(dev));
  CHECK_CUDA(cudaFree(flags));
  CHECK_CUDA(cudaFreeHost(word));
  return 0;
}

static int iinvoke() {
  int *word = nullptr, *timed_out = nullptr;
  CHECK_CUDA(cudaHostAlloc(&word, sizeof(int), cudaHostAllocMapped));
  CHECK_CUDA(cudaMallocManaged(&timed_out, sizeof(int)));
  *word = 0;
  cudaStream_t s = nullptr;
  CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  MPI_Barrier(MPI_COMM_WORLD); // (allocations may synchronize the whole device)
  for (cudaStream_t which : {s, cudaStream_t(nullptr)}) {
    *reinterpret_cast<volatile int *>(word) = 0;
    wait_word<<<1, 1, 0, which>>>(word, 5ull * 1000 * 1000 * 1000, timed_out);
    MPI_Request req = MPI_REQUEST_NULL;
    EXPECT(MPIX_GPU_Iinvoke(which, &req) == MPI_SUCCESS, "MPIX_GPU_Iinvoke failed");
    int done = 1;
    for (int i = 0; i < 10; ++i) {
      MPI_Test(&req, &done, MPI_STATUS_IGNORE);
      EXPECT(!done, "the request completed while the stream's kernel still waits");
    }
    *reinterpret_cast<volatile int *>(word) = 1;
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    EXPECT(req == MPI_REQUEST_NULL, "MPI_Wait left the request");
    EXPECT(cudaStreamQuery(which) == cudaSuccess, "the stream is not done after MPI_Wait");
    EXPECT(*timed_out == 0, "the kernel timed out");
  }
  // MPI_Waitall over several.
  MPI_Request reqs[3];
  for (auto &r : reqs) {
    spin<<<1, 1, 0, s>>>(1000000, nullptr);
    EXPECT(MPIX_GPU_Iinvoke(s, &r) == MPI_SUCCESS, "MPIX_GPU_Iinvoke failed");
  }
  MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE);
  EXPECT(cudaStreamQuery(s) == cudaSuccess, "the stream is not done after MPI_Waitall");
  MPI_Barrier(MPI_COMM_WORLD); // (cudaFree waits for the whole device)
  CHECK_CUDA(cudaStreamDestroy(s));
  CHECK_CUDA(cudaFree(timed_out));
  CHECK_CUDA(cudaFreeHost(word));
  return 0;
}

// A non-blocking CUDA stream, an MPIX stream on it and a communicator of MPI_COMM_WORLD's ranks
// bound to it.
static void stream_comm(cudaStream_t *cs, MPIX_Stream *ms, MPI_Comm *comm) {
  CHECK_CUDA(cudaStreamCreateWithFlags(cs, cudaStreamNonBlocking));
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "type", "cudaStream_t");
  MPIX_Info_set_hex(info, "value", cs, sizeof *cs);
  EXPECT(MPIX_Stream_create(info, ms) == MPI_SUCCESS, "MPIX_Stream_create failed");
  MPI_Info_free(&info);
  EXPECT(MPIX_Stream_comm_create(MPI_COMM_WORLD, *ms, comm) == MPI_SUCCESS,
         "MPIX_Stream_comm_create failed");
}

static int enqueue(int rank, int size) {
  const int n = 1 << 16;
  // A non-blocking stream: the library's CUDA IPC send waits for the legacy stream, which waits
  // for every blocking stream, a blocking stream waiting for that very send included (README).
  cudaStream_t cs = nullptr;
  MPIX_Stream ms = MPIX_STREAM_NULL;
  MPI_Comm comm = MPI_COMM_NULL;
  stream_comm(&cs, &ms, &comm);
  int *send = nullptr, *recv = nullptr, *recv2 = nullptr, *wrong = nullptr;
  CHECK_CUDA(cudaMalloc(&send, n * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&recv, n * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&recv2, n * sizeof(int)));
  CHECK_CUDA(cudaMallocManaged(&wrong, sizeof(int)));
  *wrong = 0;
  MPI_Barrier(MPI_COMM_WORLD); // (allocations may synchronize the whole device)
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (int round = 0; round < 3; ++round) {
    // Everything on the stream, the host never waits: a kernel makes the data (after a delay, so
    // that the sends really wait for it), the blocking enqueue calls move it, a kernel checks.
    CHECK_CUDA(cudaMemsetAsync(recv, 0xff, n * sizeof(int), cs));
    spin<<<1, 1, 0, cs>>>(20ull * 1000 * 1000, nullptr);
    fill<<<n / 256, 256, 0, cs>>>(send, n, rank * 1000 + round);
    if (rank % 2 == 0) {
      MPIX_Send_enqueue(send, n, MPI_INT, right, round, comm);
      MPIX_Recv_enqueue(recv, n, MPI_INT, left, round, comm, MPI_STATUS_IGNORE);
    } else {
      MPIX_Recv_enqueue(recv, n, MPI_INT, left, round, comm, MPI_STATUS_IGNORE);
      MPIX_Send_enqueue(send, n, MPI_INT, right, round, comm);
    }
    count_wrong<<<n / 256, 256, 0, cs>>>(recv, n, left * 1000 + round, wrong);
    // The non-blocking forms, both directions at once.
    MPI_Request reqs[2];
    MPIX_Irecv_enqueue(recv2, n, MPI_INT, right, 100 + round, comm, &reqs[0]);
    MPIX_Isend_enqueue(send, n, MPI_INT, left, 100 + round, comm, &reqs[1]);
    MPI_Status st[2];
    MPIX_Waitall_enqueue(2, reqs, st);
    EXPECT(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL,
           "MPIX_Waitall_enqueue left the requests");
    count_wrong<<<n / 256, 256, 0, cs>>>(recv2, n, right * 1000 + round, wrong);
    CHECK_CUDA(cudaStreamSynchronize(cs));
    EXPECT(*wrong == 0, "round %d: %d elements wrong after the enqueued exchange", round, *wrong);
    EXPECT(st[0].MPI_SOURCE == right && st[0].MPI_TAG == 100 + round,
           "the receive's status names %d/%d", st[0].MPI_SOURCE, st[0].MPI_TAG);
  }
  MPI_Barrier(MPI_COMM_WORLD); // (cudaFree waits for the whole device)
  MPI_Comm_free(&comm);
  EXPECT(MPIX_Stream_free(&ms) == MPI_SUCCESS && ms == MPIX_STREAM_NULL, "MPIX_Stream_free");
  CHECK_CUDA(cudaFree(send));
  CHECK_CUDA(cudaFree(recv));
  CHECK_CUDA(cudaFree(recv2));
  CHECK_CUDA(cudaFree(wrong));
  CHECK_CUDA(cudaStreamDestroy(cs));
  return 0;
}

// Rank 1's stream waits (MPIX_Recv_enqueue) for a message that rank 0 sends only after a
// cudaFree. The real cudaFree waits for every stream of the context, rank 1's included, which
// waits for that send: without the library's cudaFree (core/cudart.cpp) the job hangs until
// ampirun's --timeout ends it (no timing).
static int enqueue_free(int rank) {
  const int n = 1 << 12;
  cudaStream_t cs = nullptr;
  MPIX_Stream ms = MPIX_STREAM_NULL;
  MPI_Comm comm = MPI_COMM_NULL;
  stream_comm(&cs, &ms, &comm);
  int *buf = nullptr, *tmp = nullptr, *wrong = nullptr;
  CHECK_CUDA(cudaMalloc(&buf, n * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&tmp, 1 << 20));
  CHECK_CUDA(cudaMallocManaged(&wrong, sizeof(int)));
  *wrong = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    CHECK_CUDA(cudaMemsetAsync(buf, 0xff, n * sizeof(int), cs));
    MPIX_Recv_enqueue(buf, n, MPI_INT, 0, 7, comm, MPI_STATUS_IGNORE);
    count_wrong<<<n / 256, 256, 0, cs>>>(buf, n, 4242, wrong);
  }
  MPI_Barrier(MPI_COMM_WORLD); // rank 1's stream now waits for rank 0's send
  if (rank == 0) {
    CHECK_CUDA(cudaFree(tmp));
    tmp = nullptr;
    fill<<<n / 256, 256, 0, cs>>>(buf, n, 4242);
    CHECK_CUDA(cudaStreamSynchronize(cs));
    EXPECT(MPI_Send(buf, n, MPI_INT, 1, 7, comm) == MPI_SUCCESS, "MPI_Send failed");
  } else if (rank == 1) {
    CHECK_CUDA(cudaStreamSynchronize(cs));
    EXPECT(*wrong == 0, "%d elements wrong after the enqueued receive", *wrong);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Comm_free(&comm);
  EXPECT(MPIX_Stream_free(&ms) == MPI_SUCCESS && ms == MPIX_STREAM_NULL, "MPIX_Stream_free");
  if (tmp) CHECK_CUDA(cudaFree(tmp));
  CHECK_CUDA(cudaFree(buf));
  CHECK_CUDA(cudaFree(wrong));
  CHECK_CUDA(cudaStreamDestroy(cs));
  return 0;
}

static int bench(const char *kind, int iters, int us, int rank, int size) {
  const int n = 32 * 1024 / sizeof(double);
  double *halo[4];
  for (auto &h : halo)
    CHECK_CUDA(cudaMalloc(&h, n * sizeof(double)));
  cudaStream_t s = nullptr;
  cudaEvent_t ev = nullptr;
  int *dev = nullptr;
  CHECK_CUDA(cudaStreamCreate(&s));
  CHECK_CUDA(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
  CHECK_CUDA(cudaMalloc(&dev, sizeof(int)));
  int *host = static_cast<int *>(std::malloc(sizeof(int)));
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  double t0 = 0;
  for (int it = -3; it < iters; ++it) { // 3 warm-up iterations
    if (it == 0) {
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = MPI_Wtime();
    }
    kernel_and_wait(kind, us * 1000ull, dev, host, s, ev);
    MPI_Request r[4];
    MPI_Irecv(halo[2], n, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(halo[3], n, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &r[1]);
    MPI_Isend(halo[0], n, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &r[2]);
    MPI_Isend(halo[1], n, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &r[3]);
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const double per_iter = (MPI_Wtime() - t0) / iters;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("bench %-8s ranks %d kernel %d us: %.3f ms per iteration = %.2f x kernel\n", kind,
                size, us, per_iter * 1e3, per_iter * 1e6 / us);
  std::free(host);
  for (auto &h : halo)
    CHECK_CUDA(cudaFree(h));
  CHECK_CUDA(cudaFree(dev));
  CHECK_CUDA(cudaEventDestroy(ev));
  CHECK_CUDA(cudaStreamDestroy(s));
  return 0;
}

int main(int argc, char **argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no usable GPU: skipped\n");
    return 77;
  }
  const char *lr = std::getenv("LOCAL_RANK");
  CHECK_CUDA(cudaSetDevice(lr ? std::atoi(lr) % devices : 0));
  MPI_Init(&argc, &argv);
  warm_up();
  MPI_Barrier(MPI_COMM_WORLD);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *what = argc > 1 ? argv[1] : "";
  if (std::strcmp(what, "overlap") == 0 && argc > 2) {
    overlap(argv[2], rank, size);
  } else if (std::strcmp(what, "own") == 0) {
    EXPECT(size >= 2, "own: needs 2 ranks");
    own_stream(rank);
  } else if (std::strcmp(what, "iinvoke") == 0) {
    iinvoke();
  } else if (std::strcmp(what, "enqueue") == 0) {
    enqueue(rank, size);
  } else if (std::strcmp(what, "enqueue_free") == 0 && size >= 2) {
    enqueue_free(rank);
  } else if (std::strcmp(what, "default_sync") == 0) {
    default_sync(rank);
  } else if (std::strcmp(what, "fault") == 0) {
    fault(rank);
  } else if (std::strcmp(what, "bench") == 0 && argc > 4) {
    bench(argv[2], std::atoi(argv[3]), std::atoi(argv[4]), rank, size);
  } else {
    EXPECT(false, "usage: gpu_overlap overlap KIND | own | iinvoke | enqueue | enqueue_free | "
                  "default_sync | fault | bench KIND ITERS US");
  }
  MPI_Finalize();
  if (rank == 0 && std::strcmp(what, "bench") != 0) std::printf("%s: ok\n", what);
  return 0;
}
