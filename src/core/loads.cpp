// src/core/loads.cpp — the busy time of a PE's ranks for the load balancer (see loads.hpp).
#include "core/loads.hpp"

#include "core/pe.hpp"

namespace ampi {

double busy_seconds(Pe &pe, Rank &r, bool reset) {
  ult::Scheduler &s = pe.scheduler();
  s.charge_now();
  const double b = s.busy_seconds(r.task);
  if (reset) s.reset_busy(r.task);
  return b;
}

} // namespace ampi
