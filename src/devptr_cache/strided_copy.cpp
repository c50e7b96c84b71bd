// src/devptr_cache/strided_copy.cpp — copies between strided layouts of device memory by the
// kernels of strided_copy.cu: a plan of segments (strided_plan.cpp), one launch per segment on
// the caller's stream or on a copy stream of ours; and which memory those kernels may reach
// (another GPU's, through peer access).
#include "devptr_cache/devptr_cache.hpp"

#include <algorithm>
#include <array>

namespace ampi::gpu {

namespace {

// 256 threads a block, at most 1024 blocks (grid-stride beyond: a 512 KiB face of doubles is
// 65536 units, 256 blocks).
constexpr unsigned kThreads = 256;
constexpr std::uint64_t kMaxBlocks = 1024;

constexpr std::array<const char *, 17> kNames = [] {
  std::array<const char *, 17> a{};
  a[1] = "ampi_strided_copy_1";
  a[2] = "ampi_strided_copy_2";
  a[4] = "ampi_strided_copy_4";
  a[8] = "ampi_strided_copy_8";
  a[16] = "ampi_strided_copy_16";
  return a;
}();

} // namespace

bool DevPtrCache::reachable(const void *p, CUcontext ctx) {
  if (kind(p) != MemKind::Device) return false;
  const CUcontext owner = entries_[mru_].ctx; // (kind() left p's entry the most recent)
  if (owner == ctx) return true;
  const Driver &d = driver();
  const auto ptr = reinterpret_cast<CUdeviceptr>(p);
  int legacy = 0;
  if (d.cuPointerGetAttribute(&legacy, kAttrIsLegacyIpcCapable, ptr) != kCudaSuccess || !legacy)
    return false;
  auto it = std::ranges::find_if(
      peers_, [&](const PeerPair &q) { return q.ctx == ctx && q.peer == owner; });
  if (it == peers_.end()) {
    // Once per pair and PE (another PE of the process may have enabled it: "already enabled").
    bool on = false;
    int ordinal = -1, can = 0;
    CUdevice mine = 0, theirs = 0;
    if (peer_access_ && d.cuDeviceCanAccessPeer && d.cuCtxEnablePeerAccess &&
        d.cuCtxGetDevice(&mine) == kCudaSuccess &&
        d.cuPointerGetAttribute(&ordinal, kAttrDeviceOrdinal, ptr) == kCudaSuccess &&
        d.cuDeviceGet(&theirs, ordinal) == kCudaSuccess && mine != theirs &&
        d.cuDeviceCanAccessPeer(&can, mine, theirs) == kCudaSuccess && can) {
      const CUresult r = d.cuCtxEnablePeerAccess(owner, 0);
      on = r == kCudaSuccess || r == kCudaErrorPeerAccessAlreadyEnabled;
    }
    peers_.push_back({ctx, owner, on});
    it = peers_.end() - 1;
  }
  if (!it->on) return false;
  // Where the driver tells (CUDA 11.1+), it must agree: the program may have disabled the access.
  unsigned flags = 0;
  if (d.cuPointerGetAttribute(&flags, kAttrAccessFlags, ptr) == kCudaSuccess)
    return flags == kAccessReadWrite;
  return true;
}

std::size_t DevPtrCache::plan_strided(CUcontext ctx, void *dst_base, const Rect *dst,
                                      std::size_t nd, const void *src_base, const Rect *src,
                                      std::size_t ns, std::size_t n,
                                      std::vector<StridedSegment> &plan) {
  if (!reachable(dst_base, ctx) || !reachable(src_base, ctx)) return 0;
  return plan_strided_copy(reinterpret_cast<std::uintptr_t>(dst_base), dst, nd,
                           reinterpret_cast<std::uintptr_t>(src_base), src, ns, n,
                           kMaxStridedSegments, plan);
}

bool DevPtrCache::launch_strided(std::size_t unit, std::vector<StridedSegment> &plan,
                                 CUstream stream, CUdeviceptr arrived, CUdeviceptr done) {
  CUfunction fn = kernel(kNames[unit]);
  if (!fn) return false;
  const Driver &d = driver();
  for (std::size_t i = 0; i < plan.size(); ++i) {
    StridedSegment &g = plan[i];
    const std::uint64_t blocks = std::min(kMaxBlocks, (g.units + kThreads - 1) / kThreads);
    // The word is set by the last segment's kernel (the stream runs them in order).
    CUdeviceptr a = arrived, w = i + 1 == plan.size() ? done : 0;
    void *args[] = {&g.dst, &g.src, &g.units, &a, &w};
    if (d.cuLaunchKernel(fn, static_cast<unsigned>(blocks), 1, 1, kThreads, 1, 1, 0, stream, args,
                         nullptr) != kCudaSuccess) {
      // Refused (it never is on the GPUs we know): the caller copies another way, after what was
      // launched here (idempotent: it rewrites the same bytes).
      if (i > 0) static_cast<void>(d.cuStreamSynchronize(stream)); // its error: the caller's
      return false;
    }
  }
  return true;
}

bool DevPtrCache::copy_strided(void *dst_base, const Rect *dst, std::size_t nd,
                               const void *src_base, const Rect *src, std::size_t ns, std::size_t n,
                               CUstream stream) {
  if (!device_pack_ || !cuda_loaded()) return false;
  const CUcontext ctx = current_context(dst_base);
  if (n == 0) return true;
  std::vector<StridedSegment> plan;
  const std::size_t unit = plan_strided(ctx, dst_base, dst, nd, src_base, src, ns, n, plan);
  return unit != 0 && launch_strided(unit, plan, stream);
}

bool DevPtrCache::copy_strided_async(void *dst_base, const Rect *dst, std::size_t nd,
                                     const void *src_base, const Rect *src, std::size_t ns,
                                     std::size_t n, std::function<void()> done) {
  if (!device_pack_ || !cuda_loaded()) return false;
  const CUcontext ctx = current_context(dst_base);
  // One plan (and one check of each pointer) for either way of copying.
  std::vector<StridedSegment> plan;
  std::size_t unit = 0;
  if (n > 0) {
    unit = plan_strided(ctx, dst_base, dst, nd, src_base, src, ns, n, plan);
    if (unit == 0) return false;
    if (service_strided(ctx, dst_base, n, unit, plan, done)) return true;
  }
  CUstream s = next_copy_stream(ctx);
  // The kernel itself tells its end where it can: a host word it sets, no operation queued after
  // it (mark_end's event or word) and no driver call to poll. Without a word, track marks it.
  std::shared_ptr<std::uint32_t> word;
  CUdeviceptr word_dev = 0;
  const CUdeviceptr arrived = n > 0 ? block_counter(ctx, s) : 0;
  if (arrived) static_cast<void>(host_word(ctx, &word, &word_dev));
  if (n > 0 && !launch_strided(unit, plan, s, arrived, word_dev)) return false;
  track(ctx, s, std::move(done), std::move(word));
  return true;
}

CUdeviceptr DevPtrCache::block_counter(CUcontext ctx, CUstream s) {
  if (!completion_words_) return 0;
  for (const BlockCounter &c : block_counters_)
    if (c.stream == s) return c.counter;
  const Driver &d = driver();
  CUdeviceptr c = 0;
  if (!d.cuMemAlloc || !d.cuMemsetD8Async || d.cuMemAlloc(&c, sizeof(unsigned)) != kCudaSuccess)
    return 0;
  // Zeroed on the stream itself, ahead of its first kernel that counts.
  if (d.cuMemsetD8Async(c, 0, sizeof(unsigned), s) != kCudaSuccess) {
    static_cast<void>(d.cuMemFree(c));
    return 0;
  }
  block_counters_.push_back({ctx, s, c});
  return c;
}

} // namespace ampi::gpu
