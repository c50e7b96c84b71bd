// src/core/handover.hpp — what the PEs of one process share to hand ranks to each other at a
// migration point (MPIX_Migrate, src/mpi/migrate.cpp): a box of ranks in transit per PE and a
// barrier of the process's PE threads that keeps each waiting PE driving its network port. Made
// once per process (core/startup.cpp, run_pes) and reached through PeConfig::handover.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

namespace ampi {

class Rank;

namespace core {

class Handover {
public:
  explicit Handover(int pes) : box_(static_cast<std::size_t>(pes)), pes_(pes) {}
  Handover(const Handover &) = delete;
  Handover &operator=(const Handover &) = delete;

  // Every PE thread of the process calls it; returns once all have. `poll` runs while waiting:
  // a PE must keep answering the network (other processes' PEs may wait for its messages).
  void arrive_and_wait(const std::function<void()> &poll);
  // Rank `r` leaves for the process's PE `to` (its thread index); take() there gets it.
  void put(int to, Rank *r);
  std::vector<Rank *> take(int pe);

private:
  std::mutex mutex_;
  std::vector<std::vector<Rank *>> box_;
  const int pes_;
  std::atomic<int> arrived_{0};
  std::atomic<std::uint64_t> generation_{0};
};

} // namespace core
} // namespace ampi
