// src/core/loads.cpp — the busy time of a PE's ranks for the load balancer (see loads.hpp).
#include "core/loads.hpp"

#include "core/pe.hpp"

namespace ampi {

std::vector<HostedLoad> hosted_loads(Pe &pe, bool reset) {
  ult::Scheduler &s = pe.scheduler();
  s.charge_now(); // the running rank's time up to this call is its own
  std::vector<HostedLoad> out;
  out.reserve(pe.ranks().size());
  for (const auto &r : pe.ranks()) {
    out.push_back({r->world_rank, s.busy_seconds(r->task)});
    if (reset) s.reset_busy(r->task);
  }
  return out;
}

double busy_seconds(Pe &pe, Rank &r, bool reset) {
  ult::Scheduler &s = pe.scheduler();
  s.charge_now();
  const double b = s.busy_seconds(r.task);
  if (reset) s.reset_busy(r.task);
  return b;
}

void fill_loads(Pe &pe, std::span<lb::RankLoad> by_world, bool reset) {
  for (const HostedLoad &h : hosted_loads(pe, reset))
    if (static_cast<std::size_t>(h.world_rank) < by_world.size())
      by_world[static_cast<std::size_t>(h.world_rank)] = {pe.config().my_pe, h.busy_seconds, true};
}

} // namespace ampi
