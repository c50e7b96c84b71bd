// src/coll/pe_coll.cpp — the PE-aware collectives (see pe_coll.hpp): a communicator's layout over
// PEs, the meeting of a PE's ranks in a per-PE instance (coll/pe_state.hpp), and the algorithms.
//
// Protocol of one instance: every local rank deposits its buffers in its slot; a member then
// blocks until `done`; the leader blocks until all have arrived (the last to arrive wakes it), then
// works alone: the ranks of a PE share one core, so one rank doing every copy and combine loses no
// parallelism and saves a context switch per rank compared with each copying its own share. The
// leader pushes the results into the members' buffers (they are blocked, so their buffers stay
// valid), sets `done` and wakes them. Copies go through copy::copy (src/copy: no rep movsb trap
// when a member's buffer lies 1-31 bytes past the leader's modulo 4 KiB).
#include "coll/pe_coll.hpp"

#include "copy/copy.hpp"
#include "core/pe.hpp"
#include "p2p/data.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>

namespace ampi::coll {

namespace {

constexpr const char *kWaitName = "an MPI collective";

std::shared_ptr<const PeLayout> compute_fresh(Pe &pe, const comm::Comm &c) {
  auto l = std::make_shared<PeLayout>();
  const int p = c.size();
  const int npes = pe.config().placement.npes;
  const int mine = pe.pe_of(c.world_rank(c.rank));
  l->pe_index.assign(static_cast<std::size_t>(npes), -1);
  std::vector<int> leader_world;
  int prev = -1;
  for (int r = 0; r < p; ++r) {
    const int q = pe.pe_of(c.world_rank(r));
    int &idx = l->pe_index[static_cast<std::size_t>(q)];
    if (idx < 0) {
      idx = static_cast<int>(leader_world.size());
      leader_world.push_back(c.world_rank(r));
      l->first.push_back(r);
      l->count.push_back(0);
    } else if (q != prev) {
      l->blocks = false; // this PE's ranks came back after another PE's
    }
    ++l->count[static_cast<std::size_t>(idx)];
    if (q == mine) l->local.push_back(r);
    prev = q;
  }
  l->self = l->local_index(c.rank);
  l->usable = std::any_of(l->count.begin(), l->count.end(), [](int n) { return n > 1; });
  l->leaders.context = c.context;
  l->leaders.rank = l->pe_index[static_cast<std::size_t>(mine)];
  l->leaders.group = comm::Group::list(std::move(leader_world));
  l->leaders.handle = c.handle;
  l->leaders.errhandler = c.errhandler;
  return l;
}

// The layout that another rank of this PE computed for the same communicator, if one did: the
// nearest local rank below this one in the communicator (ranks of a PE run in turn, so in a
// collective that every rank enters the one below has usually been first), looked up by this
// rank's handle (the ranks of a PE create their communicators in the same order). Each rank
// computing its own cost O(ranks) each, O(ranks^2) per PE: ~1M pe_of calls in the MPI_Finalize
// barrier of 1,000 ranks, 13% of the CPU time of a 1,000-rank hello world without copies.
const PeLayout *sibling_layout(Pe &pe, const comm::Comm &c) {
  constexpr int kTries = 4; // local ranks looked at before computing afresh
  int tried = 0;
  for (int r = c.rank - 1; r >= 0 && tried < kTries; --r) {
    Rank *other = pe.local(c.world_rank(r));
    if (!other) break; // a rank elsewhere: this PE's ranks below are not contiguous
    ++tried;
    const comm::Comm *oc = other->comm.comms.find(c.handle);
    if (!oc || !oc->pe_layout || oc->context != c.context || oc->size() != c.size()) continue;
    // The same members (one shared group object for MPI_COMM_WORLD: no loop).
    int k = 0;
    if (oc->group != c.group)
      while (k < c.size() && oc->world_rank(k) == c.world_rank(k))
        ++k;
    if (oc->group == c.group || k == c.size()) return oc->pe_layout.get();
  }
  return nullptr;
}

std::shared_ptr<const PeLayout> compute_layout(const comm::Comm &c) {
  Pe &pe = Pe::get();
  if (c.inter()) return compute_fresh(pe, c);
  if (const PeLayout *sib = sibling_layout(pe, c)) { // a copy, with this rank's own parts
    auto l = std::make_shared<PeLayout>(*sib);
    l->self = l->local_index(c.rank);
    l->leaders.handle = c.handle;
    l->leaders.errhandler = c.errhandler;
    return l;
  }
  return compute_fresh(pe, c);
}

// One rank's part in an instance: arrive, and (members) wait for the leader and leave.
class Meeting {
public:
  Meeting(const comm::Comm &c, const PeLayout &l, int tag, const void *in, void *out)
      : pe_(Pe::get()), n_(static_cast<int>(l.local.size())), li_(l.self) {
    Rank &self = pe_.current();
    InstanceKey key{c.context, c.world_rank(0), tag, 0};
    if (tag == kBlockingTag) {
      // Blocking collectives share one tag: count them, per rank and communicator (every rank
      // runs them in the same order).
      const std::uint64_t k =
          std::uint64_t{c.context} << 32 | static_cast<std::uint32_t>(key.first_world);
      key.seq = self.coll.pe_seq[k]++;
    }
    inst_ = &pe_.coll().join(key, n_);
    inst_->slots[static_cast<std::size_t>(li_)] = {in, out, &self};
    ++inst_->arrived;
    if (li_ == 0) {
      while (inst_->arrived < n_)
        pe_.block(kWaitName);
    } else {
      Rank *leader = inst_->slots[0].rank;
      if (inst_->arrived == n_ && leader) pe_.wake(*leader);
      while (!inst_->done)
        pe_.block(kWaitName);
      pe_.coll().leave(*inst_);
    }
  }
  Meeting(const Meeting &) = delete;
  Meeting &operator=(const Meeting &) = delete;
  // The leader's end: the results are in place; wake the members and leave.
  ~Meeting() {
    if (li_ != 0) return;
    inst_->done = true;
    for (std::size_t k = 1; k < inst_->slots.size(); ++k)
      pe_.wake(*inst_->slots[k].rank);
    pe_.coll().leave(*inst_);
  }
  // Only the leader goes on past the constructor to do the work.
  bool leader() const { return li_ == 0; }
  int size() const { return n_; }
  const Instance::Slot &slot(int k) const { return inst_->slots[static_cast<std::size_t>(k)]; }
  // Local rank k's input: its send buffer, or its output buffer (MPI_IN_PLACE).
  const void *input(int k) const { return slot(k).in ? slot(k).in : slot(k).out; }

private:
  Pe &pe_;
  int n_, li_;
  Instance *inst_ = nullptr;
};

// Device reductions (Reducer::device) meet here with device buffers: their copies are device
// copies (p2p::copy_any), and any buffer may be device memory if the PE's ranks chose
// differently (one with device buffers, one with host ones).
void copy_bytes(void *dst, const void *src, std::size_t bytes) {
  if (!bytes || dst == src) return;
  if (gpu::cuda_loaded() && (p2p::on_device(dst) || p2p::on_device(src))) [[unlikely]]
    p2p::copy_any(dst, src, bytes);
  else
    copy::copy(dst, src, bytes);
}

std::byte *at(void *p, std::size_t off) {
  return static_cast<std::byte *>(p) + off;
}
const std::byte *at(const void *p, std::size_t off) {
  return static_cast<const std::byte *>(p) + off;
}

// Bytes of the accumulator per step of the chunked combine: they stay in L1 (32 KiB per core on
// Zen 3) while every local input is folded into them and, on a single PE, copied on to every
// output. Unchunked, a 1 MiB accumulator went through L2/L3 once per input (63 times among 64
// ranks) and once more per output.
constexpr std::size_t kChunkBytes = 8192;

// acc = x0 op (x1 op (... op x[n-1])) over the PE's local inputs in rank order, so that
// non-commutative operations hold too (each input read once). `last_in`: x[n-1] when it is not
// already in acc. Predefined operations go in chunks of kChunkBytes, calling after(off, len) once
// each chunk of acc is final; user functions (whose per-call cost may be a datatype unpack) get
// the whole count in one call.
template <class After>
void combine(const Meeting &m, const Reducer &op, std::byte *acc, const void *last_in,
             std::size_t count, After after) {
  // (Device reductions: one kernel per input over the whole count.)
  const std::size_t step =
      op.fn && op.device.empty() ? std::max<std::size_t>(1, kChunkBytes / op.extent) : count;
  const int n = m.size();
  for (std::size_t e = 0; e < count; e += step) {
    const std::size_t elems = std::min(step, count - e);
    const std::size_t off = e * op.extent, len = elems * op.extent;
    if (last_in) copy_bytes(acc + off, at(last_in, off), len);
    for (int k = n - 2; k >= 0; --k)
      op(at(m.input(k), off), acc + off, elems);
    after(off, len);
  }
}

// Applicable to `c` at all: more than one rank, some PE holding two of them.
const PeLayout *usable_layout(const comm::Comm &c) {
  if (c.size() == 1) return nullptr;
  const PeLayout &l = pe_layout(c);
  return l.usable ? &l : nullptr;
}

// The local blocks of a PE's ranks, into `dst` at their place in communicator order (blocks:
// `dst` is the whole buffer); a slot whose input is in place reads its block in its own output.
void collect_blocks(const Meeting &m, const PeLayout &l, std::byte *dst, std::size_t bytes) {
  for (int k = 0; k < m.size(); ++k) {
    const auto r = static_cast<std::size_t>(l.local[static_cast<std::size_t>(k)]);
    const void *src = m.slot(k).in ? m.slot(k).in : at(m.slot(k).out, r * bytes);
    copy_bytes(dst + r * bytes, src, bytes);
  }
}

} // namespace

int PeLayout::local_index(int comm_rank) const {
  return static_cast<int>(std::lower_bound(local.begin(), local.end(), comm_rank) - local.begin());
}

int PeLayout::pe_index_of(const comm::Comm &c, int comm_rank) const {
  return pe_index[static_cast<std::size_t>(Pe::get().pe_of(c.world_rank(comm_rank)))];
}

const PeLayout &pe_layout(const comm::Comm &c) {
  if (!c.pe_layout) c.pe_layout = compute_layout(c);
  return *c.pe_layout;
}

namespace pe {

bool barrier(const comm::Comm &c, int tag) {
  const PeLayout *l = usable_layout(c);
  if (!l) return false;
  Meeting m(c, *l, tag, nullptr, nullptr);
  if (m.leader() && l->leaders.size() > 1) coll::barrier(l->leaders, leader_tag(tag));
  return true;
}

bool bcast(const comm::Comm &c, int tag, void *buf, std::size_t bytes, int root) {
  const PeLayout *l = usable_layout(c);
  if (!l) return false;
  Meeting m(c, *l, tag, nullptr, buf);
  if (!m.leader()) return true;
  const int root_pe = l->pe_index_of(c, root);
  // On the root's PE the data is the root's buffer; elsewhere the leader's, filled across PEs.
  void *src = root_pe == l->leaders.rank ? m.slot(l->local_index(root)).out : buf;
  if (l->leaders.size() > 1) coll::bcast(l->leaders, leader_tag(tag), src, bytes, root_pe);
  for (int k = 0; k < m.size(); ++k)
    copy_bytes(m.slot(k).out, src, bytes);
  return true;
}

bool reduce(const comm::Comm &c, int tag, const void *send, void *recv, std::size_t count,
            const Reducer &op, int root) {
  if (count == 0) return false;
  const PeLayout *l = usable_layout(c);
  if (!l || (!op.commutative && !l->blocks)) return false;
  Meeting m(c, *l, tag, send, recv);
  if (!m.leader()) return true;
  const std::size_t bytes = count * op.extent;
  const int n = m.size();
  std::unique_ptr<std::byte[]> host;
  gpu::DeviceBuffer dev;
  std::byte *acc;
  if (op.device.empty()) {
    host = std::make_unique_for_overwrite<std::byte[]>(bytes);
    acc = host.get();
  } else {
    dev = Pe::get().devptrs().scratch_buffer(bytes, m.input(n - 1));
    if (!dev) {
      std::fprintf(stderr, "ampi: cannot allocate %zu bytes of device memory for a reduction\n",
                   bytes);
      std::abort();
    }
    acc = static_cast<std::byte *>(dev.get());
  }
  combine(m, op, acc, m.input(n - 1), count, [](std::size_t, std::size_t) {});
  const int root_pe = l->pe_index_of(c, root);
  if (l->leaders.size() > 1)
    coll::reduce(l->leaders, leader_tag(tag), nullptr, acc, count, op, root_pe);
  if (root_pe == l->leaders.rank) copy_bytes(m.slot(l->local_index(root)).out, acc, bytes);
  return true;
}

bool allreduce(const comm::Comm &c, int tag, const void *send, void *recv, std::size_t count,
               const Reducer &op) {
  if (count == 0) return false;
  const PeLayout *l = usable_layout(c);
  if (!l || (!op.commutative && !l->blocks)) return false;
  Meeting m(c, *l, tag, send, recv);
  if (!m.leader()) return true;
  const std::size_t bytes = count * op.extent;
  const int n = m.size();
  // Combine into the last local rank's output (its own input is x[n-1], the first operand of the
  // right-to-left order; the others' inputs are read before their outputs are written: chunk by
  // chunk, an output's chunk is written after every input's same chunk was read).
  auto *acc = static_cast<std::byte *>(m.slot(n - 1).out);
  if (l->leaders.size() == 1) {
    // One PE: each chunk goes to the other outputs while it is in L1.
    combine(m, op, acc, m.slot(n - 1).in, count, [&](std::size_t off, std::size_t len) {
      for (int k = 0; k < n - 1; ++k)
        copy_bytes(at(m.slot(k).out, off), acc + off, len);
    });
    return true;
  }
  combine(m, op, acc, m.slot(n - 1).in, count, [](std::size_t, std::size_t) {});
  coll::allreduce(l->leaders, leader_tag(tag), nullptr, acc, count, op);
  for (int k = 0; k < n - 1; ++k)
    copy_bytes(m.slot(k).out, acc, bytes);
  return true;
}

bool gather(const comm::Comm &c, int tag, const void *send, void *recv, std::size_t bytes,
            int root) {
  if (bytes == 0) return false;
  const PeLayout *l = usable_layout(c);
  if (!l || !l->blocks) return false;
  Meeting m(c, *l, tag, send, recv);
  if (!m.leader()) return true;
  const int root_pe = l->pe_index_of(c, root);
  if (root_pe == l->leaders.rank) {
    // The local blocks straight into the root's buffer, the other PEs' runs received into it.
    auto *out = static_cast<std::byte *>(m.slot(l->local_index(root)).out);
    for (int k = 0; k < m.size(); ++k)
      if (m.slot(k).in)
        copy_bytes(out + static_cast<std::size_t>(l->local[static_cast<std::size_t>(k)]) * bytes,
                   m.slot(k).in, bytes);
    if (l->leaders.size() > 1) {
      Blocks b;
      b.base = out;
      for (std::size_t q = 0; q < l->first.size(); ++q) {
        b.bytes.push_back(static_cast<std::size_t>(l->count[q]) * bytes);
        b.off.push_back(static_cast<std::ptrdiff_t>(static_cast<std::size_t>(l->first[q]) * bytes));
      }
      coll::gatherv(l->leaders, leader_tag(tag), nullptr, 0, b, root_pe);
    }
    return true;
  }
  // Elsewhere: the PE's run of blocks, packed, to the root's leader.
  const std::size_t run = static_cast<std::size_t>(m.size()) * bytes;
  auto tmp = std::make_unique_for_overwrite<std::byte[]>(run);
  for (int k = 0; k < m.size(); ++k)
    copy_bytes(tmp.get() + static_cast<std::size_t>(k) * bytes, m.slot(k).in, bytes);
  coll::gatherv(l->leaders, leader_tag(tag), tmp.get(), run, {}, root_pe);
  return true;
}

bool allgather(const comm::Comm &c, int tag, const void *send, void *recv, std::size_t bytes) {
  if (bytes == 0) return false;
  const PeLayout *l = usable_layout(c);
  if (!l || !l->blocks) return false;
  Meeting m(c, *l, tag, send, recv);
  if (!m.leader()) return true;
  // Assemble in the leader's output, exchange the PEs' runs among leaders, copy to the others.
  auto *out = static_cast<std::byte *>(recv);
  collect_blocks(m, *l, out, bytes);
  if (l->leaders.size() > 1) {
    Blocks b;
    b.base = out;
    for (std::size_t q = 0; q < l->first.size(); ++q) {
      b.bytes.push_back(static_cast<std::size_t>(l->count[q]) * bytes);
      b.off.push_back(static_cast<std::ptrdiff_t>(static_cast<std::size_t>(l->first[q]) * bytes));
    }
    coll::allgatherv(l->leaders, leader_tag(tag), nullptr, b);
  }
  const std::size_t all = static_cast<std::size_t>(c.size()) * bytes;
  for (int k = 1; k < m.size(); ++k)
    copy_bytes(m.slot(k).out, out, all);
  return true;
}

} // namespace pe

} // namespace ampi::coll
