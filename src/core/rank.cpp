// src/core/rank.cpp — a virtual rank's construction (see rank.hpp).
#include "core/rank.hpp"

namespace ampi {

Rank::Rank(Pe &pe, int world_rank_, ult::StackPool &stacks, std::function<void(Rank &)> body)
    : pe_(&pe), world_rank(world_rank_),
      task(stacks, [this, body = std::move(body)] { body(*this); }) {
  task.owner = this;
}

} // namespace ampi
