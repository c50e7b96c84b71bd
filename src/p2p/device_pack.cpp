// src/p2p/device_pack.cpp — packing by the copy engines on the PE's device copies (see
// device_pack.hpp; the rectangles: device_rects.cpp).
#include "p2p/device_pack.hpp"

#include "core/pe.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace ampi::p2p {

bool device_pack(const datatype::Type &t, void *buf, std::size_t count, void *out, bool pack) {
  gpu::DevPtrCache &mem = Pe::get().devptrs();
  if (!mem.can_copy_rects()) return false;
  std::vector<Rect> rects;
  if (!rects_of(t, count, rects)) return false;
  return mem.copy_rects(out, buf, rects.data(), rects.size(), pack);
}

bool device_copy_typed(const datatype::Type &t, const void *src, std::size_t count,
                       const datatype::Type &rt, void *dst, std::size_t rcount) {
  gpu::DevPtrCache &mem = Pe::get().devptrs();
  if (!mem.can_copy_rects() || t.size * count != rt.size * rcount) return false;
  std::vector<Rect> from, to;
  if (!rects_of(t, count, from) || !rects_of(rt, rcount, to) || from.size() != to.size())
    return false;
  for (std::size_t i = 0; i < from.size(); ++i)
    if (from[i].width != to[i].width || from[i].height != to[i].height ||
        from[i].depth != to[i].depth)
      return false;
  // On the PE thread's per-thread default stream: like the cache's own stream it is ordered after
  // the legacy default stream only (ranks' stream-0 and per-thread work goes to streams of their
  // own, core/cudart.cpp), and this needs no stream to be kept.
  mem.ensure_context(dst);
  const gpu::Driver &drv = gpu::driver();
  const auto s = reinterpret_cast<gpu::CUstream>(std::uintptr_t{2}); // CU_STREAM_PER_THREAD
  const auto dbase = reinterpret_cast<gpu::CUdeviceptr>(dst);
  const auto sbase = reinterpret_cast<gpu::CUdeviceptr>(src);
  bool ok = true;
  for (std::size_t i = 0; i < from.size() && ok; ++i) {
    const Rect &a = from[i], &b = to[i];
    const gpu::CUdeviceptr sa = sbase + static_cast<gpu::CUdeviceptr>(a.disp);
    const gpu::CUdeviceptr da = dbase + static_cast<gpu::CUdeviceptr>(b.disp);
    gpu::CUresult e = gpu::kCudaSuccess;
    if (a.height == 1 && a.depth == 1) {
      e = drv.cuMemcpyAsync(da, sa, a.width, s);
    } else if (a.depth == 1) {
      gpu::Memcpy2D c{};
      c.srcMemoryType = c.dstMemoryType = gpu::kMemoryTypeDevice;
      c.srcDevice = sa;
      c.srcPitch = a.pitch;
      c.dstDevice = da;
      c.dstPitch = b.pitch;
      c.WidthInBytes = a.width;
      c.Height = a.height;
      e = drv.cuMemcpy2DAsync(&c, s);
    } else {
      gpu::Memcpy3D c{};
      c.srcMemoryType = c.dstMemoryType = gpu::kMemoryTypeDevice;
      c.srcDevice = sa;
      c.srcPitch = a.pitch;
      c.srcHeight = a.slab / a.pitch;
      c.dstDevice = da;
      c.dstPitch = b.pitch;
      c.dstHeight = b.slab / b.pitch;
      c.WidthInBytes = a.width;
      c.Height = a.height;
      c.Depth = a.depth;
      e = drv.cuMemcpy3DAsync(&c, s);
    }
    ok = e == gpu::kCudaSuccess; // refused at the call: the caller packs instead
  }
  if (const gpu::CUresult e = drv.cuStreamSynchronize(s); e != gpu::kCudaSuccess) {
    std::fprintf(stderr, "ampi: cuStreamSynchronize failed: %s (CUDA error %d)\n",
                 gpu::cuda_error_string(e), e);
    std::abort();
  }
  return ok;
}

} // namespace ampi::p2p
