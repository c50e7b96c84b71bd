// src/p2p/mprobe.cpp — matched probes (see mprobe.hpp). A taken message leaves the matching queues
// (RankState::matched holds it); MPI_Mrecv puts it back under a private matching context
// that no communicator has and receives it there with the ordinary receive path, so local, eager,
// rendezvous and remote messages all work unchanged.
#include "p2p/mprobe.hpp"

#include "core/pe.hpp"

namespace ampi::p2p {

namespace {

// No communicator gets this context (they count up from 4).
constexpr std::uint32_t kMrecvContext = 0xfffffffeu;

Matched take(Rank &self, const Message &probed, MPI_Comm comm) {
  // The queues hand out const views; the message is ours to take.
  auto &m = const_cast<Message &>(probed);
  self.p2p.matching.remove_unexpected(m);
  // The whole handle, generation included (a positive int: the message prefix is 0x74).
  const auto slot = static_cast<unsigned>(self.p2p.matched.insert(MatchedMessage{&m, comm}));
  return {slot, comm, m.envelope.source, m.envelope.tag, m.bytes};
}

} // namespace

const Message *poll_probe(std::uint32_t context, int source, int tag) {
  if (const Message *m = iprobe(context, source, tag)) return m;
  Pe::get().yield();
  return iprobe(context, source, tag);
}

std::optional<Matched> improbe(std::uint32_t context, int source, int tag, MPI_Comm comm) {
  const Message *m = poll_probe(context, source, tag);
  if (!m) return std::nullopt;
  return take(Pe::get().current(), *m, comm);
}

Matched mprobe(std::uint32_t context, int source, int tag, MPI_Comm comm, const char *call) {
  const Message &m = probe(context, source, tag, call);
  return take(Pe::get().current(), m, comm);
}

std::optional<Matched> matched(unsigned slot) {
  const RankState &p = Pe::get().current().p2p;
  const MatchedMessage *mm = p.matched.get(static_cast<handles::Handle>(slot));
  if (!mm || !mm->message) return std::nullopt;
  return Matched{slot, mm->comm, mm->message->envelope.source, mm->message->envelope.tag,
                 mm->message->bytes};
}

void start_mrecv(Request &req, unsigned slot, const Data &d) {
  RankState &p = req.owner->p2p;
  const auto h = static_cast<handles::Handle>(slot);
  Message &m = *p.matched.get(h)->message;
  p.matched.erase(h);
  // Back into the queues where only this receive can match it (the receive takes it at once).
  m.envelope.context = kMrecvContext;
  p.matching.add_unexpected(m);
  start_recv(req, kMrecvContext, m.envelope.source, m.envelope.tag, d);
}

} // namespace ampi::p2p
