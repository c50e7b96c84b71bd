// src/mpi/pt2pt.hpp — what the point-to-point files of the MPI layer share (pt2pt.cpp: sends,
// receives, completion; pt2pt_persistent.cpp: persistent and generalized requests;
// pt2pt_mprobe.cpp: matched probes): argument checks, statuses, request handles, finishing
// requests. Data (buffer, count, datatype) goes to p2p as it is (p2p/data.hpp).
#pragma once

#include "mpi/common.hpp"
#include "p2p/data.hpp"

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

// What MPI_(I)probe and MPI_(I)mprobe check, after `c` (the handle `comm`) is found: source and
// tag. MPI_PROC_NULL sets `proc_null` (and *flag when given, and the status); an error sets `err`.
// Otherwise the caller probes through p2p.
struct Probed {
  bool proc_null = false;
  int err = MPI_SUCCESS;
};
Probed probe_checked(const char *fn, const comm::Comm &c, MPI_Comm comm, int source, int tag,
                     int *flag, MPI_Status *status);
// The status of a probed or matched message (its source, tag and packed bytes).
void message_status(int source, int tag, std::size_t bytes, MPI_Status *status);

// A request that completes at once (MPI_PROC_NULL peers).
MPI_Request completed_request(Rank &self, MPI_Comm comm, p2p::Kind kind);

// A reference that keeps `t` (the type behind `handle`) alive (persistent requests).
std::shared_ptr<const datatype::Type> hold_type(Rank &self, MPI_Datatype handle,
                                                const datatype::Type &t);

// A checked receive (not from MPI_PROC_NULL) on the communicator's context, or of the message a
// matched probe keeps in `matched_slot` (>= 0): blocking when `request` is null (status filled,
// MPI_ERR_TRUNCATE raised), else a new request.
int recv_checked(Rank &self, const char *fn, const Checked &ck, int matched_slot, int source,
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
