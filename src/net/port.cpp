// src/net/port.cpp — decoding of active messages (the kind byte picks the payload struct) and
// their counting, shared by every port; and the null port's refusals (see port.hpp).
#include "net/port.hpp"

#include <poll.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ampi::net {

namespace {

// Payloads sit after the kind byte in a receive buffer with no alignment promise: copy them out.
template <class P> P load(const std::byte *payload) noexcept {
  P p;
  std::memcpy(&p, payload, sizeof p);
  return p;
}

[[noreturn]] void no_peer(const char *what) {
  std::fprintf(stderr, "ampi: internal error: %s in a one-process job (no other PE)\n", what);
  std::abort();
}

} // namespace

const char *name(AmKind k) noexcept {
  switch (k) {
  case AmKind::Eager:
    return "eager";
  case AmKind::Rendezvous:
    return "rendezvous";
  case AmKind::IpcNote:
    return "ipc-note";
  case AmKind::IpcDone:
    return "ipc-done";
  case AmKind::IpcRefused:
    return "ipc-refused";
  case AmKind::IpcData:
    return "ipc-data";
  case AmKind::Control:
    return "control";
  case AmKind::CmaNote:
    return "cma-note";
  case AmKind::CmaPull:
    return "cma-pull";
  }
  return "unknown";
}

void Port::deliver(AmKind kind, const std::byte *payload) {
  switch (kind) {
  case AmKind::Eager:
    ++received_;
    handler_.on_eager(load<Eager>(payload), payload + sizeof(Eager));
    return;
  case AmKind::Rendezvous:
    ++received_;
    handler_.on_rendezvous(load<Rendezvous>(payload));
    return;
  case AmKind::IpcNote:
    ++received_;
    handler_.on_ipc_note(load<IpcNote>(payload));
    return;
  case AmKind::IpcDone:
    --ipc_waiting_;
    copy_wait_since_ = {};
    handler_.on_ipc_done(load<IpcDone>(payload));
    return;
  case AmKind::IpcRefused:
    --ipc_waiting_;
    copy_wait_since_ = {};
    handler_.on_ipc_refused(load<IpcRefused>(payload));
    return;
  case AmKind::IpcData:
    handler_.on_ipc_data(load<IpcData>(payload));
    return;
  case AmKind::Control:
    if (control_) control_->on_control(load<Control>(payload));
    return;
  case AmKind::CmaNote:
    ++received_;
    handler_.on_cma_note(load<CmaNote>(payload));
    return;
  case AmKind::CmaPull:
    handler_.on_cma_pull(load<CmaPull>(payload));
    return;
  }
  std::fprintf(stderr, "ampi: an active message of unknown kind %d arrived\n",
               static_cast<int>(kind));
  std::abort();
}

Port::~Port() {
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
}

void Port::attach_local(std::unique_ptr<shm::Node> node) {
  local_ = std::move(node);
  if (!local_) return;
  waiting_.assign(static_cast<std::size_t>(npes_), 0);
  local_only_ = true;
  for (int pe = 0; pe < npes_; ++pe)
    if (pe != my_pe_ && !local_->reaches(pe)) local_only_ = false;
  // One fd to sleep on for both: the network's and the rings' wake-up socket.
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0) {
    std::perror("ampi: epoll_create1");
    std::abort();
  }
  for (int fd : {net_fd(), local_->fd()}) {
    if (fd < 0) continue;
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
      std::perror("ampi: epoll_ctl");
      std::abort();
    }
  }
}

void Port::send_local_slow(int pe, AmKind kind, const void *payload, std::size_t payload_bytes,
                           const void *data, std::size_t data_bytes) {
  if (payload_bytes + data_bytes > local_->max_record()) [[unlikely]] {
    // p2p keeps every message it sends this way within the limit (shm eager limit, GPU staging).
    std::fprintf(stderr,
                 "ampi: internal error: a %zu-byte active message exceeds the same-host ring's "
                 "%zu-byte records\n",
                 payload_bytes + data_bytes, local_->max_record());
    std::abort();
  }
  std::uint32_t &waiting = waiting_[static_cast<std::size_t>(pe)];
  // A record's type is the kind; its body the payload, then the data (contiguous, as deliver()
  // reads them). (send_local tried once already; the ring may have room by now.)
  if (waiting == 0 && local_->try_send(pe, static_cast<std::uint8_t>(kind), payload, payload_bytes,
                                       data, data_bytes))
    return;
  Pending p{pe, kind, payload_bytes, std::vector<std::byte>(payload_bytes + data_bytes)};
  std::memcpy(p.bytes.data(), payload, payload_bytes);
  if (data_bytes) std::memcpy(p.bytes.data() + payload_bytes, data, data_bytes);
  backlog_.push_back(std::move(p));
  ++waiting;
}

bool Port::drain_backlog() {
  // In order, per PE: once one message to a PE does not fit, its later ones wait too.
  bool any = false;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < backlog_.size(); ++i) {
    Pending &p = backlog_[i];
    std::uint32_t &waiting = waiting_[static_cast<std::size_t>(p.pe)];
    bool sent = false;
    // A PE with an earlier message still kept has its later ones kept too (marked by the high
    // bit for this pass).
    if (!(waiting & 0x80000000u))
      sent =
          local_->try_send(p.pe, static_cast<std::uint8_t>(p.kind), p.bytes.data(), p.payload_bytes,
                           p.bytes.data() + p.payload_bytes, p.bytes.size() - p.payload_bytes);
    if (sent) {
      --waiting;
      any = true;
      continue;
    }
    waiting |= 0x80000000u;
    if (kept != i) backlog_[kept] = std::move(p);
    ++kept;
  }
  backlog_.resize(kept);
  for (std::size_t i = 0; i < kept; ++i)
    waiting_[static_cast<std::size_t>(backlog_[i].pe)] &= 0x7fffffffu;
  return any;
}

bool Port::progress_local(bool drain) {
  if (polling_) return false; // a handler's progress inside ours: the outer loop goes on
  polling_ = true;
  if (armed_) {
    local_->disarm();
    armed_ = false;
  }
  bool any = !backlog_.empty() && drain_backlog();
  any |= local_->poll([this](std::uint8_t type, const std::byte *body,
                             std::size_t) { deliver(static_cast<AmKind>(type), body); },
                      drain);
  polling_ = false;
  return any;
}

bool Port::arm() {
  // A receiver copies a message of ours (CMA, CUDA IPC), now or once it has matched it: its
  // answer comes within the copy's time, and waking a sleeping PE costs more, so the PE goes on
  // spinning for up to 5 ms since the last answer. osu_latency P50 between two processes (one
  // process_vm_readv of the whole message each way), side by side with the sleep after the idle
  // spins: 1 MiB 122 -> 90 us, 4 MiB 791 -> 583 us, Open MPI 96 and 552 us
  // (bench/results/2026-11-27-s9/lat-copyspin).
  if (ipc_waiting_ > 0) {
    const auto now = std::chrono::steady_clock::now();
    if (copy_wait_since_ == std::chrono::steady_clock::time_point{}) copy_wait_since_ = now;
    if (now - copy_wait_since_ < std::chrono::milliseconds(5)) return false;
  }
  copy_wait_since_ = {};
  if (local_) {
    if (!backlog_.empty()) return false; // keep driving until the rings took it all
    if (!armed_ && !local_->arm()) return false;
    armed_ = true;
  }
  return arm_net();
}

void Port::wait(int timeout_ms) {
  if (!arm()) return;
  pollfd pfd{event_fd(), POLLIN, 0};
  ::poll(&pfd, 1, timeout_ms);
}

std::uint64_t NullPort::post_data(int, const void *, std::size_t, MemKind, bool, void *) {
  no_peer("post_data");
}

void NullPort::recv_data(std::uint64_t, void *, std::size_t, MemKind, void *) {
  no_peer("recv_data");
}

void NullPort::send_am(int, AmKind, const void *, std::size_t, const void *, std::size_t) {
  no_peer("an active message");
}

} // namespace ampi::net
