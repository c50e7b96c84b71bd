// src/p2p/backend.hpp — the three back-ends that carry a message once the protocol table
// (protocol.hpp) has chosen: the same PE (self.hpp), the same host (shm.cpp: host data through the
// port's same-host rings and CMA; ipc.cpp: device data with CUDA IPC) and the network port
// (net.cpp). Each sends with one
// shape of signature, and each has its receive side for a message that matched a receive.
// start_send (p2p.cpp) chooses once and switches on the back-end: no virtual call on the same-PE
// path.
#pragma once

#include "net/port.hpp"
#include "p2p/p2p.hpp"
#include "p2p/protocol.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>

namespace ampi {
class Pe;
}

namespace ampi::p2p {

// One message leaving, as a back-end gets it.
struct Outgoing {
  const Route &route;
  const void *buf;
  std::size_t bytes;
  gpu::MemKind kind; // of buf
  bool synchronous;  // MPI_Ssend: completes when the receiver has matched it
};

// Same PE: send_self(req, m, dst) and deliver (the copy into a matched receive) are inline, in
// self.hpp; send_self asks the table itself, and only when no receive is posted.
// Same host (`protocol`: HostIpc, ShmEager or ShmCma) and network (NetEager, NetGpuStaged or
// NetRendezvous): `dest_pe` is the receiver's PE.
void send_host(Request &req, const Outgoing &m, Protocol protocol, int dest_pe);
void send_ipc(Request &req, const Outgoing &m, int dest_pe);
void send_net(Request &req, const Outgoing &m, Protocol protocol, int dest_pe);

// Same host, another PE of this process (SMP mode): device data of a non-contiguous datatype
// (`count` elements of `type` at `buf`) goes unpacked; the receiver copies it from the sender's
// layout straight into its own (data.hpp's copy_from_layout) and acknowledges as for CUDA IPC.
// False, with nothing sent, where that does not apply (this PE, another process, host or managed
// memory, the table would not choose CUDA IPC, device packing off).
bool send_layout(Request &req, const Route &route, void *buf, std::size_t count,
                 std::shared_ptr<const datatype::Type> type);

// Network: receives the data of a matched rendezvous message (posted under `data_id`) straight
// into the receive buffer; completes when it is there.
void receive_net_data(Request &rreq, int source, int tag, std::size_t bytes, std::uint64_t data_id);
// Same host: fetches the device data of a matched IPC message from the sender's buffer; false
// when the request completes later (a background copy, or the sender falls back to the network).
bool receive_ipc(Request &rreq, const net::IpcNote &note);
// Same host: reads the host data of a matched CMA message from the sender's memory; false when the
// request completes later (the sender falls back to the network).
bool receive_cma(Request &rreq, const net::CmaNote &note);

// A message from another PE arrived for rank `env.dest_world` of `pe`: its posted receive that
// matches (taken out of the queue), or nullptr with `*dst` set to the rank.
Request *match_arrival(Pe &pe, const net::Envelope &env, Rank *&dst);
// No receive matched: a pooled message for `env`, to fill in and hand to queue_arrival.
Message &new_arrival(Pe &pe, const net::Envelope &env);
void queue_arrival(Pe &pe, Rank &dst, Message &m);
// A same-host note (CUDA IPC, CMA) that matched no receive: queued whole, inline in a pooled
// message tagged `data_tag` (Message::kIpc or kCma); the receive that matches it acts on it then.
void queue_note(Pe &pe, Rank &dst, const net::Envelope &env, std::uint64_t data_tag,
                const void *note, std::size_t bytes);

} // namespace ampi::p2p
