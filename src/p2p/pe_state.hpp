// src/p2p/pe_state.hpp — what point-to-point keeps per PE, shared by the PE's ranks: the pool of
// unexpected messages, the protocol table (thresholds and names, p2p/protocol.hpp) and p2p's end
// of the network port (the handler of arriving active messages). core's Pe holds one (pe.p2p()),
// as Rank holds p2p's per-rank state (p2p/rank_state.hpp).
#pragma once

#include "p2p/net_handler.hpp"
#include "p2p/protocol.hpp"
#include "p2p/request.hpp"

namespace ampi::p2p {

struct PeState {
  PeState(Pe &pe, const Thresholds &thresholds)
      : protocols(thresholds), net_handler(pe, protocols.limits().gpu_eager_limit) {}
  PeState(const PeState &) = delete;
  PeState &operator=(const PeState &) = delete;

  MessagePool messages;
  Protocols protocols;
  NetHandler net_handler;
};

} // namespace ampi::p2p
