// src/rma/rank_state.hpp — what one-sided communication keeps per virtual rank: its windows
// (MPI_Win handles). core's Rank holds one (rank.rma).
#pragma once

#include "rma/table.hpp"

namespace ampi::rma {

struct RankState {
  WindowTable windows;
};

} // namespace ampi::rma
