// src/mpi/coll.cpp — the MPI collective functions (barrier, bcast, reduce, allreduce) and local
// reductions: argument checks and datatype/operation resolution over src/coll.
#include "coll/coll.hpp"
#include "mpi/common.hpp"

#include <cstring>

using namespace ampi;
using namespace ampi::mpi;

namespace {

struct Args {
  comm::Comm *comm = nullptr;
  std::size_t extent = 0;
  int err = MPI_SUCCESS;
};

Args check(const char *fn, MPI_Comm comm, int count, MPI_Datatype type) {
  Args a;
  auto self = enter(fn);
  a.comm = find_comm(*self, comm, fn, &a.err);
  if (!a.comm) return a;
  if (count < 0) {
    a.err = raise(comm, MPI_ERR_COUNT, fn, "count=%d is negative", count);
    a.comm = nullptr;
    return a;
  }
  a.extent = element_extent(type, comm, fn, &a.err);
  if (!a.extent) a.comm = nullptr;
  return a;
}

bool root_ok(const comm::Comm &c, int root) {
  return root >= 0 && root < c.size();
}

// The kernel for (op, type), or 0 after raising MPI_ERR_OP.
datatype::ReduceFn find_op(MPI_Op op, MPI_Datatype type, MPI_Comm comm, const char *fn, int *err) {
  datatype::ReduceFn f = datatype::reduction(op, type);
  if (!f) {
    const char *name = datatype::op_name(op);
    if (op == MPI_OP_NULL)
      *err = raise(comm, MPI_ERR_OP, fn, "op=MPI_OP_NULL");
    else if (name)
      *err =
          raise(comm, MPI_ERR_OP, fn, "%s is not defined for datatype %s", name, type_label(type));
    else
      *err = raise(comm, MPI_ERR_OP, fn,
                   "op is not a predefined operation (user-defined operations are not "
                   "supported yet)");
  }
  return f;
}

} // namespace

extern "C" int PMPI_Barrier(MPI_Comm comm) {
  static constexpr const char *fn = "MPI_Barrier";
  auto self = enter(fn);
  int err = MPI_SUCCESS;
  comm::Comm *c = find_comm(*self, comm, fn, &err);
  if (!c) return err;
  coll::barrier(*c);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Barrier)

extern "C" int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  static constexpr const char *fn = "MPI_Bcast";
  Args a = check(fn, comm, count, datatype);
  if (!a.comm) return a.err;
  if (!root_ok(*a.comm, root))
    return raise(comm, MPI_ERR_ROOT, fn, "root=%d is not a rank of the communicator (size %d)",
                 root, a.comm->size());
  if (!buffer && count > 0)
    return raise(comm, MPI_ERR_BUFFER, fn, "buffer=NULL with count=%d", count);
  coll::bcast(*a.comm, buffer, static_cast<std::size_t>(count) * a.extent, root);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Bcast)

extern "C" int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, int root, MPI_Comm comm) {
  static constexpr const char *fn = "MPI_Reduce";
  Args a = check(fn, comm, count, datatype);
  if (!a.comm) return a.err;
  if (!root_ok(*a.comm, root))
    return raise(comm, MPI_ERR_ROOT, fn, "root=%d is not a rank of the communicator (size %d)",
                 root, a.comm->size());
  const bool at_root = a.comm->rank == root;
  if (sendbuf == MPI_IN_PLACE && !at_root)
    return raise(comm, MPI_ERR_BUFFER, fn, "sendbuf=MPI_IN_PLACE is only allowed at the root");
  if (at_root && sendbuf != MPI_IN_PLACE && sendbuf == recvbuf && count > 0)
    return raise(comm, MPI_ERR_BUFFER, fn,
                 "sendbuf and recvbuf are the same buffer (use MPI_IN_PLACE)");
  if (count > 0 && ((!sendbuf) || (at_root && !recvbuf)))
    return raise(comm, MPI_ERR_BUFFER, fn, "sendbuf or recvbuf is NULL with count=%d", count);
  int err = MPI_SUCCESS;
  datatype::ReduceFn f = find_op(op, datatype, comm, fn, &err);
  if (!f) return err;
  coll::reduce(*a.comm, sendbuf == MPI_IN_PLACE ? nullptr : sendbuf, recvbuf,
               static_cast<std::size_t>(count), {f, a.extent}, root);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Reduce)

extern "C" int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm) {
  static constexpr const char *fn = "MPI_Allreduce";
  Args a = check(fn, comm, count, datatype);
  if (!a.comm) return a.err;
  if (sendbuf != MPI_IN_PLACE && sendbuf == recvbuf && count > 0)
    return raise(comm, MPI_ERR_BUFFER, fn,
                 "sendbuf and recvbuf are the same buffer (use MPI_IN_PLACE)");
  if (count > 0 && (!sendbuf || !recvbuf))
    return raise(comm, MPI_ERR_BUFFER, fn, "sendbuf or recvbuf is NULL with count=%d", count);
  int err = MPI_SUCCESS;
  datatype::ReduceFn f = find_op(op, datatype, comm, fn, &err);
  if (!f) return err;
  coll::allreduce(*a.comm, sendbuf == MPI_IN_PLACE ? nullptr : sendbuf, recvbuf,
                  static_cast<std::size_t>(count), {f, a.extent});
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Allreduce)

extern "C" int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count,
                                 MPI_Datatype datatype, MPI_Op op) {
  static constexpr const char *fn = "MPI_Reduce_local";
  Args a = check(fn, MPI_COMM_WORLD, count, datatype);
  if (!a.comm) return a.err;
  if (count > 0 && (!inbuf || !inoutbuf))
    return raise(MPI_COMM_WORLD, MPI_ERR_BUFFER, fn, "inbuf or inoutbuf is NULL");
  int err = MPI_SUCCESS;
  datatype::ReduceFn f = find_op(op, datatype, MPI_COMM_WORLD, fn, &err);
  if (!f) return err;
  f(inbuf, inoutbuf, static_cast<std::size_t>(count));
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Reduce_local)

extern "C" int PMPI_Op_commutative(MPI_Op op, int *commute) {
  static constexpr const char *fn = "MPI_Op_commutative";
  if (!commute) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "commute=NULL");
  if (!datatype::op_name(op))
    return raise(MPI_COMM_WORLD, MPI_ERR_OP, fn, "op is not a valid operation");
  *commute = 1; // every predefined operation is commutative
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Op_commutative)
