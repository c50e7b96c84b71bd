// src/p2p/ipc.cpp — the same-host back-end: device data for another process of this host is not
// sent; the receiver, once it has matched the envelope (an IpcNote through the port), copies it
// straight from the sender's buffer with CUDA IPC (one device-to-device copy) and acknowledges
// (IpcDone), which completes the send like a synchronous one. A receiver that cannot open the
// memory answers IpcRefused; the sender then posts the data on the network (IpcData) and uses
// the network for that PE from then on. Device data of a non-contiguous datatype goes unpacked
// (send_layout): the receiver copies from the sender's layout into its own, one kernel per
// segment; between PEs of one process from the sender's request (data.hpp's copy_from_layout),
// from another process through its memory mapped with CUDA IPC, the note carrying the layout's
// rectangles (copy_rects_into_async). Jacobi3D --datatypes, 2 processes x 4 PEs over two GPUs:
// the faces between the processes were packed, copied across and unpacked (three steps, the
// first two waited for), 1.04-1.19x the time of 8 MPS processes (H200,
// bench/results/2026-11-27-s12-gpu/run1).
#include "core/pe.hpp"
#include "p2p/backend.hpp"
#include "p2p/data.hpp"
#include "p2p/device_pack.hpp"
#include "p2p/net_handler.hpp"

#include <cstdio>
#include <cstring>
#include <vector>

namespace ampi::p2p {

namespace {

void ack(Pe &pe, const net::IpcNote &note) {
  pe.port().send(note.sender_pe, net::IpcDone{note.sender_request, 0});
}

// Asks the sender of `note` to send its data through the network instead: for this message only
// (`once`: kCmaThisOnce), or for every later one to this PE too (0).
void refuse(Pe &pe, const Request &rreq, const net::IpcNote &note, std::int32_t once) {
  net::IpcRefused r{};
  r.sender_request = note.sender_request;
  r.receiver_request = reinterpret_cast<std::uintptr_t>(&rreq);
  r.receiver_pe = pe.port().my_pe();
  r.cma = once;
  pe.port().send(note.sender_pe, r);
}

// The data of a kIpcLayout note: the sender's rectangles, whose first byte is mapped here at
// `from` (pinned). The kernels copy them straight into the receive on a copy stream (false: the
// request completes then), or they are gathered into a device buffer and copied into the
// receive (true: done); where neither works, the sender sends them packed (false).
bool receive_layout(Pe &pe, Request &rreq, const net::IpcNote &note, const void *from,
                    std::size_t n) {
  if (copy_rects_into_async(from, note.rects, note.nrects, rreq, n, [&pe, &rreq, note] {
        pe.ipc().unpin(note.ref);
        ack(pe, note);
        complete(rreq);
      }))
    return false;
  gpu::DevPtrCache &mem = pe.devptrs();
  gpu::DeviceBuffer tmp = mem.device_buffer(note.env.bytes, from);
  if (tmp && mem.copy_rects(tmp.get(), const_cast<void *>(from), note.rects, note.nrects, true)) {
    mem.copy(rreq.recv_buf, mem.kind(rreq.recv_buf), tmp.get(), gpu::MemKind::Device, n);
    pe.ipc().unpin(note.ref);
    ack(pe, note);
    return true;
  }
  pe.ipc().unpin(note.ref);
  refuse(pe, rreq, note, net::kCmaThisOnce);
  return false;
}

} // namespace

std::vector<bool>::reference NetHandler::ipc_refused(int pe) {
  if (ipc_refused_.empty()) ipc_refused_.assign(static_cast<std::size_t>(pe_.port().npes()), false);
  return ipc_refused_[static_cast<std::size_t>(pe)];
}

bool NetHandler::ipc_reachable(int pe) {
  return pe_.port().same_host(pe) && !ipc_refused(pe);
}

void send_ipc(Request &req, const Outgoing &m, int dest_pe) {
  Pe &pe = req.owner->pe();
  gpu::IpcRef ref;
  if (!pe.ipc().describe(m.buf, &ref)) { // memory CUDA cannot export: over the network
    if (pe.protocols().tracing()) [[unlikely]]
      pe.protocols().trace({Backend::Net, Protocol::NetRendezvous}, m.kind, m.bytes,
                           req.owner->world_rank, m.route.dest_world);
    send_net(req, m, Protocol::NetRendezvous, dest_pe);
    return;
  }
  // What the legacy stream still writes into the buffer (a cudaMemcpy from pageable memory)
  // must be there first: within a process our copies are ordered after it, the receiver's not.
  // So not for a PE of this process (SMP mode), whose copy is ours: there the wait was also
  // wrong, as synchronizing the legacy stream waits for every blocking stream of the context,
  // i.e. for the other PEs' ranks' kernels, and for ever when one waits for MPI
  // (MPIX_Wait_enqueue): jacobi3d_cuda --enqueue with 8 PEs hung in it (H200, cuda-gdb).
  const int ppp = pe.config().pes_per_process;
  if (ppp == 1 || dest_pe / ppp != pe.port().my_pe() / ppp) pe.devptrs().sync_legacy_stream();
  net::IpcNote note{};
  note.env = {m.route.context, m.route.source, m.route.tag, m.route.dest_world, m.bytes};
  note.ref = ref;
  note.sender_request = reinterpret_cast<std::uintptr_t>(&req);
  note.sender_pe = pe.port().my_pe();
  pe.port().send(dest_pe, note);
}

namespace {

// The note for a layout sent to another process: its rectangles (at most kIpcNoteRects, within
// one allocation) from their first byte, which `note.ref` names. False where it does not apply.
bool describe_layout(Pe &pe, const void *buf, const datatype::Type &type, std::size_t count,
                     net::IpcNote &note) {
  std::vector<Rect> rects;
  if (!rects_of(type, count, rects) || rects.empty() || rects.size() > net::kIpcNoteRects)
    return false;
  const auto [lo, hi] = span_of(type, count);
  const auto *base = static_cast<const std::byte *>(buf);
  gpu::IpcRef last;
  if (!pe.ipc().describe(base + lo, &note.ref) || !pe.ipc().describe(base + hi - 1, &last) ||
      last.buffer_id != note.ref.buffer_id ||
      std::memcmp(&last.handle, &note.ref.handle, sizeof last.handle) != 0)
    return false;
  note.nrects = static_cast<std::uint32_t>(rects.size());
  for (std::size_t i = 0; i < rects.size(); ++i) {
    note.rects[i] = rects[i];
    note.rects[i].disp -= lo;
  }
  return true;
}

} // namespace

bool send_layout(Request &req, const Route &route, void *buf, std::size_t count,
                 std::shared_ptr<const datatype::Type> type) {
  Pe &pe = req.owner->pe();
  if (pe.local(route.dest_world)) return false;
  const int ppp = pe.config().pes_per_process;
  const int dest_pe = pe.pe_of(route.dest_world);
  const bool this_process = ppp > 1 && dest_pe / ppp == pe.port().my_pe() / ppp;
  gpu::DevPtrCache &mem = pe.devptrs();
  const std::size_t bytes = type->size * count;
  if (mem.kind(buf) != gpu::MemKind::Device || !mem.can_copy_rects() ||
      !pe.net_handler().ipc_reachable(dest_pe))
    return false;
  const Choice c =
      pe.protocols().choose(Locality::SameHost, gpu::MemKind::Device, bytes, /*synchronous=*/false);
  if (c.protocol != Protocol::HostIpc) return false;
  net::IpcNote note{};
  if (this_process) {
    note.flags = net::kIpcFromLayout;
  } else {
    // Another process of this host: it maps our memory and copies from our layout into its own
    // (one kernel), where it was packed here, copied across and unpacked there (three steps).
    if (!describe_layout(pe, buf, *type, count, note)) return false;
    note.flags = net::kIpcLayout;
    pe.devptrs().sync_legacy_stream(); // as for a contiguous send (send_ipc says why)
  }
  if (pe.protocols().tracing()) [[unlikely]]
    pe.protocols().trace(c, gpu::MemKind::Device, bytes, req.owner->world_rank, route.dest_world);
  begin_send(req, buf, bytes, nullptr);
  Request::Extra &x = req.ext();
  x.dtype = std::move(type);
  x.user_buf = buf;
  x.user_count = count;
  x.layout = true;
  note.env = {route.context, route.source, route.tag, route.dest_world, bytes};
  note.sender_request = reinterpret_cast<std::uintptr_t>(&req);
  note.sender_pe = pe.port().my_pe();
  pe.port().send(dest_pe, note);
  return true;
}

bool receive_ipc(Request &rreq, const net::IpcNote &note) {
  Pe &pe = rreq.owner->pe();
  const std::size_t bytes = note.env.bytes;
  const std::size_t n = bytes > rreq.capacity ? rreq.capacity : bytes;
  rreq.status_source = note.env.source;
  rreq.status_tag = note.env.tag;
  rreq.status_error = bytes > rreq.capacity ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
  rreq.status_bytes = n;
  if (note.flags == net::kIpcFromLayout) {
    // A sender of this process: its layout, in its request, is readable here (never refused).
    const auto &sreq =
        *reinterpret_cast<const Request *>(static_cast<std::uintptr_t>(note.sender_request));
    if (!copy_from_layout(rreq, sreq, n, [&pe, &rreq, note] {
          ack(pe, note);
          complete(rreq);
        }))
      return false;
    ack(pe, note);
    return true;
  }
  if (n) {
    const bool refuse_all = pe.protocols().limits().gpu_ipc_refuse;
    gpu::DevPtrCache &mem = pe.devptrs();
    // A copy that goes on in the background holds the mapping (pinned: no eviction meanwhile).
    const bool layout = note.flags == net::kIpcLayout;
    // Several at once go faster. From a rank of this process, small ones too where the copy
    // kernel takes them; not from another process: a resident kernel in our context holds up the
    // sender's work on a GPU the two share without MPS (their contexts take turns), and an 8 B
    // device ping-pong between two such processes took 344 us one way through the copy kernel
    // against 152 us through the copy engines (H100, bench/results/2026-11-27-s13-gpu/run4).
    const gpu::MemKind dst_kind = mem.kind(rreq.recv_buf);
    const bool by_kernel = gpu::IpcCache::same_process(note.ref);
    const bool async =
        layout || (by_kernel ? mem.copy_in_background(n, dst_kind, gpu::MemKind::Device)
                             : n >= mem.async_bytes());
    gpu::CUresult err = 0;
    const void *from = refuse_all ? nullptr
                       : async    ? pe.ipc().pin(note.ref, &err)
                                  : pe.ipc().resolve(note.ref, &err);
    if (!from) {
      // The sender sends the data through the network instead (and does so for this PE from now
      // on).
      if (!refuse_all && !pe.ipc_refusal_reported()) {
        std::fprintf(stderr,
                     "ampi: note: cannot open the device memory of process %d with CUDA IPC (%s); "
                     "device data from it goes through UCX\n",
                     note.ref.pid, gpu::cuda_error_string(err));
        pe.set_ipc_refusal_reported();
      }
      refuse(pe, rreq, note, 0);
      return false;
    }
    if (layout) return receive_layout(pe, rreq, note, from, n);
    if (async) {
      mem.copy_async(
          rreq.recv_buf, dst_kind, from, gpu::MemKind::Device, n,
          [&pe, &rreq, note] {
            pe.ipc().unpin(note.ref);
            ack(pe, note);
            complete(rreq);
          },
          by_kernel);
      return false;
    }
    mem.copy(rreq.recv_buf, dst_kind, from, gpu::MemKind::Device, n);
  }
  ack(pe, note);
  return true;
}

void NetHandler::on_ipc_note(const net::IpcNote &note) {
  Rank *dst;
  if (Request *rreq = match_arrival(pe_, note.env, dst)) {
    if (receive_ipc(*rreq, note)) complete(*rreq);
    return;
  }
  // Kept whole in the message: the receive that matches it later copies the data then.
  static_assert(sizeof(net::IpcNote) <= Message::kInlineBytes);
  queue_note(pe_, *dst, note.env, Message::kIpc, &note, sizeof note);
}

void NetHandler::on_ipc_done(const net::IpcDone &d) {
  if (d.split_ticket) pe_.port().local()->close_split(d.split_ticket); // the receiver is past it
  send_done(reinterpret_cast<void *>(static_cast<std::uintptr_t>(d.sender_request)), true);
}

void NetHandler::on_ipc_refused(const net::IpcRefused &r) {
  // Our send, refused: its data goes to the receive through the network, for this PE from now on
  // (a CMA message refused once, e.g. for a device buffer: this message only).
  if (r.split_ticket) pe_.port().local()->close_split(r.split_ticket);
  if (r.cma == 0)
    ipc_refused(r.receiver_pe) = true;
  else if (r.cma == net::kCmaRefused)
    cma_refused(r.receiver_pe) = true;
  auto &req = *reinterpret_cast<Request *>(static_cast<std::uintptr_t>(r.sender_request));
  net::Port &port = pe_.port();
  // A send left in its device layout (send_layout) is packed first.
  const void *data = req.extra && req.extra->layout ? pack_layout(req) : req.send_buf;
  const net::IpcData d{r.receiver_request, port.post_data(r.receiver_pe, data, req.bytes,
                                                          pe_.devptrs().kind(data), false, &req)};
  port.send(r.receiver_pe, d);
}

void NetHandler::on_ipc_data(const net::IpcData &d) {
  // Our receive, matched and refused earlier: its status is set (receive_ipc).
  auto &rreq = *reinterpret_cast<Request *>(static_cast<std::uintptr_t>(d.receiver_request));
  pe_.port().recv_data(d.data_id, rreq.recv_buf, rreq.capacity, pe_.devptrs().kind(rreq.recv_buf),
                       &rreq);
}

} // namespace ampi::p2p
