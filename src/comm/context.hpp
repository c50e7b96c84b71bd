// src/comm/context.hpp — agreeing on context ids for new communicators: every member proposes
// the next id it has never used, and all take the largest (a max-reduction over the members), so
// no rank ever holds two communicators with the same id.
//
// Agreements may overlap on one rank (MPI_Comm_idup runs in the background while the rank creates
// other communicators, on other parents too), so the largest proposal alone is not enough: two
// agreements in flight at one rank may settle on the same id with different partners. Each
// agreement therefore runs a second round: every member says whether the id collides with one an
// overlapping agreement of its own has taken meanwhile, and on any collision all of them try again
// with fresh proposals. The ids taken while agreements overlap are remembered until none is in
// flight (afterwards every proposal is above all of them).
//
// Two agreements crossing at two ranks in opposite orders (ranks 0 and 1 idup A then B, and B
// then A) propose mirror images and collide on every round, forever. So each agreement has a key,
// the same at all its members (the parent's context id and the collective tag), and a retried
// proposal is moved up by a step drawn from the key and the round (1 to 64 times `n`, not passed
// on to the rank's later proposals): two crossing agreements then part after a round or two.
// (Deferring to the agreement of the smaller key instead deadlocks: a rank may be held in a
// blocking agreement until an idup of the other ranks settles, MPICH's comm_create_group_idup.) An
// id whose owner voted to retry at this rank is no collision, since that id is not kept.
#pragma once

#include "comm/comm.hpp"

#include <cstdint>
#include <functional>

namespace ampi {
class Rank;
}

namespace ampi::comm {

// The maximum of a value over every member of the new communicator (a collective).
using MaxOver = std::function<std::uint32_t(std::uint32_t)>;

// `n` consecutive free ids (an even number: p2p and collective context of each communicator),
// agreed through `max_over`.
// `key`: the same at every member, distinct among agreements that may overlap at a rank.
std::uint32_t agree_context(Rank &self, const MaxOver &max_over, std::uint32_t n = 2,
                            std::uint64_t key = ~std::uint64_t{0});
// Agreed over the members of `parent` (both groups of an intercommunicator), with the collective
// tag `tag`.
std::uint32_t agree_context(Rank &self, const Comm &parent, std::uint32_t n = 2, int tag = -1);
// The maximum of `v` over both groups of an intercommunicator.
std::uint32_t max_over_inter(const Comm &inter, int tag, std::uint32_t v);

} // namespace ampi::comm
