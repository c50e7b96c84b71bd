// src/coll/nbc.hpp — non-blocking collectives as schedules of point-to-point steps driven by
// progress (as libNBC does), without an internal task: the call posts the first step's messages;
// their completion queues the schedule on its rank (coll::RankState::ready) and wakes it; the next
// step starts when the rank next enters Pe::block or Pe::yield (any MPI_Wait/Test variant, or any
// other blocking call, so MPI's progress rule holds). Among the ranks of one PE the PE-aware
// protocol of pe_coll.cpp serves without blocking anyone: the last rank to arrive does the local
// work (one PE) or lets the PE's leader go across PEs; the leader completes every local rank's
// request.
//
// Barrier, broadcast, reduce, allreduce and allgather have schedules (small contiguous host
// buffers, intracommunicators: the limits below); the MPI layer runs the others, and these beyond
// the limits, in a pooled helper task (src/mpi/coll_common.hpp). Their persistent forms
// (MPI_<Coll>_init) start the same schedules at each MPI_Start.
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

// Largest vector (bytes) that iallreduce() and ireduce() take: the binomial and
// recursive-doubling range of coll.cpp. Larger ones run the blocking algorithm in a helper task.
inline constexpr std::size_t kScheduleAllreduceMax = 64 * 1024;
inline constexpr std::size_t kScheduleReduceMax = 64 * 1024;
// Largest broadcast: coll.cpp's binomial range (larger ones scatter, then go round a ring).
inline constexpr std::size_t kScheduleBcastMax = 12 * 1024;
// Largest allgather result (all ranks' blocks together): coll.cpp's Bruck range.
inline constexpr std::size_t kScheduleAllgatherMax = 64 * 1024;

// Each starts a collective on contiguous host memory that completes `req`, a collective request of
// `self`. `c` is the caller's communicator (only read now: the schedule keeps copies of what it
// needs). send == nullptr: MPI_IN_PLACE (the input is in recv; for allgather, this rank's block is
// in place in recv).
void ibarrier(Rank &self, const comm::Comm &c, int tag, p2p::Request &req);
void ibcast(Rank &self, const comm::Comm &c, int tag, void *buf, std::size_t bytes, int root,
            p2p::Request &req);
// recv is significant at the root only.
void ireduce(Rank &self, const comm::Comm &c, int tag, const void *send, void *recv,
             std::size_t count, const Reducer &op, int root, p2p::Request &req);
void iallreduce(Rank &self, const comm::Comm &c, int tag, const void *send, void *recv,
                std::size_t count, const Reducer &op, p2p::Request &req);
// `bytes` per rank; recv holds c.size() blocks.
void iallgather(Rank &self, const comm::Comm &c, int tag, const void *send, void *recv,
                std::size_t bytes, p2p::Request &req);

} // namespace ampi::coll
