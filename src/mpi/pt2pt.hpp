// src/mpi/pt2pt.hpp — what the point-to-point files of the MPI layer share (pt2pt.cpp: sends,
// receives, completion; pt2pt_persistent.cpp: persistent and generalized requests;
// pt2pt_mprobe.cpp: matched probes): argument checks, statuses, starting an operation on a
// datatype (contiguous in place, others through a packed staging copy), finishing requests.
#pragma once

#include "mpi/common.hpp"
#include "p2p/p2p.hpp"

namespace ampi::mpi::pt2pt {

struct Checked {
  comm::Comm *comm = nullptr;
  const datatype::Type *type = nullptr;
  std::size_t bytes = 0; // packed bytes of the message
  int err = MPI_SUCCESS;
};

// Checks a send or receive's arguments; `peer` is dest (send) or source (receive). On failure
// `comm` is null and `err` holds the code.
Checked check(Rank &self, const char *fn, const void *buf, int count, MPI_Datatype type, int peer,
              int tag, MPI_Comm comm, bool is_recv);

void empty_status(MPI_Status *st);
void proc_null_status(MPI_Status *st);

// The part MPI_(I)probe and MPI_(I)mprobe share, after `c` (the handle `comm`) is found: checks
// source and tag, then finds the earliest matching message, waiting for one unless `flag` is
// given (MPI_Iprobe: *flag says whether there is one). `message` is null when there is none yet,
// after MPI_PROC_NULL (`proc_null`; *flag set, the status filled) and after an error (`err`).
struct Probed {
  const p2p::Message *message = nullptr;
  bool proc_null = false;
  int err = MPI_SUCCESS;
};
Probed probe_checked(Rank &self, const char *fn, const comm::Comm &c, MPI_Comm comm, int source,
                     int tag, int *flag, MPI_Status *status);
// The status of a probed or matched message (its source, tag and packed bytes).
void message_status(const p2p::Message &m, MPI_Status *status);

// A request that completes at once (MPI_PROC_NULL peers).
MPI_Request completed_request(Rank &self, MPI_Comm comm, p2p::Kind kind);

// Starts a send or receive of `count` elements of `t` on `req`. Contiguous types go in place;
// others through a staging copy (a receive unpacks on completion). `handle` keeps a derived type
// alive while a receive is pending.
void start_typed_send(Rank &self, p2p::Request &req, const p2p::Route &route,
                      const datatype::Type &t, const void *buf, std::size_t count,
                      std::size_t bytes, p2p::Mode mode);
void start_typed_recv(Rank &self, p2p::Request &req, std::uint32_t context, int source, int tag,
                      const datatype::Type &t, MPI_Datatype handle, void *buf, std::size_t count,
                      std::size_t bytes);
// A reference that keeps `t` (the type behind `handle`) alive.
std::shared_ptr<const datatype::Type> hold_type(Rank &self, MPI_Datatype handle,
                                                const datatype::Type &t);

// A checked receive (not from MPI_PROC_NULL) on a matching context: blocking when `request` is
// null (status filled, MPI_ERR_TRUNCATE raised), else a new request.
int recv_checked(Rank &self, const char *fn, const Checked &ck, std::uint32_t context, int source,
                 int tag, void *buf, int count, MPI_Datatype type, MPI_Comm comm,
                 MPI_Status *status, MPI_Request *request);

p2p::Request *find_request(Rank &self, MPI_Request h, const char *fn, int *err);
// Whether a request is an inactive persistent one (treated like MPI_REQUEST_NULL by completion
// calls, with an empty status).
inline bool inactive(const p2p::Request &r) noexcept {
  return r.op() && !r.active;
}
// Finishes a completed request for the caller: status, error, handle freed (persistent: made
// inactive).
int finish(Rank &self, MPI_Request *handle, p2p::Request &r, MPI_Status *status, const char *fn,
           bool raise_truncation);

} // namespace ampi::mpi::pt2pt
