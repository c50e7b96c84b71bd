// src/p2p/shm.cpp — the same-host back-end for host data (AMPI_SHM=1): the port routes every
// active message to a PE of this host through the rings of src/shm, so ShmEager is an eager
// envelope with its data (one copy into the ring, one out of it into the receive buffer, no
// allocation and no UCX call), and ShmCma sends only a note: the receiver, once matched, reads the
// data straight from the sender's buffer with one process_vm_readv, then acknowledges (IpcDone,
// shared with CUDA IPC), which completes the send like a synchronous one. A receiver that cannot
// read answers IpcRefused (`cma` set); the sender then posts the data through UCX (IpcData), for
// that PE from then on when the kernel refused (e.g. ptrace restrictions), for that message only
// otherwise (a receive buffer in device memory). The send side of HostIpc is in ipc.cpp.
#include "copy/copy.hpp"
#include "core/pe.hpp"
#include "p2p/backend.hpp"
#include "p2p/net_handler.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace ampi::p2p {

std::vector<bool>::reference NetHandler::cma_refused(int pe) {
  if (cma_refused_.empty()) cma_refused_.assign(static_cast<std::size_t>(pe_.port().npes()), false);
  return cma_refused_[static_cast<std::size_t>(pe)];
}

bool NetHandler::cma_reachable(int pe) {
  const shm::Node *local = pe_.port().local();
  return local && local->reaches(pe) && (local->cma(pe) || local->same_process(pe)) &&
         !cma_refused(pe);
}

void send_host(Request &req, const Outgoing &m, Protocol protocol, int dest_pe) {
  Pe &pe = req.owner->pe();
  net::Port &port = pe.port();
  const net::Envelope env{m.route.context, m.route.source, m.route.tag, m.route.dest_world,
                          m.bytes};
  switch (protocol) {
  case Protocol::ShmEager:
    port.send(dest_pe, net::Eager{env}, m.buf, m.bytes); // into the ring: the buffer is free
    complete(req);
    return;
  case Protocol::ShmCma: {
    if (!pe.net_handler().cma_reachable(dest_pe)) { // CMA does not work here: UCX rendezvous
      if (pe.protocols().tracing()) [[unlikely]]
        pe.protocols().trace({Backend::Net, Protocol::NetRendezvous}, m.kind, m.bytes,
                             req.owner->world_rank, m.route.dest_world);
      send_net(req, m, Protocol::NetRendezvous, dest_pe);
      return;
    }
    net::CmaNote note{};
    note.env = env;
    note.address = reinterpret_cast<std::uintptr_t>(m.buf);
    note.sender_request = reinterpret_cast<std::uintptr_t>(&req);
    note.sender_pe = port.my_pe();
    port.send(dest_pe, note);
    return;
  }
  case Protocol::HostIpc:
  default:
    send_ipc(req, m, dest_pe);
    return;
  }
}

bool receive_cma(Request &rreq, const net::CmaNote &note) {
  Pe &pe = rreq.owner->pe();
  const std::size_t bytes = note.env.bytes;
  const std::size_t n = bytes > rreq.capacity ? rreq.capacity : bytes;
  rreq.status_source = note.env.source;
  rreq.status_tag = note.env.tag;
  rreq.status_error = bytes > rreq.capacity ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
  rreq.status_bytes = n;
  if (n) {
    std::int32_t refused = 0;
    if (pe.protocols().limits().shm_cma_refuse) {
      refused = net::kCmaRefused;
    } else if (pe.devptrs().kind(rreq.recv_buf) != gpu::MemKind::Host) {
      refused = net::kCmaThisOnce; // the kernel copies into host memory only
    } else if (pe.port().local()->same_process(note.sender_pe)) {
      // SMP mode: a PE of this process; its buffer is in our address space (one copy, no
      // system call; the sender's request stays open until our IpcDone, as with CMA).
      copy::copy(rreq.recv_buf,
                 reinterpret_cast<const void *>(static_cast<std::uintptr_t>(note.address)), n);
    } else if (!pe.port().local()->read_from(note.sender_pe, rreq.recv_buf, note.address, n)) {
      refused = net::kCmaRefused;
      if (!pe.cma_refusal_reported()) {
        std::fprintf(stderr,
                     "ampi: note: cannot read the memory of PE %d with process_vm_readv (%s); "
                     "large host messages from it go through UCX\n",
                     note.sender_pe, std::strerror(errno));
        pe.set_cma_refusal_reported();
      }
    }
    if (refused) {
      net::IpcRefused r{};
      r.sender_request = note.sender_request;
      r.receiver_request = reinterpret_cast<std::uintptr_t>(&rreq);
      r.receiver_pe = pe.port().my_pe();
      r.cma = refused;
      pe.port().send(note.sender_pe, r);
      return false;
    }
  }
  pe.port().send(note.sender_pe, net::IpcDone{note.sender_request});
  return true;
}

void NetHandler::on_cma_note(const net::CmaNote &note) {
  Rank *dst;
  if (Request *rreq = match_arrival(pe_, note.env, dst)) {
    if (receive_cma(*rreq, note)) complete(*rreq);
    return;
  }
  // Kept whole in the message: the receive that matches it later reads the data then.
  static_assert(sizeof(net::CmaNote) <= Message::kInlineBytes);
  queue_note(pe_, *dst, note.env, Message::kCma, &note, sizeof note);
}

} // namespace ampi::p2p
