// src/mpi/pt2pt_persistent.cpp — persistent requests (MPI_Send_init and its modes, MPI_Recv_init,
// MPI_Start, MPI_Startall) and generalized requests (MPI_Grequest_start / _complete). A persistent
// request keeps its handle across completions: MPI_Start restarts the operation it describes,
// and between a completion being reported and the next MPI_Start it is inactive (the completion
// calls treat it like MPI_REQUEST_NULL; see pt2pt.cpp).
#include "mpi/pt2pt.hpp"

#include <memory>

using namespace ampi;
using namespace ampi::mpi;
using namespace ampi::mpi::pt2pt;

namespace {

int init_common(const char *fn, const void *buf, int count, MPI_Datatype type, int peer, int tag,
                MPI_Comm comm, p2p::Kind kind, p2p::Mode mode, MPI_Request *request) {
  auto self = enter(fn);
  if (!request) return raise(comm, MPI_ERR_ARG, fn, "request=NULL");
  const bool recv = kind == p2p::Kind::Recv;
  Checked ck = check(*self, fn, buf, count, type, peer, tag, comm, recv);
  if (!ck.comm) return ck.err;
  p2p::Request &r = self->p2p.requests.create(*self);
  r.comm = comm;
  r.kind = kind;
  r.persistent = true;
  r.active = false;
  r.complete = false;
  r.ext().op = std::make_unique<p2p::Persistent>();
  p2p::Persistent &op = *r.op();
  op.kind = kind;
  op.mode = mode;
  op.buf = const_cast<void *>(buf);
  op.count = static_cast<std::size_t>(count);
  op.bytes = ck.bytes;
  op.type = hold_type(*self, type, *ck.type);
  op.peer = peer;
  op.tag = tag;
  op.context = ck.comm->context;
  op.my_rank = ck.comm->rank;
  op.peer_world = !recv && peer >= 0 ? ck.comm->peer_world(peer) : 0;
  *request = r.handle;
  return MPI_SUCCESS;
}

int start_one(Rank &self, p2p::Request &r, const char *fn, const char *what) {
  if (!r.op()) return raise(r.comm, MPI_ERR_REQUEST, fn, "%s is not a persistent request", what);
  if (r.active)
    return raise(r.comm, MPI_ERR_REQUEST, fn, "%s is already active (complete it first)", what);
  p2p::Persistent &op = *r.op();
  r.active = true;
  r.cancelled = false;
  r.status_error = MPI_SUCCESS;
  r.kind = op.kind;
  if (op.start) { // a persistent collective (coll_common.hpp)
    r.complete = false;
    op.start(r);
    return MPI_SUCCESS;
  }
  if (op.peer == MPI_PROC_NULL) {
    r.complete = true;
    r.status_source = MPI_PROC_NULL;
    r.status_tag = MPI_ANY_TAG;
    r.status_bytes = 0;
    return MPI_SUCCESS;
  }
  // The request holds the type (op.type): the Data needs no handle.
  const p2p::Data data(op.buf, op.count, *op.type);
  if (op.kind == p2p::Kind::Recv) {
    if (!op.type->contiguous) r.ext().dtype = op.type;
    p2p::start_recv(r, op.context, op.peer, op.tag, data);
    return MPI_SUCCESS;
  }
  const p2p::Route route{op.context, op.my_rank, op.tag, op.peer_world};
  if (op.mode == p2p::Mode::Buffered) {
    if (int e = p2p::start_bsend(route, data); e != MPI_SUCCESS) {
      r.active = false;
      return raise(r.comm, e, fn,
                   "the attached buffer (%zu bytes) has no room for %zu bytes plus "
                   "MPI_BSEND_OVERHEAD",
                   self.p2p.bsend.size, op.bytes);
    }
    // The attached buffer holds the data now: the request is complete.
    r.complete = true;
    r.status_bytes = op.bytes;
    return MPI_SUCCESS;
  }
  p2p::start_send(r, route, data, op.mode);
  return MPI_SUCCESS;
}

} // namespace

#define AMPI_SEND_INIT(Name, mode)                                                                 \
  extern "C" int PMPI_##Name(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, \
                             MPI_Comm comm, MPI_Request *request) {                                \
    return init_common("MPI_" #Name, buf, count, datatype, dest, tag, comm, p2p::Kind::Send, mode, \
                       request);                                                                   \
  }                                                                                                \
  AMPI_PMPI_ALIAS(MPI_##Name)
AMPI_SEND_INIT(Send_init, p2p::Mode::Standard)
AMPI_SEND_INIT(Ssend_init, p2p::Mode::Synchronous)
AMPI_SEND_INIT(Rsend_init, p2p::Mode::Ready)
AMPI_SEND_INIT(Bsend_init, p2p::Mode::Buffered)
#undef AMPI_SEND_INIT

extern "C" int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                              MPI_Comm comm, MPI_Request *request) {
  return init_common("MPI_Recv_init", buf, count, datatype, source, tag, comm, p2p::Kind::Recv,
                     p2p::Mode::Standard, request);
}
AMPI_PMPI_ALIAS(MPI_Recv_init)

extern "C" int PMPI_Start(MPI_Request *request) {
  static constexpr const char *fn = "MPI_Start";
  auto self = enter(fn);
  if (!request) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "request=NULL");
  int err = MPI_SUCCESS;
  p2p::Request *r = find_request(*self, *request, fn, &err);
  if (!r) return err;
  return start_one(*self, *r, fn, "request");
}
AMPI_PMPI_ALIAS(MPI_Start)

extern "C" int PMPI_Startall(int count, MPI_Request array_of_requests[]) {
  static constexpr const char *fn = "MPI_Startall";
  auto self = enter(fn);
  if (count < 0) return raise(MPI_COMM_WORLD, MPI_ERR_COUNT, fn, "count=%d is negative", count);
  if (count > 0 && !array_of_requests)
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "array_of_requests=NULL");
  // All handles are checked before any operation starts.
  for (int i = 0; i < count; ++i) {
    p2p::Request *r = self->p2p.requests.find(array_of_requests[i]);
    if (!r || !r->op() || r->active)
      return raise(MPI_COMM_WORLD, MPI_ERR_REQUEST, fn, "array_of_requests[%d]=0x%x is %s", i,
                   static_cast<unsigned>(array_of_requests[i]),
                   !r         ? "not a valid request"
                   : !r->op() ? "not a persistent request"
                              : "already active");
  }
  for (int i = 0; i < count; ++i)
    if (int e = start_one(*self, *self->p2p.requests.find(array_of_requests[i]), fn,
                          "array_of_requests[i]");
        e != MPI_SUCCESS)
      return e;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Startall)

extern "C" int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn,
                                   MPI_Grequest_free_function *free_fn,
                                   MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                                   MPI_Request *request) {
  static constexpr const char *fn = "MPI_Grequest_start";
  auto self = enter(fn);
  if (!query_fn || !free_fn || !cancel_fn || !request)
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn,
                 "query_fn, free_fn, cancel_fn or request is NULL");
  p2p::Request &r = self->p2p.requests.create(*self);
  r.kind = p2p::Kind::Generalized;
  r.comm = MPI_COMM_WORLD;
  r.complete = false;
  r.ext().grequest = std::make_unique<p2p::Generalized>(
      p2p::Generalized{query_fn, free_fn, cancel_fn, extra_state});
  *request = r.handle;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Grequest_start)

extern "C" int PMPI_Grequest_complete(MPI_Request request) {
  static constexpr const char *fn = "MPI_Grequest_complete";
  auto self = enter(fn);
  int err = MPI_SUCCESS;
  p2p::Request *r = find_request(*self, request, fn, &err);
  if (!r) return err;
  if (r->kind != p2p::Kind::Generalized)
    return raise(MPI_COMM_WORLD, MPI_ERR_REQUEST, fn, "request 0x%x is not a generalized request",
                 static_cast<unsigned>(request));
  if (r->complete)
    return raise(MPI_COMM_WORLD, MPI_ERR_REQUEST, fn, "request 0x%x is already complete",
                 static_cast<unsigned>(request));
  // Only the owning rank holds the handle, so it is running now and nobody waits on it yet.
  r->complete = true;
  if (r->freed) {
    if (r->on_complete) r->on_complete(*r);
    self->p2p.requests.release(*r);
  }
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Grequest_complete)
