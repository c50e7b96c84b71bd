// src/net/port.cpp — decoding of active messages (the kind byte picks the payload struct) and
// their counting, shared by every port; and the null port's refusals (see port.hpp).
#include "net/port.hpp"

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
    handler_.on_ipc_done(load<IpcDone>(payload));
    return;
  case AmKind::IpcRefused:
    --ipc_waiting_;
    handler_.on_ipc_refused(load<IpcRefused>(payload));
    return;
  case AmKind::IpcData:
    handler_.on_ipc_data(load<IpcData>(payload));
    return;
  case AmKind::Control:
    if (control_) control_->on_control(load<Control>(payload));
    return;
  }
  std::fprintf(stderr, "ampi: an active message of unknown kind %d arrived\n",
               static_cast<int>(kind));
  std::abort();
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
