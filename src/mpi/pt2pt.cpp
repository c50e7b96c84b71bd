// src/mpi/pt2pt.cpp — the MPI point-to-point functions: argument checks, handles, statuses and
// MPI_PROC_NULL, over src/p2p (which sends and receives (buffer, count, datatype), probes, and
// waits for and tests requests). Persistent and generalized requests: pt2pt_persistent.cpp;
// matched probes: pt2pt_mprobe.cpp.
#include "mpi/pt2pt.hpp"
#include "p2p/completion.hpp"
#include "p2p/mprobe.hpp"

#include <cstring>
#include <memory>
#include <vector>

using namespace ampi;
using namespace ampi::mpi;
using namespace ampi::mpi::pt2pt;

namespace ampi::mpi::pt2pt {

Checked check(Rank &self, const char *fn, const void *buf, int count, MPI_Datatype type, int peer,
              int tag, MPI_Comm comm, bool is_recv) {
  Checked r;
  r.comm = find_comm(self, comm, fn, &r.err);
  if (!r.comm) [[unlikely]]
    return r;
  comm::Comm &c = *r.comm;
  if (count < 0) [[unlikely]] {
    r.err = raise(comm, MPI_ERR_COUNT, fn, "count=%d is negative", count);
    r.comm = nullptr;
    return r;
  }
  // MPI_DATATYPE_NULL names no type, but an empty message to or from MPI_PROC_NULL never looks at
  // its type: MPICH accepts that call (Open MPI 4.1 raises MPI_ERR_TYPE), and programs written
  // against MPICH post it, so it is taken as zero bytes.
  const datatype::Type *t = type == MPI_DATATYPE_NULL && count == 0 && peer == MPI_PROC_NULL
                                ? datatype::predefined(MPI_BYTE)
                                : find_type(self, type, comm, fn, &r.err);
  if (!t) [[unlikely]] {
    r.comm = nullptr;
    return r;
  }
  const bool tag_ok = (tag >= 0 && tag <= kTagUb) || (is_recv && tag == MPI_ANY_TAG);
  if (!tag_ok) [[unlikely]] {
    r.err = raise(comm, MPI_ERR_TAG, fn, "tag=%d is not in [0, %d]%s", tag, kTagUb,
                  is_recv ? " or MPI_ANY_TAG" : "");
    r.comm = nullptr;
    return r;
  }
  const bool peer_ok = (peer >= 0 && peer < c.peer_size()) || peer == MPI_PROC_NULL ||
                       (is_recv && peer == MPI_ANY_SOURCE);
  if (!peer_ok) [[unlikely]] {
    r.err = raise(comm, MPI_ERR_RANK, fn, "%s=%d is not a rank of %s (size %d)",
                  is_recv ? "source" : "dest", peer, comm_label(c), c.peer_size());
    r.comm = nullptr;
    return r;
  }
  // (A derived type may address absolute locations from MPI_BOTTOM.)
  if (!buf && count > 0 && peer != MPI_PROC_NULL && t->size && datatype::predefined(type))
      [[unlikely]] {
    r.err = raise(comm, MPI_ERR_BUFFER, fn, "buf=NULL with count=%d", count);
    r.comm = nullptr;
    return r;
  }
  r.type = t;
  r.bytes = static_cast<std::size_t>(count) * t->size;
  return r;
}

// The status helpers leave MPI_ERROR alone: MPI-4.1 3.2.5 sets it only in the multiple-completion
// calls that return MPI_ERR_IN_STATUS (finish_all, some_common), and a program may keep its own
// value there across MPI_Wait or MPI_Recv. The one exception is the empty status (of a null or
// inactive request), which 3.7.3 defines field by field, MPI_ERROR = MPI_SUCCESS included.
void empty_status(MPI_Status *st) {
  if (st == MPI_STATUS_IGNORE) return;
  st->MPI_SOURCE = MPI_ANY_SOURCE;
  st->MPI_TAG = MPI_ANY_TAG;
  st->MPI_ERROR = MPI_SUCCESS;
  st->ampi_cancelled = 0;
  st->ampi_count = 0;
}

Probed probe_checked(const char *fn, const comm::Comm &c, MPI_Comm comm, int source, int tag,
                     int *flag, MPI_Status *status) {
  Probed r;
  if (!(source == MPI_ANY_SOURCE || source == MPI_PROC_NULL ||
        (source >= 0 && source < c.peer_size()))) {
    r.err = raise(comm, MPI_ERR_RANK, fn, "source=%d is not a rank of %s (size %d)", source,
                  comm_label(c), c.peer_size());
    return r;
  }
  if (!(tag == MPI_ANY_TAG || (tag >= 0 && tag <= kTagUb))) {
    r.err = raise(comm, MPI_ERR_TAG, fn, "tag=%d is not in [0, %d] or MPI_ANY_TAG", tag, kTagUb);
    return r;
  }
  if (source == MPI_PROC_NULL) {
    if (flag) *flag = 1;
    proc_null_status(status);
    r.proc_null = true;
  }
  return r;
}

void message_status(int source, int tag, std::size_t bytes, MPI_Status *status) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = source;
  status->MPI_TAG = tag;
  status->ampi_cancelled = 0;
  status->ampi_count = static_cast<MPI_Count>(bytes);
}

void proc_null_status(MPI_Status *st) {
  if (st == MPI_STATUS_IGNORE) return;
  st->MPI_SOURCE = MPI_PROC_NULL;
  st->MPI_TAG = MPI_ANY_TAG;
  st->ampi_cancelled = 0;
  st->ampi_count = 0;
}

} // namespace ampi::mpi::pt2pt

namespace {

void fill_status(MPI_Status *st, const p2p::Request &r) {
  if (st == MPI_STATUS_IGNORE) return;
  if (r.kind == p2p::Kind::Send) {
    // A send's status says only whether it was cancelled.
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->ampi_count = 0;
  } else {
    st->MPI_SOURCE = r.status_source;
    st->MPI_TAG = r.status_tag;
    st->ampi_count = static_cast<MPI_Count>(r.status_bytes);
  }
  st->ampi_cancelled = r.cancelled;
}

struct Truncation {
  int source, tag;
  std::size_t capacity, bytes;
};

int truncation(const Truncation &t, MPI_Comm comm, const char *fn) {
  return raise(comm, MPI_ERR_TRUNCATE, fn,
               "a message from rank %d (tag %d) is larger than the receive buffer (%zu bytes); "
               "only %zu bytes were written",
               t.source, t.tag, t.capacity, t.bytes);
}
int truncation(const p2p::Request &r, MPI_Comm comm, const char *fn) {
  return truncation(Truncation{r.status_source, r.status_tag, r.capacity, r.status_bytes}, comm,
                    fn);
}

} // namespace

namespace ampi::mpi::pt2pt {

std::shared_ptr<const datatype::Type> hold_type(Rank &self, MPI_Datatype handle,
                                                const datatype::Type &t) {
  if (std::shared_ptr<datatype::Derived> d = self.datatype.types.share(handle))
    return std::shared_ptr<const datatype::Type>(d, &d->type);
  return std::shared_ptr<const datatype::Type>(std::shared_ptr<void>(), &t); // predefined: static
}

MPI_Request completed_request(Rank &self, MPI_Comm comm, p2p::Kind kind) {
  p2p::Request &r = self.p2p.requests.create(self);
  r.kind = kind;
  r.complete = true;
  r.comm = comm;
  r.status_source = MPI_PROC_NULL;
  r.status_tag = MPI_ANY_TAG;
  return r.handle;
}

p2p::Request *find_request(Rank &self, MPI_Request h, const char *fn, int *err) {
  p2p::Request *r = self.p2p.requests.find(h);
  if (!r) [[unlikely]]
    *err = raise(MPI_COMM_WORLD, MPI_ERR_REQUEST, fn, "request 0x%x is not a valid request",
                 static_cast<unsigned>(h));
  return r;
}

namespace {

// finish() of a generalized request: the user's query function makes the status; the free
// function ends the request.
[[gnu::cold]] int finish_generalized(Rank &self, MPI_Request *handle, p2p::Request &r,
                                     MPI_Status *status, const char *fn) {
  MPI_Status st{};
  st.MPI_SOURCE = MPI_ANY_SOURCE;
  st.MPI_TAG = MPI_ANY_TAG;
  const p2p::Generalized g = *r.ext().grequest;
  int e = g.query(g.extra_state, &st);
  if (status != MPI_STATUS_IGNORE) {
    st.MPI_ERROR = status->MPI_ERROR;
    *status = st;
  }
  const int fe = g.free(g.extra_state);
  if (e == MPI_SUCCESS) e = fe;
  self.p2p.requests.release(r);
  *handle = MPI_REQUEST_NULL;
  return e == MPI_SUCCESS ? e : raise(MPI_COMM_WORLD, e, fn, "a generalized request failed");
}

// finish(), inline into MPI_Waitall's loop over its requests.
[[gnu::always_inline]] inline int finish_inline(Rank &self, MPI_Request *handle, p2p::Request &r,
                                                MPI_Status *status, const char *fn,
                                                bool raise_truncation) {
  if (r.kind == p2p::Kind::Generalized) [[unlikely]]
    return finish_generalized(self, handle, r, status, fn);
  const int e = r.status_error;
  fill_status(status, r);
  const MPI_Comm comm = r.comm;
  const Truncation t{r.status_source, r.status_tag, r.capacity, r.status_bytes};
  if (r.op()) [[unlikely]] {
    r.active = false; // persistent: stays allocated, inactive
  } else {
    self.p2p.requests.release(r);
    *handle = MPI_REQUEST_NULL;
  }
  if (e != MPI_SUCCESS && raise_truncation) [[unlikely]]
    return truncation(t, comm, fn);
  return e;
}

} // namespace

int finish(Rank &self, MPI_Request *handle, p2p::Request &r, MPI_Status *status, const char *fn,
           bool raise_truncation) {
  return finish_inline(self, handle, r, status, fn, raise_truncation);
}

} // namespace ampi::mpi::pt2pt

namespace {

// check() for the common call, inline: a live communicator, a predefined type, count >= 0, a tag
// and peer in range, a buffer where data goes. Anything else (an error, a derived type, the
// MPI_DATATYPE_NULL case) goes through check() itself, which tests everything again in its
// order and raises the first error, so errors are reported exactly as before. The call and the
// returned struct cost the 8-byte sends and receives of osu_bw some 30 instructions each.
[[gnu::always_inline]] inline Checked check_common(Rank &self, const char *fn, const void *buf,
                                                   int count, MPI_Datatype type, int peer, int tag,
                                                   MPI_Comm comm, bool is_recv) {
  comm::Comm *c = self.comm.comms.find(comm);
  const datatype::Type *t = datatype::predefined(type);
  if (c && t && count >= 0) [[likely]] {
    const bool tag_ok = static_cast<unsigned>(tag) <= static_cast<unsigned>(kTagUb) ||
                        (is_recv && tag == MPI_ANY_TAG);
    const bool peer_ok = static_cast<unsigned>(peer) < static_cast<unsigned>(c->peer_size()) ||
                         peer == MPI_PROC_NULL || (is_recv && peer == MPI_ANY_SOURCE);
    if (tag_ok && peer_ok && (buf || count == 0 || peer == MPI_PROC_NULL || !t->size)) [[likely]] {
      Checked r;
      r.comm = c;
      r.type = t;
      r.bytes = static_cast<std::size_t>(count) * t->size;
      return r;
    }
  }
  return check(self, fn, buf, count, type, peer, tag, comm, is_recv);
}

// Inline into MPI_Send and MPI_Isend (the calls that move small messages at a rate), a call
// elsewhere (send_common): as a call of its own it cost osu_bw's 8-byte sends ~20 instructions
// each (its nine arguments, half of them through the stack).
[[gnu::always_inline]] inline int send_inline(const char *fn, const void *buf, int count,
                                              MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                                              p2p::Mode mode, MPI_Request *request) {
  auto self = enter(fn);
  Checked ck = check_common(*self, fn, buf, count, type, dest, tag, comm, false);
  if (!ck.comm) [[unlikely]]
    return ck.err;
  if (dest == MPI_PROC_NULL) {
    if (request) *request = completed_request(*self, comm, p2p::Kind::Send);
    return MPI_SUCCESS;
  }
  const p2p::Route route{ck.comm->context, ck.comm->rank, tag, ck.comm->peer_world(dest)};
  const p2p::Data data(buf, static_cast<std::size_t>(count), *ck.type);
  if (mode == p2p::Mode::Buffered) {
    if (int e = p2p::start_bsend(route, data); e != MPI_SUCCESS)
      return raise(comm, e, fn,
                   "the attached buffer (%zu bytes, %zu in use) has no room for %zu bytes plus "
                   "MPI_BSEND_OVERHEAD",
                   self->p2p.bsend.size, self->p2p.bsend.used.size(), ck.bytes);
    if (request) *request = completed_request(*self, comm, p2p::Kind::Send);
    return MPI_SUCCESS;
  }
  if (!request) {
    // MPI_Send of host data to another process of this host: into the ring, done, without the
    // Request that start_send and wait() set up, complete and tear down.
    if (mode == p2p::Mode::Standard && data.contiguous() &&
        p2p::send_eager_now(*self, route, data.start(), ck.bytes)) [[likely]]
      return MPI_SUCCESS;
    p2p::Request req;
    req.owner = self;
    p2p::start_send(req, route, data, mode);
    p2p::wait(req, fn);
    return MPI_SUCCESS;
  }
  p2p::Request &req = self->p2p.requests.create(*self);
  req.comm = comm;
  p2p::start_send(req, route, data, mode);
  *request = req.handle;
  return MPI_SUCCESS;
}

int send_common(const char *fn, const void *buf, int count, MPI_Datatype type, int dest, int tag,
                MPI_Comm comm, p2p::Mode mode, MPI_Request *request) {
  return send_inline(fn, buf, count, type, dest, tag, comm, mode, request);
}

} // namespace

namespace {
// Starts a receive on the communicator's context, or of the message in a matched probe's slot.
[[gnu::always_inline]] inline void start_recv(p2p::Request &req, const Checked &ck,
                                              int matched_slot, int source, int tag,
                                              const p2p::Data &data) {
  if (matched_slot >= 0) [[unlikely]]
    p2p::start_mrecv(req, static_cast<unsigned>(matched_slot), data);
  else
    p2p::start_recv(req, ck.comm->context, source, tag, data);
}

[[gnu::always_inline]] inline int recv_checked_inline(Rank &self, const char *fn, const Checked &ck,
                                                      int matched_slot, int source, int tag,
                                                      void *buf, int count, MPI_Datatype type,
                                                      MPI_Comm comm, MPI_Status *status,
                                                      MPI_Request *request) {
  const p2p::Data data(buf, static_cast<std::size_t>(count), *ck.type, type);
  if (!request) {
    p2p::Request req;
    req.owner = &self;
    start_recv(req, ck, matched_slot, source, tag, data);
    p2p::wait(req, fn);
    fill_status(status, req);
    if (req.status_error != MPI_SUCCESS) [[unlikely]]
      return truncation(req, comm, fn);
    return MPI_SUCCESS;
  }
  p2p::Request &req = self.p2p.requests.create(self);
  req.comm = comm;
  start_recv(req, ck, matched_slot, source, tag, data);
  *request = req.handle;
  return MPI_SUCCESS;
}
} // namespace

int ampi::mpi::pt2pt::recv_checked(Rank &self, const char *fn, const Checked &ck, int matched_slot,
                                   int source, int tag, void *buf, int count, MPI_Datatype type,
                                   MPI_Comm comm, MPI_Status *status, MPI_Request *request) {
  return recv_checked_inline(self, fn, ck, matched_slot, source, tag, buf, count, type, comm,
                             status, request);
}

namespace {

// Inline into MPI_Recv and MPI_Irecv, a call elsewhere (recv_common), as send_inline.
[[gnu::always_inline]] inline int recv_inline(const char *fn, void *buf, int count,
                                              MPI_Datatype type, int source, int tag, MPI_Comm comm,
                                              MPI_Status *status, MPI_Request *request) {
  auto self = enter(fn);
  Checked ck = check_common(*self, fn, buf, count, type, source, tag, comm, true);
  if (!ck.comm) [[unlikely]]
    return ck.err;
  if (source == MPI_PROC_NULL) {
    if (request)
      *request = completed_request(*self, comm, p2p::Kind::Recv);
    else
      proc_null_status(status);
    return MPI_SUCCESS;
  }
  return recv_checked_inline(*self, fn, ck, -1, source, tag, buf, count, type, comm, status,
                             request);
}

int recv_common(const char *fn, void *buf, int count, MPI_Datatype type, int source, int tag,
                MPI_Comm comm, MPI_Status *status, MPI_Request *request) {
  return recv_inline(fn, buf, count, type, source, tag, comm, status, request);
}

// The bytes a buffer of `count` elements of `t` spans in memory: [lo, hi).
void span(const datatype::Type &t, const void *buf, int count, const std::byte *&lo,
          const std::byte *&hi) {
  const auto *b = static_cast<const std::byte *>(buf);
  if (!count || !t.size) {
    lo = hi = b;
    return;
  }
  const std::ptrdiff_t last = static_cast<std::ptrdiff_t>(count - 1) * t.extent;
  const std::ptrdiff_t a = std::min<std::ptrdiff_t>(0, last), z = std::max<std::ptrdiff_t>(0, last);
  lo = b + a + t.true_lb;
  hi = b + z + t.true_lb + t.true_extent;
}

// MPI_Sendrecv's and MPI_Isendrecv's arguments: both halves checked before anything is sent, and
// the buffers must not overlap (the standard's rule; `replace` names the call that allows it).
int check_sendrecv(Rank &self, const char *fn, const char *replace, const void *sendbuf,
                   int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm) {
  Checked rc = check(self, fn, recvbuf, recvcount, recvtype, source, recvtag, comm, true);
  if (!rc.comm) return rc.err;
  Checked sc = check(self, fn, sendbuf, sendcount, sendtype, dest, sendtag, comm, false);
  if (!sc.comm) return sc.err;
  const std::byte *s0, *s1, *r0, *r1;
  span(*sc.type, sendbuf, sendcount, s0, s1);
  span(*rc.type, recvbuf, recvcount, r0, r1);
  // Only contiguous data is checked: the spans of two derived types can interleave without a
  // shared byte (two structs of absolute addresses sent from and to MPI_BOTTOM, tests/fortran).
  if (sc.bytes && rc.bytes && dest != MPI_PROC_NULL && source != MPI_PROC_NULL &&
      sc.type->contiguous && rc.type->contiguous && s0 < r1 && r0 < s1)
    return raise(comm, MPI_ERR_BUFFER, fn,
                 "sendbuf and recvbuf overlap (use %s to reuse one buffer)", replace);
  return MPI_SUCCESS;
}

} // namespace

extern "C" int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm) {
  return send_inline("MPI_Send", buf, count, datatype, dest, tag, comm, p2p::Mode::Standard,
                     nullptr);
}
AMPI_PMPI_ALIAS(MPI_Send)

extern "C" int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm comm) {
  return send_common("MPI_Ssend", buf, count, datatype, dest, tag, comm, p2p::Mode::Synchronous,
                     nullptr);
}
AMPI_PMPI_ALIAS(MPI_Ssend)

extern "C" int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm comm) {
  return send_common("MPI_Rsend", buf, count, datatype, dest, tag, comm, p2p::Mode::Ready, nullptr);
}
AMPI_PMPI_ALIAS(MPI_Rsend)

extern "C" int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm comm) {
  return send_common("MPI_Bsend", buf, count, datatype, dest, tag, comm, p2p::Mode::Buffered,
                     nullptr);
}
AMPI_PMPI_ALIAS(MPI_Bsend)

#define AMPI_ISEND(Name, mode)                                                                     \
  extern "C" int PMPI_##Name(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, \
                             MPI_Comm comm, MPI_Request *request) {                                \
    if (!request) return raise(comm, MPI_ERR_ARG, "MPI_" #Name, "request=NULL");                   \
    return send_common("MPI_" #Name, buf, count, datatype, dest, tag, comm, mode, request);        \
  }                                                                                                \
  AMPI_PMPI_ALIAS(MPI_##Name)
extern "C" int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm comm, MPI_Request *request) {
  if (!request) [[unlikely]]
    return raise(comm, MPI_ERR_ARG, "MPI_Isend", "request=NULL");
  return send_inline("MPI_Isend", buf, count, datatype, dest, tag, comm, p2p::Mode::Standard,
                     request);
}
AMPI_PMPI_ALIAS(MPI_Isend)
AMPI_ISEND(Issend, p2p::Mode::Synchronous)
AMPI_ISEND(Irsend, p2p::Mode::Ready)
AMPI_ISEND(Ibsend, p2p::Mode::Buffered)
#undef AMPI_ISEND

extern "C" int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                         MPI_Comm comm, MPI_Status *status) {
  return recv_inline("MPI_Recv", buf, count, datatype, source, tag, comm, status, nullptr);
}
AMPI_PMPI_ALIAS(MPI_Recv)

extern "C" int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                          MPI_Comm comm, MPI_Request *request) {
  if (!request) [[unlikely]]
    return raise(comm, MPI_ERR_ARG, "MPI_Irecv", "request=NULL");
  return recv_inline("MPI_Irecv", buf, count, datatype, source, tag, comm, MPI_STATUS_IGNORE,
                     request);
}
AMPI_PMPI_ALIAS(MPI_Irecv)

extern "C" int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                             int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                             int source, int recvtag, MPI_Comm comm, MPI_Status *status) {
  static constexpr const char *fn = "MPI_Sendrecv";
  auto self = enter(fn);
  if (int e = check_sendrecv(*self, fn, "MPI_Sendrecv_replace", sendbuf, sendcount, sendtype, dest,
                             sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm))
    return e;
  MPI_Request sreq = MPI_REQUEST_NULL;
  int e = send_common(fn, sendbuf, sendcount, sendtype, dest, sendtag, comm, p2p::Mode::Standard,
                      &sreq);
  if (e != MPI_SUCCESS) return e;
  e = recv_common(fn, recvbuf, recvcount, recvtype, source, recvtag, comm, status, nullptr);
  const int e2 = PMPI_Wait(&sreq, MPI_STATUS_IGNORE);
  return e != MPI_SUCCESS ? e : e2;
}
AMPI_PMPI_ALIAS(MPI_Sendrecv)

extern "C" int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest,
                                     int sendtag, int source, int recvtag, MPI_Comm comm,
                                     MPI_Status *status) {
  static constexpr const char *fn = "MPI_Sendrecv_replace";
  auto self = enter(fn);
  Checked ck = check(*self, fn, buf, count, datatype, dest, sendtag, comm, false);
  if (!ck.comm) return ck.err;
  // The data to send, packed; the receive then lands in buf with the caller's type.
  Checked rc = check(*self, fn, buf, count, datatype, source, recvtag, comm, true);
  if (!rc.comm) return rc.err;
  auto copy = std::make_unique_for_overwrite<std::byte[]>(ck.bytes ? ck.bytes : 1);
  if (ck.bytes)
    p2p::Data(buf, static_cast<std::size_t>(count), *ck.type).pack(0, copy.get(), ck.bytes);
  if (ck.bytes > static_cast<std::size_t>(INT_MAX))
    return raise(comm, MPI_ERR_COUNT, fn, "%zu bytes are more than this call can send", ck.bytes);
  MPI_Request sreq = MPI_REQUEST_NULL;
  int e = send_common(fn, copy.get(), static_cast<int>(ck.bytes), MPI_BYTE, dest, sendtag, comm,
                      p2p::Mode::Standard, &sreq);
  if (e != MPI_SUCCESS) return e;
  e = recv_common(fn, buf, count, datatype, source, recvtag, comm, status, nullptr);
  const int e2 = PMPI_Wait(&sreq, MPI_STATUS_IGNORE);
  return e != MPI_SUCCESS ? e : e2;
}
AMPI_PMPI_ALIAS(MPI_Sendrecv_replace)

// ---- MPI 4: non-blocking send-receive ---------------------------------------------------------
// MPI_Isendrecv starts the send and the receive as two internal requests and hands back a third
// that an internal task of the rank (the one non-blocking collectives use) completes once both
// are done, with the receive's status. MPI_Isendrecv_replace sends from a packed copy of the
// buffer, which that task owns, so the receive may land in the buffer at once.
namespace {

int isendrecv_common(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                     int source, int recvtag, MPI_Comm comm, MPI_Request *request,
                     std::shared_ptr<std::byte[]> copy) {
  auto self = enter(fn);
  MPI_Request sreq = MPI_REQUEST_NULL, rreq = MPI_REQUEST_NULL;
  int e = send_common(fn, sendbuf, sendcount, sendtype, dest, sendtag, comm, p2p::Mode::Standard,
                      &sreq);
  if (e != MPI_SUCCESS) return e;
  e = recv_common(fn, recvbuf, recvcount, recvtype, source, recvtag, comm, nullptr, &rreq);
  if (e != MPI_SUCCESS) {
    PMPI_Wait(&sreq, MPI_STATUS_IGNORE);
    return e;
  }
  p2p::Request &r = self->p2p.requests.create(*self);
  r.kind = p2p::Kind::Recv;
  r.comm = comm;
  *request = r.handle;
  self->pe().spawn_helper(*self, [fn, sreq, rreq, &r, copy = std::move(copy)]() mutable {
    Rank &me = *r.owner;
    int err = MPI_SUCCESS;
    p2p::Request *rs = find_request(me, sreq, fn, &err);
    p2p::Request *rr = find_request(me, rreq, fn, &err);
    if (rs) p2p::wait(*rs, fn);
    if (rr) p2p::wait(*rr, fn);
    if (rr) { // the receive's outcome is the request's
      r.status_source = rr->status_source;
      r.status_tag = rr->status_tag;
      r.status_bytes = rr->status_bytes;
      r.status_error = rr->status_error;
      r.capacity = rr->capacity;
      r.cancelled = rr->cancelled;
    }
    if (rs && rs->status_error != MPI_SUCCESS && r.status_error == MPI_SUCCESS)
      r.status_error = rs->status_error;
    MPI_Status ignored;
    if (rs) finish(me, &sreq, *rs, &ignored, fn, false);
    if (rr) finish(me, &rreq, *rr, &ignored, fn, false);
    copy.reset();
    p2p::complete(r);
  });
  return MPI_SUCCESS;
}

} // namespace

extern "C" int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                              int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                              int source, int recvtag, MPI_Comm comm, MPI_Request *request) {
  static constexpr const char *fn = "MPI_Isendrecv";
  auto self = enter(fn);
  if (!request) return raise(comm, MPI_ERR_ARG, fn, "request=NULL");
  if (int e = check_sendrecv(*self, fn, "MPI_Isendrecv_replace", sendbuf, sendcount, sendtype, dest,
                             sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm))
    return e;
  return isendrecv_common(fn, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                          recvtype, source, recvtag, comm, request, nullptr);
}
AMPI_PMPI_ALIAS(MPI_Isendrecv)

extern "C" int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest,
                                      int sendtag, int source, int recvtag, MPI_Comm comm,
                                      MPI_Request *request) {
  static constexpr const char *fn = "MPI_Isendrecv_replace";
  auto self = enter(fn);
  if (!request) return raise(comm, MPI_ERR_ARG, fn, "request=NULL");
  Checked ck = check(*self, fn, buf, count, datatype, dest, sendtag, comm, false);
  if (!ck.comm) return ck.err;
  Checked rc = check(*self, fn, buf, count, datatype, source, recvtag, comm, true);
  if (!rc.comm) return rc.err;
  if (ck.bytes > static_cast<std::size_t>(INT_MAX))
    return raise(comm, MPI_ERR_COUNT, fn, "%zu bytes are more than this call can send", ck.bytes);
  auto copy = std::make_shared<std::byte[]>(ck.bytes ? ck.bytes : 1);
  if (ck.bytes)
    p2p::Data(buf, static_cast<std::size_t>(count), *ck.type).pack(0, copy.get(), ck.bytes);
  const void *from = copy.get();
  return isendrecv_common(fn, from, static_cast<int>(ck.bytes), MPI_BYTE, dest, sendtag, buf, count,
                          datatype, source, recvtag, comm, request, std::move(copy));
}
AMPI_PMPI_ALIAS(MPI_Isendrecv_replace)

extern "C" int PMPI_Wait(MPI_Request *request, MPI_Status *status) {
  static constexpr const char *fn = "MPI_Wait";
  auto self = enter(fn);
  if (!request) [[unlikely]]
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "request=NULL");
  if (*request == MPI_REQUEST_NULL) {
    empty_status(status);
    return MPI_SUCCESS;
  }
  int err = MPI_SUCCESS;
  p2p::Request *r = find_request(*self, *request, fn, &err);
  if (!r) return err;
  if (inactive(*r)) {
    empty_status(status);
    return MPI_SUCCESS;
  }
  p2p::wait(*r, fn);
  return finish(*self, request, *r, status, fn, true);
}
AMPI_PMPI_ALIAS(MPI_Wait)

extern "C" int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
  static constexpr const char *fn = "MPI_Test";
  auto self = enter(fn);
  if (!request || !flag) [[unlikely]]
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "request or flag is NULL");
  if (*request == MPI_REQUEST_NULL) {
    *flag = 1;
    empty_status(status);
    return MPI_SUCCESS;
  }
  int err = MPI_SUCCESS;
  p2p::Request *r = find_request(*self, *request, fn, &err);
  if (!r) return err;
  if (inactive(*r)) {
    *flag = 1;
    empty_status(status);
    return MPI_SUCCESS;
  }
  if (!p2p::test(*r)) {
    *flag = 0;
    return MPI_SUCCESS;
  }
  *flag = 1;
  return finish(*self, request, *r, status, fn, true);
}
AMPI_PMPI_ALIAS(MPI_Test)

extern "C" int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status) {
  static constexpr const char *fn = "MPI_Request_get_status";
  auto self = enter(fn);
  if (!flag) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "flag=NULL");
  if (request == MPI_REQUEST_NULL) {
    *flag = 1;
    empty_status(status);
    return MPI_SUCCESS;
  }
  int err = MPI_SUCCESS;
  p2p::Request *r = find_request(*self, request, fn, &err);
  if (!r) return err;
  if (inactive(*r)) {
    *flag = 1;
    empty_status(status);
    return MPI_SUCCESS;
  }
  *flag = p2p::test(*r);
  if (!*flag) return MPI_SUCCESS;
  if (r->kind == p2p::Kind::Generalized) {
    MPI_Status st{};
    const int e = r->ext().grequest->query(r->ext().grequest->extra_state, &st);
    if (status != MPI_STATUS_IGNORE) {
      st.MPI_ERROR = status->MPI_ERROR;
      *status = st;
    }
    return e == MPI_SUCCESS ? e : raise(MPI_COMM_WORLD, e, fn, "a generalized request failed");
  }
  fill_status(status, *r);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Request_get_status)

namespace {

// The requests behind the handles of one Waitall, Testall, Waitany, ...: up to 64 (osu_bw's
// window) on the stack, more on the heap (a std::vector cost every call a malloc and a free).
class RequestList {
public:
  RequestList() = default;
  RequestList(const RequestList &) = delete;
  RequestList &operator=(const RequestList &) = delete;
  void resize(std::size_t n) {
    if (n > kInline) {
      heap_.resize(n);
      data_ = heap_.data();
    }
    size_ = n;
  }
  p2p::Request **data() noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  p2p::Request *&operator[](std::size_t i) noexcept { return data_[i]; }

private:
  static constexpr std::size_t kInline = 64;
  p2p::Request *inline_[kInline];
  std::vector<p2p::Request *> heap_;
  p2p::Request **data_ = inline_;
  std::size_t size_ = 0;
};

// Resolves an array of handles; MPI_REQUEST_NULL entries become nullptr.
int resolve_all(Rank &self, int count, MPI_Request *reqs, RequestList &out, const char *fn) {
  if (count < 0) return raise(MPI_COMM_WORLD, MPI_ERR_COUNT, fn, "count=%d is negative", count);
  if (count > 0 && !reqs) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "array_of_requests=NULL");
  out.resize(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    if (reqs[i] == MPI_REQUEST_NULL) {
      out[i] = nullptr;
      continue;
    }
    out[i] = self.p2p.requests.find(reqs[i]);
    if (!out[i])
      return raise(MPI_COMM_WORLD, MPI_ERR_REQUEST, fn,
                   "array_of_requests[%d]=0x%x is not a valid request", i,
                   static_cast<unsigned>(reqs[i]));
    if (inactive(*out[i])) out[i] = nullptr; // like MPI_REQUEST_NULL
  }
  return MPI_SUCCESS;
}

MPI_Status *status_at(MPI_Status *statuses, int i) {
  return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

// Completes every request; MPI_ERR_IN_STATUS when one failed.
int finish_all(Rank &self, int count, MPI_Request *reqs, RequestList &rs, MPI_Status *statuses,
               const char *fn) {
  int failed = 0;
  MPI_Comm comm = MPI_COMM_WORLD;
  for (int i = 0; i < count; ++i)
    if (rs[i] && rs[i]->status_error != MPI_SUCCESS) {
      ++failed;
      comm = rs[i]->comm;
    }
  for (int i = 0; i < count; ++i) {
    MPI_Status *st = status_at(statuses, i);
    if (failed && st != MPI_STATUS_IGNORE)
      st->MPI_ERROR = rs[i] ? rs[i]->status_error : MPI_SUCCESS;
    if (!rs[i]) {
      empty_status(st);
      continue;
    }
    finish_inline(self, &reqs[i], *rs[i], st, fn, false);
  }
  if (failed)
    return raise(comm, MPI_ERR_IN_STATUS, fn,
                 "%d request(s) failed (e.g. a message larger than its receive buffer); see the "
                 "statuses",
                 failed);
  return MPI_SUCCESS;
}

} // namespace

extern "C" int PMPI_Waitall(int count, MPI_Request array_of_requests[],
                            MPI_Status array_of_statuses[]) {
  static constexpr const char *fn = "MPI_Waitall";
  auto self = enter(fn);
  RequestList rs;
  if (int e = resolve_all(*self, count, array_of_requests, rs, fn); e != MPI_SUCCESS) return e;
  p2p::wait_all(rs.data(), rs.size(), fn);
  return finish_all(*self, count, array_of_requests, rs, array_of_statuses, fn);
}
AMPI_PMPI_ALIAS(MPI_Waitall)

extern "C" int PMPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
                            MPI_Status array_of_statuses[]) {
  static constexpr const char *fn = "MPI_Testall";
  auto self = enter(fn);
  if (!flag) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "flag=NULL");
  RequestList rs;
  if (int e = resolve_all(*self, count, array_of_requests, rs, fn); e != MPI_SUCCESS) return e;
  if (!p2p::test_all(rs.data(), rs.size())) {
    *flag = 0;
    return MPI_SUCCESS;
  }
  *flag = 1;
  return finish_all(*self, count, array_of_requests, rs, array_of_statuses, fn);
}
AMPI_PMPI_ALIAS(MPI_Testall)

namespace {

// Waitany and Testany: the first completed request, or MPI_UNDEFINED when none is active.
int any_common(int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status,
               bool blocking, const char *fn) {
  auto self = enter(fn);
  if (!index || (!blocking && !flag))
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "index or flag is NULL");
  RequestList rs;
  if (int e = resolve_all(*self, count, reqs, rs, fn); e != MPI_SUCCESS) return e;
  const int i =
      blocking ? p2p::wait_any(rs.data(), rs.size(), fn) : p2p::test_any(rs.data(), rs.size());
  if (i == p2p::kNoneComplete) {
    *flag = 0;
    *index = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  if (flag) *flag = 1;
  if (i == p2p::kNoneActive) {
    *index = MPI_UNDEFINED;
    empty_status(status);
    return MPI_SUCCESS;
  }
  *index = i;
  return finish(*self, &reqs[i], *rs[i], status, fn, true);
}

// Waitsome and Testsome.
int some_common(int incount, MPI_Request reqs[], int *outcount, int indices[],
                MPI_Status statuses[], bool blocking, const char *fn) {
  auto self = enter(fn);
  if (!outcount || (incount > 0 && !indices))
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "outcount or array_of_indices is NULL");
  RequestList rs;
  if (int e = resolve_all(*self, incount, reqs, rs, fn); e != MPI_SUCCESS) return e;
  const int n = blocking ? p2p::wait_some(rs.data(), rs.size(), indices, fn)
                         : p2p::test_some(rs.data(), rs.size(), indices);
  if (n == p2p::kNoneActive) {
    *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  *outcount = n;
  int failed = 0;
  MPI_Comm comm = MPI_COMM_WORLD;
  for (int k = 0; k < n; ++k)
    if (const p2p::Request &r = *rs[indices[k]]; r.status_error != MPI_SUCCESS) {
      ++failed;
      comm = r.comm;
    }
  for (int k = 0; k < n; ++k) {
    p2p::Request &r = *rs[indices[k]];
    MPI_Status *st = status_at(statuses, k);
    if (failed && st != MPI_STATUS_IGNORE) st->MPI_ERROR = r.status_error;
    finish(*self, &reqs[indices[k]], r, st, fn, false);
  }
  if (failed)
    return raise(comm, MPI_ERR_IN_STATUS, fn, "%d request(s) failed; see the statuses", failed);
  return MPI_SUCCESS;
}

} // namespace

extern "C" int PMPI_Waitany(int count, MPI_Request array_of_requests[], int *index,
                            MPI_Status *status) {
  return any_common(count, array_of_requests, index, nullptr, status, true, "MPI_Waitany");
}
AMPI_PMPI_ALIAS(MPI_Waitany)

extern "C" int PMPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
                            MPI_Status *status) {
  return any_common(count, array_of_requests, index, flag, status, false, "MPI_Testany");
}
AMPI_PMPI_ALIAS(MPI_Testany)

extern "C" int PMPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                             int array_of_indices[], MPI_Status array_of_statuses[]) {
  return some_common(incount, array_of_requests, outcount, array_of_indices, array_of_statuses,
                     true, "MPI_Waitsome");
}
AMPI_PMPI_ALIAS(MPI_Waitsome)

extern "C" int PMPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                             int array_of_indices[], MPI_Status array_of_statuses[]) {
  return some_common(incount, array_of_requests, outcount, array_of_indices, array_of_statuses,
                     false, "MPI_Testsome");
}
AMPI_PMPI_ALIAS(MPI_Testsome)

extern "C" int PMPI_Request_free(MPI_Request *request) {
  static constexpr const char *fn = "MPI_Request_free";
  auto self = enter(fn);
  if (!request) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "request=NULL");
  int err = MPI_SUCCESS;
  p2p::Request *r = find_request(*self, *request, fn, &err);
  if (!r) return err;
  if (r->op() && r->op()->start && r->active) {
    // MPI-4.0 6.13: only an inactive persistent collective request may be freed (its task or
    // schedule may still run the collective on what the request holds). Active until a wait or
    // test completes it, even where the collective itself is over (a schedule among the ranks of
    // one PE can end inside MPI_Start).
    return raise(r->comm, MPI_ERR_REQUEST, fn,
                 "request 0x%x is an active persistent collective request (complete it first)",
                 static_cast<unsigned>(*request));
  }
  if (r->complete || inactive(*r)) {
    if (r->kind == p2p::Kind::Generalized) r->ext().grequest->free(r->ext().grequest->extra_state);
    self->p2p.requests.release(*r);
  } else {
    // Released when it completes (an active send still delivers its message; a non-blocking
    // collective still runs to its end in its task).
    r->freed = true;
    r->persistent = false;
    if (r->kind == p2p::Kind::Generalized)
      r->on_complete = [](p2p::Request &g) {
        g.ext().grequest->free(g.ext().grequest->extra_state);
      };
  }
  *request = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Request_free)

extern "C" int PMPI_Cancel(MPI_Request *request) {
  static constexpr const char *fn = "MPI_Cancel";
  auto self = enter(fn);
  if (!request) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "request=NULL");
  int err = MPI_SUCCESS;
  p2p::Request *r = find_request(*self, *request, fn, &err);
  if (!r) return err;
  if (inactive(*r)) return MPI_SUCCESS;
  if (r->collective) // MPI-4.0 3.8.4: erroneous for non-blocking and persistent collectives
    return raise(r->comm, MPI_ERR_REQUEST, fn,
                 "request 0x%x is a collective request, which cannot be cancelled",
                 static_cast<unsigned>(*request));
  if (r->kind == p2p::Kind::Generalized) {
    const int e = r->ext().grequest->cancel(r->ext().grequest->extra_state, r->complete);
    return e == MPI_SUCCESS ? e : raise(MPI_COMM_WORLD, e, fn, "the cancel function failed");
  }
  p2p::cancel(*r); // a request that already matched simply completes normally
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Cancel)

extern "C" int PMPI_Test_cancelled(const MPI_Status *status, int *flag) {
  if (!status || !flag)
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Test_cancelled", "status or flag is NULL");
  *flag = status->ampi_cancelled != 0;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Test_cancelled)

extern "C" int PMPI_Status_set_cancelled(MPI_Status *status, int flag) {
  if (!status) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Status_set_cancelled", "status=NULL");
  status->ampi_cancelled = flag != 0;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Status_set_cancelled)

namespace {

int probe_common(const char *fn, int source, int tag, MPI_Comm comm, int *flag,
                 MPI_Status *status) {
  auto self = enter(fn);
  int err = MPI_SUCCESS;
  comm::Comm *c = find_comm(*self, comm, fn, &err);
  if (!c) return err;
  const pt2pt::Probed p = pt2pt::probe_checked(fn, *c, comm, source, tag, flag, status);
  if (p.err != MPI_SUCCESS || p.proc_null) return p.err;
  const p2p::Message *m =
      flag ? p2p::poll_probe(c->context, source, tag) : &p2p::probe(c->context, source, tag, fn);
  if (flag) *flag = m != nullptr;
  if (m) pt2pt::message_status(m->envelope.source, m->envelope.tag, m->bytes, status);
  return MPI_SUCCESS;
}

} // namespace

extern "C" int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status) {
  return probe_common("MPI_Probe", source, tag, comm, nullptr, status);
}
AMPI_PMPI_ALIAS(MPI_Probe)

extern "C" int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status) {
  if (!flag) return raise(comm, MPI_ERR_ARG, "MPI_Iprobe", "flag=NULL");
  return probe_common("MPI_Iprobe", source, tag, comm, flag, status);
}
AMPI_PMPI_ALIAS(MPI_Iprobe)

extern "C" int PMPI_Buffer_attach(void *buffer, int size) {
  static constexpr const char *fn = "MPI_Buffer_attach";
  auto self = enter(fn);
  if (size < 0 || (!buffer && size > 0))
    return raise(MPI_COMM_WORLD, MPI_ERR_BUFFER, fn, "buffer=%p size=%d", buffer, size);
  if (self->p2p.bsend.base)
    return raise(MPI_COMM_WORLD, MPI_ERR_BUFFER, fn,
                 "a buffer is already attached; detach it first");
  self->p2p.bsend.base = static_cast<std::byte *>(buffer);
  self->p2p.bsend.size = static_cast<std::size_t>(size);
  self->p2p.bsend.used.clear();
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Buffer_attach)

extern "C" int PMPI_Buffer_detach(void *buffer_addr, int *size) {
  static constexpr const char *fn = "MPI_Buffer_detach";
  auto self = enter(fn);
  if (!buffer_addr || !size)
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "buffer_addr or size is NULL");
  p2p::drain_bsend(fn);
  *static_cast<void **>(buffer_addr) = self->p2p.bsend.base;
  *size = static_cast<int>(self->p2p.bsend.size);
  self->p2p.bsend = {};
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Buffer_detach)

// MPI-4.1 3.6.1: wait (or start waiting) until every message buffered in the attached buffer so
// far has left it; the buffer stays attached. The rank's buffer is the only one (the
// communicator-attached buffers of MPI-4.1 are not provided).
extern "C" int PMPI_Buffer_flush(void) {
  static constexpr const char *fn = "MPI_Buffer_flush";
  auto self = enter(fn);
  p2p::drain_bsend(fn);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Buffer_flush)

extern "C" int PMPI_Buffer_iflush(MPI_Request *request) {
  static constexpr const char *fn = "MPI_Buffer_iflush";
  auto self = enter(fn);
  if (!request) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "request=NULL");
  if (self->p2p.bsend.used.empty()) {
    *request = completed_request(*self, MPI_COMM_WORLD, p2p::Kind::Send);
    return MPI_SUCCESS;
  }
  // The wait runs in an internal task of the rank (the one non-blocking collectives use): the
  // buffered messages leave as their receivers match them, which the program may do only after
  // this call (a receive of its own, to itself).
  p2p::Request &r = self->p2p.requests.create(*self);
  r.kind = p2p::Kind::Send;
  r.comm = MPI_COMM_WORLD;
  *request = r.handle;
  self->pe().spawn_helper(*self, [&r] {
    p2p::drain_bsend(fn);
    p2p::complete(r);
  });
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Buffer_iflush)
