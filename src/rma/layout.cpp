// src/rma/layout.cpp — where the packed bytes of an access lie in memory: the runs of a
// (count, datatype) pair, from the datatype's walk over its layout, and a small per-window cache
// of them for derived types.
#include "rma/backend.hpp"

#include "datatype/datatype.hpp"
#include "datatype/layout.hpp"

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
  // The datatype's own walk, adjacent runs merged: one entry per separate run of memory.
  std::vector<Run> runs;
  std::size_t packed = 0;
  datatype::for_each_run(t, count, 0, total, [&](std::ptrdiff_t mem, std::size_t n) {
    if (!runs.empty() && runs.back().mem + static_cast<std::ptrdiff_t>(runs.back().len) == mem)
      runs.back().len += n;
    else
      runs.push_back({mem, packed, n});
    packed += n;
  });
  return RunList(std::move(runs));
}

// Recently used (type, count) pairs keep their runs (the layout is held, so its address stays a
// valid key).
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
