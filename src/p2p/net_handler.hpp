// src/p2p/net_handler.hpp — p2p's end of the network port: what happens when a message from
// another PE arrives (it meets the destination rank's matching queues exactly like a same-PE
// send), when the port finishes a transfer of ours, and the CUDA IPC exchange with other
// processes of the host. Also the per-PE state of the network and host back-ends.
#pragma once

#include "net/port.hpp"

#include <cstddef>
#include <vector>

namespace ampi {
class Pe;
}

namespace ampi::p2p {

class NetHandler final : public net::Handler {
public:
  // `gpu_eager_limit`: the staging buffer's size (NetGpuStaged).
  NetHandler(Pe &pe, std::size_t gpu_eager_limit) : pe_(pe), gpu_staging_(gpu_eager_limit) {}

  // net.cpp
  void on_eager(const net::Eager &m, const std::byte *data) override;
  void on_rendezvous(const net::Rendezvous &m) override;
  void send_done(void *user, bool ok) override;
  void recv_done(void *user, std::size_t bytes, bool truncated) override;
  // ipc.cpp
  void on_ipc_note(const net::IpcNote &m) override;
  void on_ipc_done(const net::IpcDone &m) override;
  void on_ipc_refused(const net::IpcRefused &m) override;
  void on_ipc_data(const net::IpcData &m) override;
  // shm.cpp
  void on_cma_note(const net::CmaNote &m) override;
  void on_cma_pull(const net::CmaPull &m) override;

  // Whether CUDA IPC may reach `pe`'s device memory: on this host, and it never refused ours.
  bool ipc_reachable(int pe);
  // Whether the receiver `pe` may read our host memory with CMA: probed at start-up, and it
  // never refused.
  bool cma_reachable(int pe);
  // A host buffer for staging a small device message (NetGpuStaged; the port copies it).
  std::byte *gpu_staging() noexcept { return gpu_staging_.data(); }

private:
  std::vector<bool>::reference ipc_refused(int pe); // (sized on first use: the port comes later)
  std::vector<bool>::reference cma_refused(int pe);

  Pe &pe_;
  std::vector<std::byte> gpu_staging_;
  std::vector<bool> ipc_refused_; // PEs that could not open our memory: the network for them
  std::vector<bool> cma_refused_; // PEs that could not read our host memory: likewise
};

} // namespace ampi::p2p
