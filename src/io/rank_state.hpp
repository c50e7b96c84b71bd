// src/io/rank_state.hpp — what MPI-IO keeps per virtual rank: the error handler of MPI_FILE_NULL,
// which files opened later start with and which open/delete errors go through (MPI-3.1 13.7:
// MPI_ERRORS_RETURN until the program changes it), and the data representations the rank
// registered (MPI_Register_datarep: per rank, as each rank is an MPI process). core's Rank holds
// one (rank.io).
#pragma once

#include "io/datarep.hpp"

#include <mpi.h>

#include <map>
#include <string>

namespace ampi::io {

struct RankState {
  MPI_Errhandler null_errhandler = MPI_ERRORS_RETURN;
  std::map<std::string, Datarep, std::less<>> datareps;
};

} // namespace ampi::io
