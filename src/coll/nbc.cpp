// src/coll/nbc.cpp — the progress-driven schedules of non-blocking collectives (see nbc.hpp): a
// Schedule is a list of rounds; a round's messages start together once the previous round's are
// complete and its local work (a reduction, a copy) has run. The rank owns its schedules
// (coll::RankState::schedules); a message's completion (p2p::Request::on_complete, on whichever
// rank completes it) counts down its round and queues the schedule on its rank when the round is
// over; p2p::complete() then wakes the rank, whose next Pe::block/yield advances it.
#include "coll/nbc.hpp"

#include "coll/pe_coll.hpp"
#include "copy/copy.hpp"
#include "core/pe.hpp"
#include "p2p/p2p.hpp"

#include <algorithm>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

namespace ampi::coll {

namespace {

void copy_bytes(void *dst, const void *src, std::size_t bytes) {
  if (bytes && dst != src) copy::copy(dst, src, bytes);
}

class Schedule final : public Progress {
public:
  Schedule(Rank &owner, p2p::Request &req, const Reducer &op, std::size_t count)
      : op(op), count(count), owner_(owner), req_(req) {}
  Schedule(const Schedule &) = delete;
  Schedule &operator=(const Schedule &) = delete;

  // Opens the next round.
  void round() { rounds_.emplace_back(); }
  void isend(const comm::Comm &c, int dest, int tag, const void *buf, std::size_t bytes) {
    add({true, &c, dest, tag, const_cast<void *>(buf), bytes});
  }
  void irecv(const comm::Comm &c, int source, int tag, void *buf, std::size_t bytes) {
    add({false, &c, source, tag, buf, bytes});
  }
  // The round's local work once its messages are complete: inout = in op inout (in rank order:
  // `in` from lower ranks), then, if `copy_to`, inout copied there.
  void reduce(const void *in, void *inout, void *copy_to = nullptr) {
    Round &r = rounds_.back();
    r.red_in = in;
    r.red_inout = inout;
    r.copy_to = copy_to;
  }
  void then(std::function<void()> f) { rounds_.back().custom = std::move(f); }
  // Room for `n` more rounds, so that opening them does not move the earlier ones.
  void reserve(std::size_t n) { rounds_.reserve(rounds_.size() + n); }
  // A buffer as long-lived as the schedule; the first small one is inside it (no allocation).
  std::byte *scratch(std::size_t bytes) {
    if (bytes <= sizeof small_ && !small_used_) {
      small_used_ = true;
      return small_;
    }
    return buffers_.emplace_back(std::make_unique_for_overwrite<std::byte[]>(bytes ? bytes : 1))
        .get();
  }
  // The first round waits for one release() (another rank's arrival), from any rank of the PE.
  void hold() { ++pending_; }
  void release() {
    if (--pending_ == 0) due();
    owner_.pe.wake(owner_);
  }

  bool advance() override {
    advancing_ = true;
    while (pending_ == 0) {
      if (cur_ >= 0) finish_round(rounds_[static_cast<std::size_t>(cur_)]);
      if (static_cast<std::size_t>(++cur_) == rounds_.size()) {
        advancing_ = false;
        p2p::complete(req_); // (releases it if MPI_Request_free'd)
        return true;
      }
      post(rounds_[static_cast<std::size_t>(cur_)]);
    }
    advancing_ = false;
    return false;
  }

  p2p::Request &request() { return req_; }

  const Reducer op;
  const std::size_t count;
  comm::Comm comm;                        // what the messages use of the caller's communicator
  std::shared_ptr<const PeLayout> layout; // PE-aware: the leaders' communicator

private:
  struct Msg {
    bool send;
    const comm::Comm *c;
    int peer, tag;
    void *buf;
    std::size_t bytes;
  };
  struct Round {
    Msg msgs[2];
    int n = 0;
    const void *red_in = nullptr;
    void *red_inout = nullptr;
    void *copy_to = nullptr;
    std::function<void()> custom;
  };

  void add(const Msg &m) {
    Round &r = rounds_.back();
    r.msgs[r.n++] = m;
  }
  void post(Round &r) {
    pending_ = r.n;
    for (int i = 0; i < r.n; ++i) {
      const Msg &m = r.msgs[i];
      p2p::Request &q = reqs_[i];
      q.owner = &owner_;
      q.on_complete = on_message;
      q.on_complete_arg = this;
      if (m.send)
        p2p::start_send(q, {m.c->coll_context(), m.c->rank, m.tag, m.c->world_rank(m.peer)}, m.buf,
                        m.bytes, p2p::Mode::Standard);
      else
        p2p::start_recv(q, m.c->coll_context(), m.peer, m.tag, m.buf, m.bytes);
    }
  }
  void finish_round(Round &r) {
    if (r.red_inout) {
      op(r.red_in, r.red_inout, count);
      if (r.copy_to) copy_bytes(r.copy_to, r.red_inout, count * op.extent);
    }
    if (r.custom) r.custom();
  }
  // A message of the current round is complete (on whichever rank of the PE completed it).
  static void on_message(p2p::Request &q) {
    auto *s = static_cast<Schedule *>(q.on_complete_arg);
    if (--s->pending_ == 0) s->due();
  }
  void due() {
    if (!advancing_) owner_.coll.ready.push_back(this); // (the caller wakes the owner)
  }

  Rank &owner_;
  p2p::Request &req_;
  std::vector<Round> rounds_;
  p2p::Request reqs_[2];
  std::vector<std::unique_ptr<std::byte[]>> buffers_;
  alignas(16) std::byte small_[64];
  bool small_used_ = false;
  int cur_ = -1;
  int pending_ = 0;
  bool advancing_ = false;
};

// Hands the schedule to its rank and takes its first steps.
void launch(Rank &self, std::unique_ptr<Schedule> s) {
  Schedule *p = s.get();
  self.coll.schedules.push_back(std::move(s));
  if (p->advance()) std::erase_if(self.coll.schedules, [p](const auto &q) { return q.get() == p; });
}

// Recursive doubling (as coll.cpp's allreduce up to kAllreduceDoublingMax) on `acc`, which holds
// this rank's input; the first 2 * rem ranks fold pairwise so that a power of two takes part.
void add_allreduce(Schedule &s, const comm::Comm &c, int tag, std::byte *acc) {
  const int p = c.size(), r = c.rank;
  if (p == 1) return;
  const std::size_t bytes = s.count * s.op.extent;
  std::byte *tmp = s.scratch(bytes);
  int pof2 = 1;
  while (pof2 * 2 <= p)
    pof2 *= 2;
  const int rem = p - pof2;
  int steps = 2;
  for (int m = 1; m < pof2; m <<= 1)
    ++steps;
  s.reserve(static_cast<std::size_t>(steps) + 1); // (+1: the PE-aware form's last round)
  int newrank;
  if (r < 2 * rem) {
    s.round();
    if (r % 2 == 0) {
      s.isend(c, r + 1, tag, acc, bytes);
      newrank = -1;
    } else {
      s.irecv(c, r - 1, tag, tmp, bytes);
      s.reduce(tmp, acc); // lower rank's data first
      newrank = r / 2;
    }
  } else {
    newrank = r - rem;
  }
  if (newrank >= 0) {
    for (int mask = 1; mask < pof2; mask <<= 1) {
      const int newdst = newrank ^ mask;
      const int dst = newdst < rem ? newdst * 2 + 1 : newdst + rem;
      s.round();
      s.irecv(c, dst, tag, tmp, bytes);
      s.isend(c, dst, tag, acc, bytes);
      if (dst < r)
        s.reduce(tmp, acc);
      else
        s.reduce(acc, tmp, acc);
    }
  }
  if (r < 2 * rem) {
    s.round();
    if (r % 2)
      s.isend(c, r - 1, tag, acc, bytes);
    else
      s.irecv(c, r + 1, tag, acc, bytes);
  }
}

// Combines the local ranks' inputs of `inst` into `acc` (x0 op (x1 op (... op x[n-1])), in rank
// order), reading every input before anything is written but `acc`.
void combine(const Instance &inst, const Reducer &op, std::size_t count, void *acc) {
  const int n = static_cast<int>(inst.slots.size());
  auto input = [&](int k) {
    const Instance::Slot &s = inst.slots[static_cast<std::size_t>(k)];
    return s.in ? s.in : s.out;
  };
  copy_bytes(acc, input(n - 1), count * op.extent);
  for (int k = n - 2; k >= 0; --k)
    op(input(k), acc, count);
}

// Copies `acc` into every local rank's output and completes their requests (all but `skip`'s).
void deliver(Pe &pe, Instance &inst, const void *acc, std::size_t bytes, const p2p::Request *skip) {
  for (const Instance::Slot &s : inst.slots)
    copy_bytes(s.out, acc, bytes);
  for (const Instance::Slot &s : inst.slots)
    if (s.req != skip) p2p::complete(*s.req);
  pe.coll().remove(inst);
}

// The PE-aware form (pe_coll.cpp's allreduce, without blocking); false where it does not apply.
bool pe_iallreduce(Rank &self, const comm::Comm &c, int tag, const void *send, void *recv,
                   std::size_t count, const Reducer &op, p2p::Request &req) {
  if (count == 0 || c.size() == 1) return false;
  const PeLayout &l = pe_layout(c);
  if (!l.usable || (!op.commutative && !l.blocks)) return false;
  Pe &pe = self.pe;
  const int n = static_cast<int>(l.local.size()), li = l.local_index(c.rank);
  const std::size_t bytes = count * op.extent;
  Instance &inst = pe.coll().join({c.context, c.world_rank(0), tag, 0}, n);
  inst.slots[static_cast<std::size_t>(li)] = {send, recv, &self, &req};
  const bool last = ++inst.arrived == n;
  if (l.leaders.size() == 1) {
    // One PE: the last to arrive does it all now (into the last rank's output, as pe_coll.cpp).
    if (last) {
      void *acc = inst.slots[static_cast<std::size_t>(n - 1)].out;
      combine(inst, op, count, acc);
      deliver(pe, inst, acc, bytes, nullptr);
    }
    return true;
  }
  if (li != 0) {
    // A member: the leader completes its request; the last to arrive lets the leader go on.
    if (last) static_cast<Schedule *>(inst.leader_nbc)->release();
    return true;
  }
  auto s = std::make_unique<Schedule>(self, req, op, count);
  s->layout = c.pe_layout;
  std::byte *acc = s->scratch(bytes);
  if (!last) {
    s->hold();
    inst.leader_nbc = s.get();
  }
  Schedule *sp = s.get();
  s->reserve(1);
  s->round();
  s->then([&inst, sp, acc] { combine(inst, sp->op, sp->count, acc); });
  add_allreduce(*s, s->layout->leaders, leader_tag(tag), acc);
  s->round();
  s->then([&pe, &inst, sp, acc, bytes] {
    deliver(pe, inst, acc, bytes, &sp->request()); // its own completes when the schedule ends
  });
  launch(self, std::move(s));
  return true;
}

} // namespace

void iallreduce(Rank &self, const comm::Comm &c, int tag, const void *send, void *recv,
                std::size_t count, const Reducer &op, p2p::Request &req) {
  if (pe_iallreduce(self, c, tag, send, recv, count, op, req)) return;
  const std::size_t bytes = count * op.extent;
  if (send) copy_bytes(recv, send, bytes);
  auto s = std::make_unique<Schedule>(self, req, op, count);
  s->comm.context = c.context;
  s->comm.rank = c.rank;
  s->comm.group = c.group;
  s->comm.handle = c.handle;
  if (count) add_allreduce(*s, s->comm, tag, static_cast<std::byte *>(recv));
  launch(self, std::move(s));
}

} // namespace ampi::coll
