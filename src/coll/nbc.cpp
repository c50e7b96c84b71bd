// src/coll/nbc.cpp — the progress-driven schedules of non-blocking collectives (see nbc.hpp): a
// Schedule is a list of rounds; a round's messages start together once the previous round's are
// complete and its local work (reductions, copies) has run. The rank owns its schedules
// (coll::RankState::schedules); a message's completion (p2p::Request::on_complete, on whichever
// rank completes it) counts down its round and queues the schedule on its rank when the round is
// over; p2p::complete() then wakes the rank, whose next Pe::block/yield advances it.
//
// The algorithms are coll.cpp's for the same sizes (dissemination barrier, binomial broadcast and
// reduce, recursive-doubling allreduce, Bruck allgather), and pe_coll.cpp's PE-aware forms: the
// ranks of one PE meet in a per-PE instance (coll/pe_state.hpp) without blocking; the leader's
// schedule waits for the last local arrival (hold/release), combines or gathers, runs the flat
// schedule among the PEs' leaders and delivers to every local rank.
#include "coll/nbc.hpp"

#include "coll/pe_coll.hpp"
#include "copy/copy.hpp"
#include "core/pe.hpp"
#include "p2p/p2p.hpp"

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

namespace ampi::coll {

namespace {

void copy_bytes(void *dst, const void *src, std::size_t bytes) {
  if (bytes && dst != src) copy::copy(dst, src, bytes);
}

std::byte *at(void *p, std::size_t off) {
  return static_cast<std::byte *>(p) + off;
}

// The PE-aware forms' local work (pe_coll.cpp's steps on an instance of the PE's ranks).
void combine(const Instance &inst, const Reducer &op, std::size_t count, void *acc);
void collect_blocks(const Instance &inst, const PeLayout &l, std::byte *dst, std::size_t bytes);
void copy_out(const Instance &inst, const void *src, std::size_t bytes);
void finish(Pe &pe, Instance &inst, const p2p::Request *skip);

class Schedule final : public Progress {
public:
  explicit Schedule(Rank &owner) : owner_(owner) {}
  Schedule(const Schedule &) = delete;
  Schedule &operator=(const Schedule &) = delete;

  // A schedule that completes `req`: a spare one of the rank's (its vectors keep their capacity)
  // or a new one.
  static std::unique_ptr<Schedule> make(Rank &self, p2p::Request &req) {
    std::unique_ptr<Schedule> s;
    auto &spares = self.coll.spare_schedules;
    if (!spares.empty()) {
      s.reset(static_cast<Schedule *>(spares.back().release())); // (only this file makes them)
      spares.pop_back();
      s->reset();
    } else {
      s = std::make_unique<Schedule>(self);
    }
    s->req_ = &req;
    return s;
  }

  // Opens the next round.
  void round() {
    rounds_.push_back({static_cast<std::uint32_t>(msgs_.size()), 0,
                       static_cast<std::uint32_t>(locals_.size()), 0});
  }
  void isend(const comm::Comm &c, int dest, int tag, const void *buf, std::size_t bytes) {
    add({true, &c, dest, tag, const_cast<void *>(buf), bytes});
  }
  void irecv(const comm::Comm &c, int source, int tag, void *buf, std::size_t bytes) {
    add({false, &c, source, tag, buf, bytes});
  }
  // The round's local work once its messages are complete, in the order given:
  // inout = in op inout (`in` from lower ranks), then, if `copy_to`, inout copied there;
  void reduce(const void *in, void *inout, void *copy_to = nullptr) {
    local({Local::Kind::Reduce, 0, in, inout, copy_to, 0, nullptr});
  }
  // a copy of `bytes` (the ranges do not overlap);
  void copy(void *dst, const void *src, std::size_t bytes) {
    local({Local::Kind::Copy, 0, src, dst, nullptr, bytes, nullptr});
  }
  // on the PE's instance: its inputs combined into acc (op, count);
  void combine_local(Instance &inst, void *acc) {
    local({Local::Kind::Combine, 0, nullptr, acc, nullptr, 0, &inst});
  }
  // its blocks gathered into `out` at their places (layout);
  void collect_local(Instance &inst, void *out, std::size_t bytes) {
    local({Local::Kind::Collect, 0, nullptr, out, nullptr, bytes, &inst});
  }
  // local rank k's output copied to `dst`;
  void from_slot(Instance &inst, int k, void *dst, std::size_t bytes) {
    local({Local::Kind::FromSlot, k, nullptr, dst, nullptr, bytes, &inst});
  }
  // `src` copied to every local rank's output (to = kAll), to local rank `to`'s only, or none
  // (kNone); then every local rank's request completed but this schedule's own.
  static constexpr int kAll = -2, kNone = -1;
  void deliver(Instance &inst, const void *src, std::size_t bytes, int to) {
    local({Local::Kind::Deliver, to, src, nullptr, nullptr, bytes, &inst});
  }
  // A buffer as long-lived as the schedule; small ones are inside it (no allocation).
  std::byte *scratch(std::size_t bytes) {
    const std::size_t need = (bytes + 15) & ~std::size_t{15};
    if (need <= sizeof small_ - small_used_) {
      std::byte *p = small_ + small_used_;
      small_used_ += need ? need : 16;
      return p;
    }
    return buffers_.emplace_back(std::make_unique_for_overwrite<std::byte[]>(bytes ? bytes : 1))
        .get();
  }
  // The first round waits for one release() (another rank's arrival), from any rank of the PE.
  void hold() { ++pending_; }
  void release() {
    if (--pending_ == 0) due();
    owner_.pe().wake(owner_);
  }

  bool advance() override {
    advancing_ = true;
    while (pending_ == 0) {
      if (cur_ >= 0) finish_round(rounds_[static_cast<std::size_t>(cur_)]);
      if (static_cast<std::size_t>(++cur_) == rounds_.size()) {
        advancing_ = false;
        p2p::complete(*req_); // (releases it if MPI_Request_free'd)
        return true;
      }
      post(rounds_[static_cast<std::size_t>(cur_)]);
    }
    advancing_ = false;
    return false;
  }

  Reducer op;
  std::size_t count = 0;                  // elements, for op
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
  struct Local {
    enum class Kind : unsigned char { Reduce, Copy, Combine, Collect, FromSlot, Deliver } kind;
    int slot;
    const void *src;
    void *dst;
    void *copy_to;
    std::size_t bytes;
    Instance *inst;
  };
  struct Round {
    std::uint32_t msg_first, msg_n, local_first, local_n;
  };

  void reset() {
    op = Reducer{};
    count = 0;
    comm.group.reset();
    layout.reset();
    rounds_.clear();
    msgs_.clear();
    locals_.clear();
    buffers_.clear();
    small_used_ = 0;
    cur_ = -1;
    pending_ = 0;
    advancing_ = false;
  }
  void add(const Msg &m) {
    msgs_.push_back(m);
    ++rounds_.back().msg_n;
  }
  void local(const Local &l) {
    locals_.push_back(l);
    ++rounds_.back().local_n;
  }
  void post(const Round &r) {
    if (r.msg_n > nreqs_) {
      // Between rounds: none of the previous round's requests is in flight any more.
      reqs_ = std::make_unique<p2p::Request[]>(r.msg_n);
      nreqs_ = r.msg_n;
    }
    pending_ = static_cast<int>(r.msg_n);
    for (std::uint32_t i = 0; i < r.msg_n; ++i) {
      const Msg &m = msgs_[r.msg_first + i];
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
  void finish_round(const Round &r) {
    for (std::uint32_t i = 0; i < r.local_n; ++i) {
      const Local &l = locals_[r.local_first + i];
      switch (l.kind) {
      case Local::Kind::Reduce:
        op(l.src, l.dst, count);
        if (l.copy_to) copy_bytes(l.copy_to, l.dst, count * op.extent);
        break;
      case Local::Kind::Copy:
        copy_bytes(l.dst, l.src, l.bytes);
        break;
      case Local::Kind::Combine:
        combine(*l.inst, op, count, l.dst);
        break;
      case Local::Kind::Collect:
        collect_blocks(*l.inst, *layout, static_cast<std::byte *>(l.dst), l.bytes);
        break;
      case Local::Kind::FromSlot:
        copy_bytes(l.dst, l.inst->slots[static_cast<std::size_t>(l.slot)].out, l.bytes);
        break;
      case Local::Kind::Deliver:
        if (l.slot == kAll)
          copy_out(*l.inst, l.src, l.bytes);
        else if (l.slot >= 0)
          copy_bytes(l.inst->slots[static_cast<std::size_t>(l.slot)].out, l.src, l.bytes);
        finish(owner_.pe(), *l.inst, req_); // its own completes when the schedule ends
        break;
      }
    }
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
  p2p::Request *req_ = nullptr;
  std::vector<Round> rounds_;
  std::vector<Msg> msgs_;
  std::vector<Local> locals_;
  std::unique_ptr<p2p::Request[]> reqs_;
  std::uint32_t nreqs_ = 0;
  std::vector<std::unique_ptr<std::byte[]>> buffers_;
  alignas(16) std::byte small_[256];
  std::size_t small_used_ = 0;
  int cur_ = -1;
  int pending_ = 0;
  bool advancing_ = false;
};

// Hands the schedule to its rank and takes its first steps.
void launch(Rank &self, std::unique_ptr<Schedule> s) {
  Schedule *p = s.get();
  self.coll.schedules.push_back(std::move(s));
  if (p->advance()) self.coll.retire(p);
}

// A schedule on a copy of what the messages use of `c` (the caller may free it meanwhile).
std::unique_ptr<Schedule> flat(Rank &self, const comm::Comm &c, p2p::Request &req) {
  auto s = Schedule::make(self, req);
  s->comm.context = c.context;
  s->comm.rank = c.rank;
  s->comm.group = c.group;
  s->comm.handle = c.handle;
  return s;
}

// ---- the flat algorithms (coll.cpp's), as rounds ----

// Dissemination.
void add_barrier(Schedule &s, const comm::Comm &c, int tag) {
  const int p = c.size(), r = c.rank;
  for (int k = 1; k < p; k <<= 1) {
    s.round();
    s.irecv(c, (r - k + p) % p, tag, nullptr, 0);
    s.isend(c, (r + k) % p, tag, nullptr, 0);
  }
}

// Binomial tree from `root`.
void add_bcast(Schedule &s, const comm::Comm &c, int tag, void *buf, std::size_t bytes, int root) {
  const int p = c.size();
  const int vr = (c.rank - root + p) % p;
  int mask = 1;
  while (mask < p) {
    if (vr & mask) {
      s.round();
      s.irecv(c, (vr - mask + root) % p, tag, buf, bytes);
      break;
    }
    mask <<= 1;
  }
  bool opened = false;
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (vr + mask >= p) continue;
    if (!opened) s.round();
    opened = true;
    s.isend(c, (vr + mask + root) % p, tag, buf, bytes);
  }
}

// Binomial reduce of everybody's `acc` (this rank's input, s.count elements) towards `root`
// (through rank 0 for non-commutative operations, whose order that keeps); at the root the result
// ends in `out` (which may be `acc`).
void add_reduce(Schedule &s, const comm::Comm &c, int tag, std::byte *acc, int root, void *out) {
  const int p = c.size(), r = c.rank;
  const std::size_t bytes = s.count * s.op.extent;
  const int target = s.op.commutative ? root : 0;
  const int vr = (r - target + p) % p;
  std::byte *tmp = nullptr;
  for (int mask = 1; mask < p; mask <<= 1) {
    if (vr & mask) {
      s.round();
      s.isend(c, (vr - mask + target) % p, tag, acc, bytes);
      break;
    }
    if (vr + mask < p) {
      if (!tmp) tmp = s.scratch(bytes);
      s.round();
      s.irecv(c, (vr + mask + target) % p, tag, tmp, bytes);
      s.reduce(acc, tmp, acc); // mine (lower ranks) op theirs
    }
  }
  if (target == root) {
    if (r == root && out != acc) {
      s.round();
      s.copy(out, acc, bytes);
    }
  } else if (r == target) {
    s.round();
    s.isend(c, root, tag, acc, bytes);
  } else if (r == root) {
    s.round();
    s.irecv(c, target, tag, out, bytes);
  }
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

// Ring allgather of runs of blocks: run q (of `count[q]` blocks of `bytes`, starting at block
// `first[q]` of `buf`) is rank q's; each rank starts with its own.
void add_ring_allgather(Schedule &s, const comm::Comm &c, int tag, std::byte *buf,
                        const std::vector<int> &first, const std::vector<int> &count,
                        std::size_t bytes) {
  const int p = c.size(), r = c.rank;
  const int right = (r + 1) % p, left = (r - 1 + p) % p;
  auto off = [&](int q) {
    return static_cast<std::size_t>(first[static_cast<std::size_t>(q)]) * bytes;
  };
  auto len = [&](int q) {
    return static_cast<std::size_t>(count[static_cast<std::size_t>(q)]) * bytes;
  };
  for (int step = 0; step < p - 1; ++step) {
    const int sb = (r - step + p) % p, rb = (r - step - 1 + p) % p;
    s.round();
    s.irecv(c, left, tag, buf + off(rb), len(rb));
    s.isend(c, right, tag, buf + off(sb), len(sb));
  }
}

// Bruck: after the step with distance d, tmp holds the blocks of ranks r .. r + 2d - 1; then
// tmp's blocks rotate into place in `recv`, whose block r holds this rank's already.
void add_allgather(Schedule &s, const comm::Comm &c, int tag, std::byte *recv, std::size_t bytes) {
  const int p = c.size(), r = c.rank;
  const auto pz = static_cast<std::size_t>(p);
  std::byte *mine = recv + static_cast<std::size_t>(r) * bytes;
  std::byte *tmp = s.scratch(pz * bytes);
  copy_bytes(tmp, mine, bytes);
  for (int d = 1; d < p; d <<= 1) {
    const auto n = static_cast<std::size_t>(std::min(d, p - d));
    s.round();
    s.irecv(c, (r + d) % p, tag, tmp + static_cast<std::size_t>(d) * bytes, n * bytes);
    s.isend(c, (r - d + p) % p, tag, tmp, n * bytes);
  }
  const std::size_t head = static_cast<std::size_t>(p - r) * bytes;
  s.round();
  s.copy(mine, tmp, head);
  s.copy(recv, tmp + head, static_cast<std::size_t>(r) * bytes);
}

// ---- the PE-aware forms (pe_coll.cpp's, without blocking) ----

// This rank's arrival in the PE's instance of the collective; `last`: every local rank is in.
Instance &arrive(Rank &self, const comm::Comm &c, const PeLayout &l, int tag, const void *in,
                 void *out, p2p::Request &req, bool &last) {
  const int n = static_cast<int>(l.local.size());
  Instance &inst = self.pe().coll().join({c.context, c.world_rank(0), tag, 0}, n);
  inst.slots[static_cast<std::size_t>(l.self)] = {in, out, &self, &req};
  last = ++inst.arrived == n;
  return inst;
}

// Completes every local rank's request (all but `skip`) and retires the instance.
void finish(Pe &pe, Instance &inst, const p2p::Request *skip) {
  for (const Instance::Slot &s : inst.slots)
    if (s.req != skip) p2p::complete(*s.req);
  pe.coll().remove(inst);
}

// The PE-aware layout of `c` if it applies (some PE holds two of its ranks), else nullptr.
const PeLayout *usable(const comm::Comm &c) {
  if (c.size() == 1) return nullptr;
  const PeLayout &l = pe_layout(c);
  return l.usable ? &l : nullptr;
}

// A member (not the PE's leader) of a collective across PEs has arrived: the last one lets the
// leader's schedule go on; the leader completes its request.
void member_arrived(Instance &inst, bool last) {
  if (last) static_cast<Schedule *>(inst.leader_nbc)->release();
}

// The leader's schedule across PEs; its first round waits for the last local rank unless `last`.
std::unique_ptr<Schedule> lead(Rank &self, p2p::Request &req, const comm::Comm &c, Instance &inst,
                               bool last) {
  auto s = Schedule::make(self, req);
  s->layout = c.pe_layout;
  if (!last) {
    s->hold();
    inst.leader_nbc = s.get();
  }
  return s;
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

// The local ranks' blocks into `dst` at their place in communicator order (blocks of `bytes`); a
// rank whose input is in place has its block in its own output.
void collect_blocks(const Instance &inst, const PeLayout &l, std::byte *dst, std::size_t bytes) {
  for (std::size_t k = 0; k < inst.slots.size(); ++k) {
    const auto off = static_cast<std::size_t>(l.local[k]) * bytes;
    const Instance::Slot &s = inst.slots[k];
    copy_bytes(dst + off, s.in ? s.in : at(s.out, off), bytes);
  }
}

// `src` into every local rank's output but `src` itself.
void copy_out(const Instance &inst, const void *src, std::size_t bytes) {
  for (const Instance::Slot &s : inst.slots)
    copy_bytes(s.out, src, bytes);
}

bool pe_ibarrier(Rank &self, const comm::Comm &c, int tag, p2p::Request &req) {
  const PeLayout *l = usable(c);
  if (!l) return false;
  Pe &pe = self.pe();
  bool last;
  Instance &inst = arrive(self, c, *l, tag, nullptr, nullptr, req, last);
  if (l->leaders.size() == 1) {
    if (last) finish(pe, inst, nullptr);
    return true;
  }
  if (l->self != 0) return member_arrived(inst, last), true;
  auto s = lead(self, req, c, inst, last);
  add_barrier(*s, s->layout->leaders, leader_tag(tag));
  s->round();
  s->deliver(inst, nullptr, 0, Schedule::kNone);
  launch(self, std::move(s));
  return true;
}

bool pe_ibcast(Rank &self, const comm::Comm &c, int tag, void *buf, std::size_t bytes, int root,
               p2p::Request &req) {
  const PeLayout *l = usable(c);
  if (!l) return false;
  Pe &pe = self.pe();
  bool last;
  Instance &inst = arrive(self, c, *l, tag, nullptr, buf, req, last);
  const int root_pe = l->pe_index_of(c, root);
  const int root_local = root_pe == l->leaders.rank ? l->local_index(root) : -1;
  if (l->leaders.size() == 1) {
    if (last) {
      copy_out(inst, inst.slots[static_cast<std::size_t>(root_local)].out, bytes);
      finish(pe, inst, nullptr);
    }
    return true;
  }
  if (l->self != 0) return member_arrived(inst, last), true;
  auto s = lead(self, req, c, inst, last);
  // The data across PEs: the root's buffer (through the leader's scratch when the root is one of
  // its members, whose buffer it learns only when the root arrives), or the leader's own.
  void *src = buf;
  if (root_local > 0) {
    src = s->scratch(bytes);
    s->round();
    s->from_slot(inst, root_local, src, bytes);
  }
  add_bcast(*s, s->layout->leaders, leader_tag(tag), src, bytes, root_pe);
  s->round();
  s->deliver(inst, src, bytes, Schedule::kAll);
  launch(self, std::move(s));
  return true;
}

bool pe_ireduce(Rank &self, const comm::Comm &c, int tag, const void *send, void *recv,
                std::size_t count, const Reducer &op, int root, p2p::Request &req) {
  if (count == 0) return false;
  const PeLayout *l = usable(c);
  if (!l || (!op.commutative && !l->blocks)) return false;
  Pe &pe = self.pe();
  const std::size_t bytes = count * op.extent;
  bool last;
  Instance &inst = arrive(self, c, *l, tag, send, recv, req, last);
  const int root_pe = l->pe_index_of(c, root);
  const int root_local = root_pe == l->leaders.rank ? l->local_index(root) : -1;
  if (l->leaders.size() == 1) {
    if (last) {
      // Into a scratch accumulator: the root's output may be an input too (MPI_IN_PLACE).
      alignas(16) std::byte small[256];
      std::unique_ptr<std::byte[]> big;
      std::byte *acc = small;
      if (bytes > sizeof small)
        acc = (big = std::make_unique_for_overwrite<std::byte[]>(bytes)).get();
      combine(inst, op, count, acc);
      copy_bytes(inst.slots[static_cast<std::size_t>(root_local)].out, acc, bytes);
      finish(pe, inst, nullptr);
    }
    return true;
  }
  if (l->self != 0) return member_arrived(inst, last), true;
  auto s = lead(self, req, c, inst, last);
  s->op = op;
  s->count = count;
  std::byte *acc = s->scratch(bytes);
  s->round();
  s->combine_local(inst, acc);
  add_reduce(*s, s->layout->leaders, leader_tag(tag), acc, root_pe, acc);
  s->round();
  s->deliver(inst, acc, bytes, root_local >= 0 ? root_local : Schedule::kNone);
  launch(self, std::move(s));
  return true;
}

bool pe_iallreduce(Rank &self, const comm::Comm &c, int tag, const void *send, void *recv,
                   std::size_t count, const Reducer &op, p2p::Request &req) {
  if (count == 0) return false;
  const PeLayout *l = usable(c);
  if (!l || (!op.commutative && !l->blocks)) return false;
  Pe &pe = self.pe();
  const std::size_t bytes = count * op.extent;
  bool last;
  Instance &inst = arrive(self, c, *l, tag, send, recv, req, last);
  if (l->leaders.size() == 1) {
    // One PE: the last to arrive does it all now (into the last rank's output, as pe_coll.cpp).
    if (last) {
      void *acc = inst.slots.back().out;
      combine(inst, op, count, acc);
      copy_out(inst, acc, bytes);
      finish(pe, inst, nullptr);
    }
    return true;
  }
  if (l->self != 0) return member_arrived(inst, last), true;
  auto s = lead(self, req, c, inst, last);
  s->op = op;
  s->count = count;
  std::byte *acc = s->scratch(bytes);
  s->round();
  s->combine_local(inst, acc);
  add_allreduce(*s, s->layout->leaders, leader_tag(tag), acc);
  s->round();
  s->deliver(inst, acc, bytes, Schedule::kAll);
  launch(self, std::move(s));
  return true;
}

bool pe_iallgather(Rank &self, const comm::Comm &c, int tag, const void *send, void *recv,
                   std::size_t bytes, p2p::Request &req) {
  if (bytes == 0) return false;
  const PeLayout *l = usable(c);
  if (!l || !l->blocks) return false;
  Pe &pe = self.pe();
  const std::size_t all = static_cast<std::size_t>(c.size()) * bytes;
  auto *out = static_cast<std::byte *>(recv);
  bool last;
  Instance &inst = arrive(self, c, *l, tag, send, recv, req, last);
  if (l->leaders.size() == 1) {
    // One PE: the last to arrive assembles in its own output and copies it to the others'.
    if (last) {
      collect_blocks(inst, *l, out, bytes);
      copy_out(inst, out, all);
      finish(pe, inst, nullptr);
    }
    return true;
  }
  if (l->self != 0) return member_arrived(inst, last), true;
  auto s = lead(self, req, c, inst, last);
  const PeLayout *lp = s->layout.get();
  s->round();
  s->collect_local(inst, out, bytes);
  add_ring_allgather(*s, lp->leaders, leader_tag(tag), out, lp->first, lp->count, bytes);
  s->round();
  s->deliver(inst, out, all, Schedule::kAll);
  launch(self, std::move(s));
  return true;
}

} // namespace

void ibarrier(Rank &self, const comm::Comm &c, int tag, p2p::Request &req) {
  if (pe_ibarrier(self, c, tag, req)) return;
  auto s = flat(self, c, req);
  add_barrier(*s, s->comm, tag);
  launch(self, std::move(s));
}

void ibcast(Rank &self, const comm::Comm &c, int tag, void *buf, std::size_t bytes, int root,
            p2p::Request &req) {
  if (c.size() > 1 && bytes > 0 && pe_ibcast(self, c, tag, buf, bytes, root, req)) return;
  auto s = flat(self, c, req);
  if (bytes > 0) add_bcast(*s, s->comm, tag, buf, bytes, root);
  launch(self, std::move(s));
}

void ireduce(Rank &self, const comm::Comm &c, int tag, const void *send, void *recv,
             std::size_t count, const Reducer &op, int root, p2p::Request &req) {
  if (pe_ireduce(self, c, tag, send, recv, count, op, root, req)) return;
  auto s = flat(self, c, req);
  s->op = op;
  s->count = count;
  const std::size_t bytes = count * op.extent;
  const void *mine = send ? send : recv;
  if (c.size() == 1) {
    copy_bytes(recv, mine, bytes);
  } else if (count) {
    std::byte *acc = s->scratch(bytes);
    copy_bytes(acc, mine, bytes);
    add_reduce(*s, s->comm, tag, acc, root, recv);
  }
  launch(self, std::move(s));
}

void iallreduce(Rank &self, const comm::Comm &c, int tag, const void *send, void *recv,
                std::size_t count, const Reducer &op, p2p::Request &req) {
  if (pe_iallreduce(self, c, tag, send, recv, count, op, req)) return;
  const std::size_t bytes = count * op.extent;
  if (send) copy_bytes(recv, send, bytes);
  auto s = flat(self, c, req);
  s->op = op;
  s->count = count;
  if (count) add_allreduce(*s, s->comm, tag, static_cast<std::byte *>(recv));
  launch(self, std::move(s));
}

void iallgather(Rank &self, const comm::Comm &c, int tag, const void *send, void *recv,
                std::size_t bytes, p2p::Request &req) {
  if (pe_iallgather(self, c, tag, send, recv, bytes, req)) return;
  auto *out = static_cast<std::byte *>(recv);
  if (send) copy_bytes(out + static_cast<std::size_t>(c.rank) * bytes, send, bytes);
  auto s = flat(self, c, req);
  if (c.size() > 1 && bytes > 0) add_allgather(*s, s->comm, tag, out, bytes);
  launch(self, std::move(s));
}

} // namespace ampi::coll
