// src/lb/strategy.hpp — load-balancing strategies: given each rank's measured busy time and the
// PE it is on, decide which PE each rank goes to. Pure data in, data out: no MPI, no PE, no clock,
// so the same inputs give the same plan on every PE that computes it (the migration point relies on
// that: each PE computes the plan from the same gathered loads and nobody has to send it).
#pragma once

#include <span>
#include <string_view>
#include <vector>

namespace ampi::lb {

enum class Strategy {
  none,   // nobody moves
  rotate, // testing: every movable rank moves to the next PE (pe + 1) mod npes
};

// AMPI_LB's names ("none", "rotate"); false when `name` is none of them.
bool parse(std::string_view name, Strategy &out) noexcept;
std::string_view name(Strategy s) noexcept;

struct RankLoad {
  int pe = 0;              // where the rank is now
  double busy_seconds = 0; // CPU time it ran since the last migration point
  bool movable = true;     // false: it stays where it is, whatever the strategy
};

// The PE each rank goes to, indexed like `ranks` (rank r is ranks[r]); every entry in [0, npes).
// A rank that is not movable keeps its PE.
std::vector<int> plan(Strategy s, std::span<const RankLoad> ranks, int npes);

} // namespace ampi::lb
