// src/core/handover.cpp — the process's box of ranks in transit and its PE barrier (handover.hpp).
#include "core/handover.hpp"

#include <thread>
#include <utility>

namespace ampi::core {

void Handover::arrive_and_wait(const std::function<void()> &poll) {
  const std::uint64_t gen = generation_.load(std::memory_order_acquire);
  if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == pes_) {
    arrived_.store(0, std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_acq_rel);
    return;
  }
  while (generation_.load(std::memory_order_acquire) == gen) {
    poll();
    std::this_thread::yield(); // the PEs of a process may share cores with others' (2-core CI)
  }
}

void Handover::put(int to, Rank *r) {
  const std::lock_guard lock(mutex_);
  box_[static_cast<std::size_t>(to)].push_back(r);
}

std::vector<Rank *> Handover::take(int pe) {
  const std::lock_guard lock(mutex_);
  return std::exchange(box_[static_cast<std::size_t>(pe)], {});
}

} // namespace ampi::core
