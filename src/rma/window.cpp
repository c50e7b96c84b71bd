// src/rma/window.cpp — what windows do alike in every mode: the handle table, the choice of mode
// at creation, attached regions, argument-level work of put/get/accumulate (datatypes, origin
// buffers in device memory, range checks, the accumulate lock), and the epochs: fence, PSCW,
// lock/unlock/lock_all, flush. What differs between modes is a back-end's (src/rma/backend.hpp).
#include "rma/backend.hpp"

#include "coll/coll.hpp"
#include "comm/context.hpp"
#include "core/pe.hpp"
#include "datatype/datatype.hpp"
#include "p2p/p2p.hpp"
#include "pmi/host.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>

#include <unistd.h>

namespace ampi::rma {

WindowTable::WindowTable() = default;
WindowTable::~WindowTable() = default;

Window &WindowTable::add(std::unique_ptr<Window> w) {
  Window &ref = *w;
  ref.handle = table_.insert(std::move(w));
  return ref;
}

std::unique_ptr<Window> WindowTable::remove(MPI_Win h) noexcept {
  return table_.take(h);
}

void WindowTable::clear() noexcept {
  table_.clear();
}

Window::Window(Rank &self) : self(self) {
}
// The back-end releases what it made (keys before the registrations they name); its operations
// were finished by destroy().
Window::~Window() = default;

namespace {

constexpr int kTagPost = 1;
constexpr int kTagComplete = 2;

// ---------------------------------------------------------------------------------------------
// Lock words, through the back-end's atomics.

// Between attempts on a contended lock word: let the other ranks of the PE run, then back off
// (exponentially, up to about a microsecond) so that the holder is not slowed by our traffic.
void backoff(Window &w, unsigned &spins) {
  w.self.pe().yield();
  spins = spins < 1024 ? spins * 2 + 1 : spins;
  for (unsigned i = 0; i < spins; ++i) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }
}

void acquire_exclusive(Window &w, Target &t, std::size_t off, std::uint64_t value) {
  unsigned spins = 0;
  while (w.backend->atomic(w, t, off, true, 0, value) != 0)
    backoff(w, spins);
}

void acquire_shared(Window &w, Target &t) {
  unsigned spins = 0;
  for (;;) {
    if ((w.backend->atomic(w, t, kLockOffset, false, 0, 1) & kExclusive) == 0) return;
    w.backend->atomic(w, t, kLockOffset, false, 0, std::uint64_t(-1));
    backoff(w, spins);
  }
}

// Copies `n` bytes where either side may be CUDA device memory.
} // namespace

void move(Window &w, void *dst, bool dst_device, const void *src, bool src_device, std::size_t n) {
  if (!dst_device && !src_device) {
    std::memcpy(dst, src, n);
    return;
  }
  constexpr auto kind = [](bool d) { return d ? gpu::MemKind::Device : gpu::MemKind::Host; };
  w.self.pe().devptrs().copy(dst, kind(dst_device), src, kind(src_device), n);
}

namespace {

// Whether an origin (or result, or compare) buffer is CUDA device memory.
bool on_device(Window &w, const void *buf) {
  return buf && gpu::is_device(w.self.pe().devptrs().kind(buf));
}

// The packed bytes of (buf, count, t): the buffer itself when contiguous, else a copy.
struct Packed {
  const std::byte *data = nullptr;
  std::vector<std::byte> copy;
  std::size_t len = 0;
};

Packed pack_of(const void *buf, std::size_t count, const datatype::Type &t) {
  Packed p;
  p.len = t.size * count;
  if (t.contiguous) {
    p.data = static_cast<const std::byte *>(datatype::data_start(t, buf));
  } else {
    p.copy.resize(p.len);
    datatype::pack(t, buf, count, 0, p.copy.data(), p.len);
    p.data = p.copy.data();
  }
  return p;
}

void unpack_into(const std::byte *in, std::size_t len, void *buf, std::size_t count,
                 const datatype::Type &t) {
  if (t.contiguous)
    std::memcpy(datatype::data_start(t, buf), in, len);
  else
    datatype::unpack(t, in, len, 0, buf, count);
}

// The same for buffers that may be device memory: device bytes are gathered into (scattered
// from) host memory run by run, so that the gaps of a derived type are never touched.
Packed origin_bytes(Window &w, const void *buf, std::size_t count, const datatype::Type &t) {
  if (!on_device(w, buf)) return pack_of(buf, count, t);
  Packed p;
  p.len = t.size * count;
  p.copy.resize(p.len);
  for (const Run &r : cached_runs_of(w, t, count))
    move(w, p.copy.data() + r.packed, false, static_cast<const std::byte *>(buf) + r.mem, true,
         r.len);
  p.data = p.copy.data();
  return p;
}

void origin_store(Window &w, const std::byte *in, std::size_t len, void *buf, std::size_t count,
                  const datatype::Type &t) {
  if (!on_device(w, buf)) {
    unpack_into(in, len, buf, count, t);
    return;
  }
  for (const Run &r : cached_runs_of(w, t, count))
    move(w, static_cast<std::byte *>(buf) + r.mem, true, in + r.packed, false, r.len);
}

// ---------------------------------------------------------------------------------------------
// Target addresses.

// Resolves (target, disp) for accesses of the given runs; MPI_ERR_RMA_RANGE when out of the
// window (or of every attached region).
int locate(Window &w, Target &t, MPI_Aint disp, const RunList &runs, Where *out, const char **why) {
  std::ptrdiff_t lo = 0, hi = 0;
  if (!runs.empty()) {
    lo = runs.front().mem;
    hi = lo;
    for (const Run &r : runs) {
      lo = std::min(lo, r.mem);
      hi = std::max(hi, r.mem + static_cast<std::ptrdiff_t>(r.len));
    }
  }
  out->direct = t.direct;
  out->device = t.device;
  if (w.flavor != MPI_WIN_FLAVOR_DYNAMIC) {
    const std::ptrdiff_t off = static_cast<std::ptrdiff_t>(disp) * t.disp_unit;
    out->addr = t.base + static_cast<std::uint64_t>(off);
    if (runs.empty()) return MPI_SUCCESS;
    if (off + lo < 0 || static_cast<std::uint64_t>(off + hi) > t.size) {
      *why = "the access lies outside the target's window memory";
      return MPI_ERR_RMA_RANGE;
    }
    w.backend->locate(w, t, out);
    return MPI_SUCCESS;
  }
  // Dynamic: disp is an address in the target's process.
  out->addr = static_cast<std::uint64_t>(disp);
  if (runs.empty()) return MPI_SUCCESS;
  return w.backend->locate_dynamic(w, t, out->addr + static_cast<std::uint64_t>(lo),
                                   out->addr + static_cast<std::uint64_t>(hi), out, why);
}

// Reads the target's packed bytes (runs) into `out` / writes them from `in`. `out` / `in` may be
// device memory (`origin_device`) only where the target is addressable here (`wh.direct`); the
// callers stage through host memory otherwise.
void read_target(Window &w, Target &t, const Where &wh, const RunList &runs, std::byte *out,
                 bool wait_now, bool origin_device = false) {
  if (wh.direct) {
    for (const Run &r : runs)
      move(w, out + r.packed, origin_device, local_ptr(wh) + r.mem, wh.device, r.len);
    return;
  }
  w.backend->read(w, t, wh, runs, out, wait_now);
}

void write_target(Window &w, Target &t, const Where &wh, const RunList &runs, const std::byte *in,
                  bool wait_now, bool origin_device = false) {
  if (wh.direct) {
    for (const Run &r : runs)
      move(w, local_ptr(wh) + r.mem, wh.device, in + r.packed, origin_device, r.len);
    return;
  }
  w.backend->write(w, t, wh, runs, in, wait_now);
}

// A scratch buffer that needs no allocation when small (single elements: fetch-and-op, ...).
class Scratch {
public:
  explicit Scratch(std::size_t n) : n_(n) {
    if (n > sizeof inline_) heap_.resize(n);
  }
  std::byte *data() noexcept { return heap_.empty() ? inline_ : heap_.data(); }
  std::size_t size() const noexcept { return n_; }

private:
  alignas(16) std::byte inline_[128];
  std::vector<std::byte> heap_;
  std::size_t n_;
};

// Packed bytes <-> an array of the basic type (for the reduction kernels).
struct Elements {
  std::byte *data;
  std::vector<std::byte> copy;
  std::size_t n;
};

Elements elements_of(std::byte *packed, std::size_t len, MPI_Datatype basic) {
  const datatype::Builtin *b = datatype::builtin(basic);
  Elements e{packed, {}, len / b->size};
  if (b->size != b->extent) {
    e.copy.resize(e.n * b->extent);
    datatype::unpack(*datatype::predefined(basic), packed, len, 0, e.copy.data(), e.n);
    e.data = e.copy.data();
  }
  return e;
}

void elements_back(const Elements &e, std::byte *packed, std::size_t len, MPI_Datatype basic) {
  if (e.data != packed) datatype::pack(*datatype::predefined(basic), e.data, e.n, 0, packed, len);
}

} // namespace

const Region *find_region(const Ctrl &c, std::uint64_t a, std::uint64_t b) {
  const std::uint64_t n = std::min<std::uint64_t>(c.nregions, kMaxRegions);
  const auto holding = [&](std::uint64_t at) -> const Region * {
    for (std::uint64_t i = 0; i < n; ++i) {
      const Region &r = c.regions[i];
      if (r.len && at >= r.base && at < r.base + r.len) return &r;
    }
    return nullptr;
  };
  const Region *first = holding(a);
  if (!first || b <= first->base + first->len) return first;
  // The access runs on into regions attached right after this one (two halves of one array
  // attached apart; MPICH accepts the access, and the memory is attached): host memory only,
  // since one device region's mapping says nothing about the next.
  if (first->device) return nullptr;
  for (std::uint64_t end = first->base + first->len; end < b;) {
    const Region *next = holding(end);
    if (!next || next->device) return nullptr;
    end = next->base + next->len;
  }
  return first;
}

// -----------------------------------------------------------------------------------------------
// Creation and destruction.

namespace {

// Where the members live: every one on this PE (Self), on this host (Shm, unless AMPI_RMA_SHM=0),
// or on several hosts (Net). Fills s.offsets/total from everyone's size (shared windows).
Mode choose_mode(Window &w, Setup &s, bool *one_host) {
  const comm::Comm &c = *w.comm;
  const auto n = static_cast<std::size_t>(c.size());
  struct Place {
    std::uint64_t host, size;
  };
  std::vector<Place> places(n);
  const Place mine{host_id(), s.size};
  coll::allgather(c, &mine, places.data(), sizeof mine);
  bool one_pe = true;
  *one_host = true;
  s.offsets.resize(n);
  for (std::size_t r = 0; r < n; ++r) {
    if (!w.self.pe().local(c.world_rank(static_cast<int>(r)))) one_pe = false;
    if (places[r].host != mine.host) *one_host = false;
    s.offsets[r] = s.total;
    s.total += places[r].size;
  }
  if (one_pe) return Mode::Self;
  // AMPI_RMA_SHM=0 (the settings table, src/settings): across processes, the network.
  return *one_host && w.self.pe().config().rma_shm ? Mode::Shm : Mode::Net;
}

std::unique_ptr<Backend> make_backend(Mode m) {
  switch (m) {
  case Mode::Self:
    return make_self_backend();
  case Mode::Shm:
    return make_shm_backend();
  case Mode::Net:
    break;
  }
  return make_net_backend();
}

} // namespace

int create(Window &w, int flavor, void *base, std::size_t size, int disp_unit, const char **why) {
  w.flavor = flavor;
  w.disp_unit = disp_unit;
  w.size = static_cast<MPI_Aint>(size);
  Setup s;
  s.flavor = flavor;
  s.base = base;
  s.size = size;
  s.disp_unit = disp_unit;
  bool one_host = true;
  w.mode = choose_mode(w, s, &one_host);
  if (flavor == MPI_WIN_FLAVOR_SHARED && w.mode == Mode::Net) {
    *why = one_host ? "the communicator has members in other processes and AMPI_RMA_SHM=0 "
                      "turned shared memory off"
                    : "the communicator has members on other hosts";
    return MPI_ERR_RMA_SHARED;
  }
  // Control blocks: 64-byte aligned where several share a block (shared windows in Shm mode).
  s.ctrl_bytes = flavor == MPI_WIN_FLAVOR_DYNAMIC ? sizeof(Ctrl) : offsetof(Ctrl, regions);
  // CUDA device memory given to MPI_Win_create: the back-ends say whether and how they take it.
  s.device = flavor == MPI_WIN_FLAVOR_CREATE && base && size > 0 &&
             gpu::is_device(w.self.pe().devptrs().kind(base));
  w.backend = make_backend(w.mode);
  return w.backend->setup(w, s, why);
}

Member member_of(const Window &w, const Setup &s) {
  Member m{};
  m.world = w.self.world_rank;
  m.pe = w.self.pe().config().my_pe;
  m.pid = static_cast<std::int32_t>(::getpid());
  m.disp_unit = s.disp_unit;
  m.base = reinterpret_cast<std::uintptr_t>(w.base);
  m.size = s.size;
  m.ctrl = reinterpret_cast<std::uintptr_t>(w.ctrl);
  m.device = s.device;
  return m;
}

void adopt(Window &w, int rank, const Member &m) {
  if (w.targets.size() < static_cast<std::size_t>(w.comm->size()))
    w.targets.resize(static_cast<std::size_t>(w.comm->size()));
  Target &t = w.targets[static_cast<std::size_t>(rank)];
  t.rank = rank;
  t.world = m.world;
  t.pe = m.pe;
  t.local = m.pe == w.self.pe().config().my_pe;
  t.base = m.base;
  t.size = m.size;
  t.disp_unit = m.disp_unit;
  t.ctrl = m.ctrl;
  t.direct = t.local;
  t.device = m.device != 0;
}

void destroy(Window &w) {
  flush(w, -1);
  coll::barrier(*w.comm); // nobody accesses our memory any more
}

int attach(Window &w, void *base, std::size_t len, const char **why) {
  Ctrl &c = *w.ctrl;
  for (int i = 0; i < kMaxRegions; ++i) {
    Region &r = c.regions[i];
    if (r.len) continue;
    const bool device = len > 0 && gpu::is_device(w.self.pe().devptrs().kind(base));
    if (int e = w.backend->attach(w, r, base, len, device, why)) return e;
    r.device = device;
    r.base = reinterpret_cast<std::uintptr_t>(base);
    r.len = len;
    c.nregions = std::max<std::uint64_t>(c.nregions, static_cast<std::uint64_t>(i) + 1);
    return MPI_SUCCESS;
  }
  *why = "too many regions attached to this dynamic window (ampi's limit is 1024)";
  return MPI_ERR_RMA_ATTACH;
}

int detach(Window &w, const void *base, const char **why) {
  Ctrl &c = *w.ctrl;
  const auto b = reinterpret_cast<std::uintptr_t>(base);
  for (int i = 0; i < kMaxRegions; ++i) {
    Region &r = c.regions[i];
    if (!r.len || r.base != b) continue;
    r.len = 0;
    r.base = 0;
    w.backend->detach(w, base);
    return MPI_SUCCESS;
  }
  *why = "base is not the start of a region attached to this window";
  return MPI_ERR_RMA_ATTACH;
}

bool in_epoch_slow(const Window &w, int target) {
  if (w.access_open) return std::find(w.access.begin(), w.access.end(), target) != w.access.end();
  return false;
}

// -----------------------------------------------------------------------------------------------
// Operations.

namespace {

// The common case of put and get: contiguous data on both sides, host memory, a static window
// whose target memory is addressable here. Returns the target address (nullptr: not this case;
// *err set when it is but the access is out of range).
std::byte *direct_target(Window &w, const Target &t, const void *obuf, const datatype::Type &ot,
                         MPI_Aint disp, std::size_t len, const datatype::Type &tt, int *err,
                         const char **why) {
  if (!t.direct || t.device || !tt.contiguous || !ot.contiguous ||
      w.flavor == MPI_WIN_FLAVOR_DYNAMIC || on_device(w, obuf))
    return nullptr;
  const std::ptrdiff_t off = static_cast<std::ptrdiff_t>(disp) * t.disp_unit + tt.true_lb;
  if (off < 0 || static_cast<std::uint64_t>(off) + len > t.size) {
    *why = "the access lies outside the target's window memory";
    *err = MPI_ERR_RMA_RANGE;
    return nullptr;
  }
  return reinterpret_cast<std::byte *>(static_cast<std::uintptr_t>(t.base)) + off;
}

} // namespace

int put(Window &w, const void *obuf, std::size_t ocount, const datatype::Type &ot, int target,
        MPI_Aint disp, std::size_t tcount, const datatype::Type &tt, const char **why) {
  Target &t = w.targets[static_cast<std::size_t>(target)];
  if (const std::size_t len = tt.size * tcount; len > 0) {
    int err = MPI_SUCCESS;
    if (std::byte *to = direct_target(w, t, obuf, ot, disp, len, tt, &err, why)) {
      std::memcpy(to, datatype::data_start(ot, obuf), len);
      return MPI_SUCCESS;
    }
    if (err) return err;
  }
  const RunList runs = cached_runs_of(w, tt, tcount);
  Where wh;
  if (int e = locate(w, t, disp, runs, &wh, why)) return e;
  if (runs.empty()) return MPI_SUCCESS;
  if (ot.contiguous && wh.direct && on_device(w, obuf)) { // device to target: copied directly
    write_target(w, t, wh, runs, static_cast<const std::byte *>(datatype::data_start(ot, obuf)),
                 true, true);
    return MPI_SUCCESS;
  }
  Packed src = origin_bytes(w, obuf, ocount, ot);
  // A packed copy must stay until the network has read it: wait for local completion then.
  write_target(w, t, wh, runs, src.data, !src.copy.empty());
  return MPI_SUCCESS;
}

int get(Window &w, void *obuf, std::size_t ocount, const datatype::Type &ot, int target,
        MPI_Aint disp, std::size_t tcount, const datatype::Type &tt, const char **why) {
  Target &t = w.targets[static_cast<std::size_t>(target)];
  if (const std::size_t len = tt.size * tcount; len > 0) {
    int err = MPI_SUCCESS;
    if (std::byte *from = direct_target(w, t, obuf, ot, disp, len, tt, &err, why)) {
      std::memcpy(datatype::data_start(ot, obuf), from, len);
      return MPI_SUCCESS;
    }
    if (err) return err;
  }
  const RunList runs = cached_runs_of(w, tt, tcount);
  Where wh;
  if (int e = locate(w, t, disp, runs, &wh, why)) return e;
  if (runs.empty()) return MPI_SUCCESS;
  const bool device = on_device(w, obuf);
  if (ot.contiguous && (!device || wh.direct)) {
    read_target(w, t, wh, runs, static_cast<std::byte *>(datatype::data_start(ot, obuf)), false,
                device);
    return MPI_SUCCESS;
  }
  std::vector<std::byte> tmp(tt.size * tcount);
  read_target(w, t, wh, runs, tmp.data(), true);
  origin_store(w, tmp.data(), tmp.size(), obuf, ocount, ot);
  return MPI_SUCCESS;
}

int accumulate(Window &w, const void *obuf, std::size_t ocount, const datatype::Type *ot,
               void *rbuf, std::size_t rcount, const datatype::Type *rt, int target, MPI_Aint disp,
               std::size_t tcount, const datatype::Type &tt, MPI_Op op, const void *compare,
               const char **why) {
  Target &t = w.targets[static_cast<std::size_t>(target)];
  const RunList runs = cached_runs_of(w, tt, tcount);
  Where wh;
  if (int e = locate(w, t, disp, runs, &wh, why)) return e;
  if (runs.empty()) return MPI_SUCCESS;
  const std::size_t len = tt.size * tcount;
  datatype::ReduceFn fn = nullptr;
  if (!compare && op != MPI_REPLACE && op != MPI_NO_OP) {
    fn = datatype::reduction(op, tt.basic);
    if (!fn) {
      *why = "the operation is not defined for the target datatype";
      return MPI_ERR_OP;
    }
  }
  Packed src;
  if (obuf && op != MPI_NO_OP) src = origin_bytes(w, obuf, ocount, *ot);
  Packed cmp;
  if (compare) cmp = origin_bytes(w, compare, 1, tt);
  {
    Scratch result(rbuf ? len : 0);
    if (w.backend->accumulate_atomically(w, wh, runs, tt, op, fn, src.data,
                                         rbuf ? result.data() : nullptr,
                                         compare ? cmp.data : nullptr)) {
      if (rbuf) origin_store(w, result.data(), len, rbuf, rcount, *rt);
      return MPI_SUCCESS;
    }
  }

  // The read-modify-write under the target's accumulate lock (only needed where another PE may
  // interleave: within a PE-local window every operation runs to its end without yielding).
  const bool lock = w.backend->concurrent();
  if (lock) acquire_exclusive(w, t, kAccOffset, 1);
  Scratch old(rbuf || fn || compare ? len : 0);
  if (old.size()) read_target(w, t, wh, runs, old.data(), true);
  if (rbuf) origin_store(w, old.data(), len, rbuf, rcount, *rt);
  const std::byte *next = nullptr;
  if (compare) {
    if (std::memcmp(old.data(), cmp.data, len) == 0) next = src.data;
  } else if (op == MPI_REPLACE) {
    next = src.data;
  } else if (fn) {
    // old = origin op old, in place (the origin's bytes are only read).
    Elements acc = elements_of(old.data(), len, tt.basic);
    Elements in = elements_of(const_cast<std::byte *>(src.data), len, tt.basic);
    fn(in.data, acc.data, acc.n);
    elements_back(acc, old.data(), len, tt.basic);
    next = old.data();
  }
  if (next) {
    write_target(w, t, wh, runs, next, true);
    if (w.backend->deferred) w.backend->flush(w, t.rank); // done there before the lock goes
  }
  if (lock) w.backend->atomic(w, t, kAccOffset, false, 0, std::uint64_t(-1));
  return MPI_SUCCESS;
}

// -----------------------------------------------------------------------------------------------
// Synchronisation.

void flush(Window &w, int target) {
  std::atomic_thread_fence(std::memory_order_seq_cst); // Shm mode: our stores before what follows
  if (w.backend->deferred) {
    w.backend->wait_pending(w);
    w.backend->flush(w, target);
  }
  // A flush is where a passive-target polling loop waits for other ranks (MPICH's
  // linked_list_bench_lock_all polls with MPI_Get_accumulate and MPI_Win_flush only). Where
  // operations finish at once, nothing else in such a loop blocks: without this turn, a
  // waiting rank kept the PE from the rank it waited for and the job spun until its limit
  // (tests/rma/rma_poll). That holds for UCX's operations too, which often complete inside the
  // call (shared memory, TCP to an idle peer): over 2 processes with AMPI_RMA_SHM=0 one rank
  // polled 3 million times while the rank whose turn it was stayed ready and never ran. As at
  // unlock: only when another rank is ready to run.
  if (w.self.pe().scheduler().has_ready()) w.self.pe().yield();
}

namespace {

// What was learnt of dynamic windows' attached regions may be stale in a new epoch.
void drop_dynamic_keys(Window &w) {
  if (w.flavor == MPI_WIN_FLAVOR_DYNAMIC) w.backend->epoch_start(w);
}

p2p::Route route_to(const Window &w, int r, int tag) {
  return {w.comm->context, w.comm->rank, tag, w.comm->world_rank(r)};
}

} // namespace

void fence(Window &w, int assert_flags) {
  flush(w, -1);
  if (!(assert_flags & MPI_MODE_NOPRECEDE) || !(assert_flags & MPI_MODE_NOSUCCEED))
    coll::barrier(*w.comm);
  w.fence = !(assert_flags & MPI_MODE_NOSUCCEED);
  drop_dynamic_keys(w);
}

void post(Window &w, std::vector<int> origins) {
  w.exposure = std::move(origins);
  w.exposure_done.assign(w.exposure.size(), false);
  w.exposure_open = true;
  for (int r : w.exposure)
    p2p::send(route_to(w, r, kTagPost), nullptr, 0);
}

void start(Window &w, std::vector<int> targets) {
  w.access = std::move(targets);
  w.access_open = true;
  for (int r : w.access)
    p2p::recv(w.comm->context, r, kTagPost, nullptr, 0);
  drop_dynamic_keys(w);
}

void complete(Window &w) {
  if (w.backend->deferred) w.backend->wait_pending(w);
  for (int r : w.access) {
    if (w.backend->deferred) w.backend->flush(w, r);
    p2p::send(route_to(w, r, kTagComplete), nullptr, 0);
  }
  w.access.clear();
  w.access_open = false;
}

void wait(Window &w) {
  for (std::size_t i = 0; i < w.exposure.size(); ++i)
    if (!w.exposure_done[i]) p2p::recv(w.comm->context, w.exposure[i], kTagComplete, nullptr, 0);
  w.exposure.clear();
  w.exposure_done.clear();
  w.exposure_open = false;
}

bool test(Window &w) {
  w.self.pe().poll();
  bool all = true;
  for (std::size_t i = 0; i < w.exposure.size(); ++i) {
    if (w.exposure_done[i]) continue;
    if (p2p::iprobe(w.comm->context, w.exposure[i], kTagComplete)) {
      p2p::recv(w.comm->context, w.exposure[i], kTagComplete, nullptr, 0);
      w.exposure_done[i] = true;
    } else {
      all = false;
    }
  }
  if (!all) {
    w.self.pe().yield();
    return false;
  }
  wait(w);
  return true;
}

void lock(Window &w, int type, int target, bool nocheck) {
  auto one = [&](Target &t) {
    if (!nocheck) {
      if (type == MPI_LOCK_EXCLUSIVE)
        acquire_exclusive(w, t, kLockOffset, kExclusive);
      else
        acquire_shared(w, t);
    }
    t.lock = nocheck ? -type : type; // negative: held without the lock word (MPI_MODE_NOCHECK)
  };
  if (target >= 0) {
    one(w.targets[static_cast<std::size_t>(target)]);
    ++w.locks;
  } else {
    for (Target &t : w.targets)
      one(t);
    w.lock_all = true;
  }
  drop_dynamic_keys(w);
}

void unlock(Window &w, int target) {
  auto one = [&](Target &t) {
    if (w.backend->deferred) w.backend->flush(w, t.rank);
    if (t.lock == MPI_LOCK_EXCLUSIVE)
      w.backend->atomic(w, t, kLockOffset, false, 0, std::uint64_t(0) - kExclusive);
    else if (t.lock == MPI_LOCK_SHARED)
      w.backend->atomic(w, t, kLockOffset, false, 0, std::uint64_t(-1));
    t.lock = 0;
  };
  if (w.backend->deferred) w.backend->wait_pending(w);
  if (target >= 0) {
    one(w.targets[static_cast<std::size_t>(target)]);
    --w.locks;
  } else {
    for (Target &t : w.targets)
      one(t);
    w.lock_all = false;
  }
  // The end of a passive-target epoch lets the PE's other ranks run: a rank that polls a window
  // (lock, get, unlock until another rank has put a value, as MPICH's rma/linked_list tests do)
  // never blocks, and would otherwise keep its PE until the value came, which the rank that is to
  // put it, waiting on the same PE, could never send. The PE drives the network too, as in
  // MPI_Test.
  if (w.self.pe().scheduler().has_ready())
    w.self.pe().yield();
  else
    w.self.pe().poll();
}

} // namespace ampi::rma
