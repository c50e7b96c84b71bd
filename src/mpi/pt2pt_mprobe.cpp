// src/mpi/pt2pt_mprobe.cpp — matched probes: argument checks and the message handles
// (handles::kind::message with the slot p2p keeps the message in, p2p/mprobe.hpp) of MPI_Mprobe,
// MPI_Improbe, MPI_Mrecv and MPI_Imrecv. MPI_PROC_NULL gives MPI_MESSAGE_NO_PROC.
#include "handles/handle.hpp"
#include "mpi/pt2pt.hpp"
#include "p2p/mprobe.hpp"

using namespace ampi;
using namespace ampi::mpi;
using namespace ampi::mpi::pt2pt;

namespace {

int mprobe_common(const char *fn, int source, int tag, MPI_Comm comm, int *flag,
                  MPI_Message *message, MPI_Status *status) {
  auto self = enter(fn);
  int err = MPI_SUCCESS;
  comm::Comm *c = find_comm(*self, comm, fn, &err);
  if (!c) return err;
  if (!message) return raise(comm, MPI_ERR_ARG, fn, "message=NULL");
  const pt2pt::Probed p = pt2pt::probe_checked(fn, *c, comm, source, tag, flag, status);
  if (p.err != MPI_SUCCESS) return p.err;
  if (p.proc_null) {
    *message = MPI_MESSAGE_NO_PROC;
    return MPI_SUCCESS;
  }
  std::optional<p2p::Matched> m;
  if (flag) {
    m = p2p::improbe(c->context, source, tag, comm);
    *flag = m.has_value();
    if (!m) {
      *message = MPI_MESSAGE_NULL; // none yet
      return MPI_SUCCESS;
    }
  } else {
    m = p2p::mprobe(c->context, source, tag, comm, fn);
  }
  *message = static_cast<MPI_Message>(m->slot);
  pt2pt::message_status(m->source, m->tag, m->bytes, status);
  return MPI_SUCCESS;
}

int mrecv_common(const char *fn, void *buf, int count, MPI_Datatype type, MPI_Message *message,
                 MPI_Status *status, MPI_Request *request) {
  auto self = enter(fn);
  if (!message) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "message=NULL");
  if (*message == MPI_MESSAGE_NO_PROC) {
    int err = MPI_SUCCESS;
    if (count < 0) return raise(MPI_COMM_WORLD, MPI_ERR_COUNT, fn, "count=%d is negative", count);
    // As pt2pt::check: an empty receive from no process may name MPI_DATATYPE_NULL.
    if (!(type == MPI_DATATYPE_NULL && count == 0) &&
        !find_type(*self, type, MPI_COMM_WORLD, fn, &err))
      return err;
    if (request)
      *request = completed_request(*self, MPI_COMM_WORLD, p2p::Kind::Recv);
    else
      proc_null_status(status);
    *message = MPI_MESSAGE_NULL;
    return MPI_SUCCESS;
  }
  const auto slot = static_cast<unsigned>(*message);
  const std::optional<p2p::Matched> m = p2p::matched(slot);
  if (!m)
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "message 0x%x is not a matched message%s",
                 static_cast<unsigned>(*message),
                 *message == MPI_MESSAGE_NULL ? " (MPI_MESSAGE_NULL)" : "");
  Checked ck = check(*self, fn, buf, count, type, m->source, m->tag, m->comm, true);
  if (!ck.comm) return ck.err;
  *message = MPI_MESSAGE_NULL;
  return recv_checked(*self, fn, ck, static_cast<int>(slot), m->source, m->tag, buf, count, type,
                      m->comm, status, request);
}

} // namespace

extern "C" int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message,
                           MPI_Status *status) {
  return mprobe_common("MPI_Mprobe", source, tag, comm, nullptr, message, status);
}
AMPI_PMPI_ALIAS(MPI_Mprobe)

extern "C" int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                            MPI_Status *status) {
  if (!flag) return raise(comm, MPI_ERR_ARG, "MPI_Improbe", "flag=NULL");
  return mprobe_common("MPI_Improbe", source, tag, comm, flag, message, status);
}
AMPI_PMPI_ALIAS(MPI_Improbe)

extern "C" int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                          MPI_Status *status) {
  return mrecv_common("MPI_Mrecv", buf, count, datatype, message, status, nullptr);
}
AMPI_PMPI_ALIAS(MPI_Mrecv)

extern "C" int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                           MPI_Request *request) {
  if (!request) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Imrecv", "request=NULL");
  return mrecv_common("MPI_Imrecv", buf, count, datatype, message, MPI_STATUS_IGNORE, request);
}
AMPI_PMPI_ALIAS(MPI_Imrecv)
