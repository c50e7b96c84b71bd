// src/core/loads.hpp — what the load balancer (src/lb) needs from a PE at a migration point: the
// busy time of each rank it runs (measured by its scheduler, src/ult, while AMPI_LB is not none),
// and starting the count again.
#pragma once

#include "lb/strategy.hpp"

#include <span>
#include <vector>

namespace ampi {

class Pe;
class Rank;

struct HostedLoad {
  int world_rank;
  double busy_seconds; // CPU time the rank ran (its coll helper tasks' included) since the reset
};

// The ranks `pe` runs now, in the order of pe.ranks(), with their busy time since timing began or
// the last reset; the calling rank's current stint is counted up to now. `reset`: their counts
// start again from 0. All 0 when AMPI_LB is none (nothing is measured).
std::vector<HostedLoad> hosted_loads(Pe &pe, bool reset);

// One rank's busy time since the last reset, `r` being run by `pe` (the calling rank: its stint is
// counted up to now); `reset`: its count starts again. For a migration point where each rank
// contributes its own load to an allgather.
double busy_seconds(Pe &pe, Rank &r, bool reset);

// The same into a table indexed by world rank: the entries of the ranks `pe` runs get {its PE,
// busy time, movable}; the others are left as they are (another PE fills them).
void fill_loads(Pe &pe, std::span<lb::RankLoad> by_world, bool reset);

} // namespace ampi
