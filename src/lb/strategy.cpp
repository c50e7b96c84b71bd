// src/lb/strategy.cpp — the strategies of strategy.hpp.
#include "lb/strategy.hpp"

#include <stdexcept>

namespace ampi::lb {

bool parse(std::string_view n, Strategy &out) noexcept {
  if (n == "none")
    out = Strategy::none;
  else if (n == "rotate")
    out = Strategy::rotate;
  else
    return false;
  return true;
}

std::string_view name(Strategy s) noexcept {
  switch (s) {
  case Strategy::none:
    return "none";
  case Strategy::rotate:
    return "rotate";
  }
  return "?";
}

std::vector<int> plan(Strategy s, std::span<const RankLoad> ranks, int npes) {
  if (npes < 1) throw std::invalid_argument("lb::plan: npes < 1");
  std::vector<int> to;
  to.reserve(ranks.size());
  for (const RankLoad &r : ranks) {
    if (r.pe < 0 || r.pe >= npes)
      throw std::invalid_argument("lb::plan: a rank's pe is out of range");
    to.push_back(r.pe);
  }
  switch (s) {
  case Strategy::none:
    break;
  case Strategy::rotate:
    for (std::size_t i = 0; i < ranks.size(); ++i)
      if (ranks[i].movable) to[i] = (ranks[i].pe + 1) % npes;
    break;
  }
  return to;
}

} // namespace ampi::lb
