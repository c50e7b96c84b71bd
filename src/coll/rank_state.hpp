// src/coll/rank_state.hpp — what collectives keep per virtual rank: the internal tasks that run
// its non-blocking collectives (core's Pe::spawn_helper; they act as the rank, and waking the
// rank wakes them too) and its user-defined reduction operations (MPI_Op_create, handles of
// handles::kind::op), and how many blocking collectives it ran among its PE's ranks on each
// communicator (what tells consecutive ones apart: src/coll/pe_coll.cpp). core's Rank holds one
// (rank.coll).
#pragma once

#include "handles/handle.hpp"
#include "ult/task.hpp"

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace ampi::coll {

struct UserOp {
  MPI_User_function *fn = nullptr;
  bool commutative = true;
};

struct RankState {
  std::vector<std::unique_ptr<ult::Task>> helper_tasks;
  handles::HandleTable<UserOp, handles::kind::op> user_ops;
  // Blocking PE-aware collectives run so far, by communicator (context id << 32 | first member's
  // world rank): the sequence number of the next one's per-PE instance.
  std::unordered_map<std::uint64_t, std::uint32_t> pe_seq;
};

} // namespace ampi::coll
