// src/devptr_cache/copy_service.cpp — the host side of a PE's resident copy kernel
// (copy_service.cu): device-to-device copies into its GPU's memory, from that GPU or another one
// its kernels reach by peer access (contiguous, and strided copies between two datatype layouts,
// one descriptor per segment) go into a ring in page-locked memory,
// which the kernel reads and copies in order (its blocks, AMPI_GPU_COPY_KERNEL_BLOCKS, each take
// a share of every copy); the PE learns
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
#include <cstddef>
#include <cstring>

namespace ampi::gpu {

namespace {

constexpr unsigned kServiceThreads = 512;
constexpr std::uint64_t kWarpUnits = 32; // the narrowest row service_strided hands over, in units
constexpr unsigned kStreamNonBlockingFlag = 1; // CU_STREAM_NON_BLOCKING
constexpr unsigned kHostAllocDeviceMap = 2;    // CU_MEMHOSTALLOC_DEVICEMAP

std::uint64_t load_acquire(const unsigned long long &x) {
  return std::atomic_ref<const unsigned long long>(x).load(std::memory_order_acquire);
}

// The kernel reads a slot as words (copy_service.cu): `unit` the 4th, the sides from the 5th.
static_assert(offsetof(ampi_copy_slot, unit) == 3 * 8 &&
              offsetof(ampi_copy_slot, dst_side) == 4 * 8 &&
              offsetof(ampi_copy_slot, src_side) == 9 * 8 &&
              offsetof(ampi_copy_slot, pad) == AMPI_COPY_SLOT_FIELDS * 8 &&
              sizeof(ampi_copy_slot) == 128);

ampi_copy_side side_of(const StridedSide &s) {
  return {s.width, s.height, s.pitch, s.slab, s.offset};
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
  // Several blocks share each copy through device memory of their own, zeroed on the kernel's
  // stream (so before its first launch); one block where it cannot be had.
  if (sv->ring && copy_kernel_blocks_ > 1 && d.cuMemAlloc && d.cuMemFree && d.cuMemsetD8Async) {
    if (d.cuMemAlloc(&sv->grid, sizeof(ampi_copy_grid)) != kCudaSuccess) {
      sv->grid = 0;
    } else if (d.cuMemsetD8Async(sv->grid, 0, sizeof(ampi_copy_grid), sv->stream) != kCudaSuccess) {
      static_cast<void>(d.cuMemFree(sv->grid));
      sv->grid = 0;
    } else {
      sv->blocks = copy_kernel_blocks_;
    }
  }
  // (A context without one is remembered as such: fn or ring null, never tried again.)
  if (!sv->ring) sv->fn = nullptr;
  services_.push_back(std::move(sv));
  return services_.back().get();
}

DevPtrCache::CopyService *DevPtrCache::service_taking(CUcontext ctx, std::size_t n) {
  if (n > copy_kernel_bytes_ || !ctx) return nullptr;
  // Not where streams may wait for MPI (MPIX_*_enqueue took host words of this PE): past 32
  // streams a context's hardware queues are shared, and a copy kernel queued behind a stream
  // that waits for a copy would never run (jacobi3d_cuda --enqueue over 8 PEs hung, H100,
  // bench/results/2026-11-27-s13-gpu/run2).
  if (stream_waits_) return nullptr;
  // (Asked before any pointer is: each validated hit of the cache is a driver call, 0.7 us with
  // 8 PEs of one process, CUPTI, H100.)
  CopyService *sv = service_for(ctx);
  return sv->fn ? sv : nullptr;
}

bool DevPtrCache::service_copy(CUcontext ctx, void *dst, MemKind dst_kind, const void *src,
                               MemKind src_kind, std::size_t n, std::function<void()> &done) {
  if (dst_kind != MemKind::Device || src_kind != MemKind::Device) return false;
  CopyService *sv = service_taking(ctx, n);
  if (!sv) return false;
  // `dst` plain device memory of this context, `src` of this context or of another GPU that
  // this context's kernels reach (peer access: ranks of one process on two GPUs; the kernel
  // pulls over NVLink). Not managed memory (it may sit on the host). The caller has just looked
  // `dst` up (its kind); `src` is asked once.
  if (cached_context(dst) != ctx || !reachable(src, ctx)) return false;
  if (free_slots(*sv) == 0) return false; // full
  ampi_copy_slot desc{};
  desc.src = reinterpret_cast<std::uintptr_t>(src);
  desc.dst = reinterpret_cast<std::uintptr_t>(dst);
  desc.bytes = n; // (unit 0: contiguous)
  post(*sv, desc);
  started(*sv, done);
  return true;
}

bool DevPtrCache::service_strided(CUcontext ctx, const void *dst_base, std::size_t n,
                                  std::size_t unit, const std::vector<StridedSegment> &plan,
                                  std::function<void()> &done) {
  CopyService *sv = service_taking(ctx, n);
  // The receiving layout in this context's memory (the plan's pointers were checked: both
  // reachable by its kernels), one descriptor a segment, all of them or none.
  if (!sv || cached_context(dst_base) != ctx || plan.size() > free_slots(*sv)) return false;
  // Rows of at least a warp's width on both sides (or one run): the kernel's blocks read and
  // write them a warp's worth at a time. Narrower rows (a face across the fastest
  // dimension: one unit a row) take it 6.5x the time of a launched kernel (gpu_halo's x face,
  // 512 KiB of doubles, 124 against 19 us, H100, bench/results/2026-11-27-s14-gpu/run1); with 2
  // (4) blocks still 67 (39) us against 16 (H200, bench/results/2026-11-28-s19-gpu/run2).
  const auto wide = [](const StridedSide &side, std::uint64_t units) {
    return side.width >= kWarpUnits || (side.height == 1 && side.offset + units <= side.width);
  };
  for (const StridedSegment &g : plan)
    if (!wide(g.src, g.units) || !wide(g.dst, g.units)) return false;
  for (const StridedSegment &g : plan) {
    ampi_copy_slot desc{};
    desc.src = g.src.base;
    desc.dst = g.dst.base;
    desc.bytes = g.units;
    desc.unit = unit;
    desc.dst_side = side_of(g.dst);
    desc.src_side = side_of(g.src);
    post(*sv, desc);
  }
  started(*sv, done); // (called once the last segment is done: the kernel finishes them in order)
  return true;
}

std::size_t DevPtrCache::free_slots(const CopyService &sv) {
  return AMPI_COPY_RING_SLOTS - static_cast<std::size_t>(sv.head - load_acquire(sv.ring->done));
}

void DevPtrCache::post(CopyService &sv, const ampi_copy_slot &desc) {
  ampi_copy_slot &slot = sv.ring->slot[sv.head % AMPI_COPY_RING_SLOTS];
  std::memcpy(&slot, &desc, offsetof(ampi_copy_slot, pad)); // (the fields the kernel reads)
  std::atomic_ref<unsigned long long>(slot.seq).store(sv.head + 1, std::memory_order_release);
  ++sv.head;
}

void DevPtrCache::started(CopyService &sv, std::function<void()> &done) {
  sv.waiting.emplace_back(sv.head, std::move(done));
  ++service_waiting_;
  // Not running (the last generation has exited): start the next. One that is about to exit
  // without these descriptors is restarted by poll_services().
  if (load_acquire(sv.ring->exited) == sv.launched)
    if (CUresult r = launch_service(sv); r != kCudaSuccess)
      cuda_fail("cuLaunchKernel (the copy kernel)", r);
}

CUresult DevPtrCache::launch_service(CopyService &sv) {
  unsigned long long ring = sv.ring_dev;
  unsigned long long grid = sv.grid;
  unsigned long long pos = load_acquire(sv.ring->done);
  unsigned long long gen = sv.launched + 1;
  unsigned long long idle_ns = std::uint64_t{copy_kernel_idle_us_} * 1000;
  void *args[] = {&ring, &grid, &pos, &gen, &idle_ns};
  const CUresult r = driver().cuLaunchKernel(sv.fn, sv.blocks, 1, 1, kServiceThreads, 1, 1, 0,
                                             sv.stream, args, nullptr);
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
      if (sv->grid) static_cast<void>(d.cuMemFree(sv->grid));
      static_cast<void>(d.cuStreamDestroy(sv->stream));
      static_cast<void>(d.cuMemFreeHost(sv->ring));
    }
    service_waiting_ -= sv->waiting.size();
    return true;
  });
}

} // namespace ampi::gpu
