// src/rma/backend_net.cpp — the back-end of windows with members on several hosts (or in several
// processes of one host with AMPI_RMA_SHM=0): memory is registered with the network port's RMA
// interface (src/net/rma.hpp) and remote keys are exchanged at creation; data moves with its
// put/get (memcpy for members on this PE, which window.cpp does), and every control word changes
// with its atomics (through the endpoint to our own PE for members on this PE, so that they meet
// the other PEs' atomics). Device memory is not taken. This file sees the network only through
// net/rma.hpp; network() below is the one place that finds the object implementing it.
#include "rma/backend.hpp"

#include "core/pe.hpp"
#include "net/rma.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <vector>

namespace ampi::rma {

namespace {

// The PE's RMA interface of the network port. Only windows in this mode call it, and only where
// the job has several PEs (so the port is a real one, which has it).
net::Rma &network(Pe &pe) {
  return *pe.port().rma();
}

// The packed remote keys, exchanged after the members' records.
struct Keys {
  std::uint32_t data_len, ctrl_len; // ~0u: too large
  std::byte data[kRkeyMax];
  std::byte ctrl[kRkeyMax];
};

class NetBackend final : public Backend {
public:
  NetBackend() : Backend(true) {}
  ~NetBackend() override { peers_.clear(); } // keys before the registrations they name

  int setup(Window &w, const Setup &s, const char **why) override;
  int attach(Window &w, Region &r, void *base, std::size_t len, bool device,
             const char **why) override;
  void detach(Window &, const void *base) override {
    for (auto it = attached_.begin(); it != attached_.end(); ++it)
      if (it->base == base) {
        attached_.erase(it);
        return;
      }
  }

  std::uint64_t atomic(Window &w, Target &t, std::size_t off, bool cswap, std::uint64_t expected,
                       std::uint64_t value) override {
    Peer &p = prepare(t);
    const std::uint64_t operand = cswap ? expected : value;
    std::uint64_t reply = value;
    wait(w, net_->atomic64(*p.ctrl_key,
                           cswap ? net::Rma::Atomic::CompareSwap : net::Rma::Atomic::FetchAdd,
                           &operand, &reply, t.ctrl + off));
    return reply;
  }
  bool concurrent() const noexcept override { return true; }

  void locate(Window &, Target &t, Where *out) override {
    out->handle = prepare(t).data_key.get(); // (members of this PE: for the atomics below)
  }
  int locate_dynamic(Window &w, Target &t, std::uint64_t a, std::uint64_t b, Where *out,
                     const char **why) override;

  void read(Window &w, Target &t, const Where &wh, const RunList &runs, std::byte *out,
            bool wait_now) override {
    Peer &p = peer(t);
    p.dirty = true;
    const auto &key = *static_cast<const net::RemoteKey *>(wh.handle);
    for (const Run &r : runs)
      post(w, net_->get(key, out + r.packed, r.len, wh.addr + static_cast<std::uint64_t>(r.mem)),
           wait_now);
  }
  void write(Window &w, Target &t, const Where &wh, const RunList &runs, const std::byte *in,
             bool wait_now) override {
    Peer &p = peer(t);
    p.dirty = true;
    const auto &key = *static_cast<const net::RemoteKey *>(wh.handle);
    for (const Run &r : runs)
      post(w, net_->put(key, in + r.packed, r.len, wh.addr + static_cast<std::uint64_t>(r.mem)),
           wait_now);
  }
  bool accumulate_atomically(Window &w, const Where &wh, const RunList &runs,
                             const datatype::Type &tt, MPI_Op op, datatype::ReduceFn,
                             const std::byte *src, std::byte *old, const std::byte *cmp) override;

  void wait_pending(Window &w) override {
    for (net::RmaOp op : pending_)
      wait(w, op);
    pending_.clear();
  }
  void flush(Window &w, int target) override {
    if (target >= 0) {
      flush_peer(w, w.targets[static_cast<std::size_t>(target)]);
      return;
    }
    for (Target &t : w.targets)
      flush_peer(w, t);
  }
  void epoch_start(Window &) override {
    for (Peer &p : peers_)
      p.dyn.clear();
  }

private:
  struct DynKey {
    std::uint64_t base, len;
    std::unique_ptr<net::RemoteKey> key;
  };
  // What this mode knows of one member: its keys, unpacked on first use.
  struct Peer {
    std::vector<std::byte> data_packed, ctrl_packed;
    bool ready = false;
    std::unique_ptr<net::RemoteKey> data_key, ctrl_key;
    std::vector<DynKey> dyn; // keys of its attached regions (dropped at epoch starts)
    bool dirty = false;      // operations posted since the last flush
  };
  Peer &peer(const Target &t) { return peers_[static_cast<std::size_t>(t.rank)]; }
  Peer &prepare(const Target &t);
  // The rank yields to the others of its PE, which drives the network meanwhile.
  void wait(Window &w, net::RmaOp op) {
    while (!net_->test(op))
      w.self.pe().yield();
  }
  void post(Window &w, net::RmaOp op, bool wait_now) {
    if (wait_now)
      wait(w, op);
    else if (op)
      pending_.push_back(op);
  }
  void flush_peer(Window &w, const Target &t) {
    Peer &p = peer(t);
    if (!p.dirty) return;
    wait(w, net_->flush(t.pe));
    p.dirty = false;
  }
  int make_memory(Window &w, const Setup &s);
  int exchange_keys(Window &w, const char **why);

  net::Rma *net_ = nullptr;
  std::unique_ptr<net::RmaRegion> mem_, ctrl_mem_;
  std::unique_ptr<std::byte[]> owned_; // MPI_Win_allocate of 0 bytes
  struct Attached {
    const void *base;
    std::unique_ptr<net::RmaRegion> reg;
  };
  std::vector<Attached> attached_;
  std::vector<Peer> peers_;
  std::vector<net::RmaOp> pending_; // operations not finished yet
};

NetBackend::Peer &NetBackend::prepare(const Target &t) {
  Peer &p = peer(t);
  if (p.ready) return p;
  p.ready = true;
  if (!p.ctrl_packed.empty()) p.ctrl_key = net_->unpack_key(t.pe, p.ctrl_packed.data());
  if (!p.data_packed.empty()) p.data_key = net_->unpack_key(t.pe, p.data_packed.data());
  return p;
}

// Accumulates on 4- and 8-byte integers with sum, replace, no-op or compare-and-swap are one
// fetching network atomic per element instead of the accumulate lock: over UCX's TCP emulation a
// MPI_Fetch_and_op was four round trips (take the lock, get, release, flush), now one. Whether an
// accumulate goes this way depends only on the window's flavor, the type and the operation, so
// every rank makes the same choice for a location; the other operations (max, min, prod, the
// logical and bitwise ones) take the lock, which is atomic against these only for a no-op (the
// MPI default accumulate_ops=same_op_no_op allows no other mix). The bitwise operations stay on
// the lock because UCX 1.13's emulation of fetching and/or/xor gave wrong 64-bit results between
// the simulated hosts (rma_atomic's bxor word: 2722078303 or 0 for 8594400520), and a fetching
// and a non-fetching form of one operation must go the same way. Members of this PE go through
// the endpoint to our own PE as the lock words do, so that their atomics meet the other PEs'
// ones (CPU atomics and the network's may not).
bool NetBackend::accumulate_atomically(Window &w, const Where &wh, const RunList &runs,
                                       const datatype::Type &tt, MPI_Op op, datatype::ReduceFn,
                                       const std::byte *src, std::byte *old, const std::byte *cmp) {
  if (w.flavor == MPI_WIN_FLAVOR_DYNAMIC || !wh.handle) return false;
  const datatype::Builtin *b = datatype::builtin(tt.basic);
  if (!b || (b->category != datatype::Category::Int && b->category != datatype::Category::Uint) ||
      (b->size != 4 && b->size != 8) || b->extent != b->size)
    return false;
  net::Rma::Atomic a = net::Rma::Atomic::FetchAdd;
  if (cmp)
    a = net::Rma::Atomic::CompareSwap;
  else if (op == MPI_SUM || op == MPI_NO_OP)
    a = net::Rma::Atomic::FetchAdd;
  else if (op == MPI_REPLACE)
    a = net::Rma::Atomic::Swap;
  else
    return false;
  const std::size_t es = b->size;
  for (const Run &r : runs) // whole, aligned elements only (else the lock: same for everyone)
    if (r.len % es || r.packed % es || (wh.addr + static_cast<std::uint64_t>(r.mem)) % es)
      return false;
  if (op == MPI_NO_OP && !old) return true; // an accumulate that changes nothing
  const auto &key = *static_cast<const net::RemoteKey *>(wh.handle);
  const std::uint64_t zero = 0;
  // Every atomic fetches, into scratch words where the caller wants no result: a fetching
  // atomic has finished at the target when it completes here, so nothing is left for the flush
  // (which only flushes the peers that reads and writes marked). Non-fetching ones finished only
  // locally, and a fence let the target read its memory before they landed (conf_rma across
  // hosts read 3 of 4 accumulates).
  std::vector<std::uint64_t> scratch;
  if (!old) {
    std::size_t n = 0;
    for (const Run &r : runs)
      n += r.len / es;
    scratch.resize(n);
  }
  std::vector<net::RmaOp> ops;
  std::size_t i = 0;
  for (const Run &r : runs)
    for (std::size_t k = 0; k < r.len; k += es, ++i) {
      const std::size_t at = r.packed + k;
      const std::uint64_t raddr = wh.addr + static_cast<std::uint64_t>(r.mem) + k;
      void *reply = old ? static_cast<void *>(old + at) : static_cast<void *>(&scratch[i]);
      const void *operand = op == MPI_NO_OP ? static_cast<const void *>(&zero) : src + at;
      if (cmp) { // the expected value is the operand; the new one goes in through the reply
        std::memcpy(reply, src + at, es);
        operand = cmp + at;
      }
      ops.push_back(net_->atomic(key, a, es, operand, reply, raddr));
    }
  // The operands live in the caller's buffers: wait here.
  for (net::RmaOp o : ops)
    wait(w, o);
  return true;
}

// The window's memory and control block, registered.
int NetBackend::make_memory(Window &w, const Setup &s) {
  if (s.flavor == MPI_WIN_FLAVOR_ALLOCATE) {
    if (s.size > 0) {
      mem_ = net_->register_memory(nullptr, s.size, gpu::MemKind::Host);
      w.base = mem_->address();
    } else {
      owned_ = std::make_unique<std::byte[]>(1);
      w.base = owned_.get();
    }
  } else if (s.flavor == MPI_WIN_FLAVOR_CREATE) {
    w.base = s.base;
    if (s.size > 0 && !s.device) mem_ = net_->register_memory(s.base, s.size, gpu::MemKind::Host);
  }
  ctrl_mem_ = net_->register_memory(nullptr, s.ctrl_bytes, gpu::MemKind::Host);
  w.ctrl = static_cast<Ctrl *>(ctrl_mem_->address());
  std::memset(static_cast<void *>(w.ctrl), 0, s.ctrl_bytes);
  return MPI_SUCCESS;
}

int NetBackend::exchange_keys(Window &w, const char **why) {
  auto mine = std::make_unique<Keys>();
  std::memset(mine.get(), 0, sizeof(Keys));
  const std::span<const std::byte> data = mem_ ? mem_->packed_key() : std::span<const std::byte>();
  const std::span<const std::byte> ctrl = ctrl_mem_->packed_key();
  if (data.size() > kRkeyMax || ctrl.size() > kRkeyMax) {
    mine->data_len = mine->ctrl_len = ~0u;
  } else { // a window of 0 bytes has no key
    mine->data_len = static_cast<std::uint32_t>(data.size());
    if (!data.empty()) std::memcpy(mine->data, data.data(), data.size());
    mine->ctrl_len = static_cast<std::uint32_t>(ctrl.size());
    if (!ctrl.empty()) std::memcpy(mine->ctrl, ctrl.data(), ctrl.size());
  }
  std::vector<Keys> keys(static_cast<std::size_t>(w.comm->size()));
  coll::allgather(*w.comm, mine.get(), keys.data(), sizeof(Keys));
  for (const Keys &k : keys)
    if (k.data_len == ~0u) {
      *why = "UCX's packed remote key is larger than ampi's limit";
      return MPI_ERR_INTERN;
    }
  peers_.resize(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    peers_[i].data_packed.assign(keys[i].data, keys[i].data + keys[i].data_len);
    peers_[i].ctrl_packed.assign(keys[i].ctrl, keys[i].ctrl + keys[i].ctrl_len);
  }
  return MPI_SUCCESS;
}

int NetBackend::setup(Window &w, const Setup &s, const char **why) {
  net_ = &network(w.self.pe());
  make_memory(w, s);
  const std::vector<Member> all = exchange(w, member_of(w, s));
  for (const Member &m : all)
    if (m.device) {
      *why = "a member's memory is CUDA device memory, which ampi's windows take only when every "
             "member is on one host (with shared memory on: not AMPI_RMA_SHM=0)";
      return MPI_ERR_UNSUPPORTED_OPERATION;
    }
  if (int e = exchange_keys(w, why)) return e;
  for (std::size_t i = 0; i < all.size(); ++i)
    adopt(w, static_cast<int>(i), all[i]);
  return MPI_SUCCESS;
}

int NetBackend::attach(Window &, Region &r, void *base, std::size_t len, bool device,
                       const char **why) {
  if (device) {
    *why = "the region is CUDA device memory, which ampi's windows take only when every member "
           "is on one host (with shared memory on: not AMPI_RMA_SHM=0)";
    return MPI_ERR_UNSUPPORTED_OPERATION;
  }
  std::unique_ptr<net::RmaRegion> reg = net_->register_memory(base, len, gpu::MemKind::Host);
  const std::span<const std::byte> key = reg->packed_key();
  if (key.size() > kRkeyMax) {
    *why = "UCX's packed remote key is larger than ampi's limit";
    return MPI_ERR_RMA_ATTACH;
  }
  r.rkey_len = key.size();
  std::memcpy(r.rkey, key.data(), key.size());
  attached_.push_back({base, std::move(reg)});
  return MPI_SUCCESS;
}

int NetBackend::locate_dynamic(Window &w, Target &t, std::uint64_t a, std::uint64_t b, Where *out,
                               const char **why) {
  Peer &p = prepare(t);
  for (const DynKey &k : p.dyn)
    if (a >= k.base && b <= k.base + k.len) {
      out->handle = k.key.get();
      return MPI_SUCCESS;
    }
  // Read the target's table of attached regions.
  auto table = std::make_unique<Ctrl>();
  wait(w, net_->get(*p.ctrl_key, table.get(), offsetof(Ctrl, regions), t.ctrl));
  const std::size_t used = std::min<std::uint64_t>(table->nregions, kMaxRegions);
  if (used)
    wait(w, net_->get(*p.ctrl_key, table->regions, used * sizeof(Region),
                      t.ctrl + offsetof(Ctrl, regions)));
  if (const Region *r = find_region(*table, a, b); r && b > r->base + r->len) {
    // One remote key per region: an access across two of them would need splitting.
    *why = "the access spans two regions attached to the target's dynamic window, which is "
           "supported between the processes of one host only";
    return MPI_ERR_RMA_RANGE;
  } else if (r) {
    p.dyn.push_back({r->base, r->len, net_->unpack_key(t.pe, r->rkey)});
    out->handle = p.dyn.back().key.get();
    return MPI_SUCCESS;
  }
  *why = "the access lies outside every region attached to the target's dynamic window";
  return MPI_ERR_RMA_RANGE;
}

} // namespace

std::unique_ptr<Backend> make_net_backend() {
  return std::make_unique<NetBackend>();
}

} // namespace ampi::rma
