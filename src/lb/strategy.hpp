// src/lb/strategy.hpp — load-balancing strategies: given each rank's measured busy time and the
// PE it is on, decide which PE each rank goes to. Pure data in, data out: no MPI, no PE, no clock,
// so the same inputs give the same plan on every PE that computes it (the migration point relies on
// that: each PE computes the plan from the same gathered loads and nobody has to send it). Every
// choice between equals is broken by rank number, then PE number, never by an address or a hash.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ampi::lb {

enum class Strategy {
  none,   // nobody moves
  greedy, // heaviest ranks first, each onto the PE least loaded so far (Charm++'s GreedyLB)
  refine, // from where ranks are, move few of them off overloaded PEs (Charm++'s RefineLB)
  rotate, // testing: every movable rank moves to the next PE (pe + 1) mod npes
};

// AMPI_LB's names ("none", "greedy", "refine", "rotate"); false when `name` is none of them.
bool parse(std::string_view name, Strategy &out) noexcept;
std::string_view name(Strategy s) noexcept;

struct RankLoad {
  int pe = 0;              // where the rank is now
  double busy_seconds = 0; // CPU time it ran since the last migration point
  bool movable = true;     // false: it stays where it is, whatever the strategy
};

struct Options {
  // Ranks move only between PEs of one group: PEs [g * pes_per_group, (g + 1) * pes_per_group)
  // (the PEs of one process: ranks do not move between processes). 0: all PEs are one group.
  // npes must be a multiple of it.
  int pes_per_group = 0;
  // refine: a PE is overloaded when its load exceeds the average by more than this fraction
  // (Charm++'s RefineLB uses 1.003 to 1.05; 5% keeps moves few when measured loads jitter).
  double tolerance = 0.05;
  // The load of each PE that is not its ranks' (other programs, threads); empty: none. A strategy
  // counts it in the PE's load and moves no rank for it onto a PE.
  std::vector<double> background;
};

// The PE each rank goes to, indexed like `ranks` (rank r is ranks[r]); every entry in [0, npes).
// A rank that is not movable keeps its PE and its load counts in its PE's. When the ranks' total
// busy time is 0 (nothing measured), greedy and refine keep every rank where it is. Throws
// std::invalid_argument for npes < 1, a rank's pe out of range, or a negative or non-finite busy
// time.
std::vector<int> plan(Strategy s, std::span<const RankLoad> ranks, int npes,
                      const Options &options = {});

// The load of each PE (sum of its ranks' busy seconds, plus its background) under `placement`
// (indexed like `ranks`; empty: where the ranks are now).
std::vector<double> pe_loads(std::span<const RankLoad> ranks, int npes,
                             std::span<const int> placement = {},
                             std::span<const double> background = {});
// max / average of `loads` (1 when all are 0: nothing to balance).
double imbalance(std::span<const double> loads) noexcept;
// The note a migration point prints: "lb greedy: moved 5 of 32 ranks; max/avg load 1.62 before,
// 1.03 predicted after (PE loads 0.41 0.25 s -> 0.34 0.33 s)" (PE loads listed for up to 16 PEs).
std::string describe(Strategy s, std::span<const RankLoad> ranks, std::span<const int> plan,
                     int npes);

} // namespace ampi::lb
