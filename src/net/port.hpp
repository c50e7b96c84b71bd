// src/net/port.hpp — the network port: everything p2p and termination need from "the other
// PEs", and nothing more, so that the transport behind it (UCX today; the null port of a
// one-process job) can be swapped without touching them. It offers:
//  - active messages: a kind byte (AmKind) and one payload struct per kind, plus, for eager
//    envelopes, the message data; delivered in the order each sender sent them, to a Handler
//    (p2p) or, for control messages, to a ControlHandler (termination);
//  - data posted by the sender under an id (send-side: post_data) and received by naming that id,
//    straight into the user's buffer, each side with its memory type (host or device);
//  - progress(), and a wait fd for sleeping (arm / event_fd / wait);
//  - the counters termination needs (messages sent and received, sends in flight).
// This header includes only the standard library and devptr_cache (memory types, IPC handles):
// nothing of p2p, core, UCX or PMIx.
#pragma once

#include "devptr_cache/devptr_cache.hpp"
#include "devptr_cache/ipc.hpp"
#include "net/rma.hpp"
#include "shm/shm.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

namespace ampi::net {

using MemKind = gpu::MemKind;

// What an active message is; travels as its first byte. Only Eager, Rendezvous, IpcNote and
// CmaNote are user messages (counted for termination); the others are protocol and control
// traffic.
enum class AmKind : std::uint8_t {
  Eager = 1,  // an envelope with the message data after it
  Rendezvous, // an envelope naming the id the data waits under (post_data)
  IpcNote,    // an envelope whose device data the receiver copies itself (CUDA IPC, same host)
  IpcDone,    // the receiver copied an IpcNote's data: the sender's buffer is free
  IpcRefused, // the receiver could not open an IpcNote's memory: send the data instead
  IpcData,    // the sender's answer to IpcRefused: the id the data waits under
  Control,    // between PEs, not ranks (termination and deadlock detection)
  CmaNote,    // an envelope whose host data the receiver reads itself (CMA, same host); answered
              // like an IpcNote: IpcDone, or IpcRefused (with `cma` set) then IpcData
  CmaPull,    // the receiver of a CmaNote with a split ticket: write the tail of the data into my
              // buffer yourself if I have not taken it yet (shm::Node's split copies)
};
const char *name(AmKind k) noexcept;
constexpr bool is_user_message(AmKind k) noexcept {
  return k == AmKind::Eager || k == AmKind::Rendezvous || k == AmKind::IpcNote ||
         k == AmKind::CmaNote;
}

// The matching part of a message between ranks (fixed size, host byte order: all PEs of a job
// share one architecture).
struct Envelope {
  std::uint32_t context;
  std::int32_t source; // the sender's rank in the communicator
  std::int32_t tag;
  std::int32_t dest_world; // the receiver's world rank
  std::uint64_t bytes;     // of the whole message
};

// One payload struct per kind; `kKind` ties each to its byte. Requests (`void *` on our side)
// travel as 64-bit integers and come back unchanged.
struct Eager {
  static constexpr AmKind kKind = AmKind::Eager;
  Envelope env; // followed by env.bytes of data
};
struct Rendezvous {
  static constexpr AmKind kKind = AmKind::Rendezvous;
  Envelope env;
  std::uint64_t data_id; // what the receiver names in recv_data
};
// The most rectangles a layout sent to another process may take (kIpcLayout): a face of a 3-D
// grid as a subarray is one.
inline constexpr std::size_t kIpcNoteRects = 2;
struct IpcNote {
  static constexpr AmKind kKind = AmKind::IpcNote;
  Envelope env;
  gpu::IpcRef ref;
  std::uint64_t sender_request; // handed back by IpcDone / IpcRefused
  std::int32_t sender_pe;
  // kIpcFromLayout: a sender of this process whose data is its request's non-contiguous device
  // layout (p2p/ipc.cpp's send_layout); `ref` is unset then.
  // kIpcLayout: a sender of another process whose data is the `nrects` rectangles `rects` of its
  // device memory, displacements from the address `ref` names (p2p/ipc.cpp's send_layout).
  std::int32_t flags;
  std::uint32_t nrects;
  std::uint32_t pad;
  gpu::Rect rects[kIpcNoteRects];
};
inline constexpr std::int32_t kIpcFromLayout = 1;
inline constexpr std::int32_t kIpcLayout = 2;
struct IpcDone {
  static constexpr AmKind kKind = AmKind::IpcDone;
  std::uint64_t sender_request;
  std::uint64_t split_ticket; // a CmaNote's, handed back (0: none): the sender closes it
};
struct CmaNote {
  static constexpr AmKind kKind = AmKind::CmaNote;
  Envelope env;
  std::uint64_t address;        // of the data in the sender's memory
  std::uint64_t sender_request; // handed back by IpcDone / IpcRefused
  std::int32_t sender_pe;
  std::int32_t pad;
  // Nonzero: the sender offers to copy the tail of the data itself (shm::Node::open_split).
  std::uint64_t split_ticket;
};
struct CmaPull {
  static constexpr AmKind kKind = AmKind::CmaPull;
  std::uint64_t split_ticket;
  std::uint64_t from; // the tail's address in the sender's memory
  std::uint64_t to;   // and in the receiver's
  std::uint64_t bytes;
  std::int32_t receiver_pe;
  std::int32_t pad;
};
struct IpcRefused {
  static constexpr AmKind kKind = AmKind::IpcRefused;
  std::uint64_t sender_request;
  std::uint64_t receiver_request; // the receive that waits for IpcData
  std::int32_t receiver_pe;
  // An IpcNote refused: 0. A CmaNote: kCmaRefused (CMA to the receiver does not work: use the
  // network for it from now on) or kCmaThisOnce (this message only, e.g. a device buffer).
  std::int32_t cma;
  std::uint64_t split_ticket; // a CmaNote's, handed back (0: none): the sender closes it
};
inline constexpr std::int32_t kCmaRefused = 1;
inline constexpr std::int32_t kCmaThisOnce = 2;
struct IpcData {
  static constexpr AmKind kKind = AmKind::IpcData;
  std::uint64_t receiver_request;
  std::uint64_t data_id;
};
struct Control {
  static constexpr AmKind kKind = AmKind::Control;
  std::uint32_t type; // the control protocol's own (termination.hpp)
  std::int32_t from_pe;
  std::uint32_t word;
  std::uint32_t pad;
  std::uint64_t a, b;
};

// The largest payload struct: a port's receive buffers hold one plus the eager data.
inline constexpr std::size_t kMaxPayload = sizeof(IpcNote);
static_assert(sizeof(Eager) <= kMaxPayload && sizeof(Rendezvous) <= kMaxPayload &&
              sizeof(Control) <= kMaxPayload && sizeof(IpcRefused) <= kMaxPayload &&
              sizeof(CmaNote) <= kMaxPayload && sizeof(CmaPull) <= kMaxPayload);

// What p2p implements: arrivals of its active messages, and the end of its data transfers.
// `user` is what the caller passed with the operation.
class Handler {
public:
  virtual void on_eager(const Eager &m, const std::byte *data) = 0;
  virtual void on_rendezvous(const Rendezvous &m) = 0;
  virtual void on_ipc_note(const IpcNote &m) = 0;
  virtual void on_ipc_done(const IpcDone &m) = 0;
  virtual void on_ipc_refused(const IpcRefused &m) = 0;
  virtual void on_ipc_data(const IpcData &m) = 0;
  virtual void on_cma_note(const CmaNote &m) = 0;
  virtual void on_cma_pull(const CmaPull &m) = 0;
  virtual void send_done(void *user, bool ok) = 0;
  virtual void recv_done(void *user, std::size_t bytes, bool truncated) = 0;

protected:
  ~Handler() = default;
};

// What termination implements: control messages from other PEs.
class ControlHandler {
public:
  virtual void on_control(const Control &m) = 0;

protected:
  ~ControlHandler() = default;
};

// What termination detection and the deadlock report need, and all they see of the network.
class ControlChannel {
public:
  virtual int my_pe() const noexcept = 0;
  virtual int npes() const noexcept = 0;
  virtual void send_control(int pe, const Control &m) = 0;
  // Control messages go to `h` from now on (nullptr: dropped).
  virtual void set_control_handler(ControlHandler *h) noexcept = 0;
  // User messages (is_user_message) sent to and received from other PEs, and sends of ours
  // still in flight (including IPC notes not answered yet).
  virtual std::uint64_t messages_sent() const noexcept = 0;
  virtual std::uint64_t messages_received() const noexcept = 0;
  virtual std::size_t sends_in_flight() const noexcept = 0;

protected:
  ~ControlChannel() = default;
};

// Given to an implementation's constructor: how much eager data one active message may carry.
struct PortConfig {
  std::size_t max_eager_bytes = 8192;
};

// The port. The kinds, their counting and their decoding are here (port.cpp); an implementation
// only moves bytes: send_am, post_data / recv_data, progress, and calls deliver() for each
// active message that arrived.
// With a same-host transport attached (attach_local: src/shm's rings), every active message to a
// PE it reaches goes through it instead, whatever its kind: envelopes, notes, acknowledgements
// and control messages between two PEs then keep one order (MPI's non-overtaking rule across
// host and device messages), and the counting above stays the same. Data posted under an id
// (post_data) still goes through the implementation.
class Port : public ControlChannel {
public:
  virtual ~Port();
  Port(const Port &) = delete;
  Port &operator=(const Port &) = delete;

  int my_pe() const noexcept final { return my_pe_; }
  int npes() const noexcept final { return npes_; }
  // Whether other PEs exist (false: the null port, nothing to progress or wait for).
  bool remote() const noexcept { return npes_ > 1; }

  // Sends payload `p` (and, for Eager, `bytes` of `data`) to `pe`. Everything is copied: the
  // caller's buffers are free when this returns.
  template <class P>
  void send(int pe, const P &p, const void *data = nullptr, std::size_t bytes = 0) {
    static_assert(std::is_trivially_copyable_v<P> && sizeof(P) <= kMaxPayload);
    if constexpr (is_user_message(P::kKind)) ++sent_;
    if constexpr (P::kKind == AmKind::IpcNote || P::kKind == AmKind::CmaNote) ++ipc_waiting_;
    if (local_ && local_->reaches(pe))
      send_local(pe, P::kKind, &p, sizeof p, data, bytes);
    else
      send_am(pe, P::kKind, &p, sizeof p, data, bytes);
  }
  // send() to a `pe` that the caller knows local()->reaches(): straight to the rings, without
  // asking again (p2p's same-host eager path, which asked to choose its protocol).
  template <class P>
  void send_host(int pe, const P &p, const void *data = nullptr, std::size_t bytes = 0) {
    static_assert(std::is_trivially_copyable_v<P> && sizeof(P) <= kMaxPayload);
    if constexpr (is_user_message(P::kKind)) ++sent_;
    if constexpr (P::kKind == AmKind::IpcNote || P::kKind == AmKind::CmaNote) ++ipc_waiting_;
    send_local(pe, P::kKind, &p, sizeof p, data, bytes);
  }
  void send_control(int pe, const Control &m) final { send(pe, m); }
  void set_control_handler(ControlHandler *h) noexcept final { control_ = h; }

  // Posts `bytes` at `data` (memory type `kind`) for `pe` under a fresh id (returned, never 0 or
  // ~0); handler.send_done(user) when it has gone (for `synchronous`, when the receiver has
  // posted its receive).
  virtual std::uint64_t post_data(int pe, const void *data, std::size_t bytes, MemKind kind,
                                  bool synchronous, void *user) = 0;
  // Receives the data posted under `id` straight into `buf`; handler.recv_done(user, ...) when
  // it is there.
  virtual void recv_data(std::uint64_t id, void *buf, std::size_t capacity, MemKind kind,
                         void *user) = 0;
  // Whether `pe` runs on this host (CUDA IPC may reach its memory).
  virtual bool same_host(int pe) = 0;

  // The same-host transport: from now on, active messages to the PEs it reaches go through it.
  void attach_local(std::unique_ptr<shm::Node> node);
  shm::Node *local() noexcept { return local_.get(); }

  // Drives the same-host rings and the network and delivers what arrived; true if anything
  // happened.
  bool progress() {
    bool any = false;
    if (local_) any = progress_local();
    return progress_net() | any;
  }
  // For a rank that waits for a message, alone on its PE: looks for arrivals up to a bounded
  // number of times, on the rank's own stack; true as soon as anything happened (false: nothing
  // did, the caller suspends the rank). While every other PE is on this host and nothing of ours
  // is in flight over the network, the network carries nothing for us but UCX's own traffic
  // (endpoint wire-up, RMA targets), so it is driven once every kNetEvery looks, and each look
  // is one load of the next header word of each inbound ring (shm::Node::arrived), the rings'
  // full poll (progress_local, ~50 instructions even when empty) only once a record is there.
  // Otherwise each look is a full progress(). The budgets keep the time a rank spins before it
  // suspends about what it was when each look was a poll of the rings (256 of them, one in 16
  // with UCX's): ~2.7 ns a look, ~6-10 us in all. Safe to spin: the caller does so only while
  // no other task of the PE is ready, and anything that arrives (for another rank of the PE too)
  // is delivered by the look that sees it, which ends the spin. 8 B ping-pong between two
  // processes, P50 one-way: 200-208 ns with a full poll per look, 184-190 ns with these looks;
  // UCX every 16th, 128th or 1024th look made no difference (bench/results/2026-11-27-s12).
  // A record the first look finds was waiting: every record is taken (the sender is ahead); one
  // that a later look finds came while the rank waited: it is taken alone, and the rank replies
  // before anyone looks at the cell after it (shm::Node::poll: real OSU 8 B P50 0.475 -> 0.34 us
  // on a Zen 5 guest, 0.32 -> 0.26 on an Intel Xeon host).
  bool spin() {
    if (!local_only_ || net_busy()) {
      for (unsigned i = 0; i < kSpinPolls; ++i)
        if (progress()) return true;
      return false;
    }
    for (unsigned i = 0; i < kSpinLooks; ++i) {
      if ((armed_ || !backlog_.empty() || local_->arrived()) && progress_local(i == 0)) return true;
      if ((++spins_ % kNetEvery) == 0 && progress_net()) return true;
    }
    return false;
  }
  static constexpr unsigned kSpinPolls = 256;
  static constexpr unsigned kSpinLooks = 2048;
  static constexpr unsigned kNetEvery = 128;
  // Sleeps until the network or a same-host peer has something for us or `timeout_ms` passes.
  void wait(int timeout_ms);
  // wait() in two halves, for a caller that sleeps on other fds too: false if it must progress
  // instead; else poll event_fd() (the next progress() ends the sleep for the rings' senders).
  bool arm();
  int event_fd() const noexcept { return epoll_fd_ >= 0 ? epoll_fd_ : net_fd(); }
  // Ends every connection (after the job's final barrier).
  virtual void disconnect() = 0;
  // One-sided operations (src/net/rma.hpp) to other PEs' registered memory; nullptr when the
  // port has none (the null port of a one-process job, whose windows never need it).
  virtual Rma *rma() noexcept = 0;
  // SMP mode (AMPI_PES > 1): active messages and data that went to a PE of this same process
  // through the network instead of memory (AMPI_DEBUG_SMP prints it; tests expect 0).
  virtual std::uint64_t same_process_sends() const noexcept { return 0; }

  std::uint64_t messages_sent() const noexcept final { return sent_; }
  std::uint64_t messages_received() const noexcept final { return received_; }
  std::size_t sends_in_flight() const noexcept final {
    return ipc_waiting_ + backlog_.size() + transfers_in_flight();
  }

protected:
  Port(int my_pe, int npes, Handler &handler) noexcept
      : handler_(handler), my_pe_(my_pe), npes_(npes) {}
  // Sends one active message: the kind byte, `payload` and `data` (copied before it returns).
  virtual void send_am(int pe, AmKind kind, const void *payload, std::size_t payload_bytes,
                       const void *data, std::size_t data_bytes) = 0;
  // Sends and receives the implementation still owns (they may complete messages).
  virtual std::size_t transfers_in_flight() const noexcept = 0;
  // Whether anything of ours is in flight over the network (receives of host data too), so that
  // spin() must drive it every time.
  virtual bool net_busy() const noexcept { return transfers_in_flight() > 0; }
  // An active message arrived: `kind`, its payload and (Eager) its data after the payload.
  void deliver(AmKind kind, const std::byte *payload);
  // The implementation's halves of progress, arm and event_fd.
  virtual bool progress_net() = 0;
  virtual bool arm_net() = 0;
  virtual int net_fd() const noexcept = 0;

  Handler &handler_;

private:
  // Into the ring to `pe`; when it is full (or older messages to `pe` wait), into the backlog,
  // which progress() empties in order: a full ring never blocks the sender, and both sides keep
  // draining their inbound rings meanwhile (no deadlock).
  // The common case inline (it fits, nothing waits for `pe`, the ring has room); the rest in
  // send_local_slow.
  void send_local(int pe, AmKind kind, const void *payload, std::size_t payload_bytes,
                  const void *data, std::size_t data_bytes) {
    if (payload_bytes + data_bytes <= local_->max_record() &&
        waiting_[static_cast<std::size_t>(pe)] == 0 &&
        local_->try_send(pe, static_cast<std::uint8_t>(kind), payload, payload_bytes, data,
                         data_bytes)) [[likely]]
      return;
    send_local_slow(pe, kind, payload, payload_bytes, data, data_bytes);
  }
  void send_local_slow(int pe, AmKind kind, const void *payload, std::size_t payload_bytes,
                       const void *data, std::size_t data_bytes);
  // `drain`: every record that arrived, or one per ring (shm::Node::poll says why).
  bool progress_local(bool drain = true);
  bool drain_backlog();

  struct Pending {
    int pe;
    AmKind kind;
    std::size_t payload_bytes;
    std::vector<std::byte> bytes; // payload, then data
  };
  std::unique_ptr<shm::Node> local_;
  std::vector<Pending> backlog_;       // in sending order
  std::vector<std::uint32_t> waiting_; // by PE: messages of the backlog (sized on first use)
  int epoll_fd_ = -1;                  // the network's fd and the rings' wake-up socket
  bool polling_ = false;               // inside progress_local (handlers may send, not poll)
  bool armed_ = false;                 // the rings' senders may think we sleep
  bool local_only_ = false;            // the rings reach every other PE (a one-host job)
  unsigned spins_ = 0;                 // spin()'s looks
  ControlHandler *control_ = nullptr;
  const int my_pe_;
  const int npes_;
  std::uint64_t sent_ = 0;
  std::uint64_t received_ = 0;
  std::size_t ipc_waiting_ = 0; // IPC notes not answered yet (their sends are in flight)
  // arm(): since when it has refused to sleep for an unanswered IPC note (zero: not refusing).
  std::chrono::steady_clock::time_point copy_wait_since_{};
};

// The port of a one-process job: no other PE, so nothing to send, receive or wait for.
class NullPort final : public Port {
public:
  explicit NullPort(Handler &handler) noexcept : Port(0, 1, handler) {}
  std::uint64_t post_data(int, const void *, std::size_t, MemKind, bool, void *) override;
  void recv_data(std::uint64_t, void *, std::size_t, MemKind, void *) override;
  bool same_host(int) override { return true; }
  void disconnect() override {}
  Rma *rma() noexcept override { return nullptr; }

private:
  void send_am(int, AmKind, const void *, std::size_t, const void *, std::size_t) override;
  std::size_t transfers_in_flight() const noexcept override { return 0; }
  bool progress_net() override { return false; }
  bool arm_net() override { return false; }
  int net_fd() const noexcept override { return -1; }
};

} // namespace ampi::net
