// src/p2p/net.cpp — the network back-end: a message to a rank of another PE goes through the
// port as NetEager (the data in the envelope), NetGpuStaged (small device data copied to the
// host first) or NetRendezvous (the data waits under an id until the receiver has matched the
// envelope, then moves straight into the receive buffer, device memory included). And the
// receiving side: envelopes that arrive meet the destination rank's matching queues exactly like
// a same-PE send.
#include "copy/copy.hpp"
#include "core/pe.hpp"
#include "p2p/backend.hpp"
#include "p2p/net_handler.hpp"
#include "p2p/self.hpp"

#include <cstdio>
#include <cstring>

namespace ampi::p2p {

namespace {

net::Envelope envelope_of(const Outgoing &m) noexcept {
  return {m.route.context, m.route.source, m.route.tag, m.route.dest_world, m.bytes};
}

} // namespace

void send_net(Request &req, const Outgoing &m, Protocol protocol, int dest_pe) {
  Pe &pe = req.owner->pe();
  net::Port &port = pe.port();
  switch (protocol) {
  case Protocol::NetEager:
    port.send(dest_pe, net::Eager{envelope_of(m)}, m.buf, m.bytes);
    complete(req);
    return;
  case Protocol::NetGpuStaged: {
    std::byte *staged = pe.net_handler().gpu_staging();
    pe.devptrs().copy(staged, gpu::MemKind::Host, m.buf, m.kind, m.bytes);
    port.send(dest_pe, net::Eager{envelope_of(m)}, staged, m.bytes);
    complete(req);
    return;
  }
  case Protocol::NetRendezvous:
  default: {
    // The envelope goes after the data was posted: the receiver may post its receive at once.
    net::Rendezvous r{envelope_of(m), 0};
    r.data_id = port.post_data(dest_pe, m.buf, m.bytes, m.kind, m.synchronous, &req);
    port.send(dest_pe, r);
    return;
  }
  }
}

void receive_net_data(Request &rreq, int source, int tag, std::size_t bytes,
                      std::uint64_t data_id) {
  rreq.status_source = source;
  rreq.status_tag = tag;
  rreq.status_error = bytes > rreq.capacity ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
  rreq.status_bytes = bytes > rreq.capacity ? rreq.capacity : bytes;
  Pe &pe = rreq.owner->pe();
  const gpu::MemKind kind = pe.devptrs().kind(rreq.recv_buf);
  if (bytes > rreq.capacity) {
    // Truncated: receive all of it aside in host memory, keep the start (recv_done). An error
    // path, so the allocation is acceptable.
    auto &overflow = rreq.ext().overflow;
    overflow = std::make_unique_for_overwrite<std::byte[]>(bytes);
    pe.port().recv_data(data_id, overflow.get(), bytes, gpu::MemKind::Host, &rreq);
    return;
  }
  pe.port().recv_data(data_id, rreq.recv_buf, rreq.capacity, kind, &rreq);
}

namespace {

// Out of line, so that match_arrival stays small enough to inline into on_eager.
[[noreturn, gnu::cold, gnu::noinline]] void wrong_process(int dest_world) {
  std::fprintf(stderr, "ampi: a message for rank %d reached the wrong process\n", dest_world);
  Pe::abort_job(1);
}

} // namespace

Request *match_arrival(Pe &pe, const net::Envelope &env, Rank *&dst) {
  dst = pe.local(env.dest_world);
  if (!dst) [[unlikely]]
    wrong_process(env.dest_world);
  return static_cast<Request *>(dst->p2p.matching.take_posted({env.context, env.source, env.tag}));
}

Message &new_arrival(Pe &pe, const net::Envelope &env) {
  Message &m = pe.messages().get();
  m.envelope = {env.context, env.source, env.tag};
  m.bytes = env.bytes;
  m.send_request = nullptr;
  return m;
}

void queue_arrival(Pe &pe, Rank &dst, Message &m) {
  dst.p2p.matching.add_unexpected(m);
  if (dst.p2p.probing) pe.wake(dst);
}

void queue_note(Pe &pe, Rank &dst, const net::Envelope &env, std::uint64_t data_tag,
                const void *note, std::size_t bytes) {
  Message &m = new_arrival(pe, env);
  m.data_tag = data_tag;
  m.data = m.inline_data;
  std::memcpy(m.data, note, bytes);
  queue_arrival(pe, dst, m);
}

void NetHandler::on_eager(const net::Eager &e, const std::byte *data) {
  const net::Envelope &env = e.env;
  // match_arrival, inline here: as a call it cost each 8-byte osu_latency arrival ~15
  // instructions.
  Rank *dst = pe_.local(env.dest_world);
  if (!dst) [[unlikely]]
    wrong_process(env.dest_world);
  if (auto *rreq = static_cast<Request *>(
          dst->p2p.matching.take_posted({env.context, env.source, env.tag}))) {
    deliver(*rreq, data, env.bytes, env.source, env.tag);
    complete(*rreq);
    return;
  }
  Message &m = new_arrival(pe_, env);
  m.data_tag = 0;
  if (env.bytes <= Message::kInlineBytes) {
    m.data = m.inline_data;
  } else {
    m.heap = std::make_unique_for_overwrite<std::byte[]>(env.bytes);
    m.data = m.heap.get();
  }
  copy::copy(m.data, data, env.bytes);
  queue_arrival(pe_, *dst, m);
}

void NetHandler::on_rendezvous(const net::Rendezvous &r) {
  const net::Envelope &env = r.env;
  Rank *dst;
  if (Request *rreq = match_arrival(pe_, env, dst)) {
    receive_net_data(*rreq, env.source, env.tag, env.bytes, r.data_id);
    return;
  }
  Message &m = new_arrival(pe_, env);
  m.data_tag = r.data_id;
  m.data = nullptr;
  queue_arrival(pe_, *dst, m);
}

void NetHandler::send_done(void *user, bool ok) {
  auto &req = *static_cast<Request *>(user);
  if (!ok) req.status_error = MPI_ERR_OTHER;
  complete(req);
}

void NetHandler::recv_done(void *user, std::size_t, bool truncated) {
  // The envelope told the size; receive_net_data set the status from it.
  auto &req = *static_cast<Request *>(user);
  if (req.extra && req.extra->overflow) {
    gpu::DevPtrCache &devptrs = req.owner->pe().devptrs();
    devptrs.copy(req.recv_buf, devptrs.kind(req.recv_buf), req.extra->overflow.get(),
                 gpu::MemKind::Host, req.capacity);
    req.extra->overflow.reset();
  } else if (truncated) {
    req.status_error = MPI_ERR_TRUNCATE;
    req.status_bytes = req.capacity;
  }
  complete(req);
}

} // namespace ampi::p2p
