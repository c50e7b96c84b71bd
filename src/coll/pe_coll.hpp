// src/coll/pe_coll.hpp — collectives that know which ranks share a PE: the ranks of one PE meet
// in memory (coll/pe_state.hpp), their leader (the PE's lowest rank of the communicator) combines
// or gathers their data with one pass over it, runs the flat algorithm of coll.cpp among one
// leader per PE, and copies the results into every local rank's buffer. No message moves between
// ranks of one PE. As Charm++'s AMPI does; see the README for the measured gain.
//
// Each function returns false, having done nothing, where this path does not apply (a
// communicator with no two ranks on one PE; a non-commutative operation, gather or allgather whose
// PE's ranks are not contiguous blocks of the communicator): the caller runs the flat algorithm.
#pragma once

#include "coll/coll.hpp"

#include <cstddef>
#include <vector>

namespace ampi::coll {

// Where a communicator's ranks run, as one rank sees it (cached in comm::Comm::pe_layout).
struct PeLayout {
  bool usable = false; // some PE holds two or more of its ranks
  bool blocks = true;  // every PE's ranks are one contiguous run of communicator ranks, in PE order
  std::vector<int> local;    // this PE's ranks of the communicator, ascending (local[0]: leader)
  int self = 0;              // this rank's index in `local` (computed once: a lower_bound over 64
                             // ranks per call was 3% of a 64-rank 8 B MPI_Allreduce)
  std::vector<int> pe_index; // by PE number: its index among the communicator's PEs, or -1
  std::vector<int> first, count; // by PE index: its lowest rank and how many it holds
  comm::Comm leaders; // one rank per PE (its lowest), by PE index; same collective context
  int local_index(int comm_rank) const;
  int pe_index_of(const comm::Comm &c, int comm_rank) const;
};

const PeLayout &pe_layout(const comm::Comm &c);

// The tag of the leaders' messages: apart from the flat algorithms' tags (below 2^29, and
// kBlockingTag), so that leaders, numbered by PE, never match a message between ranks.
inline constexpr int leader_tag(int tag) {
  return tag | (1 << 29);
}

namespace pe {
bool barrier(const comm::Comm &c, int tag);
bool bcast(const comm::Comm &c, int tag, void *buf, std::size_t bytes, int root);
bool reduce(const comm::Comm &c, int tag, const void *send, void *recv, std::size_t count,
            const Reducer &op, int root);
bool allreduce(const comm::Comm &c, int tag, const void *send, void *recv, std::size_t count,
               const Reducer &op);
bool gather(const comm::Comm &c, int tag, const void *send, void *recv, std::size_t bytes,
            int root);
bool allgather(const comm::Comm &c, int tag, const void *send, void *recv, std::size_t bytes);
} // namespace pe

} // namespace ampi::coll
