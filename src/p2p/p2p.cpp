// src/p2p/p2p.cpp — point-to-point operations of the running rank (see p2p.hpp): a send asks the
// protocol table once which back-end carries it (backend.hpp: same PE, same host, network) and
// hands it over; a receive meets unexpected messages, whatever brought them, or waits as a posted
// receive.
#include "p2p/p2p.hpp"

#include "core/pe.hpp"
#include "p2p/backend.hpp"
#include "p2p/data.hpp"
#include "p2p/net_handler.hpp"
#include "p2p/self.hpp"

#include <cstring>

namespace ampi::p2p {

void complete(Request &req) {
  req.complete = true;
  if (req.on_complete) req.on_complete(req);
  if (req.freed && !req.persistent) {
    req.owner->p2p.requests.release(req);
    return;
  }
  req.owner->pe().wake(*req.owner);
}

namespace {

// complete() for a request that its rank, running, has just started: nobody waits on it yet, so
// nobody is woken. Its hook runs, and a request the hook gives up (a buffered send's) is released.
inline void complete_started(Request &req) {
  req.complete = true;
  if (req.on_complete) req.on_complete(req);
  if (req.freed && !req.persistent) req.owner->p2p.requests.release(req);
}

} // namespace

void start_send(Request &req, const Route &route, const void *buf, std::size_t bytes, Mode mode) {
  Pe &pe = req.owner->pe();
  Rank *dst = pe.local(route.dest_world);
  begin_send(req, buf, bytes, dst);
  const gpu::MemKind kind = pe.devptrs().kind(buf);
  const bool synchronous = mode == Mode::Synchronous;
  const Outgoing m{route, buf, bytes, kind, synchronous};
  if (dst) [[likely]] {
    // Same PE. The table's answer matters only when no receive is posted yet (with one, every
    // protocol is the same single copy): send_self asks it then, which keeps the decision off
    // the fastest path. The trace asks it here.
    if (pe.protocols().tracing()) [[unlikely]]
      pe.protocols().trace(pe.protocols().choose(Locality::SamePe, kind, bytes, synchronous), kind,
                           bytes, req.owner->world_rank, route.dest_world);
    send_self(req, m, *dst);
    return;
  }
  // Another PE: on this host when the same-host rings reach it (host data) or CUDA IPC may
  // (device data).
  const int dest_pe = pe.pe_of(route.dest_world);
  const shm::Node *local = pe.port().local();
  const bool same_host = gpu::is_device(kind) ? pe.net_handler().ipc_reachable(dest_pe)
                                              : local && local->reaches(dest_pe);
  const Locality where = same_host ? Locality::SameHost : Locality::OtherHost;
  const Choice c = pe.protocols().choose(where, kind, bytes, synchronous);
  if (pe.protocols().tracing()) [[unlikely]]
    pe.protocols().trace(c, kind, bytes, req.owner->world_rank, route.dest_world);
  if (c.protocol == Protocol::ShmEager) [[likely]] {
    // Into the ring to a PE that the rings reach (`same_host` above): the buffer is free at once
    // and the request complete. Here rather than in send_host (shm.cpp), and without complete()'s
    // wake-up: the caller is running and nobody waits on a request it has just started. The
    // calls of send_host and complete() took ~70 of the ~900 instructions of an 8-byte osu_bw
    // message (callgrind).
    pe.port().send_host(
        dest_pe, net::Eager{{route.context, route.source, route.tag, route.dest_world, bytes}}, buf,
        bytes);
    complete_started(req);
    return;
  }
  switch (c.backend) {
  case Backend::Host:
    send_host(req, m, c.protocol, dest_pe);
    return;
  case Backend::Net:
    send_net(req, m, c.protocol, dest_pe);
    return;
  case Backend::Self: // never for another PE
    break;
  }
}

bool send_eager_now(Rank &self, const Route &route, const void *buf, std::size_t bytes) {
  Pe &pe = self.pe();
  if (pe.local(route.dest_world)) return false; // same PE: send_self
  const gpu::MemKind kind = pe.devptrs().kind(buf);
  if (gpu::is_device(kind)) [[unlikely]]
    return false;
  const int dest_pe = pe.pe_of(route.dest_world);
  const shm::Node *local = pe.port().local();
  if (!local || !local->reaches(dest_pe)) return false;
  // (With tracing on, start_send prints the choice.)
  if (pe.protocols().tracing() ||
      pe.protocols().choose(Locality::SameHost, kind, bytes, false).protocol != Protocol::ShmEager)
      [[unlikely]]
    return false;
  pe.port().send_host(dest_pe,
                      net::Eager{{route.context, route.source, route.tag, route.dest_world, bytes}},
                      buf, bytes);
  return true;
}

void start_recv(Request &req, std::uint32_t context, int source, int tag, void *buf,
                std::size_t capacity) {
  Rank &self = *req.owner;
  req.kind = Kind::Recv;
  req.complete = false;
  req.cancelled = false;
  req.recv_buf = buf;
  req.capacity = capacity;
  req.pattern = {context, source, tag};

  if (matching::UnexpectedMessage *um = self.p2p.matching.take_unexpected_or_post(req)) {
    auto &m = static_cast<Message &>(*um);
    if (m.data_tag == Message::kIpc || m.data_tag == Message::kCma) {
      // Device data (CUDA IPC) or host data (CMA) of this host: copied here and now.
      bool done;
      if (m.data_tag == Message::kIpc) {
        net::IpcNote note;
        std::memcpy(&note, m.data, sizeof note);
        done = receive_ipc(req, note);
      } else {
        net::CmaNote note;
        std::memcpy(&note, m.data, sizeof note);
        done = receive_cma(req, note);
      }
      self.pe().messages().put(m);
      if (done) {
        req.complete = true; // the caller is running: no wake-up needed
        if (req.on_complete) req.on_complete(req);
      }
      return;
    }
    if (m.data_tag) { // rendezvous from another PE: completes when the data is in
      receive_net_data(req, m.envelope.source, m.envelope.tag, m.bytes, m.data_tag);
      self.pe().messages().put(m);
      return;
    }
    if (Request *sreq = m.send_request; sreq && sreq->extra && sreq->extra->layout) {
      // A device send of this PE left in its layout (data.cpp): copied from it into ours.
      sreq->unmatched = nullptr;
      req.status_source = m.envelope.source;
      req.status_tag = m.envelope.tag;
      req.status_error = m.bytes > capacity ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
      req.status_bytes = m.bytes > capacity ? capacity : m.bytes;
      self.pe().messages().put(m);
      if (copy_from_layout(req, *sreq, req.status_bytes, [&req, sreq] {
            complete(*sreq);
            complete(req);
          })) {
        complete(*sreq);
        req.complete = true; // the caller is running: no wake-up needed
        if (req.on_complete) req.on_complete(req);
      }
      return;
    }
    if (Request *sreq = m.send_request) {
      sreq->unmatched = nullptr;
      if (!deliver(req, sreq->send_buf, m.bytes, m.envelope.source, m.envelope.tag,
                   self.pe().devptrs().kind(sreq->send_buf), sreq)) {
        self.pe().messages().put(m);
        return; // both complete when the copy has finished
      }
      complete(*sreq);
    } else {
      deliver(req, m.data, m.bytes, m.envelope.source, m.envelope.tag);
    }
    self.pe().messages().put(m);
    req.complete = true; // the caller is running: no wake-up needed
    if (req.on_complete) req.on_complete(req);
    return;
  }
  // (No message: the receive is posted now.)
}

void wait(Request &req, const char *call) {
  if (req.complete) return;
  Rank &self = *req.owner;
  if (req.kind == Kind::Recv) {
    self.blocked_context = req.pattern.context;
    self.blocked_source = req.pattern.source;
    self.blocked_tag = req.pattern.tag;
  } else {
    self.blocked_context = req.unmatched ? req.unmatched->envelope.context : 0;
    self.blocked_source = req.peer ? req.peer->world_rank : MPI_ANY_SOURCE;
    self.blocked_tag = req.unmatched ? req.unmatched->envelope.tag : MPI_ANY_TAG;
  }
  while (!req.complete)
    self.pe().block(call);
  self.blocked_source = MPI_ANY_SOURCE;
  self.blocked_tag = MPI_ANY_TAG;
}

bool cancel(Request &req) {
  if (req.complete) return false;
  if (req.kind == Kind::Recv) {
    if (!req.owner->p2p.matching.remove_posted(req)) return false;
  } else {
    Message *m = req.unmatched;
    if (!m || !req.peer->p2p.matching.remove_unexpected(*m)) return false;
    req.unmatched = nullptr;
    req.owner->pe().messages().put(*m);
  }
  req.cancelled = true;
  req.status_bytes = 0;
  complete(req);
  return true;
}

const Message *iprobe(std::uint32_t context, int source, int tag) {
  Rank &self = Pe::get().current();
  return static_cast<const Message *>(self.p2p.matching.peek_unexpected({context, source, tag}));
}

const Message &probe(std::uint32_t context, int source, int tag, const char *call) {
  Rank &self = Pe::get().current();
  for (;;) {
    if (const Message *m = iprobe(context, source, tag)) return *m;
    self.blocked_context = context;
    self.blocked_source = source;
    self.blocked_tag = tag;
    self.p2p.probing = true;
    self.pe().block(call);
    self.p2p.probing = false;
  }
}

void send(const Route &route, const void *buf, std::size_t bytes) {
  Request req;
  req.owner = &Pe::get().current();
  start_send(req, route, buf, bytes, Mode::Standard);
  wait(req, "MPI_Send");
}

void recv(std::uint32_t context, int source, int tag, void *buf, std::size_t capacity) {
  Request req;
  req.owner = &Pe::get().current();
  start_recv(req, context, source, tag, buf, capacity);
  wait(req, "MPI_Recv");
}

} // namespace ampi::p2p
