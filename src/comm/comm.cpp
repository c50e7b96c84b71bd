// src/comm/comm.cpp — groups and the handle tables of communicators and groups (see comm.hpp).
#include "comm/comm.hpp"

#include <algorithm>

namespace ampi::comm {

std::shared_ptr<const Group> Group::range(int first, int size) {
  auto g = std::make_shared<Group>();
  g->first_ = first;
  g->size_ = size;
  return g;
}

std::shared_ptr<const Group> Group::list(std::vector<int> world_ranks) {
  const int n = static_cast<int>(world_ranks.size());
  bool run = n > 0;
  for (int i = 1; run && i < n; ++i)
    run = world_ranks[static_cast<std::size_t>(i)] == world_ranks[0] + i;
  if (run) return range(world_ranks[0], n);
  auto g = std::make_shared<Group>();
  g->size_ = n;
  g->index_.reserve(world_ranks.size());
  for (int i = 0; i < n; ++i)
    g->index_.emplace_back(world_ranks[static_cast<std::size_t>(i)], i);
  std::sort(g->index_.begin(), g->index_.end());
  g->members_ = std::move(world_ranks);
  return g;
}

int Group::rank_of(int world) const noexcept {
  if (members_.empty())
    return world >= first_ && world < first_ + size_ ? world - first_ : MPI_UNDEFINED;
  auto it = std::lower_bound(index_.begin(), index_.end(), std::pair<int, int>{world, 0});
  return it != index_.end() && it->first == world ? it->second : MPI_UNDEFINED;
}

GroupTable::GroupTable() {
  table_.insert(Group::list({})); // MPI_GROUP_EMPTY
}

} // namespace ampi::comm
