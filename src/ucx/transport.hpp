// src/ucx/transport.hpp — messages between PEs over UCX: one UCP context and worker per PE,
// worker addresses exchanged through PMIx, endpoints created on first use. Two kinds of UCP
// tagged messages (the tag layout below is the only place it is written down):
//
//   bits 63..62  kind: 1 = envelope, 2 = data
//   envelope     bits 61..0 zero. Payload: a Header, followed by the message data when it is
//                sent eagerly. Received into a ring of pre-posted receives (matching the kind
//                bits only), delivered in arrival order.
//   ipc          (kind 3, in a Header's data_tag only, never a UCP tag) the envelope's payload
//                is an IpcNote: device data that the receiver copies itself through CUDA IPC
//                (same host), then acknowledges with an envelope to kIpcDone. A receiver that
//                cannot open the memory answers kIpcRefused instead; the sender then posts the
//                data under a data tag and names it in a kIpcData envelope, and the receiver
//                receives it like rendezvous data (and the sender uses UCX for that PE since).
//   data         bits 61..40 the sending PE, bits 39..0 a per-sender sequence number (never
//                reused in a run). The data of a rendezvous message, posted by the sender at
//                send time; the receiver posts a receive for exactly this tag, straight into the
//                user's buffer, once the envelope has matched. 40 bits do not wrap in a run
//                (a million messages a second for 12 days); should they, the PE stops the job
//                rather than reuse a tag.
//
// Device memory (CUDA): the data of a rendezvous message and the receive are posted with their
// memory type (UCP_OP_ATTR_FIELD_MEMORY_TYPE), so UCX (built with CUDA) moves them with cuda_copy
// / cuda_ipc without guessing; envelopes are always host memory.
#pragma once

#include "devptr_cache/devptr_cache.hpp"
#include "devptr_cache/ipc.hpp"
#include "pmi/pmix_client.hpp"

#include <ucp/api/ucp.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace ampi::ucx {

// What an envelope carries (fixed size, host byte order: all PEs of a job share one
// architecture).
struct Header {
  std::uint32_t context;
  std::int32_t source; // the sender's rank in the communicator
  std::int32_t tag;
  std::int32_t dest_world;
  std::uint64_t bytes;
  std::uint64_t data_tag; // 0: the data follows the header (eager)
};

// The payload of an envelope whose data the receiver fetches itself with CUDA IPC.
struct IpcNote {
  gpu::IpcRef ref;
  std::uint64_t user; // the sender's, handed back to it by the acknowledgement
  std::int32_t pe;    // the sending PE
  std::int32_t pad;
};

// Told about finished operations and arriving envelopes; implemented by the p2p layer.
class Sink {
public:
  virtual void envelope_arrived(const Header &h, const std::byte *eager_data) = 0;
  virtual void send_done(void *user, bool ok) = 0;
  virtual void recv_done(void *user, std::size_t bytes, bool truncated) = 0;
  // CUDA IPC fallback: the receiver `pe` could not open our buffer (send `user`'s data to its
  // receive `peer_request` with send_data); our receive `user` gets its data under `data_tag`.
  virtual void ipc_refused(void *user, int pe, std::uint64_t peer_request) = 0;
  virtual void ipc_data(void *user, std::uint64_t data_tag) = 0;

protected:
  ~Sink() = default;
};

// From the settings table (AMPI_UCX_EAGER_LIMIT, AMPI_GPU_EAGER_LIMIT, AMPI_GPU_IPC,
// AMPI_GPU_IPC_REFUSE), read once at start-up by the PE.
struct TransportConfig {
  std::size_t eager_limit = 8192;
  std::size_t gpu_eager_limit = 0; // capped at eager_limit
  bool ipc = true;
  bool ipc_refuse_all = false;
};

// Uses the PMIx client only while connecting (addresses); it may be gone before the destructor.
class Transport {
public:
  // `mem`: the PE's device-memory copies; progress() also finishes its asynchronous ones.
  Transport(pmi::PmixClient &pmix, int my_pe, int npes, Sink &sink, gpu::DevPtrCache &mem,
            const TransportConfig &config);
  ~Transport();
  Transport(const Transport &) = delete;
  Transport &operator=(const Transport &) = delete;

  // Sends a header plus `bytes` of data in one message. The data is copied: the caller's buffer
  // is free when this returns.
  void send_eager(int pe, const Header &h, const void *data, std::size_t bytes);
  // Posts `bytes` at `data` under a fresh data tag (returned) and sends the envelope naming it.
  // `sink.send_done(user)` is called when the data has gone (for `synchronous`, when the
  // receiver has matched it).
  std::uint64_t send_rendezvous(int pe, Header h, const void *data, std::size_t bytes,
                                bool synchronous, void *user,
                                gpu::MemKind kind = gpu::MemKind::Host);
  // Device data that the receiver copies itself (CUDA IPC, same host): sends the envelope with
  // `ref` as its payload; `sink.send_done(user)` when the receiver acknowledges (ack_ipc).
  void send_ipc(int pe, Header h, const gpu::IpcRef &ref, void *user);
  void ack_ipc(int pe, std::uint64_t user);
  // The receiver's answer when it cannot open the memory (`recv_user`: its receive), and the
  // sender's reply: the data under a fresh data tag for that receive.
  void refuse_ipc(int pe, std::uint64_t user, void *recv_user);
  void send_data(int pe, std::uint64_t peer_request, const void *data, std::size_t bytes,
                 void *user, gpu::MemKind kind);
  // AMPI_GPU_IPC_REFUSE=1: refuse every IPC message (exercises the fallback in tests).
  bool refuse_all_ipc() const noexcept { return ipc_refuse_all_; }
  static bool is_ipc(std::uint64_t data_tag) noexcept { return (data_tag & kKindMask) == kIpc; }
  // Whether CUDA IPC may reach the PE's device memory: on this host, and not turned off
  // (AMPI_GPU_IPC=0).
  bool ipc_reachable(int pe);
  // Receives rendezvous data straight into `buf`; `sink.recv_done(user, ...)` when it is there.
  void recv_data(std::uint64_t data_tag, void *buf, std::size_t capacity, void *user,
                 gpu::MemKind kind = gpu::MemKind::Host);

  // Drives the worker and delivers arrived envelopes; true if anything happened.
  bool progress();
  // Sleeps until the network has something for us or `timeout_ms` passes.
  void wait(int timeout_ms);
  // wait() in two halves, for a caller that sleeps on other fds too (a threaded PE, which
  // releases its mutex meanwhile): false if it must progress instead; else poll event_fd().
  bool arm();
  int event_fd() const noexcept { return efd_; }
  // Ends every connection (after the job's final barrier).
  void disconnect();

  // Control messages between PEs (termination and deadlock detection) travel as envelopes with
  // dest_world == kControl; they are not counted as messages.
  static constexpr std::int32_t kControl = -1;
  static constexpr std::int32_t kIpcDone = -2;    // acknowledges an IPC message (data_tag: user)
  static constexpr std::int32_t kIpcRefused = -3; // source: the PE, bytes: its receive
  static constexpr std::int32_t kIpcData = -4;    // bytes: the receive, data_tag: the data
  void send_control(int pe, const Header &h) { send_eager(pe, h, nullptr, 0); }
  // Envelopes of messages sent to and received from other PEs, and sends still in flight.
  std::uint64_t messages_sent() const noexcept { return sent_; }
  std::uint64_t messages_received() const noexcept { return received_; }
  // (Device copies of ours still running count too: they complete messages.)
  std::size_t sends_in_flight() const noexcept {
    return outstanding_ + ipc_waiting_ + mem_.copies_in_flight();
  }

  std::size_t eager_limit() const noexcept { return eager_limit_; }
  // Device messages up to this size are copied to the host and sent eagerly
  // (AMPI_GPU_EAGER_LIMIT; at most the eager limit); larger ones go to UCX as device memory.
  std::size_t gpu_eager_limit() const noexcept { return gpu_eager_limit_; }
  // A host buffer of gpu_eager_limit() bytes for staging such a message (send_eager copies it).
  std::byte *gpu_staging() noexcept { return gpu_staging_.data(); }
  int pe_count() const noexcept { return npes_; }
  int my_pe() const noexcept { return my_pe_; }

  // For one-sided communication (src/ucx/rma.cpp): the UCP context (memory registration), the
  // worker (progress, flush) and the endpoint to a PE (created on first use; also to our own PE,
  // for atomics on our own memory).
  ucp_context_h ucp_context() const noexcept { return context_; }
  ucp_worker_h ucp_worker() const noexcept { return worker_; }
  ucp_ep_h ucp_endpoint(int pe) { return endpoint(pe); }

private:
  // A pre-posted receive for envelopes (header plus eager data at most).
  struct EnvelopeSlot {
    std::vector<std::byte> buffer;
    ucs_status_ptr_t request = nullptr;
    std::size_t length = 0;
    bool done = false;
  };
  static constexpr std::size_t kEnvelopeSlots = 32;
  static void envelope_slot_done(void *request, ucs_status_t status,
                                 const ucp_tag_recv_info_t *info, void *user);
  void post_envelope_slot(EnvelopeSlot &slot);

  ucp_ep_h endpoint(int pe);
  // Posts `bytes` at `data` under a fresh data tag (returned); sink.send_done(user) when gone.
  std::uint64_t post_data(int pe, const void *data, std::size_t bytes, bool synchronous, void *user,
                          gpu::MemKind kind);

  static constexpr std::uint64_t kEnvelope = std::uint64_t{1} << 62;
  static constexpr std::uint64_t kData = std::uint64_t{2} << 62;
  static constexpr std::uint64_t kIpc = std::uint64_t{3} << 62;
  static constexpr std::uint64_t kKindMask = std::uint64_t{3} << 62;

  pmi::PmixClient &pmix_;
  int my_pe_;
  int npes_;
  Sink &sink_;
  gpu::DevPtrCache &mem_;
  ucp_context_h context_ = nullptr;
  ucp_worker_h worker_ = nullptr;
  int efd_ = -1;
  std::vector<ucp_ep_h> eps_;
  std::vector<std::uint64_t> hosts_; // each PE's host (published with its address; 0: not known)
  std::uint64_t my_host_ = 0;
  bool ipc_enabled_ = true;
  bool ipc_refuse_all_ = false;
  std::vector<bool> ipc_refused_; // PEs that could not open our memory: UCX for them
  std::size_t ipc_waiting_ = 0;   // IPC sends not acknowledged yet
  std::uint64_t next_seq_ = 1;
  std::size_t eager_limit_;
  std::size_t gpu_eager_limit_;
  std::vector<std::byte> gpu_staging_;
  std::size_t outstanding_ = 0;  // sends still owned by UCX
  std::size_t device_recvs_ = 0; // receives into device memory still owned by UCX
  std::uint64_t sent_ = 0;
  std::uint64_t received_ = 0;
  static constexpr std::size_t kStagingBytes = 1024;
  std::vector<std::byte> staging_ = std::vector<std::byte>(kStagingBytes); // small sends
  std::vector<EnvelopeSlot> slots_; // a ring, delivered from head_
  std::size_t head_ = 0;
};

} // namespace ampi::ucx
