// src/coll/rank_state.hpp — what collectives keep per virtual rank: the internal tasks that run
// its non-blocking collectives now (core's Pe::spawn_helper, which owns them in a per-PE pool;
// they act as the rank, and waking the rank wakes them too) and its user-defined reduction
// operations (MPI_Op_create, handles of handles::kind::op). core's Rank holds one (rank.coll).
#pragma once

#include "handles/handle.hpp"
#include "ult/task.hpp"

#include <mpi.h>

#include <memory>
#include <vector>

namespace ampi::coll {

struct UserOp {
  MPI_User_function *fn = nullptr;
  bool commutative = true;
};

struct RankState {
  std::vector<ult::Task *> helper_tasks; // those running a job for this rank now
  handles::HandleTable<UserOp, handles::kind::op> user_ops;
};

} // namespace ampi::coll
