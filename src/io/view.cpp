// src/io/view.cpp — file views: flattening a filetype, mapping stream positions to file offsets,
// and splitting a file range among aggregators (see view.hpp).
#include "io/view.hpp"

#include "datatype/layout.hpp"

#include <algorithm>
#include <cstring>

namespace ampi::io {

// The runs of the datatype layer's walk over one element (datatype::for_each_run), adjacent ones
// merged: time and memory grow with the runs, not with the extent. (The first version packed a
// buffer of the whole extent labelled with offsets, once per byte-plane: HDF5's t_shapesame sets
// views whose filetypes span hundreds of MiB for a few runs, and spent 73% of its time there.)
std::vector<Segment> flatten(const datatype::Type &t) {
  std::vector<Segment> runs;
  if (t.size == 0) return runs;
  datatype::for_each_run(t, 1, 0, t.size, [&runs](std::ptrdiff_t disp, std::size_t n) {
    const auto off = static_cast<std::int64_t>(disp);
    const auto len = static_cast<std::int64_t>(n);
    if (!runs.empty() && runs.back().off + runs.back().len == off)
      runs.back().len += len;
    else
      runs.push_back({off, len});
  });
  return runs;
}

void View::set_filetype(std::vector<Segment> r, std::int64_t extent) {
  runs = std::move(r);
  prefix.assign(runs.size() + 1, 0);
  for (std::size_t i = 0; i < runs.size(); ++i)
    prefix[i + 1] = prefix[i] + runs[i].len;
  tile_size = prefix.back();
  tile_extent = extent;
}

std::int64_t View::byte_offset(std::int64_t pos) const noexcept {
  if (tile_size == 0) return disp;
  const std::int64_t tile = pos / tile_size;
  const std::int64_t within = pos % tile_size;
  // The run holding data byte `within`: the last one whose prefix is <= within.
  const auto it = std::upper_bound(prefix.begin(), prefix.end() - 1, within);
  const std::size_t r = static_cast<std::size_t>(it - prefix.begin()) - 1;
  return disp + tile * tile_extent + runs[r].off + (within - prefix[r]);
}

void View::map(std::int64_t pos, std::int64_t len, std::vector<Segment> &out) const {
  if (len <= 0 || tile_size == 0) return;
  std::int64_t tile = pos / tile_size;
  std::int64_t within = pos % tile_size;
  auto it = std::upper_bound(prefix.begin(), prefix.end() - 1, within);
  std::size_t r = static_cast<std::size_t>(it - prefix.begin()) - 1;
  std::int64_t in_run = within - prefix[r];
  while (len > 0) {
    const std::int64_t take = std::min(len, runs[r].len - in_run);
    const std::int64_t off = disp + tile * tile_extent + runs[r].off + in_run;
    if (!out.empty() && out.back().off + out.back().len == off)
      out.back().len += take;
    else
      out.push_back({off, take});
    len -= take;
    in_run = 0;
    if (++r == runs.size()) {
      r = 0;
      ++tile;
    }
  }
}

std::int64_t View::position_at_or_after(std::int64_t off) const noexcept {
  if (tile_size == 0 || off <= disp) return 0;
  const std::int64_t rel = off - disp;
  std::int64_t tile = rel / tile_extent;
  const std::int64_t within = rel % tile_extent;
  std::int64_t pos = tile * tile_size;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    if (runs[r].off + runs[r].len <= within) continue;
    return pos + prefix[r] + std::max<std::int64_t>(0, within - runs[r].off);
  }
  return pos + tile_size;
}

std::vector<std::int64_t> split_domains(std::int64_t lo, std::int64_t hi, int n,
                                        std::int64_t align) {
  std::vector<std::int64_t> b(static_cast<std::size_t>(n) + 1);
  const std::int64_t total = hi - lo;
  std::int64_t each = (total + n - 1) / n;
  if (align > 1 && each > align) each = (each + align - 1) / align * align;
  for (int i = 0; i <= n; ++i)
    b[static_cast<std::size_t>(i)] = std::min(hi, lo + each * i);
  b[static_cast<std::size_t>(n)] = hi;
  return b;
}

} // namespace ampi::io
