// src/p2p/shm.cpp — the same-host back-end for host data (AMPI_SHM=1): the port routes every
// active message to a PE of this host through the rings of src/shm, so ShmEager is an eager
// envelope with its data (one copy into the ring, one out of it into the receive buffer, no
// allocation and no UCX call), and ShmCma sends only a note: the receiver, once matched, reads the
// data straight from the sender's buffer with one process_vm_readv, then acknowledges (IpcDone,
// shared with CUDA IPC), which completes the send like a synchronous one. A receiver that cannot
// read answers IpcRefused (`cma` set); the sender then posts the data through UCX (IpcData), for
// that PE from then on when the kernel refused (e.g. ptrace restrictions), for that message only
// otherwise (a receive buffer in device memory). The send side of HostIpc is in ipc.cpp.
// From AMPI_SHM_CMA_SPLIT on, the sender offers a split ticket with its note (shm::Node's split
// copies): the receiver asks it (CmaPull) to write the second half into the receive buffer with
// process_vm_writev, reads the first half, then copies the second half too unless the sender got
// to it first. A sender waiting in MPI (osu_bw's window) thus copies alongside the receiver; one
// busy elsewhere costs the receiver nothing but the pull's record.
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
    // We can write the receiver's memory where we can read it (the same ptrace check). Offered
    // only while the sending rank has no receive posted: it then waits for its sends (osu_bw's
    // window), not for data of its own to copy in (osu_bibw, halo exchanges), where both
    // processes copy already and a split only makes one wait for the other (osu_bibw 64-256 KiB
    // with every message split: 17-31 against 23-35 GB/s; offered this way: as before).
    const std::size_t split = pe.protocols().limits().shm_cma_split;
    if (split != 0 && m.bytes >= split && port.local()->cma(dest_pe) &&
        !port.local()->same_process(dest_pe) && req.owner->p2p.matching.posted_count() == 0)
      note.split_ticket = port.local()->open_split(); // (0 when all are in use: no offer)
    port.send(dest_pe, note);
    return;
  }
  case Protocol::HostIpc:
  default:
    send_ipc(req, m, dest_pe);
    return;
  }
}

namespace {

// Reads the `n` bytes of `note` into `rreq`'s buffer; false if the kernel refused. With a split
// ticket and from the split size on, the sender is asked to write the second half, from a page
// boundary near the middle (each process then writes pages of its own: two cores writing the same
// lines of osu_bw's one receive buffer at once gained nothing at 64-256 KiB, cmapair.c), while we
// read the first. One process_vm_readv moves ~16 GB/s at best on this VM, the sender meanwhile
// idle; osu_bw 64 KiB-4 MiB, medians of 5 rounds: 1.01-1.40x Open MPI before, 1.37-2.62x split
// (bench/results/2026-11-27-s13-bw).
bool read_cma(Pe &pe, Request &rreq, const net::CmaNote &note, std::size_t n) {
  shm::Node &local = *pe.port().local();
  auto *buf = static_cast<std::byte *>(rreq.recv_buf);
  const std::size_t split = pe.protocols().limits().shm_cma_split;
  const auto at = reinterpret_cast<std::uintptr_t>(buf);
  const std::size_t head = ((at + n / 2) & ~std::uintptr_t{4095}) - at;
  if (note.split_ticket == 0 || split == 0 || n < split || head == 0 || head >= n)
    return local.read_from(note.sender_pe, buf, note.address, n);
  net::CmaPull pull{};
  pull.split_ticket = note.split_ticket;
  pull.from = note.address + head;
  pull.to = at + head;
  pull.bytes = n - head;
  pull.receiver_pe = pe.port().my_pe();
  pe.port().send(note.sender_pe, pull);
  const bool ok = local.read_from(note.sender_pe, buf, note.address, head);
  if (local.peer_takes_split(note.sender_pe, note.split_ticket)) // (past it, whatever happened)
    return ok && local.read_from(note.sender_pe, buf + head, note.address + head, n - head);
  return ok;
}

} // namespace

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
    } else if (!read_cma(pe, rreq, note, n)) {
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
      r.split_ticket = note.split_ticket;
      pe.port().send(note.sender_pe, r);
      return false;
    }
  }
  pe.port().send(note.sender_pe, net::IpcDone{note.sender_request, note.split_ticket});
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

void NetHandler::on_cma_pull(const net::CmaPull &p) {
  // The receiver of a note of ours asks us to write the tail of its data: unless it took the
  // tail already, we do, now (our send completes with its IpcDone, after both halves).
  shm::Node &local = *pe_.port().local();
  if (!local.own_split(p.split_ticket)) return;
  local.split_done(
      p.split_ticket,
      local.write_to(p.receiver_pe, p.to,
                     reinterpret_cast<const void *>(static_cast<std::uintptr_t>(p.from)), p.bytes));
}

} // namespace ampi::p2p
