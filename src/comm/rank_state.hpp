// src/comm/rank_state.hpp — what the communicator area keeps per virtual rank: its communicators
// and groups, error handlers, attribute keys, info objects, user error classes, attributes of
// datatypes, and the next context id it hands out. core's Rank holds one (rank.comm).
#pragma once

#include "comm/comm.hpp"
#include "comm/objects.hpp"
#include "handles/handle.hpp"

#include <mpi.h>

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ampi::comm {

struct UserErrhandler {
  MPI_Comm_errhandler_function *fn = nullptr;
  int refs = 0;
};

// The Fortran procedures of a keyval made from Fortran (src/mpi/fortran.cpp): the C callbacks
// of such a keyval are trampolines that find them here by keyval and call them with Fortran's
// conventions. mpi1: MPI_Keyval_create's (INTEGER extra state and values).
struct FortranKeyval {
  void (*copy)() = nullptr;
  void (*del)() = nullptr;
  bool mpi1 = false;
};

struct RankState {
  CommTable comms;
  GroupTable groups;
  // MPI_*_create_errhandler's handlers; a slot is freed when its last reference goes.
  handles::HandleTable<UserErrhandler, handles::kind::errhandler> errhandlers;
  // Attribute keys, info objects, user error classes and codes (src/comm/objects.hpp).
  Registry objects;
  // Datatype attributes (MPI_Type_set_attr), by handle; their keyvals live in objects.keyvals.
  std::unordered_map<MPI_Datatype, AttrStore> type_attrs;
  // Keyvals created from Fortran, by keyval (an entry is replaced when its slot is reused).
  std::unordered_map<int, FortranKeyval> fortran_keyvals;
  std::uint32_t next_context = 4; // 0/1: MPI_COMM_WORLD, 2/3: MPI_COMM_SELF
  // Context agreements in flight (MPI_Comm_idup's overlap others), and the ids (first, count)
  // they have taken meanwhile (src/comm/context.hpp).
  int agreements = 0;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> taken;
};

} // namespace ampi::comm
