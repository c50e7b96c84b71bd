// src/p2p/p2p.hpp — point-to-point operations of the running rank on contiguous bytes, below the
// MPI layer (which checks arguments, resolves handles and datatypes, and handles MPI_PROC_NULL).
// Between ranks of one PE a message is copied once: straight into a posted receive buffer, or,
// when the receive is not posted yet, into a small eager buffer (up to the eager limit) or not at
// all (rendezvous: the receiver copies from the blocked sender's buffer once it matches).
#pragma once

#include "p2p/request.hpp"

#include <cstddef>
#include <cstdint>

namespace ampi::p2p {

struct Route {
  std::uint32_t context; // matching context of the communicator (or its collective context)
  int source;            // the sender's rank in the communicator
  int tag;
  int dest_world; // the receiver's world rank
};

// Sets `req` up as a send in progress of `bytes` at `buf` (`peer`: its destination when that rank
// runs on this PE, else nullptr), for the back-end that carries it to complete.
inline void begin_send(Request &req, const void *buf, std::size_t bytes, Rank *peer) noexcept {
  req.kind = Kind::Send;
  req.complete = false;
  req.cancelled = false;
  req.send_buf = buf;
  req.bytes = bytes;
  req.unmatched = nullptr;
  req.peer = peer;
  req.status_error = MPI_SUCCESS;
  req.status_bytes = bytes;
}

// Starts a send; `req` completes now (delivered or buffered) or when the receiver matches it.
void start_send(Request &req, const Route &route, const void *buf, std::size_t bytes, Mode mode);
// A standard send that completes at once, with no Request: host data for a rank of another PE of
// this host that the protocol table sends eagerly through the same-host ring (MPI_Send's common
// case between two processes). False, having done nothing, for every other send: start_send then.
bool send_eager_now(Rank &self, const Route &route, const void *buf, std::size_t bytes);
// Starts a receive; `req` completes now (a message was waiting) or when one arrives.
void start_recv(Request &req, std::uint32_t context, int source, int tag, void *buf,
                std::size_t capacity);
// Blocks the running rank until `req` is complete.
void wait(Request &req, const char *call);
// Withdraws an unmatched receive (or an unmatched rendezvous send); true if it was withdrawn.
bool cancel(Request &req);
// Marks `req` complete, wakes its owner and runs its completion hook.
void complete(Request &req);

// The earliest message the running rank could receive with (context, source, tag), if any.
const Message *iprobe(std::uint32_t context, int source, int tag);
// Blocks until such a message exists.
const Message &probe(std::uint32_t context, int source, int tag, const char *call);

// Blocking helpers for collectives and internal traffic.
void send(const Route &route, const void *buf, std::size_t bytes);
void recv(std::uint32_t context, int source, int tag, void *buf, std::size_t capacity);

// Sends a copy of the data from the rank's attached buffer (MPI_Bsend); MPI_ERR_BUFFER when it
// does not fit.
int start_bsend(const Route &route, const void *buf, std::size_t bytes);
// Waits until every buffered send from the attached buffer has been delivered.
void drain_bsend(const char *call);

} // namespace ampi::p2p
