// src/mpi/coll.cpp — the MPI collectives that synchronise or reduce (barrier, bcast, reduce,
// allreduce, reduce_scatter(_block), scan, exscan; blocking and non-blocking), local reductions
// and user-defined operations (MPI_Op_create/free/commutative): argument checks and datatype and
// operation resolution over src/coll. Data-movement collectives: coll_data.cpp.
#include "coll/nbc.hpp"
#include "mpi/coll_common.hpp"

#include <cstring>
#include <initializer_list>

using namespace ampi;
using namespace ampi::mpi;
using namespace ampi::mpi::coll_detail;

namespace {

coll::UserOp *find_user_op(Rank &self, MPI_Op op) {
  return self.coll.user_ops.get(op);
}

bool predefined_op(MPI_Op op) {
  return datatype::op_name(op) && op != MPI_REPLACE && op != MPI_NO_OP;
}

} // namespace

bool ampi::mpi::coll_detail::make_reducer(Call &call, MPI_Op op, MPI_Datatype handle,
                                          const datatype::Type &t, coll::Reducer &out) {
  out = coll::Reducer{};
  out.extent = t.size;
  if (coll::UserOp *u = find_user_op(*call.self, op)) {
    out.user = u->fn;
    out.commutative = u->commutative;
    out.handle = handle;
    out.type = std::make_shared<const datatype::Type>(t);
    return true;
  }
  if (op == MPI_OP_NULL) return call.fail(MPI_ERR_OP, "op=MPI_OP_NULL");
  if (!predefined_op(op))
    return call.fail(MPI_ERR_OP, "op 0x%x is not a valid operation for a collective",
                     static_cast<unsigned>(op));
  const datatype::Builtin *b = datatype::builtin(t.basic);
  datatype::ReduceFn f = b ? datatype::reduction(op, t.basic) : nullptr;
  if (!f)
    return call.fail(MPI_ERR_OP, "%s is not defined for datatype %s", datatype::op_name(op),
                     b ? type_label(t.basic) : type_label(handle));
  out.fn = f;
  out.basic_per_elem = t.basic_count ? t.basic_count : 1;
  out.basic_size = b->size;
  out.basic_stride = b->extent;
  out.basic = t.basic;
  return true;
}

namespace {

// Common checks of the reductions: count, datatype, operation.
struct Reduction {
  datatype::Type t;
  coll::Reducer op;
  MPI_Op handle = MPI_OP_NULL;
  bool ok = false;
  Reduction(Call &call, int count, MPI_Datatype type, MPI_Op mpi_op) : handle(mpi_op) {
    if (!call || !call.count(count, "count")) return;
    const datatype::Type *tp = call.type(type);
    if (!tp) return;
    t = *tp;
    ok = make_reducer(call, mpi_op, type, t, op);
  }
};

// Where a contiguous buffer's data starts (nullptr for none).
void *start_of(const datatype::Type &t, const void *buf) {
  return buf ? datatype::data_start(t, const_cast<void *>(buf)) : nullptr;
}

// Device reductions (AMPI_GPU_DEVICE_REDUCE=1, this build embeds the kernels): the algorithm runs
// on the user's device buffers themselves, with device temporaries and the operation as a CUDA
// kernel on the rank's stream (coll::Reducer::device), instead of copying every buffer to host
// memory and back. Where: an intracommunicator, a predefined operation on contiguous data of a
// predefined type that has a kernel (datatype::device_reduction) and whose packed form is its C
// layout (not MPI_DOUBLE_INT's 12 of 16 bytes), and every buffer given (`bufs`, nullptr and
// MPI_IN_PLACE skipped) in device memory. True with red.op.device set; false: stage as before.
bool device_reduce(const Call &call, Reduction &red, std::initializer_list<const void *> bufs) {
  if (!gpu::cuda_loaded() || call.inter() || red.op.user || !red.op.fn || !red.t.contiguous)
    return false;
  bool any = false;
  for (const void *b : bufs) {
    if (!b || b == MPI_IN_PLACE) continue;
    if (!p2p::on_device(start_of(red.t, b))) return false;
    any = true;
  }
  if (!any || red.op.basic_size != red.op.basic_stride || !call.self->pe().devptrs().can_reduce())
    return false;
  red.op.device = datatype::device_reduction(red.handle, red.t.basic);
  return !red.op.device.empty();
}

bool check_alias(Call &call, const void *sendbuf, const void *recvbuf, long long n) {
  if (sendbuf != MPI_IN_PLACE && sendbuf == recvbuf && n > 0)
    return call.fail(MPI_ERR_BUFFER, "sendbuf and recvbuf are the same buffer (use MPI_IN_PLACE)");
  return true;
}

// MPI_IN_PLACE is not defined on intercommunicators for the all-to-all reductions.
bool in_place_ok(Call &call, const void *sendbuf) {
  return sendbuf != MPI_IN_PLACE || !call.inter() ||
         call.fail(MPI_ERR_BUFFER, "sendbuf=MPI_IN_PLACE is not allowed on an intercommunicator");
}

int barrier_impl(MPI_Comm comm, ReqArg req, const char *fn) {
  Call call(fn, comm, req);
  if (!call) return call.err;
  if (call.schedulable(0, 0, nullptr))
    return call.schedule(
        [](const comm::Comm &c, int tag, p2p::Request &r) { coll::ibarrier(*r.owner, c, tag, r); });
  return call.launch([](const comm::Comm &c, int tag) { coll::barrier(c, tag); });
}

int bcast_impl(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, ReqArg req,
               const char *fn) {
  Call call(fn, comm, req);
  if (!call || !call.count(count, "count") || !call.root(root)) return call.err;
  const datatype::Type *tp = call.type(type);
  if (!tp) return call.err;
  if (!call.buffer(buf, count, "buffer")) return call.err;
  if (call.idle(root)) return call.launch([](const comm::Comm &, int) {});
  const std::size_t bytes = tp->size * static_cast<std::size_t>(count);
  if (tp->contiguous && call.schedulable(bytes, coll::kScheduleBcastMax, buf)) {
    void *data = buf ? datatype::data_start(*tp, buf) : nullptr;
    return call.schedule([data, bytes, root](const comm::Comm &c, int tag, p2p::Request &r) {
      coll::ibcast(*r.owner, c, tag, data, bytes, root, r);
    });
  }
  return call.launch(
      [t = *tp, buf, count, root, at_root = call.at_root(root)](const comm::Comm &c, int tag) {
        Packed d(t, buf, static_cast<std::size_t>(count), at_root);
        coll::bcast(c, tag, d.data(), d.bytes(), root);
        if (!at_root) d.store();
      });
}

int reduce_impl(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                int root, MPI_Comm comm, ReqArg req, const char *fn) {
  Call call(fn, comm, req);
  if (!call || !call.root(root)) return call.err;
  Reduction red(call, count, type, op);
  if (!red.ok) return call.err;
  if (call.idle(root)) return call.launch([](const comm::Comm &, int) {});
  const bool at_root = call.at_root(root);
  if (sendbuf == MPI_IN_PLACE && (!at_root || call.inter()))
    return call.fail(MPI_ERR_BUFFER, "sendbuf=MPI_IN_PLACE is only allowed at the root"), call.err;
  if (at_root && !check_alias(call, sendbuf, recvbuf, count)) return call.err;
  if ((!(at_root && call.inter()) && !call.buffer(sendbuf, count, "sendbuf")) ||
      (at_root && !call.buffer(recvbuf, count, "recvbuf")))
    return call.err;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const auto n = static_cast<std::size_t>(count);
  if (red.t.contiguous &&
      call.schedulable(n * red.t.size, coll::kScheduleReduceMax, in_place ? nullptr : sendbuf,
                       at_root ? recvbuf : nullptr)) {
    auto start = [&](auto *buf) { return buf ? datatype::data_start(red.t, buf) : nullptr; };
    const void *in = in_place ? nullptr : start(sendbuf);
    void *out = at_root ? start(recvbuf) : nullptr;
    return call.schedule(
        [in, out, n, root, op = red.op](const comm::Comm &c, int tag, p2p::Request &r) {
          coll::ireduce(*r.owner, c, tag, in, out, n, op, root, r);
        });
  }
  if (device_reduce(call, red, {in_place ? nullptr : sendbuf, at_root ? recvbuf : nullptr}))
    return call.launch([red = std::move(red), sendbuf, recvbuf, count, root,
                        at_root](const comm::Comm &c, int tag) {
      const void *in = sendbuf == MPI_IN_PLACE ? nullptr : start_of(red.t, sendbuf);
      coll::reduce(c, tag, in, at_root ? start_of(red.t, recvbuf) : nullptr,
                   static_cast<std::size_t>(count), red.op, root);
    });
  return call.launch(
      [red = std::move(red), sendbuf, recvbuf, count, root, at_root](const comm::Comm &c, int tag) {
        const auto n = static_cast<std::size_t>(count);
        // An intercommunicator's root sends nothing: as if in place.
        const bool in_place = sendbuf == MPI_IN_PLACE || (c.inter() && at_root);
        Packed out(red.t, at_root ? recvbuf : nullptr, n, in_place);
        Packed in(red.t, in_place ? nullptr : sendbuf, n, true);
        coll::reduce(c, tag, in_place ? nullptr : in.data(), out.data(), n, red.op, root);
        if (at_root) out.store();
      });
}

int allreduce_impl(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm, ReqArg req, const char *fn) {
  Call call(fn, comm, req);
  Reduction red(call, count, type, op);
  if (!red.ok || !in_place_ok(call, sendbuf)) return call.err;
  if (!check_alias(call, sendbuf, recvbuf, count) || !call.buffer(sendbuf, count, "sendbuf") ||
      !call.buffer(recvbuf, count, "recvbuf"))
    return call.err;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const auto n = static_cast<std::size_t>(count);
  if (red.t.contiguous && call.schedulable(n * red.t.size, coll::kScheduleAllreduceMax, recvbuf,
                                           in_place ? nullptr : sendbuf)) {
    // A schedule of messages driven by progress (coll/nbc.cpp), no helper task.
    auto start = [&](auto *buf) { return buf ? datatype::data_start(red.t, buf) : nullptr; };
    const void *in = in_place ? nullptr : start(sendbuf);
    void *out = start(recvbuf);
    return call.schedule([in, out, n, op = red.op](const comm::Comm &c, int tag, p2p::Request &r) {
      coll::iallreduce(*r.owner, c, tag, in, out, n, op, r);
    });
  }
  if (device_reduce(call, red, {sendbuf, recvbuf}))
    return call.launch(
        [red = std::move(red), sendbuf, recvbuf, count](const comm::Comm &c, int tag) {
          const void *in = sendbuf == MPI_IN_PLACE ? nullptr : start_of(red.t, sendbuf);
          coll::allreduce(c, tag, in, start_of(red.t, recvbuf), static_cast<std::size_t>(count),
                          red.op);
        });
  return call.launch([red = std::move(red), sendbuf, recvbuf, count](const comm::Comm &c, int tag) {
    const auto n = static_cast<std::size_t>(count);
    const bool in_place = sendbuf == MPI_IN_PLACE;
    Packed out(red.t, recvbuf, n, in_place);
    Packed in(red.t, in_place ? nullptr : sendbuf, n, true);
    coll::allreduce(c, tag, in_place ? nullptr : in.data(), out.data(), n, red.op);
    out.store();
  });
}

// Reduce_scatter and Reduce_scatter_block: `counts` has one entry per rank.
int reduce_scatter_impl(const void *sendbuf, void *recvbuf, std::vector<int> counts,
                        MPI_Datatype type, MPI_Op op, Call &call) {
  long long total = 0;
  for (int n : counts)
    total += n;
  const int mine = counts[static_cast<std::size_t>(call.rank())];
  Reduction red(call, 0, type, op);
  if (!red.ok || !in_place_ok(call, sendbuf)) return call.err;
  if (!check_alias(call, sendbuf, recvbuf, total) || !call.buffer(sendbuf, total, "sendbuf") ||
      !call.buffer(recvbuf, mine, "recvbuf"))
    return call.err;
  if (device_reduce(call, red, {sendbuf, mine > 0 || sendbuf == MPI_IN_PLACE ? recvbuf : nullptr}))
    return call.launch([red = std::move(red), sendbuf, recvbuf,
                        counts = std::move(counts)](const comm::Comm &c, int tag) {
      // In place, the input is recvbuf and the result goes to its start.
      const void *in = start_of(red.t, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf);
      std::vector<std::size_t> cs(counts.begin(), counts.end());
      coll::reduce_scatter(c, tag, in, start_of(red.t, recvbuf), cs, red.op);
    });
  return call.launch([red = std::move(red), sendbuf, recvbuf, counts = std::move(counts), total,
                      mine](const comm::Comm &c, int tag) {
    const bool in_place = sendbuf == MPI_IN_PLACE;
    const auto all = static_cast<std::size_t>(total);
    Packed in(red.t, in_place ? recvbuf : sendbuf, all, true);
    std::vector<std::size_t> cs(counts.begin(), counts.end());
    if (in_place) {
      // The result goes to the start of recvbuf, which also held the input.
      coll::reduce_scatter(c, tag, in.data(), in.data(), cs, red.op);
      Packed out(red.t, recvbuf, static_cast<std::size_t>(mine), false);
      if (out.data() != in.data()) std::memcpy(out.data(), in.data(), out.bytes());
      out.store();
      return;
    }
    Packed out(red.t, recvbuf, static_cast<std::size_t>(mine), false);
    coll::reduce_scatter(c, tag, in.data(), out.data(), cs, red.op);
    out.store();
  });
}

int scan_impl(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
              MPI_Comm comm, ReqArg req, bool exclusive, const char *fn) {
  Call call(fn, comm, req);
  if (call && !call.intra_only()) return call.err;
  Reduction red(call, count, type, op);
  if (!red.ok || !in_place_ok(call, sendbuf)) return call.err;
  if (!check_alias(call, sendbuf, recvbuf, count) || !call.buffer(sendbuf, count, "sendbuf") ||
      !call.buffer(recvbuf, count, "recvbuf"))
    return call.err;
  if (device_reduce(call, red, {sendbuf, recvbuf}))
    return call.launch(
        [red = std::move(red), sendbuf, recvbuf, count, exclusive](const comm::Comm &c, int tag) {
          const auto n = static_cast<std::size_t>(count);
          const void *in = sendbuf == MPI_IN_PLACE ? nullptr : start_of(red.t, sendbuf);
          if (exclusive)
            coll::exscan(c, tag, in, start_of(red.t, recvbuf), n, red.op);
          else
            coll::scan(c, tag, in, start_of(red.t, recvbuf), n, red.op);
        });
  return call.launch(
      [red = std::move(red), sendbuf, recvbuf, count, exclusive](const comm::Comm &c, int tag) {
        const auto n = static_cast<std::size_t>(count);
        const bool in_place = sendbuf == MPI_IN_PLACE;
        Packed out(red.t, recvbuf, n, in_place);
        Packed in(red.t, in_place ? nullptr : sendbuf, n, true);
        if (exclusive)
          coll::exscan(c, tag, in_place ? nullptr : in.data(), out.data(), n, red.op);
        else
          coll::scan(c, tag, in_place ? nullptr : in.data(), out.data(), n, red.op);
        if (!exclusive || c.rank != 0) out.store();
      });
}

} // namespace

// ---- barrier, broadcast ----

extern "C" int PMPI_Barrier(MPI_Comm comm) {
  return barrier_impl(comm, nullptr, "MPI_Barrier");
}
AMPI_PMPI_ALIAS(MPI_Barrier)

extern "C" int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request) {
  return barrier_impl(comm, request, "MPI_Ibarrier");
}
AMPI_PMPI_ALIAS(MPI_Ibarrier)

extern "C" int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return bcast_impl(buffer, count, datatype, root, comm, nullptr, "MPI_Bcast");
}
AMPI_PMPI_ALIAS(MPI_Bcast)

extern "C" int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                           MPI_Request *request) {
  return bcast_impl(buffer, count, datatype, root, comm, request, "MPI_Ibcast");
}
AMPI_PMPI_ALIAS(MPI_Ibcast)

// ---- reductions ----

extern "C" int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, int root, MPI_Comm comm) {
  return reduce_impl(sendbuf, recvbuf, count, datatype, op, root, comm, nullptr, "MPI_Reduce");
}
AMPI_PMPI_ALIAS(MPI_Reduce)

extern "C" int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                            MPI_Op op, int root, MPI_Comm comm, MPI_Request *request) {
  return reduce_impl(sendbuf, recvbuf, count, datatype, op, root, comm, request, "MPI_Ireduce");
}
AMPI_PMPI_ALIAS(MPI_Ireduce)

extern "C" int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm) {
  return allreduce_impl(sendbuf, recvbuf, count, datatype, op, comm, nullptr, "MPI_Allreduce");
}
AMPI_PMPI_ALIAS(MPI_Allreduce)

extern "C" int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                               MPI_Op op, MPI_Comm comm, MPI_Request *request) {
  return allreduce_impl(sendbuf, recvbuf, count, datatype, op, comm, request, "MPI_Iallreduce");
}
AMPI_PMPI_ALIAS(MPI_Iallreduce)

namespace {

int rs_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, ReqArg req, const char *fn) {
  Call call(fn, comm, req);
  if (!call || !call.count(recvcount, "recvcount")) return call.err;
  return reduce_scatter_impl(sendbuf, recvbuf,
                             std::vector<int>(static_cast<std::size_t>(call.size()), recvcount),
                             datatype, op, call);
}

int rs(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
       MPI_Comm comm, ReqArg req, const char *fn) {
  Call call(fn, comm, req);
  if (!call || !call.counts(recvcounts, call.size(), "recvcounts")) return call.err;
  return reduce_scatter_impl(
      sendbuf, recvbuf, std::vector<int>(recvcounts, recvcounts + call.size()), datatype, op, call);
}

} // namespace

extern "C" int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return rs_block(sendbuf, recvbuf, recvcount, datatype, op, comm, nullptr,
                  "MPI_Reduce_scatter_block");
}
AMPI_PMPI_ALIAS(MPI_Reduce_scatter_block)

extern "C" int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                          MPI_Request *request) {
  return rs_block(sendbuf, recvbuf, recvcount, datatype, op, comm, request,
                  "MPI_Ireduce_scatter_block");
}
AMPI_PMPI_ALIAS(MPI_Ireduce_scatter_block)

extern "C" int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return rs(sendbuf, recvbuf, recvcounts, datatype, op, comm, nullptr, "MPI_Reduce_scatter");
}
AMPI_PMPI_ALIAS(MPI_Reduce_scatter)

extern "C" int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                    MPI_Request *request) {
  return rs(sendbuf, recvbuf, recvcounts, datatype, op, comm, request, "MPI_Ireduce_scatter");
}
AMPI_PMPI_ALIAS(MPI_Ireduce_scatter)

extern "C" int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm) {
  return scan_impl(sendbuf, recvbuf, count, datatype, op, comm, nullptr, false, "MPI_Scan");
}
AMPI_PMPI_ALIAS(MPI_Scan)

extern "C" int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm, MPI_Request *request) {
  return scan_impl(sendbuf, recvbuf, count, datatype, op, comm, request, false, "MPI_Iscan");
}
AMPI_PMPI_ALIAS(MPI_Iscan)

extern "C" int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm) {
  return scan_impl(sendbuf, recvbuf, count, datatype, op, comm, nullptr, true, "MPI_Exscan");
}
AMPI_PMPI_ALIAS(MPI_Exscan)

extern "C" int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                            MPI_Op op, MPI_Comm comm, MPI_Request *request) {
  return scan_impl(sendbuf, recvbuf, count, datatype, op, comm, request, true, "MPI_Iexscan");
}
AMPI_PMPI_ALIAS(MPI_Iexscan)

// ---- local reductions and user-defined operations ----

extern "C" int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count,
                                 MPI_Datatype datatype, MPI_Op op) {
  Call call("MPI_Reduce_local", MPI_COMM_WORLD, nullptr);
  Reduction red(call, count, datatype, op);
  if (!red.ok) return call.err;
  if (!call.buffer(inbuf, count, "inbuf") || !call.buffer(inoutbuf, count, "inoutbuf"))
    return call.err;
  const auto n = static_cast<std::size_t>(count);
  if (device_reduce(call, red, {inbuf, inoutbuf})) {
    red.op(start_of(red.t, inbuf), start_of(red.t, inoutbuf), n);
    return MPI_SUCCESS;
  }
  Packed in(red.t, inbuf, n, true);
  Packed io(red.t, inoutbuf, n, true);
  red.op(in.data(), io.data(), n);
  io.store();
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Reduce_local)

extern "C" int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op) {
  static constexpr const char *fn = "MPI_Op_create";
  auto self = enter(fn);
  if (!user_fn) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "user_fn=NULL");
  if (!op) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "op=NULL");
  *op = self->coll.user_ops.insert(coll::UserOp{user_fn, commute != 0});
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Op_create)

extern "C" int PMPI_Op_free(MPI_Op *op) {
  static constexpr const char *fn = "MPI_Op_free";
  auto self = enter(fn);
  if (!op) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "op=NULL");
  if (predefined_op(*op) || *op == MPI_REPLACE || *op == MPI_NO_OP)
    return raise(MPI_COMM_WORLD, MPI_ERR_OP, fn, "%s is a predefined operation",
                 datatype::op_name(*op));
  if (!find_user_op(*self, *op))
    return raise(MPI_COMM_WORLD, MPI_ERR_OP, fn, "op 0x%x is not a valid operation",
                 static_cast<unsigned>(*op));
  // Collectives in flight keep their own copy of the function pointer.
  self->coll.user_ops.erase(*op);
  *op = MPI_OP_NULL;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Op_free)

extern "C" int PMPI_Op_commutative(MPI_Op op, int *commute) {
  static constexpr const char *fn = "MPI_Op_commutative";
  auto self = enter(fn);
  if (!commute) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "commute=NULL");
  if (coll::UserOp *u = find_user_op(*self, op)) {
    *commute = u->commutative;
    return MPI_SUCCESS;
  }
  if (!datatype::op_name(op))
    return raise(MPI_COMM_WORLD, MPI_ERR_OP, fn, "op is not a valid operation");
  *commute = 1; // every predefined operation is commutative
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Op_commutative)

// ---- persistent collectives (MPI-4.0 section 6.13): the non-blocking form's checks and
// algorithm, started by MPI_Start (coll_common.hpp, Call::launch) ----

extern "C" int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  return barrier_impl(comm, ReqArg{request, info}, "MPI_Barrier_init");
}
AMPI_PMPI_ALIAS(MPI_Barrier_init)

extern "C" int PMPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root,
                               MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  return bcast_impl(buffer, count, datatype, root, comm, ReqArg{request, info}, "MPI_Bcast_init");
}
AMPI_PMPI_ALIAS(MPI_Bcast_init)

extern "C" int PMPI_Reduce_init(const void *sendbuf, void *recvbuf, int count,
                                MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request) {
  return reduce_impl(sendbuf, recvbuf, count, datatype, op, root, comm, ReqArg{request, info},
                     "MPI_Reduce_init");
}
AMPI_PMPI_ALIAS(MPI_Reduce_init)

extern "C" int PMPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request) {
  return allreduce_impl(sendbuf, recvbuf, count, datatype, op, comm, ReqArg{request, info},
                        "MPI_Allreduce_init");
}
AMPI_PMPI_ALIAS(MPI_Allreduce_init)

extern "C" int PMPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                              MPI_Info info, MPI_Request *request) {
  return rs_block(sendbuf, recvbuf, recvcount, datatype, op, comm, ReqArg{request, info},
                  "MPI_Reduce_scatter_block_init");
}
AMPI_PMPI_ALIAS(MPI_Reduce_scatter_block_init)

extern "C" int PMPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                        MPI_Info info, MPI_Request *request) {
  return rs(sendbuf, recvbuf, recvcounts, datatype, op, comm, ReqArg{request, info},
            "MPI_Reduce_scatter_init");
}
AMPI_PMPI_ALIAS(MPI_Reduce_scatter_init)

extern "C" int PMPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  return scan_impl(sendbuf, recvbuf, count, datatype, op, comm, ReqArg{request, info}, false,
                   "MPI_Scan_init");
}
AMPI_PMPI_ALIAS(MPI_Scan_init)

extern "C" int PMPI_Exscan_init(const void *sendbuf, void *recvbuf, int count,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                MPI_Request *request) {
  return scan_impl(sendbuf, recvbuf, count, datatype, op, comm, ReqArg{request, info}, true,
                   "MPI_Exscan_init");
}
AMPI_PMPI_ALIAS(MPI_Exscan_init)
