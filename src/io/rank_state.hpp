// src/io/rank_state.hpp — what MPI-IO keeps per virtual rank: the error handler of MPI_FILE_NULL,
// which files opened later start with and which open/delete errors go through (MPI-3.1 13.7:
// MPI_ERRORS_RETURN until the program changes it). core's Rank holds one (rank.io).
#pragma once

#include <mpi.h>

namespace ampi::io {

struct RankState {
  MPI_Errhandler null_errhandler = MPI_ERRORS_RETURN;
};

} // namespace ampi::io
