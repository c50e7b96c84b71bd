// src/coll/rank_state.hpp — what collectives keep per virtual rank: its non-blocking collectives
// that run as schedules of point-to-point steps (coll/nbc.cpp; core's Pe::block and Pe::yield run
// the steps that became due, through Progress, so no task is needed), the internal tasks that run
// its other non-blocking and persistent collectives now (core's Pe::spawn_helper, which owns them
// in a per-PE pool; they act as the rank, and waking the rank wakes them too) and its user-defined
// reduction operations (MPI_Op_create, handles of handles::kind::op), and how many blocking
// collectives it ran among its PE's ranks on each communicator (what tells consecutive ones apart:
// src/coll/pe_coll.cpp). core's Rank holds one (rank.coll).
#pragma once

#include "handles/handle.hpp"
#include "ult/task.hpp"

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace ampi::coll {

struct UserOp {
  MPI_User_function *fn = nullptr;
  bool commutative = true;
};

// A non-blocking collective driven by progress (coll/nbc.cpp): advance() starts its next steps
// and returns true once it has completed its request (it may then be destroyed).
class Progress {
public:
  virtual ~Progress() = default;
  virtual bool advance() = 0;
};

struct RankState {
  // This rank's schedules in flight, and those whose messages of the current step are all complete
  // (queued by the messages' completion, which also wakes the rank).
  std::vector<std::unique_ptr<Progress>> schedules;
  std::vector<Progress *> ready;
  // Finished schedules kept for reuse with their buffers' capacity (coll/nbc.cpp: a schedule per
  // call cost about ten allocations), a few.
  std::vector<std::unique_ptr<Progress>> spare_schedules;
  static constexpr std::size_t kSpareSchedules = 4;
  // Advances the schedules that are due, as the rank (from Pe::block/yield); true if any was.
  bool run_ready() {
    if (ready.empty()) [[likely]]
      return false;
    while (!ready.empty()) {
      Progress *p = ready.back();
      ready.pop_back();
      if (p->advance()) retire(p);
    }
    return true;
  }
  // A schedule has completed its request: off the list, to the spares if there is room.
  void retire(Progress *p) {
    for (auto it = schedules.begin(); it != schedules.end(); ++it) {
      if (it->get() != p) continue;
      if (spare_schedules.size() < kSpareSchedules) spare_schedules.push_back(std::move(*it));
      schedules.erase(it);
      return;
    }
  }
  std::vector<ult::Task *> helper_tasks; // those running a job for this rank now
  handles::HandleTable<UserOp, handles::kind::op> user_ops;
  // Blocking PE-aware collectives run so far, by communicator (context id << 32 | first member's
  // world rank): the sequence number of the next one's per-PE instance.
  std::unordered_map<std::uint64_t, std::uint32_t> pe_seq;
};

} // namespace ampi::coll
