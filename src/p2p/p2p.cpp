// src/p2p/p2p.cpp — same-PE delivery: sends meet posted receives or wait as unexpected messages,
// receives meet unexpected messages or wait as posted receives (see p2p.hpp). Buffers may be CUDA
// device memory (the PE's DevPtrCache tells): same-PE copies then go through the driver (one
// device-to-device copy when both are device memory), and messages to other PEs hand the device
// buffer to UCX with its memory type, after the envelope has matched on the receiving PE.
#include "p2p/p2p.hpp"

#include "p2p/remote.hpp"
#include "core/pe.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace ampi::p2p {

namespace {

// Copies a message into a matched receive and fills in its status. `data` is host memory unless
// `src_kind` says otherwise. When the data is still in the sender's buffer (its request `sreq`
// given), a copy that involves device memory and is large enough goes on in the background
// (several at once go faster, and the PE's other ranks run meanwhile): then it returns false, and
// the receive and `sreq` complete when the copy has finished; otherwise the caller completes
// them. (Buffered data, eager messages, is copied at once: its buffer goes back right after.)
bool deliver(Request &rreq, const void *data, std::size_t bytes, int source, int tag,
             gpu::MemKind src_kind = gpu::MemKind::Host, Request *sreq = nullptr) {
  std::size_t n = bytes;
  rreq.status_error = MPI_SUCCESS;
  if (bytes > rreq.capacity) {
    n = rreq.capacity;
    rreq.status_error = MPI_ERR_TRUNCATE;
  }
  rreq.status_source = source;
  rreq.status_tag = tag;
  rreq.status_bytes = n;
  if (n) {
    gpu::DevPtrCache &mem = rreq.owner->pe.devptrs();
    const gpu::MemKind dst_kind = mem.kind(rreq.recv_buf);
    if (sreq && (gpu::is_device(dst_kind) || gpu::is_device(src_kind)) && n >= mem.async_bytes()) {
      mem.copy_async(rreq.recv_buf, dst_kind, data, src_kind, n, [&rreq, sreq] {
        complete(rreq);
        complete(*sreq);
      });
      return false;
    }
    mem.copy(rreq.recv_buf, dst_kind, data, src_kind, n);
  }
  return true;
}

// Receives the rendezvous data of a matched remote message straight into the receive buffer.
void receive_remote_data(Request &rreq, int source, int tag, std::size_t bytes,
                         std::uint64_t data_tag) {
  rreq.status_source = source;
  rreq.status_tag = tag;
  rreq.status_error = bytes > rreq.capacity ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
  rreq.status_bytes = bytes > rreq.capacity ? rreq.capacity : bytes;
  Pe &pe = rreq.owner->pe;
  pe.transport()->recv_data(data_tag, rreq.recv_buf, rreq.capacity, &rreq,
                            pe.devptrs().kind(rreq.recv_buf));
}

// Fetches the device data of a matched IPC message (same host) straight from the sender's
// buffer, then tells the sender its buffer is free. Returns false when the copy goes on in the
// background: the request completes when it has finished.
bool receive_ipc(Request &rreq, int source, int tag, std::size_t bytes, const ucx::IpcNote &note) {
  Pe &pe = rreq.owner->pe;
  const std::size_t n = bytes > rreq.capacity ? rreq.capacity : bytes;
  rreq.status_source = source;
  rreq.status_tag = tag;
  rreq.status_error = bytes > rreq.capacity ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
  rreq.status_bytes = n;
  if (n) {
    ucx::Transport &tx = *pe.transport();
    gpu::DevPtrCache &mem = pe.devptrs();
    // A copy that goes on in the background holds the mapping (pinned: no eviction meanwhile).
    const bool async = n >= mem.async_bytes(); // several at once go faster
    gpu::CUresult err = 0;
    const void *from = tx.refuse_all_ipc() ? nullptr
                       : async             ? pe.ipc().pin(note.ref, &err)
                                           : pe.ipc().resolve(note.ref, &err);
    if (!from) {
      // The sender sends the data through UCX instead (and does so for this PE from now on).
      if (!tx.refuse_all_ipc() && !pe.ipc_refusal_reported()) {
        std::fprintf(stderr,
                     "ampi: note: cannot open the device memory of process %d with CUDA IPC (%s); "
                     "device data from it goes through UCX\n",
                     note.ref.pid, gpu::cuda_error_string(err));
        pe.set_ipc_refusal_reported();
      }
      tx.refuse_ipc(note.pe, note.user, &rreq);
      return false;
    }
    if (async) {
      mem.copy_async(rreq.recv_buf, mem.kind(rreq.recv_buf), from, gpu::MemKind::Device, n,
                     [&pe, &rreq, note] {
                       pe.ipc().unpin(note.ref);
                       pe.transport()->ack_ipc(note.pe, note.user);
                       complete(rreq);
                     });
      return false;
    }
    mem.copy(rreq.recv_buf, mem.kind(rreq.recv_buf), from, gpu::MemKind::Device, n);
  }
  pe.transport()->ack_ipc(note.pe, note.user);
  return true;
}

// A message to a rank on another PE: eager (copied into the envelope) or rendezvous (the data
// waits in UCX under its own tag until the receiver has matched the envelope).
void send_remote(Request &req, const Route &route, const void *buf, std::size_t bytes, Mode mode) {
  Pe &pe = req.owner->pe;
  ucx::Transport &tx = *pe.transport();
  const ucx::Header h{route.context, route.source, route.tag, route.dest_world, bytes, 0};
  const int dest_pe = pe.pe_of(route.dest_world);
  const gpu::MemKind kind = pe.devptrs().kind(buf);
  if (gpu::is_device(kind)) {
    // Small device messages: copied to the host and sent in the envelope, when measurement says
    // that beats a UCX transfer of device memory (AMPI_GPU_EAGER_LIMIT, transport.hpp).
    if (mode != Mode::Synchronous && bytes <= tx.gpu_eager_limit()) {
      std::byte *staged = tx.gpu_staging();
      pe.devptrs().copy(staged, gpu::MemKind::Host, buf, kind, bytes);
      tx.send_eager(dest_pe, h, staged, bytes);
      complete(req);
    } else if (gpu::IpcRef ref; kind == gpu::MemKind::Device && tx.ipc_reachable(dest_pe) &&
                                pe.ipc().describe(buf, &ref)) {
      // Same host: the receiver copies from our buffer itself once it has matched (one
      // device-to-device copy; completes when it acknowledges, like a synchronous send). What
      // the legacy stream still writes into the buffer (a cudaMemcpy from pageable memory) must
      // be there first: within a process our copies are ordered after it, the receiver's not.
      pe.devptrs().sync_legacy_stream();
      tx.send_ipc(dest_pe, h, ref, &req);
    } else {
      tx.send_rendezvous(dest_pe, h, buf, bytes, mode == Mode::Synchronous, &req, kind);
    }
  } else if (mode != Mode::Synchronous && bytes <= tx.eager_limit()) {
    tx.send_eager(dest_pe, h, buf, bytes);
    complete(req);
  } else {
    tx.send_rendezvous(dest_pe, h, buf, bytes, mode == Mode::Synchronous, &req);
  }
}

} // namespace

void complete(Request &req) {
  req.complete = true;
  if (req.on_complete) req.on_complete(req);
  if (req.freed && !req.persistent) {
    req.owner->p2p.requests.release(req);
    return;
  }
  req.owner->pe.wake(*req.owner);
}

void start_send(Request &req, const Route &route, const void *buf, std::size_t bytes, Mode mode) {
  Pe &pe = req.owner->pe;
  req.kind = Kind::Send;
  req.complete = false;
  req.cancelled = false;
  req.send_buf = buf;
  req.bytes = bytes;
  req.unmatched = nullptr;
  req.status_error = MPI_SUCCESS;
  req.status_bytes = bytes;
  Rank *dst = pe.local(route.dest_world);
  req.peer = dst;
  if (!dst) {
    send_remote(req, route, buf, bytes, mode);
    return;
  }
  const matching::Envelope env{route.context, route.source, route.tag};

  if (matching::PostedReceive *posted = dst->p2p.matching.take_posted(env)) {
    auto &rreq = static_cast<Request &>(*posted);
    if (deliver(rreq, buf, bytes, route.source, route.tag, pe.devptrs().kind(buf), &req)) {
      complete(rreq);
      complete(req);
    }
    return;
  }

  Message &m = pe.messages().get();
  m.envelope = env;
  m.bytes = bytes;
  // Buffered (eager) unless synchronous, large, or device data worth a copy of its own (buffering
  // it would take two copies through the host; the receive copies it directly instead).
  const bool device_direct =
      bytes >= pe.devptrs().async_bytes() && gpu::is_device(pe.devptrs().kind(buf));
  if (mode != Mode::Synchronous && bytes <= pe.config().eager_limit && !device_direct) {
    if (bytes <= Message::kInlineBytes) {
      m.data = m.inline_data;
    } else {
      m.heap = std::make_unique_for_overwrite<std::byte[]>(bytes);
      m.data = m.heap.get();
    }
    if (bytes) pe.devptrs().copy(m.data, gpu::MemKind::Host, buf, pe.devptrs().kind(buf), bytes);
    m.send_request = nullptr;
    dst->p2p.matching.add_unexpected(m);
    complete(req);
  } else {
    m.data = nullptr;
    m.send_request = &req;
    req.unmatched = &m;
    dst->p2p.matching.add_unexpected(m);
  }
  if (dst->p2p.probing) pe.wake(*dst);
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

  if (matching::UnexpectedMessage *um = self.p2p.matching.take_unexpected(req.pattern)) {
    auto &m = static_cast<Message &>(*um);
    if (ucx::Transport::is_ipc(m.data_tag)) { // device data on this host: copied here and now
      ucx::IpcNote note;
      std::memcpy(&note, m.data, sizeof note);
      const bool done = receive_ipc(req, m.envelope.source, m.envelope.tag, m.bytes, note);
      self.pe.messages().put(m);
      if (done) {
        req.complete = true; // the caller is running: no wake-up needed
        if (req.on_complete) req.on_complete(req);
      }
      return;
    }
    if (m.data_tag) { // rendezvous from another PE: completes when the data is in
      receive_remote_data(req, m.envelope.source, m.envelope.tag, m.bytes, m.data_tag);
      self.pe.messages().put(m);
      return;
    }
    if (Request *sreq = m.send_request) {
      sreq->unmatched = nullptr;
      if (!deliver(req, sreq->send_buf, m.bytes, m.envelope.source, m.envelope.tag,
                   self.pe.devptrs().kind(sreq->send_buf), sreq)) {
        self.pe.messages().put(m);
        return; // both complete when the copy has finished
      }
      complete(*sreq);
    } else {
      deliver(req, m.data, m.bytes, m.envelope.source, m.envelope.tag);
    }
    self.pe.messages().put(m);
    req.complete = true; // the caller is running: no wake-up needed
    if (req.on_complete) req.on_complete(req);
    return;
  }
  self.p2p.matching.add_posted(req);
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
    self.pe.block(call);
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
    req.owner->pe.messages().put(*m);
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
    self.pe.block(call);
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

namespace ampi::p2p {

void RemoteSink::envelope_arrived(const ucx::Header &h, const std::byte *eager_data) {
  if (h.dest_world == ucx::Transport::kControl) {
    pe_.control(h);
    return;
  }
  Rank *dst = pe_.local(h.dest_world);
  if (!dst) {
    std::fprintf(stderr, "ampi: a message for rank %d reached the wrong process\n", h.dest_world);
    Pe::abort_job(1);
  }
  const matching::Envelope env{h.context, h.source, h.tag};
  if (matching::PostedReceive *posted = dst->p2p.matching.take_posted(env)) {
    auto &rreq = static_cast<Request &>(*posted);
    if (ucx::Transport::is_ipc(h.data_tag)) {
      ucx::IpcNote note;
      std::memcpy(&note, eager_data, sizeof note);
      if (receive_ipc(rreq, h.source, h.tag, h.bytes, note)) complete(rreq);
    } else if (h.data_tag) {
      receive_remote_data(rreq, h.source, h.tag, h.bytes, h.data_tag);
    } else {
      deliver(rreq, eager_data, h.bytes, h.source, h.tag);
      complete(rreq);
    }
    return;
  }
  Message &m = pe_.messages().get();
  m.envelope = env;
  m.bytes = h.bytes;
  m.send_request = nullptr;
  m.data_tag = h.data_tag;
  if (ucx::Transport::is_ipc(h.data_tag)) {
    static_assert(sizeof(ucx::IpcNote) <= Message::kInlineBytes);
    m.data = m.inline_data;
    std::memcpy(m.data, eager_data, sizeof(ucx::IpcNote));
  } else if (!h.data_tag) {
    if (h.bytes <= Message::kInlineBytes) {
      m.data = m.inline_data;
    } else {
      m.heap = std::make_unique_for_overwrite<std::byte[]>(h.bytes);
      m.data = m.heap.get();
    }
    if (h.bytes) std::memcpy(m.data, eager_data, h.bytes);
  }
  dst->p2p.matching.add_unexpected(m);
  if (dst->p2p.probing) pe_.wake(*dst);
}

void RemoteSink::send_done(void *user, bool ok) {
  auto &req = *static_cast<Request *>(user);
  if (!ok) req.status_error = MPI_ERR_OTHER;
  complete(req);
}

void RemoteSink::ipc_refused(void *user, int pe, std::uint64_t peer_request) {
  auto &req = *static_cast<Request *>(user);
  pe_.transport()->send_data(pe, peer_request, req.send_buf, req.bytes, &req,
                             pe_.devptrs().kind(req.send_buf));
}

void RemoteSink::ipc_data(void *user, std::uint64_t data_tag) {
  // Our receive, matched and refused earlier: its status is set (receive_ipc).
  auto &rreq = *static_cast<Request *>(user);
  pe_.transport()->recv_data(data_tag, rreq.recv_buf, rreq.capacity, &rreq,
                             pe_.devptrs().kind(rreq.recv_buf));
}

void RemoteSink::recv_done(void *user, std::size_t, bool truncated) {
  // The envelope told the size; receive_remote_data set the status from it.
  auto &req = *static_cast<Request *>(user);
  if (truncated) {
    req.status_error = MPI_ERR_TRUNCATE;
    req.status_bytes = req.capacity;
  }
  complete(req);
}

} // namespace ampi::p2p
