// src/ucx/transport.hpp — the network port (net/port.hpp) over UCX: one UCP context and worker
// per PE, worker addresses exchanged through PMIx, endpoints created on first use. Two kinds of
// UCP tagged messages (the tag layout below is the only place it is written down):
//
//   bits 63..62  kind: 1 = active message, 2 = data
//   active msg   bits 61..0 zero. Payload: an 8-byte word holding the net::AmKind, the kind's
//                payload struct, then (Eager) the message data. Received into a ring of
//                pre-posted receives (matching the kind bits only), delivered in arrival order.
//   data         bits 61..40 the sending PE, bits 39..0 a per-sender sequence number (never
//                reused in a run): the id of post_data. The sender posts the data; the receiver
//                posts a receive for exactly this tag, straight into the user's buffer, once the
//                envelope has matched. 40 bits do not wrap in a run (a million messages a second
//                for 12 days); should they, the PE stops the job rather than reuse a tag.
//
// Device memory (CUDA): data and receives are posted with their memory type
// (UCP_OP_ATTR_FIELD_MEMORY_TYPE), so UCX (built with CUDA) moves them with cuda_copy / cuda_ipc
// without guessing; active messages are always host memory. Which protocol a message uses is
// p2p's choice (src/p2p/protocol.hpp), not this class's.
#pragma once

#include "devptr_cache/devptr_cache.hpp"
#include "net/port.hpp"
#include "pmi/pe_keys.hpp"

#include <ucp/api/ucp.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace ampi::ucx {

// Uses the PMIx client only while connecting (addresses); it may be gone before the destructor.
class Transport final : public net::Port {
public:
  // `mem`: the PE's device-memory copies; progress() also finishes its asynchronous ones.
  Transport(pmi::PeKeys &pmix, int my_pe, int npes, net::Handler &handler, gpu::DevPtrCache &mem,
            const net::PortConfig &config);
  ~Transport() override;

  std::uint64_t post_data(int pe, const void *data, std::size_t bytes, net::MemKind kind,
                          bool synchronous, void *user) override;
  void recv_data(std::uint64_t id, void *buf, std::size_t capacity, net::MemKind kind,
                 void *user) override;
  bool same_host(int pe) override;
  void disconnect() override;
  net::Rma *rma() noexcept override;
  std::uint64_t same_process_sends() const noexcept override { return same_process_sends_; }

  // For one-sided communication (src/ucx/rma.cpp): the UCP context (memory registration), the
  // worker (progress, flush) and the endpoint to a PE (created on first use; also to our own PE,
  // for atomics on our own memory).
  ucp_context_h ucp_context() const noexcept { return context_; }
  ucp_worker_h ucp_worker() const noexcept { return worker_; }
  ucp_ep_h ucp_endpoint(int pe) { return endpoint(pe); }

private:
  void send_am(int pe, net::AmKind kind, const void *payload, std::size_t payload_bytes,
               const void *data, std::size_t data_bytes) override;
  bool progress_net() override;
  bool arm_net() override;
  int net_fd() const noexcept override { return efd_; }
  // (Device copies of ours still running count too: they complete messages.)
  std::size_t transfers_in_flight() const noexcept override {
    return outstanding_ + mem_.copies_in_flight();
  }
  bool net_busy() const noexcept override {
    return outstanding_ + device_recvs_ + host_recvs_ + mem_.copies_in_flight() > 0;
  }

  // What an active message starts with: its kind, in a word that keeps the payload aligned.
  static constexpr std::size_t kKindBytes = 8;
  // A pre-posted receive for active messages (kind, payload and eager data at most).
  struct AmSlot {
    std::vector<std::byte> buffer;
    ucs_status_ptr_t request = nullptr;
    std::size_t length = 0;
    bool done = false;
  };
  static constexpr std::size_t kAmSlots = 32;
  static void am_slot_done(void *request, ucs_status_t status, const ucp_tag_recv_info_t *info,
                           void *user);
  void post_am_slot(AmSlot &slot);

  ucp_ep_h endpoint(int pe);

  static constexpr std::uint64_t kActiveMessage = std::uint64_t{1} << 62;
  static constexpr std::uint64_t kData = std::uint64_t{2} << 62;
  static constexpr std::uint64_t kKindMask = std::uint64_t{3} << 62;

  pmi::PeKeys &pmix_;
  // SMP mode: the PEs of this process are my_pe / pes_ * pes_ .. + pes_ - 1; what goes to them
  // through UCX is counted (same_process_sends; AMPI_DEBUG_SMP prints it): the same-host rings and
  // plain copies should carry all of it.
  int pes_ = 1;
  std::uint64_t same_process_sends_ = 0;
  void count_if_same_process(int pe) noexcept {
    if (pes_ > 1 && pe / pes_ == my_pe() / pes_) [[unlikely]]
      ++same_process_sends_;
  }
  gpu::DevPtrCache &mem_;
  ucp_context_h context_ = nullptr;
  ucp_worker_h worker_ = nullptr;
  int efd_ = -1;
  std::vector<ucp_ep_h> eps_;
  std::vector<std::uint64_t> hosts_; // each PE's host (published with its address; 0: not known)
  std::uint64_t my_host_ = 0;
  std::uint64_t next_seq_ = 1;
  std::size_t outstanding_ = 0;  // sends still owned by UCX
  std::size_t device_recvs_ = 0; // receives into device memory still owned by UCX
  std::size_t host_recvs_ = 0;   // receives into host memory still owned by UCX
  static constexpr std::size_t kStagingBytes = 1024;
  std::vector<std::byte> staging_ = std::vector<std::byte>(kStagingBytes); // small sends
  std::vector<AmSlot> slots_; // a ring, delivered from head_
  std::size_t head_ = 0;
  std::unique_ptr<class Rma> rma_; // the one-sided interface over this transport (src/ucx/rma.*)
};

} // namespace ampi::ucx
