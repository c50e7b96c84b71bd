// src/devptr_cache/strided_copy.cpp — copies between strided layouts of device memory by the
// kernels of strided_copy.cu: a plan of segments (strided_plan.cpp), one launch per segment on
// the caller's stream or on a copy stream of ours.
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

bool DevPtrCache::copy_strided(void *dst_base, const Rect *dst, std::size_t nd,
                               const void *src_base, const Rect *src, std::size_t ns, std::size_t n,
                               CUstream stream) {
  if (!device_pack_ || !cuda_loaded()) return false;
  const CUcontext ctx = current_context(dst_base);
  if (n == 0) return true;
  if (context_of(dst_base) != ctx || context_of(src_base) != ctx) return false;
  std::vector<StridedSegment> plan;
  const std::size_t unit = plan_strided_copy(reinterpret_cast<std::uintptr_t>(dst_base), dst, nd,
                                             reinterpret_cast<std::uintptr_t>(src_base), src, ns, n,
                                             kMaxStridedSegments, plan);
  if (unit == 0) return false;
  CUfunction fn = kernel(kNames[unit]);
  if (!fn) return false;
  const Driver &d = driver();
  for (std::size_t i = 0; i < plan.size(); ++i) {
    StridedSegment &g = plan[i];
    const std::uint64_t blocks = std::min(kMaxBlocks, (g.units + kThreads - 1) / kThreads);
    void *args[] = {&g.dst, &g.src, &g.units};
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

bool DevPtrCache::copy_strided_async(void *dst_base, const Rect *dst, std::size_t nd,
                                     const void *src_base, const Rect *src, std::size_t ns,
                                     std::size_t n, std::function<void()> done) {
  if (!device_pack_ || !cuda_loaded()) return false;
  const CUcontext ctx = current_context(dst_base);
  CUstream s = next_copy_stream(ctx);
  if (!copy_strided(dst_base, dst, nd, src_base, src, ns, n, s)) return false;
  track(ctx, s, std::move(done));
  return true;
}

} // namespace ampi::gpu
