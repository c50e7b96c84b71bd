// src/mpi/coll_data.cpp — the MPI data-movement collectives, blocking and non-blocking: gather(v),
// scatter(v), allgather(v), alltoall(v/w) and the neighbourhood collectives over a
// communicator's virtual topology: argument checks, MPI_IN_PLACE and datatypes over src/coll.
#include "coll/nbc.hpp"
#include "comm/topology.hpp"
#include "mpi/coll_common.hpp"

#include <cstring>

using namespace ampi;
using namespace ampi::mpi;
using namespace ampi::mpi::coll_detail;

namespace {

using TypeList = std::vector<datatype::Type>;
using Displs = std::vector<std::ptrdiff_t>;

std::size_t sz(int n) {
  return static_cast<std::size_t>(n);
}

// count elements of a type: checks count, type and buffer; the type is copied into `out`.
bool side(Call &call, const void *buf, int count, MPI_Datatype type, const char *what,
          datatype::Type &out, long long times = 1) {
  if (!call.count(count, what)) return false;
  const datatype::Type *t = call.type(type);
  if (!t) return false;
  out = *t;
  return call.buffer(buf, static_cast<long long>(count) * times,
                     what[0] == 's' ? "sendbuf" : "recvbuf");
}

// The data this rank sends to itself must fit what it receives from itself (the type signatures
// of a send and its receive match); other ranks' blocks are checked by their own calls.
bool own_block(Call &call, const datatype::Type &st, long long scount, const datatype::Type &rt,
               long long rcount) {
  const long long sb = static_cast<long long>(st.size) * scount;
  const long long rb = static_cast<long long>(rt.size) * rcount;
  return sb == rb || call.fail(MPI_ERR_TRUNCATE,
                               "this rank sends itself %lld bytes but receives %lld bytes from "
                               "itself (the send and receive type signatures differ)",
                               sb, rb);
}

// The types of a w-collective's blocks.
bool type_list(Call &call, const MPI_Datatype *types, int n, const char *arg, TypeList &out) {
  if (!call.array(types, n, arg)) return false;
  out.clear();
  for (int i = 0; i < n; ++i) {
    const datatype::Type *t = call.type(types[i]);
    if (!t) return false;
    out.push_back(*t);
  }
  return true;
}

// A copy of the blocks of `b` (MPI_IN_PLACE all-to-all: the data to send, taken before the
// receives overwrite it).
struct BlockCopy {
  std::unique_ptr<std::byte[]> data;
  coll::Blocks b;
  explicit BlockCopy(const coll::Blocks &from) {
    std::size_t total = 0;
    for (std::size_t n : from.bytes)
      total += n;
    data = std::make_unique_for_overwrite<std::byte[]>(total ? total : 1);
    b.base = data.get();
    b.bytes = from.bytes;
    std::size_t off = 0;
    for (std::size_t i = 0; i < from.bytes.size(); ++i) {
      b.off.push_back(static_cast<std::ptrdiff_t>(off));
      if (from.bytes[i]) std::memcpy(b.base + off, from.base + from.off[i], from.bytes[i]);
      off += from.bytes[i];
    }
  }
};

// Blocks of equal size inside one packed buffer.
coll::Blocks even_blocks(std::byte *base, std::size_t n, std::size_t bytes, bool same = false) {
  coll::Blocks b;
  b.base = base;
  b.bytes.assign(n, bytes);
  for (std::size_t i = 0; i < n; ++i)
    b.off.push_back(same ? 0 : static_cast<std::ptrdiff_t>(i * bytes));
  return b;
}

// ---- gather / scatter ----

int gather_impl(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf, int rcount,
                MPI_Datatype rtype, int root, MPI_Comm comm, ReqArg req, const char *fn) {
  Call call(fn, comm, req);
  if (!call || !call.root(root)) return call.err;
  if (call.idle(root)) return call.launch([](const comm::Comm &, int) {});
  // At an intercommunicator's root nothing is sent: as if in place.
  const bool at_root = call.at_root(root),
             in_place = sendbuf == MPI_IN_PLACE || (call.inter() && at_root);
  datatype::Type st, rt;
  if (in_place && !at_root)
    return call.fail(MPI_ERR_BUFFER, "sendbuf=MPI_IN_PLACE is only allowed at the root"), call.err;
  if (!in_place && !side(call, sendbuf, scount, stype, "sendcount", st)) return call.err;
  if (at_root && !side(call, recvbuf, rcount, rtype, "recvcount", rt, call.peers()))
    return call.err;
  if (at_root && !in_place && !own_block(call, st, scount, rt, rcount)) return call.err;
  return call.launch([=](const comm::Comm &c, int tag) {
    const std::size_t p = sz(c.peer_size());
    if (!at_root) {
      Packed in(st, sendbuf, sz(scount), true);
      coll::gather(c, tag, in.data(), nullptr, in.bytes(), root);
      return;
    }
    Packed out(rt, recvbuf, p * sz(rcount), in_place);
    Packed in(st, in_place ? nullptr : sendbuf, in_place ? 0 : sz(scount), true);
    coll::gather(c, tag, in_place ? nullptr : in.data(), out.data(), rt.size * sz(rcount), root);
    out.store();
  });
}

int scatter_impl(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf, int rcount,
                 MPI_Datatype rtype, int root, MPI_Comm comm, ReqArg req, const char *fn) {
  Call call(fn, comm, req);
  if (!call || !call.root(root)) return call.err;
  if (call.idle(root)) return call.launch([](const comm::Comm &, int) {});
  // At an intercommunicator's root nothing is received: as if in place.
  const bool at_root = call.at_root(root),
             in_place = recvbuf == MPI_IN_PLACE || (call.inter() && at_root);
  datatype::Type st, rt;
  if (in_place && !at_root)
    return call.fail(MPI_ERR_BUFFER, "recvbuf=MPI_IN_PLACE is only allowed at the root"), call.err;
  if (!in_place && !side(call, recvbuf, rcount, rtype, "recvcount", rt)) return call.err;
  if (at_root && !side(call, sendbuf, scount, stype, "sendcount", st, call.peers()))
    return call.err;
  if (at_root && !in_place && !own_block(call, st, scount, rt, rcount)) return call.err;
  return call.launch([=](const comm::Comm &c, int tag) {
    const std::size_t p = sz(c.peer_size());
    if (!at_root) {
      Packed out(rt, recvbuf, sz(rcount), false);
      coll::scatter(c, tag, nullptr, out.data(), out.bytes(), root);
      out.store();
      return;
    }
    Packed in(st, sendbuf, p * sz(scount), true);
    Packed out(rt, in_place ? nullptr : recvbuf, in_place ? 0 : sz(rcount), false);
    coll::scatter(c, tag, in.data(), in_place ? nullptr : out.data(), st.size * sz(scount), root);
    out.store();
  });
}

int gatherv_impl(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf,
                 const int rcounts[], const int displs[], MPI_Datatype rtype, int root,
                 MPI_Comm comm, ReqArg req, const char *fn) {
  Call call(fn, comm, req);
  if (!call || !call.root(root)) return call.err;
  if (call.idle(root)) return call.launch([](const comm::Comm &, int) {});
  // At an intercommunicator's root nothing is sent: as if in place.
  const bool at_root = call.at_root(root),
             in_place = sendbuf == MPI_IN_PLACE || (call.inter() && at_root);
  datatype::Type st;
  TypeList rt(1);
  std::vector<int> counts;
  Displs d;
  if (in_place && !at_root)
    return call.fail(MPI_ERR_BUFFER, "sendbuf=MPI_IN_PLACE is only allowed at the root"), call.err;
  if (!in_place && !side(call, sendbuf, scount, stype, "sendcount", st)) return call.err;
  if (at_root) {
    if (!call.counts(rcounts, call.peers(), "recvcounts") ||
        !call.array(displs, call.peers(), "displs") ||
        !side(call, recvbuf, 0, rtype, "recvcount", rt[0]))
      return call.err;
    counts.assign(rcounts, rcounts + call.peers());
    d = byte_displs(displs, call.peers(), rt[0]);
  }
  return call.launch([=](const comm::Comm &c, int tag) {
    if (!at_root) {
      Packed in(st, sendbuf, sz(scount), true);
      coll::gatherv(c, tag, in.data(), in.bytes(), {}, root);
      return;
    }
    PackedBlocks out(rt, recvbuf, counts, d, in_place);
    Packed in(st, in_place ? nullptr : sendbuf, in_place ? 0 : sz(scount), true);
    coll::gatherv(c, tag, in_place ? nullptr : in.data(), in.bytes(), out.b, root);
    out.store();
  });
}

int scatterv_impl(const void *sendbuf, const int scounts[], const int displs[], MPI_Datatype stype,
                  void *recvbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm,
                  ReqArg req, const char *fn) {
  Call call(fn, comm, req);
  if (!call || !call.root(root)) return call.err;
  if (call.idle(root)) return call.launch([](const comm::Comm &, int) {});
  // At an intercommunicator's root nothing is received: as if in place.
  const bool at_root = call.at_root(root),
             in_place = recvbuf == MPI_IN_PLACE || (call.inter() && at_root);
  datatype::Type rt;
  TypeList st(1);
  std::vector<int> counts;
  Displs d;
  if (in_place && !at_root)
    return call.fail(MPI_ERR_BUFFER, "recvbuf=MPI_IN_PLACE is only allowed at the root"), call.err;
  if (!in_place && !side(call, recvbuf, rcount, rtype, "recvcount", rt)) return call.err;
  if (at_root) {
    if (!call.counts(scounts, call.peers(), "sendcounts") ||
        !call.array(displs, call.peers(), "displs") ||
        !side(call, sendbuf, 0, stype, "sendcount", st[0]))
      return call.err;
    counts.assign(scounts, scounts + call.peers());
    d = byte_displs(displs, call.peers(), st[0]);
  }
  return call.launch([=](const comm::Comm &c, int tag) {
    Packed out(rt, in_place ? nullptr : recvbuf, in_place ? 0 : sz(rcount), false);
    if (!at_root) {
      coll::scatterv(c, tag, {}, out.data(), out.bytes(), root);
    } else {
      PackedBlocks in(st, const_cast<void *>(sendbuf), counts, d, true);
      coll::scatterv(c, tag, in.b, in_place ? nullptr : out.data(), out.bytes(), root);
    }
    out.store();
  });
}

// ---- allgather / alltoall ----

int allgather_impl(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf, int rcount,
                   MPI_Datatype rtype, MPI_Comm comm, ReqArg req, const char *fn) {
  Call call(fn, comm, req);
  if (!call) return call.err;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (in_place && call.inter())
    return call.fail(MPI_ERR_BUFFER, "sendbuf=MPI_IN_PLACE is not allowed on an intercommunicator"),
           call.err;
  datatype::Type st, rt;
  if (!in_place && !side(call, sendbuf, scount, stype, "sendcount", st)) return call.err;
  if (!side(call, recvbuf, rcount, rtype, "recvcount", rt, call.peers())) return call.err;
  if (call.inter()) {
    // The two groups' blocks differ in size (one group may send nothing and only receive,
    // MPI-4.1 6.2.2's "unidirectional" use), so each side's bytes go as they are.
    return call.launch([=](const comm::Comm &c, int tag) {
      Packed out(rt, recvbuf, sz(c.peer_size()) * sz(rcount), false);
      Packed in(st, sendbuf, sz(scount), true);
      coll::allgatherv(c, tag, in.data(), in.bytes(),
                       even_blocks(out.data(), sz(c.peer_size()), rt.size * sz(rcount)));
      out.store();
    });
  }
  if (!in_place && !own_block(call, st, scount, rt, rcount)) return call.err;
  const std::size_t block = rt.size * sz(rcount);
  if (rt.contiguous && (in_place || st.contiguous) &&
      call.schedulable(block * sz(call.size()), coll::kScheduleAllgatherMax, recvbuf,
                       in_place ? nullptr : sendbuf)) {
    // A schedule of messages driven by progress (coll/nbc.cpp), no helper task.
    const void *in = in_place || !sendbuf ? nullptr : datatype::data_start(st, sendbuf);
    void *out = recvbuf ? datatype::data_start(rt, recvbuf) : nullptr;
    return call.schedule([in, out, block](const comm::Comm &c, int tag, p2p::Request &r) {
      coll::iallgather(*r.owner, c, tag, in, out, block, r);
    });
  }
  return call.launch([=](const comm::Comm &c, int tag) {
    Packed out(rt, recvbuf, sz(c.peer_size()) * sz(rcount), in_place);
    Packed in(st, in_place ? nullptr : sendbuf, in_place ? 0 : sz(scount), true);
    coll::allgather(c, tag, in_place ? nullptr : in.data(), out.data(), rt.size * sz(rcount));
    out.store();
  });
}

int allgatherv_impl(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf,
                    const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm,
                    ReqArg req, const char *fn) {
  Call call(fn, comm, req);
  if (!call) return call.err;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (in_place && call.inter())
    return call.fail(MPI_ERR_BUFFER, "sendbuf=MPI_IN_PLACE is not allowed on an intercommunicator"),
           call.err;
  datatype::Type st;
  TypeList rt(1);
  if (!in_place && !side(call, sendbuf, scount, stype, "sendcount", st)) return call.err;
  if (!call.counts(rcounts, call.peers(), "recvcounts") ||
      !call.array(displs, call.peers(), "displs") ||
      !side(call, recvbuf, 0, rtype, "recvcount", rt[0]))
    return call.err;
  std::vector<int> counts(rcounts, rcounts + call.peers());
  Displs d = byte_displs(displs, call.peers(), rt[0]);
  return call.launch([=](const comm::Comm &c, int tag) {
    PackedBlocks out(rt, recvbuf, counts, d, in_place);
    Packed in(st, in_place ? nullptr : sendbuf, in_place ? 0 : sz(scount), true);
    coll::allgatherv(c, tag, in_place ? nullptr : in.data(), in.bytes(), out.b);
    out.store();
  });
}

int alltoall_impl(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf, int rcount,
                  MPI_Datatype rtype, MPI_Comm comm, ReqArg req, const char *fn) {
  Call call(fn, comm, req);
  if (!call) return call.err;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (in_place && call.inter())
    return call.fail(MPI_ERR_BUFFER, "sendbuf=MPI_IN_PLACE is not allowed on an intercommunicator"),
           call.err;
  datatype::Type st, rt;
  if (!in_place && !side(call, sendbuf, scount, stype, "sendcount", st, call.peers()))
    return call.err;
  if (!side(call, recvbuf, rcount, rtype, "recvcount", rt, call.peers())) return call.err;
  if (call.inter()) {
    // As in allgather: the blocks of the two directions may differ in size (one may be empty).
    return call.launch([=](const comm::Comm &c, int tag) {
      const std::size_t p = sz(c.peer_size());
      Packed out(rt, recvbuf, p * sz(rcount), false);
      Packed in(st, sendbuf, p * sz(scount), true);
      coll::alltoallv(c, tag, even_blocks(in.data(), p, st.size * sz(scount)),
                      even_blocks(out.data(), p, rt.size * sz(rcount)));
      out.store();
    });
  }
  if (!in_place && !own_block(call, st, scount, rt, rcount)) return call.err;
  return call.launch([=](const comm::Comm &c, int tag) {
    const std::size_t p = sz(c.peer_size()), bytes = rt.size * sz(rcount);
    Packed out(rt, recvbuf, p * sz(rcount), in_place);
    if (in_place) {
      const std::size_t total = p * bytes;
      auto copy = std::make_unique_for_overwrite<std::byte[]>(total ? total : 1);
      if (total) std::memcpy(copy.get(), out.data(), total);
      coll::alltoall(c, tag, copy.get(), out.data(), bytes);
    } else {
      Packed in(st, sendbuf, p * sz(scount), true);
      coll::alltoall(c, tag, in.data(), out.data(), bytes);
    }
    out.store();
  });
}

// Alltoallv and alltoallw: `st`/`rt` hold one type (v) or one per rank (w); displacements are in
// bytes.
int alltoallw_common(Call &call, const void *sendbuf, std::vector<int> scounts, Displs sd,
                     TypeList st, void *recvbuf, std::vector<int> rcounts, Displs rd, TypeList rt) {
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (in_place && call.inter())
    return call.fail(MPI_ERR_BUFFER, "sendbuf=MPI_IN_PLACE is not allowed on an intercommunicator"),
           call.err;
  return call.launch([=](const comm::Comm &c, int tag) {
    PackedBlocks out(rt, recvbuf, rcounts, rd, in_place);
    if (in_place) {
      BlockCopy copy(out.b);
      coll::alltoallv(c, tag, copy.b, out.b);
    } else {
      PackedBlocks in(st, const_cast<void *>(sendbuf), scounts, sd, true);
      coll::alltoallv(c, tag, in.b, out.b);
    }
    out.store();
  });
}

int alltoallv_impl(const void *sendbuf, const int scounts[], const int sdispls[],
                   MPI_Datatype stype, void *recvbuf, const int rcounts[], const int rdispls[],
                   MPI_Datatype rtype, MPI_Comm comm, ReqArg req, const char *fn) {
  Call call(fn, comm, req);
  if (!call) return call.err;
  const int p = call.peers();
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (in_place && call.inter())
    return call.fail(MPI_ERR_BUFFER, "sendbuf=MPI_IN_PLACE is not allowed on an intercommunicator"),
           call.err;
  TypeList st(1), rt(1);
  std::vector<int> sc, rc;
  Displs sd, rd;
  if (!in_place) {
    if (!call.counts(scounts, p, "sendcounts") || !call.array(sdispls, p, "sdispls") ||
        !side(call, sendbuf, 0, stype, "sendcount", st[0]))
      return call.err;
    sc.assign(scounts, scounts + p);
    sd = byte_displs(sdispls, p, st[0]);
  }
  if (!call.counts(rcounts, p, "recvcounts") || !call.array(rdispls, p, "rdispls") ||
      !side(call, recvbuf, 0, rtype, "recvcount", rt[0]))
    return call.err;
  rc.assign(rcounts, rcounts + p);
  rd = byte_displs(rdispls, p, rt[0]);
  return alltoallw_common(call, sendbuf, std::move(sc), std::move(sd), std::move(st), recvbuf,
                          std::move(rc), std::move(rd), std::move(rt));
}

template <class D>
int alltoallw_impl(const void *sendbuf, const int scounts[], const D sdispls[],
                   const MPI_Datatype stypes[], void *recvbuf, const int rcounts[],
                   const D rdispls[], const MPI_Datatype rtypes[], int ns, int nr, Call &call) {
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (in_place && call.inter())
    return call.fail(MPI_ERR_BUFFER, "sendbuf=MPI_IN_PLACE is not allowed on an intercommunicator"),
           call.err;
  TypeList st, rt;
  std::vector<int> sc, rc;
  Displs sd, rd;
  if (!in_place) {
    if (!call.counts(scounts, ns, "sendcounts") || !call.array(sdispls, ns, "sdispls") ||
        !type_list(call, stypes, ns, "sendtypes", st))
      return call.err;
    sc.assign(scounts, scounts + ns);
    sd.assign(sdispls, sdispls + ns);
    if (ns == 0) st.resize(1);
  }
  if (!call.counts(rcounts, nr, "recvcounts") || !call.array(rdispls, nr, "rdispls") ||
      !type_list(call, rtypes, nr, "recvtypes", rt))
    return call.err;
  rc.assign(rcounts, rcounts + nr);
  rd.assign(rdispls, rdispls + nr);
  if (nr == 0) rt.resize(1);
  return alltoallw_common(call, sendbuf, std::move(sc), std::move(sd), std::move(st), recvbuf,
                          std::move(rc), std::move(rd), std::move(rt));
}

} // namespace

extern "C" int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return gather_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                     nullptr, "MPI_Gather");
}
AMPI_PMPI_ALIAS(MPI_Gather)

extern "C" int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm, MPI_Request *request) {
  return gather_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                     request, "MPI_Igather");
}
AMPI_PMPI_ALIAS(MPI_Igather)

extern "C" int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return gatherv_impl(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                      comm, nullptr, "MPI_Gatherv");
}
AMPI_PMPI_ALIAS(MPI_Gatherv)

extern "C" int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request) {
  return gatherv_impl(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                      comm, request, "MPI_Igatherv");
}
AMPI_PMPI_ALIAS(MPI_Igatherv)

extern "C" int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm) {
  return scatter_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                      nullptr, "MPI_Scatter");
}
AMPI_PMPI_ALIAS(MPI_Scatter)

extern "C" int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                             MPI_Comm comm, MPI_Request *request) {
  return scatter_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                      request, "MPI_Iscatter");
}
AMPI_PMPI_ALIAS(MPI_Iscatter)

extern "C" int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                             MPI_Datatype sendtype, void *recvbuf, int recvcount,
                             MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return scatterv_impl(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                       comm, nullptr, "MPI_Scatterv");
}
AMPI_PMPI_ALIAS(MPI_Scatterv)

extern "C" int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                              MPI_Datatype sendtype, void *recvbuf, int recvcount,
                              MPI_Datatype recvtype, int root, MPI_Comm comm,
                              MPI_Request *request) {
  return scatterv_impl(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                       comm, request, "MPI_Iscatterv");
}
AMPI_PMPI_ALIAS(MPI_Iscatterv)

extern "C" int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return allgather_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, nullptr,
                        "MPI_Allgather");
}
AMPI_PMPI_ALIAS(MPI_Allgather)

extern "C" int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Request *request) {
  return allgather_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request,
                        "MPI_Iallgather");
}
AMPI_PMPI_ALIAS(MPI_Iallgather)

extern "C" int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, const int recvcounts[], const int displs[],
                               MPI_Datatype recvtype, MPI_Comm comm) {
  return allgatherv_impl(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                         nullptr, "MPI_Allgatherv");
}
AMPI_PMPI_ALIAS(MPI_Allgatherv)

extern "C" int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, const int recvcounts[], const int displs[],
                                MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  return allgatherv_impl(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                         request, "MPI_Iallgatherv");
}
AMPI_PMPI_ALIAS(MPI_Iallgatherv)

extern "C" int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoall_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, nullptr,
                       "MPI_Alltoall");
}
AMPI_PMPI_ALIAS(MPI_Alltoall)

extern "C" int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                              MPI_Request *request) {
  return alltoall_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request,
                       "MPI_Ialltoall");
}
AMPI_PMPI_ALIAS(MPI_Ialltoall)

extern "C" int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                              MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                              const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoallv_impl(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                        recvtype, comm, nullptr, "MPI_Alltoallv");
}
AMPI_PMPI_ALIAS(MPI_Alltoallv)

extern "C" int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                               MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                               const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Request *request) {
  return alltoallv_impl(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                        recvtype, comm, request, "MPI_Ialltoallv");
}
AMPI_PMPI_ALIAS(MPI_Ialltoallv)

extern "C" int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                              const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                              const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  Call call("MPI_Alltoallw", comm, nullptr);
  if (!call) return call.err;
  return alltoallw_impl(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                        recvtypes, call.peers(), call.peers(), call);
}
AMPI_PMPI_ALIAS(MPI_Alltoallw)

extern "C" int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                               const MPI_Datatype sendtypes[], void *recvbuf,
                               const int recvcounts[], const int rdispls[],
                               const MPI_Datatype recvtypes[], MPI_Comm comm,
                               MPI_Request *request) {
  Call call("MPI_Ialltoallw", comm, request);
  if (!call) return call.err;
  return alltoallw_impl(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                        recvtypes, call.peers(), call.peers(), call);
}
AMPI_PMPI_ALIAS(MPI_Ialltoallw)

// ---- neighbourhood collectives ----

namespace {

// The communicator's neighbour lists; false after raising MPI_ERR_TOPOLOGY.
struct Neighbors {
  std::vector<int> in, out;
  bool cart = false;
  bool ok = false;
  explicit Neighbors(Call &call) {
    if (!call) return;
    const comm::Topology *t = call.c->topology.get();
    if (!t) {
      call.fail(MPI_ERR_TOPOLOGY, "the communicator has no virtual topology");
      return;
    }
    in = t->sources;
    out = t->destinations;
    cart = t->kind == comm::Topology::Kind::Cart;
    ok = true;
  }
  int tags() const { return cart ? static_cast<int>(in.size() + out.size()) : 1; }
  int indeg() const { return static_cast<int>(in.size()); }
  int outdeg() const { return static_cast<int>(out.size()); }
};

int nb_allgather(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf, int rcount,
                 MPI_Datatype rtype, MPI_Comm comm, ReqArg req, const char *fn) {
  Call call(fn, comm, req);
  Neighbors nb(call);
  if (!nb.ok) return call.err;
  datatype::Type st, rt;
  if (!side(call, sendbuf, scount, stype, "sendcount", st) ||
      !side(call, recvbuf, rcount, rtype, "recvcount", rt, nb.indeg()))
    return call.err;
  return call.launch(
      [=](const comm::Comm &c, int tag) {
        Packed in(st, sendbuf, sz(scount), true);
        Packed out(rt, recvbuf, nb.in.size() * sz(rcount), false);
        coll::neighbor_exchange(
            c, tag, nb.in, nb.out, even_blocks(in.data(), nb.out.size(), in.bytes(), true),
            even_blocks(out.data(), nb.in.size(), rt.size * sz(rcount)), nb.cart);
        out.store();
      },
      nb.tags());
}

int nb_allgatherv(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf,
                  const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm,
                  ReqArg req, const char *fn) {
  Call call(fn, comm, req);
  Neighbors nb(call);
  if (!nb.ok) return call.err;
  datatype::Type st;
  TypeList rt(1);
  const int n = nb.indeg();
  if (!side(call, sendbuf, scount, stype, "sendcount", st) ||
      !call.counts(rcounts, n, "recvcounts") || !call.array(displs, n, "displs") ||
      !side(call, recvbuf, 0, rtype, "recvcount", rt[0]))
    return call.err;
  std::vector<int> counts(rcounts, rcounts + n);
  Displs d = byte_displs(displs, n, rt[0]);
  return call.launch(
      [=](const comm::Comm &c, int tag) {
        Packed in(st, sendbuf, sz(scount), true);
        PackedBlocks out(rt, recvbuf, counts, d, false);
        coll::neighbor_exchange(c, tag, nb.in, nb.out,
                                even_blocks(in.data(), nb.out.size(), in.bytes(), true), out.b,
                                nb.cart);
        out.store();
      },
      nb.tags());
}

int nb_alltoall(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf, int rcount,
                MPI_Datatype rtype, MPI_Comm comm, ReqArg req, const char *fn) {
  Call call(fn, comm, req);
  Neighbors nb(call);
  if (!nb.ok) return call.err;
  datatype::Type st, rt;
  if (!side(call, sendbuf, scount, stype, "sendcount", st, nb.outdeg()) ||
      !side(call, recvbuf, rcount, rtype, "recvcount", rt, nb.indeg()))
    return call.err;
  return call.launch(
      [=](const comm::Comm &c, int tag) {
        Packed in(st, sendbuf, nb.out.size() * sz(scount), true);
        Packed out(rt, recvbuf, nb.in.size() * sz(rcount), false);
        coll::neighbor_exchange(
            c, tag, nb.in, nb.out, even_blocks(in.data(), nb.out.size(), st.size * sz(scount)),
            even_blocks(out.data(), nb.in.size(), rt.size * sz(rcount)), nb.cart);
        out.store();
      },
      nb.tags());
}

int nb_alltoallw_common(Call &call, const Neighbors &nb, const void *sendbuf,
                        std::vector<int> scounts, Displs sd, TypeList st, void *recvbuf,
                        std::vector<int> rcounts, Displs rd, TypeList rt) {
  if (st.empty()) st.resize(1);
  if (rt.empty()) rt.resize(1);
  return call.launch(
      [=](const comm::Comm &c, int tag) {
        PackedBlocks in(st, const_cast<void *>(sendbuf), scounts, sd, true);
        PackedBlocks out(rt, recvbuf, rcounts, rd, false);
        coll::neighbor_exchange(c, tag, nb.in, nb.out, in.b, out.b, nb.cart);
        out.store();
      },
      nb.tags());
}

int nb_alltoallv(const void *sendbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                 void *recvbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype,
                 MPI_Comm comm, ReqArg req, const char *fn) {
  Call call(fn, comm, req);
  Neighbors nb(call);
  if (!nb.ok) return call.err;
  TypeList st(1), rt(1);
  const int ns = nb.outdeg(), nr = nb.indeg();
  if (!call.counts(scounts, ns, "sendcounts") || !call.array(sdispls, ns, "sdispls") ||
      !side(call, sendbuf, 0, stype, "sendcount", st[0]) ||
      !call.counts(rcounts, nr, "recvcounts") || !call.array(rdispls, nr, "rdispls") ||
      !side(call, recvbuf, 0, rtype, "recvcount", rt[0]))
    return call.err;
  return nb_alltoallw_common(
      call, nb, sendbuf, std::vector<int>(scounts, scounts + ns), byte_displs(sdispls, ns, st[0]),
      st, recvbuf, std::vector<int>(rcounts, rcounts + nr), byte_displs(rdispls, nr, rt[0]), rt);
}

int nb_alltoallw(const void *sendbuf, const int scounts[], const MPI_Aint sdispls[],
                 const MPI_Datatype stypes[], void *recvbuf, const int rcounts[],
                 const MPI_Aint rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm, ReqArg req,
                 const char *fn) {
  Call call(fn, comm, req);
  Neighbors nb(call);
  if (!nb.ok) return call.err;
  TypeList st, rt;
  const int ns = nb.outdeg(), nr = nb.indeg();
  if (!call.counts(scounts, ns, "sendcounts") || !call.array(sdispls, ns, "sdispls") ||
      !type_list(call, stypes, ns, "sendtypes", st) || !call.counts(rcounts, nr, "recvcounts") ||
      !call.array(rdispls, nr, "rdispls") || !type_list(call, rtypes, nr, "recvtypes", rt))
    return call.err;
  return nb_alltoallw_common(
      call, nb, sendbuf, std::vector<int>(scounts, scounts + ns), Displs(sdispls, sdispls + ns), st,
      recvbuf, std::vector<int>(rcounts, rcounts + nr), Displs(rdispls, rdispls + nr), rt);
}

} // namespace

extern "C" int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                       void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                       MPI_Comm comm) {
  return nb_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, nullptr,
                      "MPI_Neighbor_allgather");
}
AMPI_PMPI_ALIAS(MPI_Neighbor_allgather)

extern "C" int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                        void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                        MPI_Comm comm, MPI_Request *request) {
  return nb_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request,
                      "MPI_Ineighbor_allgather");
}
AMPI_PMPI_ALIAS(MPI_Ineighbor_allgather)

extern "C" int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                        void *recvbuf, const int recvcounts[], const int displs[],
                                        MPI_Datatype recvtype, MPI_Comm comm) {
  return nb_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                       nullptr, "MPI_Neighbor_allgatherv");
}
AMPI_PMPI_ALIAS(MPI_Neighbor_allgatherv)

extern "C" int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                         void *recvbuf, const int recvcounts[], const int displs[],
                                         MPI_Datatype recvtype, MPI_Comm comm,
                                         MPI_Request *request) {
  return nb_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                       request, "MPI_Ineighbor_allgatherv");
}
AMPI_PMPI_ALIAS(MPI_Ineighbor_allgatherv)

extern "C" int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                      void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                      MPI_Comm comm) {
  return nb_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, nullptr,
                     "MPI_Neighbor_alltoall");
}
AMPI_PMPI_ALIAS(MPI_Neighbor_alltoall)

extern "C" int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                       void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                       MPI_Comm comm, MPI_Request *request) {
  return nb_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request,
                     "MPI_Ineighbor_alltoall");
}
AMPI_PMPI_ALIAS(MPI_Ineighbor_alltoall)

extern "C" int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                                       const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                       const int recvcounts[], const int rdispls[],
                                       MPI_Datatype recvtype, MPI_Comm comm) {
  return nb_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                      recvtype, comm, nullptr, "MPI_Neighbor_alltoallv");
}
AMPI_PMPI_ALIAS(MPI_Neighbor_alltoallv)

extern "C" int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                                        const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                        const int recvcounts[], const int rdispls[],
                                        MPI_Datatype recvtype, MPI_Comm comm,
                                        MPI_Request *request) {
  return nb_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                      recvtype, comm, request, "MPI_Ineighbor_alltoallv");
}
AMPI_PMPI_ALIAS(MPI_Ineighbor_alltoallv)

extern "C" int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                                       const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                       void *recvbuf, const int recvcounts[],
                                       const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                       MPI_Comm comm) {
  return nb_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                      recvtypes, comm, nullptr, "MPI_Neighbor_alltoallw");
}
AMPI_PMPI_ALIAS(MPI_Neighbor_alltoallw)

extern "C" int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                                        const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                        void *recvbuf, const int recvcounts[],
                                        const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                        MPI_Comm comm, MPI_Request *request) {
  return nb_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                      recvtypes, comm, request, "MPI_Ineighbor_alltoallw");
}
AMPI_PMPI_ALIAS(MPI_Ineighbor_alltoallw)

// ---- persistent collectives (MPI-4.0 section 6.13): the non-blocking form's checks and
// algorithm, started by MPI_Start (coll_common.hpp, Call::launch) ----

extern "C" int PMPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                                MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  return gather_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                     ReqArg{request, info}, "MPI_Gather_init");
}
AMPI_PMPI_ALIAS(MPI_Gather_init)

extern "C" int PMPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, const int recvcounts[], const int displs[],
                                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request) {
  return gatherv_impl(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                      comm, ReqArg{request, info}, "MPI_Gatherv_init");
}
AMPI_PMPI_ALIAS(MPI_Gatherv_init)

extern "C" int PMPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                                 MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  return scatter_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                      ReqArg{request, info}, "MPI_Scatter_init");
}
AMPI_PMPI_ALIAS(MPI_Scatter_init)

extern "C" int PMPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[],
                                  MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                  MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request) {
  return scatterv_impl(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                       comm, ReqArg{request, info}, "MPI_Scatterv_init");
}
AMPI_PMPI_ALIAS(MPI_Scatterv_init)

extern "C" int PMPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                   MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  return allgather_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                        ReqArg{request, info}, "MPI_Allgather_init");
}
AMPI_PMPI_ALIAS(MPI_Allgather_init)

extern "C" int PMPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, const int recvcounts[], const int displs[],
                                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                    MPI_Request *request) {
  return allgatherv_impl(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                         ReqArg{request, info}, "MPI_Allgatherv_init");
}
AMPI_PMPI_ALIAS(MPI_Allgatherv_init)

extern "C" int PMPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  return alltoall_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                       ReqArg{request, info}, "MPI_Alltoall_init");
}
AMPI_PMPI_ALIAS(MPI_Alltoall_init)

extern "C" int PMPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                   MPI_Info info, MPI_Request *request) {
  return alltoallv_impl(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                        recvtype, comm, ReqArg{request, info}, "MPI_Alltoallv_init");
}
AMPI_PMPI_ALIAS(MPI_Alltoallv_init)

extern "C" int PMPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                   const MPI_Datatype sendtypes[], void *recvbuf,
                                   const int recvcounts[], const int rdispls[],
                                   const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request) {
  Call call("MPI_Alltoallw_init", comm, ReqArg{request, info});
  if (!call) return call.err;
  return alltoallw_impl(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                        recvtypes, call.peers(), call.peers(), call);
}
AMPI_PMPI_ALIAS(MPI_Alltoallw_init)

extern "C" int PMPI_Neighbor_allgather_init(const void *sendbuf, int sendcount,
                                            MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                            MPI_Request *request) {
  return nb_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                      ReqArg{request, info}, "MPI_Neighbor_allgather_init");
}
AMPI_PMPI_ALIAS(MPI_Neighbor_allgather_init)

extern "C" int PMPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount,
                                             MPI_Datatype sendtype, void *recvbuf,
                                             const int recvcounts[], const int displs[],
                                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                             MPI_Request *request) {
  return nb_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                       ReqArg{request, info}, "MPI_Neighbor_allgatherv_init");
}
AMPI_PMPI_ALIAS(MPI_Neighbor_allgatherv_init)

extern "C" int PMPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount,
                                           MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                           MPI_Request *request) {
  return nb_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                     ReqArg{request, info}, "MPI_Neighbor_alltoall_init");
}
AMPI_PMPI_ALIAS(MPI_Neighbor_alltoall_init)

extern "C" int PMPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[],
                                            const int sdispls[], MPI_Datatype sendtype,
                                            void *recvbuf, const int recvcounts[],
                                            const int rdispls[], MPI_Datatype recvtype,
                                            MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  return nb_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                      recvtype, comm, ReqArg{request, info}, "MPI_Neighbor_alltoallv_init");
}
AMPI_PMPI_ALIAS(MPI_Neighbor_alltoallv_init)

extern "C" int PMPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                            const MPI_Aint sdispls[],
                                            const MPI_Datatype sendtypes[], void *recvbuf,
                                            const int recvcounts[], const MPI_Aint rdispls[],
                                            const MPI_Datatype recvtypes[], MPI_Comm comm,
                                            MPI_Info info, MPI_Request *request) {
  return nb_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                      recvtypes, comm, ReqArg{request, info}, "MPI_Neighbor_alltoallw_init");
}
AMPI_PMPI_ALIAS(MPI_Neighbor_alltoallw_init)
