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

Comm &CommTable::add(std::unique_ptr<Comm> c) {
  unsigned slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<unsigned>(slots_.size());
    slots_.emplace_back();
  }
  c->handle = static_cast<MPI_Comm>(static_cast<unsigned>(kKind) | slot);
  slots_[slot] = std::move(c);
  return *slots_[slot];
}

void CommTable::remove(MPI_Comm h) noexcept {
  const unsigned slot = static_cast<unsigned>(h) ^ static_cast<unsigned>(kKind);
  if (slot < slots_.size() && slots_[slot]) {
    slots_[slot].reset();
    free_slots_.push_back(slot);
  }
}

std::size_t CommTable::live() const noexcept {
  return slots_.size() - free_slots_.size();
}

GroupTable::GroupTable() {
  slots_.push_back(Group::list({}));
}

MPI_Group GroupTable::add(std::shared_ptr<const Group> g) {
  unsigned slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<unsigned>(slots_.size());
    slots_.emplace_back();
  }
  slots_[slot] = std::move(g);
  return static_cast<MPI_Group>(static_cast<unsigned>(kKind) | slot);
}

void GroupTable::remove(MPI_Group h) noexcept {
  const unsigned slot = static_cast<unsigned>(h) ^ static_cast<unsigned>(kKind);
  if (slot > 0 && slot < slots_.size() && slots_[slot]) {
    slots_[slot].reset();
    free_slots_.push_back(slot);
  }
}

} // namespace ampi::comm
