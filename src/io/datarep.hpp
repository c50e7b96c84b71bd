// src/io/datarep.hpp — a user data representation (MPI_Register_datarep, MPI-3.1 13.5.3): its
// conversion callbacks (int-count or MPI-4 large-count form), its extent function and extra state.
// A rank's registrations live in its io::RankState (each virtual rank is an MPI process, so every
// rank registers its own, and a name registered twice by one rank is MPI_ERR_DUP_DATAREP);
// src/mpi/file.cpp calls the callbacks around pread/pwrite.
#pragma once

#include <mpi.h>

#include <string>

namespace ampi::io {

struct Datarep {
  std::string name;
  // Exactly one pair is set, by the form that registered it; a null pointer in the chosen pair
  // (MPI_CONVERSION_FN_NULL / _C, recognized at registration) means: no conversion, the bytes are
  // the packed native ones.
  bool large = false;
  MPI_Datarep_conversion_function *read = nullptr, *write = nullptr;
  MPI_Datarep_conversion_function_c *read_c = nullptr, *write_c = nullptr;
  MPI_Datarep_extent_function *extent = nullptr;
  void *extra = nullptr;

  bool converts_read() const noexcept { return large ? read_c != nullptr : read != nullptr; }
  bool converts_write() const noexcept { return large ? write_c != nullptr : write != nullptr; }
};

} // namespace ampi::io
