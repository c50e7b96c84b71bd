// src/devptr_cache/copy_service.cpp — the host side of a PE's resident copy kernel
// (copy_service.cu): contiguous device-to-device copies within one GPU go into a ring in
// page-locked memory, which the kernel's single block reads and copies in order; the PE learns
// that a copy is done from the ring's `done` count, a plain load. No driver call per copy: with
// 8 PEs of one process sharing a CUDA context, each cuMemcpyAsync took 10.9 us and each
// cuEventQuery 4.5 us on average, against 4.4 and 1.6 us with one PE (the driver's locks;
// CUPTI, H100, bench/results/2026-11-27-s13-gpu/run1), and Jacobi3D's exchange between the PEs
// took twice as long as between 8 processes under MPS.
// The kernel exits when no copy came for AMPI_GPU_COPY_KERNEL_IDLE microseconds, so that what
// waits for all of a context's work (cudaDeviceSynchronize outside a rank, cudaFree's implicit
// synchronization, cuCtxSynchronize) waits at most that long for it; the next copy launches it
// again. Its stream is non-blocking: the legacy default stream never waits for it. A kernel may
// also run out of time just as a copy arrives: poll_services() then launches the next
// generation, which starts where the last one stopped (the ring's `done`; launches on one
// stream run one after another).
#include "devptr_cache/devptr_cache.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>

namespace ampi::gpu {

namespace {

constexpr unsigned kServiceThreads = 512;
constexpr unsigned kStreamNonBlockingFlag = 1; // CU_STREAM_NON_BLOCKING
constexpr unsigned kHostAllocDeviceMap = 2;    // CU_MEMHOSTALLOC_DEVICEMAP

std::uint64_t load_acquire(const unsigned long long &x) {
  return std::atomic_ref<const unsigned long long>(x).load(std::memory_order_acquire);
}

} // namespace

DevPtrCache::CopyService *DevPtrCache::service_for(CUcontext ctx) {
  auto it = std::find_if(services_.begin(), services_.end(),
                         [ctx](const auto &s) { return s->ctx == ctx; });
  if (it != services_.end()) return it->get();
  // Made before any stream may wait for MPI (prepare_streams()): cuMemHostAlloc and
  // cuStreamCreate may wait for the context's streams (see take_host_word).
  auto sv = std::make_unique<CopyService>();
  sv->ctx = ctx;
  const Driver &d = driver();
  // Not where processes of the job may share a GPU (more of them on this host than GPUs): a
  // kernel that stays in one process's context holds up the others' work on a GPU shared without
  // MPS, whose contexts take turns (an 8 B device ping-pong between two such processes took 344
  // us one way with the kernel on, 152 us without, H100, bench/results/2026-11-27-s13-gpu/run4).
  int devices = 0;
  const bool alone =
      host_processes_ <= 1 || (d.cuDeviceGetCount && d.cuDeviceGetCount(&devices) == kCudaSuccess &&
                               host_processes_ <= devices);
  sv->fn = alone ? kernel("ampi_copy_service") : nullptr;
  void *host = nullptr;
  if (sv->fn && d.cuMemHostAlloc && d.cuMemHostGetDevicePointer &&
      d.cuMemHostAlloc(&host, sizeof(ampi_copy_ring), kHostAllocDeviceMap) == kCudaSuccess) {
    sv->ring = static_cast<ampi_copy_ring *>(host);
    std::memset(host, 0, sizeof(ampi_copy_ring));
    if (d.cuMemHostGetDevicePointer(&sv->ring_dev, host, 0) != kCudaSuccess ||
        d.cuStreamCreate(&sv->stream, kStreamNonBlockingFlag) != kCudaSuccess) {
      static_cast<void>(d.cuMemFreeHost(host));
      sv->ring = nullptr;
    }
  }
  // (A context without one is remembered as such: fn or ring null, never tried again.)
  if (!sv->ring) sv->fn = nullptr;
  services_.push_back(std::move(sv));
  return services_.back().get();
}

bool DevPtrCache::service_copy(CUcontext ctx, void *dst, MemKind dst_kind, const void *src,
                               MemKind src_kind, std::size_t n, std::function<void()> &done) {
  if (n > copy_kernel_bytes_ || !ctx) return false;
  // Not where streams may wait for MPI (MPIX_*_enqueue took host words of this PE): past 32
  // streams a context's hardware queues are shared, and a copy kernel queued behind a stream
  // that waits for a copy would never run (jacobi3d_cuda --enqueue over 8 PEs hung, H100,
  // bench/results/2026-11-27-s13-gpu/run2).
  if (stream_waits_ || dst_kind != MemKind::Device || src_kind != MemKind::Device) return false;
  // (Whether this context has one before any pointer is asked about: each validated hit of the
  // cache is a driver call, 0.7 us with 8 PEs of one process, CUPTI, H100.)
  CopyService &sv = *service_for(ctx);
  if (!sv.fn) return false;
  // Both ends plain device memory of this context (a kernel of another GPU's context could not
  // read them without peer access; managed memory may sit on the host). The caller has just
  // looked `dst` up (its kind); `src` is asked once.
  if (cached_context(dst) != ctx || lookup(src) != MemKind::Device || cached_context(src) != ctx)
    return false;
  if (sv.head - load_acquire(sv.ring->done) >= AMPI_COPY_RING_SLOTS) return false; // full
  ampi_copy_slot &slot = sv.ring->slot[sv.head % AMPI_COPY_RING_SLOTS];
  slot.src = reinterpret_cast<std::uintptr_t>(src);
  slot.dst = reinterpret_cast<std::uintptr_t>(dst);
  slot.bytes = n;
  std::atomic_ref<unsigned long long>(slot.seq).store(sv.head + 1, std::memory_order_release);
  ++sv.head;
  sv.waiting.emplace_back(sv.head, std::move(done));
  ++service_waiting_;
  // Not running (the last generation has exited): start the next. One that is about to exit
  // without this descriptor is restarted by poll_services().
  if (load_acquire(sv.ring->exited) == sv.launched)
    if (CUresult r = launch_service(sv); r != kCudaSuccess)
      cuda_fail("cuLaunchKernel (the copy kernel)", r);
  return true;
}

CUresult DevPtrCache::launch_service(CopyService &sv) {
  unsigned long long ring = sv.ring_dev;
  unsigned long long pos = load_acquire(sv.ring->done);
  unsigned long long gen = sv.launched + 1;
  unsigned long long idle_ns = std::uint64_t{copy_kernel_idle_us_} * 1000;
  void *args[] = {&ring, &pos, &gen, &idle_ns};
  const CUresult r =
      driver().cuLaunchKernel(sv.fn, 1, 1, 1, kServiceThreads, 1, 1, 0, sv.stream, args, nullptr);
  if (r == kCudaSuccess) sv.launched = gen;
  return r;
}

bool DevPtrCache::poll_services() {
  bool any = false;
  for (std::size_t i = 0; i < services_.size(); ++i) {
    CopyService &sv = *services_[i];
    if (sv.waiting.empty()) continue;
    const std::uint64_t done = load_acquire(sv.ring->done);
    while (!sv.waiting.empty() && sv.waiting.front().first <= done) {
      std::function<void()> f = std::move(sv.waiting.front().second);
      sv.waiting.pop_front();
      --service_waiting_;
      f(); // may hand over more copies (services_ stays, sv.waiting may grow)
      any = true;
    }
    if (!sv.waiting.empty() && load_acquire(sv.ring->exited) == sv.launched &&
        load_acquire(sv.ring->done) < sv.head)
      if (CUresult r = launch_service(sv); r != kCudaSuccess)
        cuda_fail("cuLaunchKernel (the copy kernel)", r);
  }
  return any;
}

void DevPtrCache::close_services(CUcontext ctx, bool alive) noexcept {
  std::erase_if(services_, [&](const std::unique_ptr<CopyService> &sv) {
    if (sv->ctx != ctx) return false;
    if (alive && sv->ring) {
      // Tell a running kernel to stop, and wait until it has (its ring must outlive it).
      const Driver &d = driver();
      std::atomic_ref<unsigned long long>(sv->ring->stop).store(1, std::memory_order_release);
      static_cast<void>(d.cuStreamSynchronize(sv->stream));
      static_cast<void>(d.cuStreamDestroy(sv->stream));
      static_cast<void>(d.cuMemFreeHost(sv->ring));
    }
    service_waiting_ -= sv->waiting.size();
    return true;
  });
}

} // namespace ampi::gpu
