// src/mpi/coll_common.cpp — collective buffers in CUDA device memory, staged through host memory
// (mpi/device_buffers.hpp).
#include "mpi/coll_common.hpp"

#include "ranks/pe.hpp"

#include <algorithm>

namespace ampi::mpi::coll_detail {

namespace {

void to_host(void *dst, const void *src, std::size_t n) {
  if (n) Pe::get().devptrs().copy(dst, gpu::MemKind::Host, src, gpu::MemKind::Device, n);
}

} // namespace

void Packed::from_device(bool load) {
  device_ = true;
  tmp_ = std::make_unique_for_overwrite<std::byte[]>(bytes_ ? bytes_ : 1);
  data_ = tmp_.get();
  if (t_.contiguous) {
    if (load) to_host(data_, datatype::data_start(t_, buf_), bytes_);
    return;
  }
  // Read even when only written: the gaps go back as they were.
  stage_ = stage_in(t_, buf_, count_, true);
  if (load) datatype::pack(t_, stage_.as_buffer(), count_, 0, data_, bytes_);
}

void Packed::to_device() const {
  if (t_.contiguous) {
    if (bytes_)
      Pe::get().devptrs().copy(datatype::data_start(t_, buf_), gpu::MemKind::Device, data_,
                               gpu::MemKind::Host, bytes_);
    return;
  }
  datatype::unpack(t_, data_, bytes_, 0, stage_.as_buffer(), count_);
  stage_out(stage_, buf_, stage_.lo, stage_.span);
}

void PackedBlocks::from_device(bool contiguous, bool load) {
  device_ = true;
  device_contiguous_ = contiguous;
  const std::size_t n = counts_.size();
  std::ptrdiff_t lo = 0, hi = 0;
  bool any = false;
  for (std::size_t i = 0; i < n; ++i) {
    auto [l, h] = span_of(type(i), static_cast<std::size_t>(counts_[i]));
    if (l == h) continue;
    l += displs_[i];
    h += displs_[i];
    lo = any ? std::min(lo, l) : l;
    hi = any ? std::max(hi, h) : h;
    any = true;
  }
  stage_ = stage_span(buf_, lo, hi, load || !contiguous);
  std::byte *image = stage_.as_buffer();
  if (contiguous) {
    b.base = image;
    for (std::size_t i = 0; i < n; ++i)
      b.off.push_back(displs_[i] + type(i).true_lb);
    return;
  }
  std::size_t total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    b.off.push_back(static_cast<std::ptrdiff_t>(total));
    total += b.bytes[i];
  }
  tmp_ = std::make_unique_for_overwrite<std::byte[]>(total ? total : 1);
  b.base = tmp_.get();
  if (load)
    for (std::size_t i = 0; i < n; ++i)
      datatype::pack(type(i), image + displs_[i], static_cast<std::size_t>(counts_[i]), 0,
                     b.base + b.off[i], b.bytes[i]);
}

void PackedBlocks::to_device(int only) const {
  std::byte *image = stage_.as_buffer();
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    if (only >= 0 && static_cast<std::size_t>(only) != i) continue;
    if (device_contiguous_) {
      stage_out(stage_, buf_, b.off[i], b.bytes[i]);
      continue;
    }
    const auto count = static_cast<std::size_t>(counts_[i]);
    datatype::unpack(type(i), b.base + b.off[i], b.bytes[i], 0, image + displs_[i], count);
    const auto [l, h] = span_of(type(i), count);
    stage_out(stage_, buf_, displs_[i] + l, static_cast<std::size_t>(h - l));
  }
}

} // namespace ampi::mpi::coll_detail
