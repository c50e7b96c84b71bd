// src/mpi/pt2pt_persistent.cpp — persistent requests (MPI_Send_init and its modes, MPI_Recv_init,
// MPI_Start, MPI_Startall), generalized requests (MPI_Grequest_start / _complete) and MPI 4's
// partitioned ones (MPI_Psend_init, MPI_Precv_init, MPI_Pready*, MPI_Parrived). A persistent
// request keeps its handle across completions: MPI_Start restarts the operation it describes,
// and between a completion being reported and the next MPI_Start it is inactive (the completion
// calls treat it like MPI_REQUEST_NULL; see pt2pt.cpp).
#include "mpi/comm_util.hpp"
#include "mpi/pt2pt.hpp"
#include "p2p/completion.hpp"

#include <climits>
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

int transfer(Rank &self, p2p::Request &r, const char *fn);

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
  if (op.partitions > 0 && op.kind == p2p::Kind::Send && op.peer != MPI_PROC_NULL) {
    // Partitioned: the message leaves when MPI_Pready has marked the last partition.
    r.complete = false;
    op.nready = 0;
    op.ready.assign(static_cast<std::size_t>(op.partitions), false);
    return MPI_SUCCESS;
  }
  return transfer(self, r, fn);
}

// The send or receive of an active persistent request, now.
int transfer(Rank &self, p2p::Request &r, const char *fn) {
  p2p::Persistent &op = *r.op();
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

// ---- MPI 4: partitioned point-to-point (MPI 4.0 chapter 4) -----------------------------------
// A partitioned send or receive is a persistent request of the whole buffer (partitions * count
// elements) that travels as ONE message: MPI_Start posts the receive, and the send leaves when
// MPI_Pready has marked its last partition. One message, not one per partition, because every
// partition of a host buffer then costs nothing after the first (same-PE: one copy; another PE:
// one eager message or one rendezvous), and the receiver learns of all partitions at once; so
// MPI_Parrived reports every partition arrived when the message is. Device buffers take the
// GPU path of every persistent send. The messages use the communicator's collective context with
// tags from 2^29 up (partition_tag), apart from the communicator's ordinary messages and its
// collectives' tags (below 2^29, and 2^30); a send and a receive match in the order their
// requests are started, which is their init order whenever the two sides start them alike.
namespace {

int partition_tag(int tag) {
  return (1 << 29) | (tag & ((1 << 29) - 1));
}

int pinit(const char *fn, const void *buf, int partitions, MPI_Count count, MPI_Datatype type,
          int peer, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request, p2p::Kind kind) {
  {
    auto self = enter(fn);
    int err = MPI_SUCCESS;
    if (!find_comm(*self, comm, fn, &err)) return err;
    if (!request) return raise(comm, MPI_ERR_ARG, fn, "request=NULL");
    if (partitions < 1)
      return raise(comm, MPI_ERR_ARG, fn, "partitions=%d is less than 1", partitions);
    if (count < 0) return raise(comm, MPI_ERR_COUNT, fn, "count=%lld is negative", count);
    if (count * partitions > INT_MAX)
      return raise(comm, MPI_ERR_COUNT, fn,
                   "partitions * count = %lld elements are more than this call can take (INT_MAX)",
                   count * partitions);
    if (peer == MPI_ANY_SOURCE)
      return raise(comm, MPI_ERR_RANK, fn, "source=MPI_ANY_SOURCE is not allowed");
    if (tag == MPI_ANY_TAG) return raise(comm, MPI_ERR_TAG, fn, "tag=MPI_ANY_TAG is not allowed");
    if (!find_hints(*self, info, fn, &err)) return err;
  }
  const int total = static_cast<int>(count * partitions);
  if (int e =
          init_common(fn, buf, total, type, peer, tag, comm, kind, p2p::Mode::Standard, request))
    return e;
  auto self = enter(fn);
  p2p::Persistent &op = *self->p2p.requests.find(*request)->op();
  op.partitions = partitions;
  op.context += 1; // the collective context (comm::Comm::coll_context)
  op.tag = partition_tag(tag);
  return MPI_SUCCESS;
}

// The active partitioned send `h`, or nullptr after raising.
p2p::Request *psend(Rank &self, MPI_Request h, const char *fn, int *err) {
  p2p::Request *r = find_request(self, h, fn, err);
  if (!r) return nullptr;
  const p2p::Persistent *op = r->op();
  if (!op || op->partitions == 0 || op->kind != p2p::Kind::Send) {
    *err = raise(r->comm, MPI_ERR_REQUEST, fn, "request is not a partitioned send");
    return nullptr;
  }
  if (!r->active) {
    *err = raise(r->comm, MPI_ERR_REQUEST, fn, "request is not active (call MPI_Start first)");
    return nullptr;
  }
  return r;
}

int mark_ready(Rank &self, p2p::Request &r, int partition, const char *fn) {
  p2p::Persistent &op = *r.op();
  if (partition < 0 || partition >= op.partitions)
    return raise(r.comm, MPI_ERR_ARG, fn, "partition=%d is not in [0, %d)", partition,
                 op.partitions);
  if (op.peer == MPI_PROC_NULL) return MPI_SUCCESS; // complete since MPI_Start
  const auto i = static_cast<std::size_t>(partition);
  if (op.ready[i])
    return raise(r.comm, MPI_ERR_ARG, fn, "partition %d is already ready", partition);
  op.ready[i] = true;
  if (++op.nready == op.partitions) return transfer(self, r, fn);
  return MPI_SUCCESS;
}

} // namespace

extern "C" int PMPI_Psend_init(const void *buf, int partitions, MPI_Count count,
                               MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                               MPI_Info info, MPI_Request *request) {
  return pinit("MPI_Psend_init", buf, partitions, count, datatype, dest, tag, comm, info, request,
               p2p::Kind::Send);
}
AMPI_PMPI_ALIAS(MPI_Psend_init)

extern "C" int PMPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                               int source, int tag, MPI_Comm comm, MPI_Info info,
                               MPI_Request *request) {
  return pinit("MPI_Precv_init", buf, partitions, count, datatype, source, tag, comm, info, request,
               p2p::Kind::Recv);
}
AMPI_PMPI_ALIAS(MPI_Precv_init)

extern "C" int PMPI_Pready(int partition, MPI_Request request) {
  static constexpr const char *fn = "MPI_Pready";
  auto self = enter(fn);
  int err = MPI_SUCCESS;
  p2p::Request *r = psend(*self, request, fn, &err);
  if (!r) return err;
  return mark_ready(*self, *r, partition, fn);
}
AMPI_PMPI_ALIAS(MPI_Pready)

extern "C" int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request) {
  static constexpr const char *fn = "MPI_Pready_range";
  auto self = enter(fn);
  int err = MPI_SUCCESS;
  p2p::Request *r = psend(*self, request, fn, &err);
  if (!r) return err;
  if (partition_low > partition_high)
    return raise(r->comm, MPI_ERR_ARG, fn, "partition_low=%d is above partition_high=%d",
                 partition_low, partition_high);
  for (int p = partition_low; p <= partition_high; ++p)
    if (int e = mark_ready(*self, *r, p, fn)) return e;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Pready_range)

extern "C" int PMPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request) {
  static constexpr const char *fn = "MPI_Pready_list";
  auto self = enter(fn);
  int err = MPI_SUCCESS;
  p2p::Request *r = psend(*self, request, fn, &err);
  if (!r) return err;
  if (length < 0) return raise(r->comm, MPI_ERR_ARG, fn, "length=%d is negative", length);
  if (length > 0 && !array_of_partitions)
    return raise(r->comm, MPI_ERR_ARG, fn, "array_of_partitions=NULL");
  for (int i = 0; i < length; ++i)
    if (int e = mark_ready(*self, *r, array_of_partitions[i], fn)) return e;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Pready_list)

extern "C" int PMPI_Parrived(MPI_Request request, int partition, int *flag) {
  static constexpr const char *fn = "MPI_Parrived";
  auto self = enter(fn);
  int err = MPI_SUCCESS;
  p2p::Request *r = find_request(*self, request, fn, &err);
  if (!r) return err;
  const p2p::Persistent *op = r->op();
  if (!op || op->partitions == 0 || op->kind != p2p::Kind::Recv)
    return raise(r->comm, MPI_ERR_REQUEST, fn, "request is not a partitioned receive");
  if (!flag) return raise(r->comm, MPI_ERR_ARG, fn, "flag=NULL");
  if (partition < 0 || partition >= op->partitions)
    return raise(r->comm, MPI_ERR_ARG, fn, "partition=%d is not in [0, %d)", partition,
                 op->partitions);
  // Inactive (completed, or never started): its data is there (MPI 4.0 section 4.2.2).
  *flag = !r->active || r->complete || p2p::test(*r);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Parrived)
