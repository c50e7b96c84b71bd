// src/p2p/remote.hpp — the p2p side of messages between PEs: what happens when an envelope
// arrives from another PE (it meets the destination rank's matching queues exactly like a local
// send), and when UCX finishes a send or a receive of ours.
#pragma once

#include "ucx/transport.hpp"

namespace ampi {
class Pe;
}

namespace ampi::p2p {

class RemoteSink final : public ucx::Sink {
public:
  explicit RemoteSink(Pe &pe) : pe_(pe) {}
  void envelope_arrived(const ucx::Header &h, const std::byte *eager_data) override;
  void send_done(void *user, bool ok) override;
  void recv_done(void *user, std::size_t bytes, bool truncated) override;
  void ipc_refused(void *user, int pe, std::uint64_t peer_request) override;
  void ipc_data(void *user, std::uint64_t data_tag) override;

private:
  Pe &pe_;
};

} // namespace ampi::p2p
