// src/rma/layout.cpp — where the packed bytes of an access lie in memory: the runs of a
// (count, datatype) pair, found through the datatype interface alone, and a small per-window cache
// of them for derived types (finding them costs a few passes over the type's span).
#include "rma/backend.hpp"

#include "datatype/datatype.hpp"

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

namespace ampi::rma {

namespace {

RunList runs_of(const datatype::Type &t, std::size_t count) {
  const std::size_t total = t.size * count;
  if (total == 0) return {};
  if (t.contiguous) return RunList(Run{t.true_lb, 0, total});
  // Through the Type interface only: unpack marker bytes into a scratch span and read back where
  // each packed byte landed (four passes give a 32-bit packed index per byte).
  const auto n = static_cast<std::ptrdiff_t>(count) - 1;
  const std::ptrdiff_t lo = t.true_lb + std::min<std::ptrdiff_t>(0, n * t.extent);
  const std::ptrdiff_t hi = t.true_lb + t.true_extent + std::max<std::ptrdiff_t>(0, n * t.extent);
  const auto span = static_cast<std::size_t>(hi - lo);
  std::vector<unsigned char> scratch(span), packed(total);
  std::vector<std::uint32_t> index(span, 0);
  std::vector<bool> touched(span);
  std::fill(packed.begin(), packed.end(), 1);
  datatype::unpack(t, packed.data(), total, 0, scratch.data() - lo, count);
  for (std::size_t j = 0; j < span; ++j)
    touched[j] = scratch[j] == 1;
  for (int k = 0; k < 4; ++k) {
    for (std::size_t i = 0; i < total; ++i)
      packed[i] = static_cast<unsigned char>(i >> (8 * k));
    std::fill(scratch.begin(), scratch.end(), 0);
    datatype::unpack(t, packed.data(), total, 0, scratch.data() - lo, count);
    for (std::size_t j = 0; j < span; ++j)
      if (touched[j]) index[j] |= std::uint32_t{scratch[j]} << (8 * k);
  }
  std::vector<std::pair<std::uint32_t, std::ptrdiff_t>> where;
  where.reserve(total);
  for (std::size_t j = 0; j < span; ++j)
    if (touched[j]) where.emplace_back(index[j], lo + static_cast<std::ptrdiff_t>(j));
  std::sort(where.begin(), where.end());
  std::vector<Run> runs;
  for (auto [p, m] : where) {
    if (!runs.empty() && runs.back().packed + runs.back().len == p &&
        runs.back().mem + static_cast<std::ptrdiff_t>(runs.back().len) == m)
      ++runs.back().len;
    else
      runs.push_back({m, p, 1});
  }
  return RunList(std::move(runs));
}

// Finding the runs of a derived type costs a few passes over its span: recently used (type,
// count) pairs keep theirs (the layout is held, so its address stays a valid key).
struct RunCache {
  struct Entry {
    std::shared_ptr<const datatype::Layout> layout;
    std::size_t count = 0, size = 0;
    std::ptrdiff_t extent = 0, true_lb = 0;
    RunList runs;
  };
  static constexpr std::size_t kEntries = 8;
  std::vector<Entry> entries;
  std::size_t next = 0;
};

} // namespace

RunList cached_runs_of(Window &w, const datatype::Type &t, std::size_t count) {
  if (t.contiguous || !t.layout) return runs_of(t, count);
  if (!w.run_cache) w.run_cache = std::make_shared<RunCache>();
  auto &cache = *static_cast<RunCache *>(w.run_cache.get());
  for (const RunCache::Entry &e : cache.entries)
    if (e.layout == t.layout && e.count == count && e.size == t.size && e.extent == t.extent &&
        e.true_lb == t.true_lb)
      return e.runs;
  RunCache::Entry e{t.layout, count, t.size, t.extent, t.true_lb, runs_of(t, count)};
  RunList runs = e.runs;
  if (cache.entries.size() < RunCache::kEntries) {
    cache.entries.push_back(std::move(e));
  } else {
    cache.entries[cache.next] = std::move(e);
    cache.next = (cache.next + 1) % RunCache::kEntries;
  }
  return runs;
}

} // namespace ampi::rma
