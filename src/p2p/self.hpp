// src/p2p/self.hpp — the same-PE back-end: a message between two ranks of this PE is copied
// once, straight into a posted receive, or, when the receive is not posted yet, into the message
// (SelfEager) or not at all (SelfRendezvous: the receiver copies from the blocked sender's
// buffer once it matches). Buffers may be CUDA device memory: copies then go through the driver
// (one device-to-device copy when both are device memory).
// Host-to-host copies go through copy::copy (devptr_cache's copy()): glibc's memcpy fell to
// ~2 GB/s for 2-512 KiB when the receive buffer lay 1-31 bytes past the send buffer mod 4 KiB.
// Inline, unlike the other back-ends: it is the latency-critical path (start_send and start_recv
// in p2p.cpp, eager arrivals in net.cpp), and a call across files would cost it.
#pragma once

#include "core/pe.hpp"
#include "p2p/backend.hpp"

namespace ampi::p2p {

// Copies a message into matched receive `rreq` and fills in its status. `data` is host memory
// unless `src_kind` says otherwise. When the data is still in the sender's buffer (its request
// `sreq` given), a copy that involves device memory and is large enough goes on in the
// background: then it returns false, and both requests complete when the copy has finished;
// otherwise the caller completes them.
inline bool deliver(Request &rreq, const void *data, std::size_t bytes, int source, int tag,
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
    gpu::DevPtrCache &mem = rreq.owner->pe().devptrs();
    const gpu::MemKind dst_kind = mem.kind(rreq.recv_buf);
    // Several background copies at once go faster, and the PE's other ranks run meanwhile.
    // (Buffered data is copied at once: its buffer goes back right after.)
    if (sreq && (gpu::is_device(dst_kind) || gpu::is_device(src_kind)) &&
        mem.copy_in_background(n, dst_kind, src_kind)) {
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

// Sends to `dst`, a rank of this PE; asks the protocol table only when no receive is posted. Always
// inlined into start_send: as a call of its own it cost the same-PE path some 40 instructions a
// message (callgrind, bench/pingpong 8 B, --vp 2).
[[gnu::always_inline]] inline void send_self(Request &req, const Outgoing &m, Rank &dst) {
  Pe &pe = req.owner->pe();
  const matching::Envelope env{m.route.context, m.route.source, m.route.tag};

  if (matching::PostedReceive *posted = dst.p2p.matching.take_posted(env)) {
    auto &rreq = static_cast<Request &>(*posted);
    if (deliver(rreq, m.buf, m.bytes, m.route.source, m.route.tag, m.kind, &req)) {
      complete(rreq);
      complete(req);
    }
    return;
  }

  Message &msg = pe.messages().get();
  msg.envelope = env;
  msg.bytes = m.bytes;
  if (pe.protocols().choose(Locality::SamePe, m.kind, m.bytes, m.synchronous).protocol ==
      Protocol::SelfEager) {
    if (m.bytes <= Message::kInlineBytes) {
      msg.data = msg.inline_data;
    } else {
      msg.heap = std::make_unique_for_overwrite<std::byte[]>(m.bytes);
      msg.data = msg.heap.get();
    }
    if (m.bytes) pe.devptrs().copy(msg.data, gpu::MemKind::Host, m.buf, m.kind, m.bytes);
    msg.send_request = nullptr;
    dst.p2p.matching.add_unexpected(msg);
    complete(req);
  } else {
    msg.data = nullptr;
    msg.send_request = &req;
    req.unmatched = &msg;
    dst.p2p.matching.add_unexpected(msg);
  }
  if (dst.p2p.probing) pe.wake(dst);
}

} // namespace ampi::p2p
