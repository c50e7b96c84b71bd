// src/coll/nbc.hpp — non-blocking collectives as schedules of point-to-point steps driven by
// progress (as libNBC does), without an internal task: the call posts the first step's messages;
// their completion queues the schedule on its rank (coll::RankState::ready) and wakes it; the next
// step starts when the rank next enters Pe::block or Pe::yield (any MPI_Wait/Test variant, or any
// other blocking call, so MPI's progress rule holds). Among the ranks of one PE the PE-aware
// protocol of pe_coll.cpp serves without blocking anyone: the last rank to arrive combines (one
// PE) or lets the PE's leader go across PEs; the leader completes every local rank's request.
//
// Measured (perf, OSU osu_iallreduce 8 B, 1 process x 2 ranks, before this): the helper task's
// copy of the communicator lacked the cached PE layout, which was rebuilt at every call (pe_layout,
// malloc/free, Placement::pe_of, ~Comm: about a third of the library's time), plus two context
// switches into and out of the helper per call.
#pragma once

#include "coll/coll.hpp"

#include <cstddef>

namespace ampi {
class Rank;
}
namespace ampi::p2p {
struct Request;
}

namespace ampi::coll {

// Largest vector (bytes) that iallreduce() takes: the recursive-doubling range of coll.cpp.
// Larger ones run the blocking algorithm in a helper task (src/mpi/coll_common.hpp).
inline constexpr std::size_t kScheduleAllreduceMax = 64 * 1024;

// Starts an allreduce of `count` packed elements (contiguous host memory; send == nullptr: the
// input is in recv) that completes `req`, a collective request of `self`. `c` is the caller's
// communicator (only read now: the schedule keeps copies of what it needs).
void iallreduce(Rank &self, const comm::Comm &c, int tag, const void *send, void *recv,
                std::size_t count, const Reducer &op, p2p::Request &req);

} // namespace ampi::coll
