// src/core/loads.hpp — what the load balancer (src/lb) needs from a PE at a migration point: a
// rank's busy time (measured by its scheduler, src/ult, while AMPI_LB is not none), and starting
// the count again.
#pragma once

namespace ampi {

class Pe;
class Rank;

// One rank's busy time since the last reset, `r` being run by `pe` (the calling rank: its stint is
// counted up to now); `reset`: its count starts again. For a migration point where each rank
// contributes its own load to an allgather.
double busy_seconds(Pe &pe, Rank &r, bool reset);

} // namespace ampi
