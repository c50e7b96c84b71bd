// src/mpi/pt2pt_mprobe.cpp — matched probes: MPI_Mprobe / MPI_Improbe take the matched message out
// of the rank's matching queues and give it a handle (0x74000000 | slot in Rank::matched_messages);
// MPI_Mrecv / MPI_Imrecv put it back under a private matching context that nothing else uses and
// receive it there with the ordinary receive path (so local, eager, rendezvous and remote
// messages all work unchanged). MPI_PROC_NULL gives MPI_MESSAGE_NO_PROC.
#include "mpi/pt2pt.hpp"

using namespace ampi;
using namespace ampi::mpi;
using namespace ampi::mpi::pt2pt;

namespace {

constexpr unsigned kMessageKind = 0x74000000u;
// No communicator gets this context (they count up from 4).
constexpr std::uint32_t kMrecvContext = 0xfffffffeu;

int mprobe_common(const char *fn, int source, int tag, MPI_Comm comm, int *flag,
                  MPI_Message *message, MPI_Status *status) {
  auto self = enter(fn);
  int err = MPI_SUCCESS;
  comm::Comm *c = find_comm(*self, comm, fn, &err);
  if (!c) return err;
  if (!message) return raise(comm, MPI_ERR_ARG, fn, "message=NULL");
  const pt2pt::Probed p = pt2pt::probe_checked(*self, fn, *c, comm, source, tag, flag, status);
  if (p.proc_null) *message = MPI_MESSAGE_NO_PROC;
  if (!p.message) {
    if (p.err == MPI_SUCCESS && !p.proc_null) *message = MPI_MESSAGE_NULL; // none yet (Improbe)
    return p.err;
  }
  // The queues hand out const views; the message is ours to take.
  auto &m = const_cast<p2p::Message &>(*p.message);
  self->p2p.matching.remove_unexpected(m);
  unsigned slot;
  if (!self->p2p.free_message_slots.empty()) {
    slot = self->p2p.free_message_slots.back();
    self->p2p.free_message_slots.pop_back();
  } else {
    slot = static_cast<unsigned>(self->p2p.matched_messages.size());
    self->p2p.matched_messages.emplace_back();
  }
  self->p2p.matched_messages[slot] = {&m, comm};
  *message = static_cast<MPI_Message>(kMessageKind | slot);
  pt2pt::message_status(m, status);
  return MPI_SUCCESS;
}

int mrecv_common(const char *fn, void *buf, int count, MPI_Datatype type, MPI_Message *message,
                 MPI_Status *status, MPI_Request *request) {
  auto self = enter(fn);
  if (!message) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "message=NULL");
  if (*message == MPI_MESSAGE_NO_PROC) {
    int err = MPI_SUCCESS;
    if (count < 0) return raise(MPI_COMM_WORLD, MPI_ERR_COUNT, fn, "count=%d is negative", count);
    if (!find_type(*self, type, MPI_COMM_WORLD, fn, &err)) return err;
    if (request)
      *request = completed_request(*self, MPI_COMM_WORLD, p2p::Kind::Recv);
    else
      proc_null_status(status);
    *message = MPI_MESSAGE_NULL;
    return MPI_SUCCESS;
  }
  const unsigned slot = static_cast<unsigned>(*message) ^ kMessageKind;
  if (slot >= self->p2p.matched_messages.size() || !self->p2p.matched_messages[slot].message)
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "message 0x%x is not a matched message%s",
                 static_cast<unsigned>(*message),
                 *message == MPI_MESSAGE_NULL ? " (MPI_MESSAGE_NULL)" : "");
  const p2p::MatchedMessage mm = self->p2p.matched_messages[slot];
  p2p::Message &m = *mm.message;
  const int source = m.envelope.source, tag = m.envelope.tag;
  Checked ck = check(*self, fn, buf, count, type, source, tag, mm.comm, true);
  if (!ck.comm) return ck.err;
  self->p2p.matched_messages[slot] = {};
  self->p2p.free_message_slots.push_back(slot);
  *message = MPI_MESSAGE_NULL;
  // Back into the queues where only this receive can match it (the receive takes it at once).
  m.envelope.context = kMrecvContext;
  self->p2p.matching.add_unexpected(m);
  return recv_checked(*self, fn, ck, kMrecvContext, source, tag, buf, count, type, mm.comm, status,
                      request);
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
