// src/mpi/device_buffers.cpp — staging device buffers through host memory (see
// device_buffers.hpp).
#include "mpi/device_buffers.hpp"

#include "core/pe.hpp"

#include <algorithm>
#include <cstring>

namespace ampi::mpi {

namespace {

gpu::MemKind kind_of(const void *p) {
  return Pe::get().devptrs().kind(p);
}

} // namespace

bool on_device_slow(const void *buf) {
  return gpu::is_device(kind_of(buf));
}

std::pair<std::ptrdiff_t, std::ptrdiff_t> span_of(const datatype::Type &t, std::size_t count) {
  if (count == 0 || t.size == 0) return {0, 0};
  const auto n = static_cast<std::ptrdiff_t>(count) - 1;
  return {t.true_lb + std::min<std::ptrdiff_t>(0, n * t.extent),
          t.true_lb + t.true_extent + std::max<std::ptrdiff_t>(0, n * t.extent)};
}

DeviceStage stage_span(const void *buf, std::ptrdiff_t lo, std::ptrdiff_t hi, bool read) {
  DeviceStage s;
  s.lo = lo;
  s.span = static_cast<std::size_t>(hi - lo);
  s.image = std::make_unique_for_overwrite<std::byte[]>(s.span ? s.span : 1);
  if (read && s.span)
    Pe::get().devptrs().copy(s.image.get(), gpu::MemKind::Host,
                             static_cast<const std::byte *>(buf) + lo, gpu::MemKind::Device,
                             s.span);
  return s;
}

void stage_out(const DeviceStage &s, void *buf, std::ptrdiff_t off, std::size_t len) {
  if (len)
    Pe::get().devptrs().copy(static_cast<std::byte *>(buf) + off, gpu::MemKind::Device,
                             s.image.get() + (off - s.lo), gpu::MemKind::Host, len);
}

void copy_any(void *dst, const void *src, std::size_t n) {
  if (!n) return;
  if (!gpu::cuda_loaded()) {
    std::memcpy(dst, src, n);
    return;
  }
  gpu::DevPtrCache &mem = Pe::get().devptrs();
  mem.copy(dst, mem.kind(dst), src, mem.kind(src), n);
}

std::size_t pack_any(const datatype::Type &t, const void *buf, std::size_t count,
                     std::size_t offset, void *out, std::size_t len) {
  const bool src_dev = on_device(buf), out_dev = on_device(out);
  if (!src_dev && !out_dev) return datatype::pack(t, buf, count, offset, out, len);
  DeviceStage src;
  if (src_dev) src = stage_in(t, buf, count, true);
  const void *from = src_dev ? src.as_buffer() : buf;
  if (!out_dev) return datatype::pack(t, from, count, offset, out, len);
  auto tmp = std::make_unique_for_overwrite<std::byte[]>(len ? len : 1);
  const std::size_t k = datatype::pack(t, from, count, offset, tmp.get(), len);
  copy_any(out, tmp.get(), k);
  return k;
}

std::size_t unpack_any(const datatype::Type &t, const void *in, std::size_t len, std::size_t offset,
                       void *buf, std::size_t count) {
  const bool in_dev = on_device(in), dst_dev = on_device(buf);
  if (!in_dev && !dst_dev) return datatype::unpack(t, in, len, offset, buf, count);
  std::unique_ptr<std::byte[]> host_in;
  if (in_dev) {
    host_in = std::make_unique_for_overwrite<std::byte[]>(len ? len : 1);
    copy_any(host_in.get(), in, len);
    in = host_in.get();
  }
  if (!dst_dev) return datatype::unpack(t, in, len, offset, buf, count);
  // Read first: the bytes of the span that this unpack does not write go back unchanged.
  DeviceStage dst = stage_in(t, buf, count, true);
  const std::size_t k = datatype::unpack(t, in, len, offset, dst.as_buffer(), count);
  stage_out(dst, buf, dst.lo, dst.span);
  return k;
}

} // namespace ampi::mpi
