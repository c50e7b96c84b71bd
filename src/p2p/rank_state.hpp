// src/p2p/rank_state.hpp — what point-to-point keeps per virtual rank: its matching queues, its
// requests, its MPI_Buffer_attach buffer and the messages it took with MPI_Mprobe. core's Rank
// holds one (rank.p2p); nothing here knows about PEs or the network.
#pragma once

#include "handles/handle.hpp"
#include "matching/engine.hpp"
#include "p2p/request.hpp"

#include <cstddef>
#include <vector>

namespace ampi::p2p {

// MPI_Buffer_attach's buffer and the buffered sends that hold parts of it.
struct BsendBuffer {
  std::byte *base = nullptr;
  std::size_t size = 0;
  struct Block {
    std::size_t offset, size;
  };
  std::vector<Block> used; // sorted by offset
};

struct RankState {
  matching::Engine matching;
  RequestTable requests;
  BsendBuffer bsend;
  // Messages taken by MPI_Mprobe / MPI_Improbe until MPI_Mrecv / MPI_Imrecv (MPI_Message
  // handles, handles::kind::message).
  handles::HandleTable<MatchedMessage, handles::kind::message> matched;
  bool probing = false; // blocked in MPI_Probe: new unexpected messages wake it
};

} // namespace ampi::p2p
