// src/mpi/coll_common.cpp — the out-of-line parts of PackedBlocks: staging a device buffer's blocks
// through host memory (p2p/data.hpp) and storing a block's runs back.
#include "mpi/coll_common.hpp"

#include <algorithm>

namespace ampi::mpi::coll_detail {

void PackedBlocks::stage(bool read) {
  std::ptrdiff_t lo = 0, hi = 0;
  bool any = false;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    auto [l, h] = p2p::span_of(type(i), static_cast<std::size_t>(counts_[i]));
    if (l == h) continue;
    lo = any ? std::min(lo, l + displs_[i]) : l + displs_[i];
    hi = any ? std::max(hi, h + displs_[i]) : h + displs_[i];
    any = true;
  }
  stage_ = p2p::stage_span(buf_, lo, hi, read);
  view_ = stage_.as_buffer();
  device_ = true;
}

void PackedBlocks::store_block(std::size_t i) const {
  const auto count = static_cast<std::size_t>(counts_[i]);
  if (tmp_) datatype::unpack(type(i), b.base + b.off[i], b.bytes[i], 0, view_ + displs_[i], count);
  if (device_) p2p::store_runs(type(i), count, view_, buf_, displs_[i]);
}

} // namespace ampi::mpi::coll_detail
