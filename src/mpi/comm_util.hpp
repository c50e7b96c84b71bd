// src/mpi/comm_util.hpp — what the communicator, group, attribute and topology files of the MPI
// layer share: making this rank's handle of a new communicator, splitting, freeing, finding
// groups and info objects.
#pragma once

#include "comm/comm.hpp"
#include "mpi/common.hpp"

#include <cstdint>
#include <memory>

namespace ampi::mpi {

// Adds this rank's view of a new communicator: members `group` (this rank is `rank` in it),
// context `context`, the parent's error handler. Topology, attributes, info and name are empty.
comm::Comm &install_comm(Rank &self, const comm::Comm &parent,
                         std::shared_ptr<const comm::Group> group, int rank, std::uint32_t context);

// Makes `d` an intercommunicator with the remote group `remote` (its local intracommunicator
// takes context ids d.context + 2 and + 3).
void make_inter(comm::Comm &d, std::shared_ptr<const comm::Group> remote);
// install_comm for an intercommunicator.
comm::Comm &install_inter(Rank &self, const comm::Comm &parent,
                          std::shared_ptr<const comm::Group> group, int rank,
                          std::shared_ptr<const comm::Group> remote, std::uint32_t context);
// MPI_Comm_split and MPI_Comm_create on an intercommunicator (src/mpi/intercomm.cpp).
comm::Comm *split_inter(Rank &self, const comm::Comm &c, int color, int key);
int create_inter(Rank &self, const comm::Comm &c, const comm::Group &g, MPI_Comm *newcomm,
                 const char *fn);

// MPI_Comm_split's work (collective over `c`): the new communicator, or nullptr for
// color == MPI_UNDEFINED.
comm::Comm *split_comm(Rank &self, const comm::Comm &c, int color, int key);

// Deletes the attributes of `c` and frees it (not MPI_COMM_WORLD/SELF: the caller checks).
// MPI_SUCCESS or the error a delete callback returned (then raised on `c`, which stays).
int free_comm(Rank &self, comm::Comm &c, const char *fn);

// Runs the delete callbacks of MPI_COMM_SELF's attributes (the first thing MPI_Finalize does).
void finalize_comm_attrs(Rank &self);

// The group behind `h`, or nullptr after raising MPI_ERR_GROUP.
const comm::Group *find_group(Rank &self, MPI_Group h, const char *fn, int *err);

// The info object behind `h` (MPI_INFO_ENV filled on first use), or nullptr after raising
// MPI_ERR_INFO.
comm::Info *find_info(Rank &self, MPI_Info h, const char *fn, int *err);
// Hints passed to a function: like find_info, but MPI_INFO_NULL means none (an empty object).
const comm::Info *find_hints(Rank &self, MPI_Info h, const char *fn, int *err);

} // namespace ampi::mpi

#define AMPI_COMM_OR_RETURN(self, c, handle, fn)                                                   \
  int err_ = MPI_SUCCESS;                                                                          \
  comm::Comm *c = find_comm(self, handle, fn, &err_);                                              \
  if (!c) return err_;

#define AMPI_GROUP_OR_RETURN(self, g, group, fn)                                                   \
  int gerr_ = MPI_SUCCESS;                                                                         \
  const comm::Group *g = find_group(self, group, fn, &gerr_);                                      \
  if (!g) return gerr_;
