// src/rma/window.cpp — windows, one-sided operations and synchronisation (see window.hpp).
#include "rma/window.hpp"

#include "coll/coll.hpp"
#include "comm/context.hpp"
#include "datatype/datatype.hpp"
#include "p2p/p2p.hpp"
#include "pmi/host.hpp"
#include "core/pe.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

namespace ampi::rma {

WindowTable::WindowTable() = default;
WindowTable::~WindowTable() = default;

Window &WindowTable::add(std::unique_ptr<Window> w) {
  std::size_t slot = 0;
  while (slot < slots_.size() && slots_[slot])
    ++slot;
  if (slot == slots_.size()) slots_.emplace_back();
  w->handle =
      static_cast<MPI_Win>(static_cast<unsigned>(MPI_WIN_NULL) | static_cast<unsigned>(slot + 1));
  slots_[slot] = std::move(w);
  return *slots_[slot];
}

std::unique_ptr<Window> WindowTable::remove(MPI_Win h) noexcept {
  const unsigned slot = (static_cast<unsigned>(h) ^ static_cast<unsigned>(MPI_WIN_NULL)) - 1;
  if (slot >= slots_.size()) return nullptr;
  return std::move(slots_[slot]);
}

void WindowTable::clear() noexcept {
  slots_.clear();
}

Window::Mapping::~Mapping() {
  if (addr) ::munmap(addr, len);
}

Window::~Window() {
  for (const Target &t : targets)
    if (t.pinned) self.pe.ipc().unpin(t.ipc);
  // Keys before the registrations they name; UCX requests are finished by destroy().
  targets.clear();
}

namespace {

constexpr int kTagPost = 1;
constexpr int kTagComplete = 2;

// ---------------------------------------------------------------------------------------------
// Waiting for UCX: the rank yields to the others of its PE and drives the network meanwhile.

void wait_request(Pe &pe, ucs_status_ptr_t r) {
  while (!ucx::test(r))
    pe.yield();
}

void wait_pending(Window &w) {
  Pe &pe = w.self.pe;
  for (ucs_status_ptr_t r : w.pending)
    wait_request(pe, r);
  w.pending.clear();
}

void add_pending(Window &w, ucs_status_ptr_t r) {
  if (r) w.pending.push_back(r);
}

ucx::Transport &transport(Window &w) {
  return *w.self.pe.transport();
}

// Endpoint and keys of a target of a remote-capable window, on first use.
Target &prepare(Window &w, Target &t) {
  if (t.ep) return t;
  t.ep = transport(w).ucp_endpoint(t.pe);
  if (!t.ctrl_rkey_packed.empty()) t.ctrl_rkey = ucx::RemoteKey(t.ep, t.ctrl_rkey_packed.data());
  if (!t.local && !t.data_rkey_packed.empty())
    t.data_rkey = ucx::RemoteKey(t.ep, t.data_rkey_packed.data());
  return t;
}

// ---------------------------------------------------------------------------------------------
// Control words: plain memory in PE-local windows, UCX atomics otherwise.

std::uint64_t *word(const Target &t, std::size_t off) {
  return reinterpret_cast<std::uint64_t *>(static_cast<std::uintptr_t>(t.ctrl + off));
}

// Atomically: old = *word; if (cswap) { if (old == expected) *word = value; } else *word += value.
std::uint64_t atomic(Window &w, Target &t, std::size_t off, bool cswap, std::uint64_t expected,
                     std::uint64_t value) {
  if (w.node) { // shared memory with other processes of this host
    std::atomic_ref<std::uint64_t> a(*word(t, off));
    if (!cswap) return a.fetch_add(value);
    std::uint64_t old = expected;
    a.compare_exchange_strong(old, value);
    return old;
  }
  if (!w.remote) {
    std::uint64_t *p = word(t, off);
    const std::uint64_t old = *p;
    if (!cswap)
      *p = old + value;
    else if (old == expected)
      *p = value;
    return old;
  }
  prepare(w, t);
  std::uint64_t operand = cswap ? expected : value;
  std::uint64_t reply = value;
  wait_request(w.self.pe, ucx::atomic64(t.ep, cswap ? UCP_ATOMIC_OP_CSWAP : UCP_ATOMIC_OP_ADD,
                                        &operand, &reply, t.ctrl + off, t.ctrl_rkey.get()));
  return reply;
}

// Between attempts on a contended lock word: let the other ranks of the PE run, then back off
// (exponentially, up to about a microsecond) so that the holder is not slowed by our traffic.
void backoff(Window &w, unsigned &spins) {
  w.self.pe.yield();
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
  while (atomic(w, t, off, true, 0, value) != 0)
    backoff(w, spins);
}

void acquire_shared(Window &w, Target &t) {
  unsigned spins = 0;
  for (;;) {
    if ((atomic(w, t, kLockOffset, false, 0, 1) & kExclusive) == 0) return;
    atomic(w, t, kLockOffset, false, 0, std::uint64_t(-1));
    backoff(w, spins);
  }
}

// ---------------------------------------------------------------------------------------------
// Data layout: where the packed bytes of (count, type) lie in memory, as runs.

struct Run {
  std::ptrdiff_t mem; // offset from the buffer address
  std::size_t packed; // offset in the packed form
  std::size_t len;
};

// The runs of one access: one run (contiguous types, the common case) without allocating.
class RunList {
public:
  RunList() = default;
  explicit RunList(Run r) : one_(r), n_(1) {}
  explicit RunList(std::vector<Run> v) : many_(std::move(v)), n_(many_.size()) {}
  const Run *begin() const noexcept { return many_.empty() ? &one_ : many_.data(); }
  const Run *end() const noexcept { return begin() + n_; }
  bool empty() const noexcept { return n_ == 0; }
  const Run &front() const noexcept { return *begin(); }

private:
  Run one_{};
  std::vector<Run> many_;
  std::size_t n_ = 0;
};

RunList runs_of(const datatype::Type &t, std::size_t count) {
  const std::size_t total = t.size * count;
  if (total == 0) return {};
  if (t.contiguous) return RunList(Run{t.true_lb, 0, total});
  // Through the Type interface only: unpack marker bytes into a scratch span and read back where
  // each packed byte landed (four passes give a 32-bit packed index per byte).
  const auto n = static_cast<std::ptrdiff_t>(count) - 1;
  const std::ptrdiff_t lo = t.true_lb + std::min<std::ptrdiff_t>(0, n * t.extent);
  const std::ptrdiff_t hi = t.true_lb + t.true_extent + std::max<std::ptrdiff_t>(0, n * t.extent);
  const auto span = static_cast<std::size_t>(hi - lo);
  std::vector<unsigned char> scratch(span), packed(total);
  std::vector<std::uint32_t> index(span, 0);
  std::vector<bool> touched(span);
  std::fill(packed.begin(), packed.end(), 1);
  datatype::unpack(t, packed.data(), total, 0, scratch.data() - lo, count);
  for (std::size_t j = 0; j < span; ++j)
    touched[j] = scratch[j] == 1;
  for (int k = 0; k < 4; ++k) {
    for (std::size_t i = 0; i < total; ++i)
      packed[i] = static_cast<unsigned char>(i >> (8 * k));
    std::fill(scratch.begin(), scratch.end(), 0);
    datatype::unpack(t, packed.data(), total, 0, scratch.data() - lo, count);
    for (std::size_t j = 0; j < span; ++j)
      if (touched[j]) index[j] |= std::uint32_t{scratch[j]} << (8 * k);
  }
  std::vector<std::pair<std::uint32_t, std::ptrdiff_t>> where;
  where.reserve(total);
  for (std::size_t j = 0; j < span; ++j)
    if (touched[j]) where.emplace_back(index[j], lo + static_cast<std::ptrdiff_t>(j));
  std::sort(where.begin(), where.end());
  std::vector<Run> runs;
  for (auto [p, m] : where) {
    if (!runs.empty() && runs.back().packed + runs.back().len == p &&
        runs.back().mem + static_cast<std::ptrdiff_t>(runs.back().len) == m)
      ++runs.back().len;
    else
      runs.push_back({m, p, 1});
  }
  return RunList(std::move(runs));
}

// Finding the runs of a derived type costs a few passes over its span: recently used (type,
// count) pairs keep theirs (the layout is held, so its address stays a valid key).
struct RunCache {
  struct Entry {
    std::shared_ptr<const datatype::Layout> layout;
    std::size_t count = 0, size = 0;
    std::ptrdiff_t extent = 0, true_lb = 0;
    RunList runs;
  };
  static constexpr std::size_t kEntries = 8;
  std::vector<Entry> entries;
  std::size_t next = 0;
};

RunList cached_runs_of(Window &w, const datatype::Type &t, std::size_t count) {
  if (t.contiguous || !t.layout) return runs_of(t, count);
  if (!w.run_cache) w.run_cache = std::make_shared<RunCache>();
  auto &cache = *static_cast<RunCache *>(w.run_cache.get());
  for (const RunCache::Entry &e : cache.entries)
    if (e.layout == t.layout && e.count == count && e.size == t.size && e.extent == t.extent &&
        e.true_lb == t.true_lb)
      return e.runs;
  RunCache::Entry e{t.layout, count, t.size, t.extent, t.true_lb, runs_of(t, count)};
  RunList runs = e.runs;
  if (cache.entries.size() < RunCache::kEntries) {
    cache.entries.push_back(std::move(e));
  } else {
    cache.entries[cache.next] = std::move(e);
    cache.next = (cache.next + 1) % RunCache::kEntries;
  }
  return runs;
}

// Copies `n` bytes where either side may be CUDA device memory.
void move(Window &w, void *dst, bool dst_device, const void *src, bool src_device, std::size_t n) {
  if (!dst_device && !src_device) {
    std::memcpy(dst, src, n);
    return;
  }
  constexpr auto kind = [](bool d) { return d ? gpu::MemKind::Device : gpu::MemKind::Host; };
  w.self.pe.devptrs().copy(dst, kind(dst_device), src, kind(src_device), n);
}

// Whether an origin (or result, or compare) buffer is CUDA device memory.
bool on_device(Window &w, const void *buf) {
  return buf && gpu::is_device(w.self.pe.devptrs().kind(buf));
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

struct Where {
  std::uint64_t addr = 0; // start of the target buffer (runs are relative to it)
  ucp_rkey_h rkey = nullptr;
  bool direct = false; // addressable here (`addr` is ours)
  bool cma = false;    // through process_vm_readv/writev
  bool device = false; // CUDA device memory
};

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
  out->cma = t.cma;
  out->device = t.device;
  if (w.flavor != MPI_WIN_FLAVOR_DYNAMIC) {
    const std::ptrdiff_t off = static_cast<std::ptrdiff_t>(disp) * t.disp_unit;
    if (runs.empty()) {
      out->addr = t.base + static_cast<std::uint64_t>(off);
      return MPI_SUCCESS;
    }
    if (off + lo < 0 || static_cast<std::uint64_t>(off + hi) > t.size) {
      *why = "the access lies outside the target's window memory";
      return MPI_ERR_RMA_RANGE;
    }
    out->addr = t.base + static_cast<std::uint64_t>(off);
    if (w.remote && !t.local) out->rkey = prepare(w, t).data_rkey.get();
    return MPI_SUCCESS;
  }
  // Dynamic: disp is an address in the target's process.
  out->addr = static_cast<std::uint64_t>(disp);
  if (runs.empty()) return MPI_SUCCESS;
  const std::uint64_t a = out->addr + static_cast<std::uint64_t>(lo);
  const std::uint64_t b = out->addr + static_cast<std::uint64_t>(hi);
  if (!w.remote) { // the control block is addressable here
    const Ctrl *c = reinterpret_cast<const Ctrl *>(static_cast<std::uintptr_t>(t.ctrl));
    for (std::uint64_t i = 0; i < c->nregions; ++i) {
      const Region &r = c->regions[i];
      if (!r.len || a < r.base || b > r.base + r.len) continue;
      if (!r.device) return MPI_SUCCESS;
      out->device = true;
      if (t.direct) return MPI_SUCCESS; // our own process
      // Another process's device memory: opened with CUDA IPC (kept open by our PE's cache).
      gpu::IpcRef ref;
      std::memcpy(&ref, r.rkey, sizeof ref);
      gpu::CUresult err = 0;
      void *here = w.self.pe.ipc().resolve(ref, &err);
      if (!here) {
        *why = "the target's attached device memory cannot be opened here with CUDA IPC";
        return MPI_ERR_OTHER;
      }
      out->addr = reinterpret_cast<std::uintptr_t>(here) + (out->addr - r.base);
      out->direct = true;
      out->cma = false;
      return MPI_SUCCESS;
    }
    *why = "the access lies outside every region attached to the target's dynamic window";
    return MPI_ERR_RMA_RANGE;
  }
  prepare(w, t);
  for (const Target::DynKey &k : t.dyn)
    if (a >= k.base && b <= k.base + k.len) {
      out->rkey = k.key.get();
      return MPI_SUCCESS;
    }
  // Read the target's table of attached regions.
  auto table = std::make_unique<Ctrl>();
  wait_request(w.self.pe, ucx::get(t.ep, table.get(), sizeof(Ctrl), t.ctrl, t.ctrl_rkey.get()));
  for (std::uint64_t i = 0; i < std::min<std::uint64_t>(table->nregions, kMaxRegions); ++i) {
    const Region &r = table->regions[i];
    if (r.len && a >= r.base && b <= r.base + r.len) {
      t.dyn.push_back({r.base, r.len, ucx::RemoteKey(t.ep, r.rkey)});
      out->rkey = t.dyn.back().key.get();
      return MPI_SUCCESS;
    }
  }
  *why = "the access lies outside every region attached to the target's dynamic window";
  return MPI_ERR_RMA_RANGE;
}

std::byte *local_ptr(const Where &wh) {
  return reinterpret_cast<std::byte *>(static_cast<std::uintptr_t>(wh.addr));
}

// Reads the target's packed bytes (runs) into `out` / writes them from `in`.
// Cross memory attach: moves `len` bytes between here and `remote` in process `pid`.
void cma(int pid, void *local, std::uint64_t remote, std::size_t len, bool write) {
  while (len > 0) {
    iovec l{local, len};
    iovec r{reinterpret_cast<void *>(static_cast<std::uintptr_t>(remote)), len};
    const ssize_t n = write ? ::process_vm_writev(pid, &l, 1, &r, 1, 0)
                            : ::process_vm_readv(pid, &l, 1, &r, 1, 0);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      throw std::runtime_error(std::string("ampi: RMA through process_vm_") +
                               (write ? "writev" : "readv") + " failed: " + std::strerror(errno) +
                               " (AMPI_RMA_SHM=0 uses UCX instead)");
    }
    local = static_cast<std::byte *>(local) + n;
    remote += static_cast<std::uint64_t>(n);
    len -= static_cast<std::size_t>(n);
  }
}

// `out` / `in` may be device memory (`origin_device`) only where the target is addressable here
// (`wh.direct`); the callers stage through host memory otherwise.
void read_target(Window &w, Target &t, const Where &wh, const RunList &runs, std::byte *out,
                 bool wait_now, bool origin_device = false) {
  if (wh.direct) {
    for (const Run &r : runs)
      move(w, out + r.packed, origin_device, local_ptr(wh) + r.mem, wh.device, r.len);
    return;
  }
  if (wh.cma) {
    for (const Run &r : runs)
      cma(t.pid, out + r.packed, wh.addr + static_cast<std::uint64_t>(r.mem), r.len, false);
    return;
  }
  t.dirty = true;
  for (const Run &r : runs) {
    ucs_status_ptr_t q =
        ucx::get(t.ep, out + r.packed, r.len, wh.addr + static_cast<std::uint64_t>(r.mem), wh.rkey);
    if (wait_now)
      wait_request(w.self.pe, q);
    else
      add_pending(w, q);
  }
}

void write_target(Window &w, Target &t, const Where &wh, const RunList &runs, const std::byte *in,
                  bool wait_now, bool origin_device = false) {
  if (wh.direct) {
    for (const Run &r : runs)
      move(w, local_ptr(wh) + r.mem, wh.device, in + r.packed, origin_device, r.len);
    return;
  }
  if (wh.cma) {
    for (const Run &r : runs)
      cma(t.pid, const_cast<std::byte *>(in + r.packed),
          wh.addr + static_cast<std::uint64_t>(r.mem), r.len, true);
    return;
  }
  t.dirty = true;
  for (const Run &r : runs) {
    ucs_status_ptr_t q =
        ucx::put(t.ep, in + r.packed, r.len, wh.addr + static_cast<std::uint64_t>(r.mem), wh.rkey);
    if (wait_now)
      wait_request(w.self.pe, q);
    else
      add_pending(w, q);
  }
}

void flush_target(Window &w, Target &t) {
  if (!t.dirty) return;
  wait_request(w.self.pe, ucx::flush(t.ep));
  t.dirty = false;
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

// -----------------------------------------------------------------------------------------------
// Creation and destruction.

namespace {

// What every member tells the others at creation (kept small: thousands of ranks exchange it).
struct Record {
  std::int32_t world, pe, pid, disp_unit;
  std::uint64_t base, size, ctrl;
  std::uint64_t shm_len, shm_data; // node mode: file size, data offset (kNone: absent)
  std::uint64_t shm_tag;           // node mode: names the file with pid and world rank
  std::uint64_t failed;            // node mode: our file could not be made
  std::int32_t device;             // the memory is CUDA device memory
  std::int32_t ipc_failed;         // node mode: CUDA cannot export it (pool or managed memory)
  gpu::IpcRef ipc;                 // node mode, device memory: its CUDA IPC description
};
// UCX mode: the packed remote keys, exchanged after the records.
struct Keys {
  std::uint32_t data_len, ctrl_len; // ~0u: too large
  std::byte data[kRkeyMax];
  std::byte ctrl[kRkeyMax];
};

void shm_name_of(char (&name)[64], int pid, int world, std::uint64_t tag) {
  std::snprintf(name, sizeof name, "/ampi.%d.%d.%llx", pid, world,
                static_cast<unsigned long long>(tag));
}
constexpr std::uint64_t kNone = ~std::uint64_t{0};

// Creates (O_EXCL, its pages reserved) or opens the shared-memory file `name` of `len` bytes and
// maps it. A file that cannot be created (e.g. /dev/shm is full) gives nullptr; other failures
// throw.
void *map_shm(Window &w, const char *name, std::size_t len, bool create) {
  const int fd = ::shm_open(name, create ? O_RDWR | O_CREAT | O_EXCL : O_RDWR, 0600);
  if (fd < 0) {
    if (create) return nullptr;
    throw std::runtime_error(std::string("ampi: shm_open(") + name + "): " + std::strerror(errno));
  }
  // Reserve the pages now: a tmpfs that runs out later would kill us with SIGBUS on first touch.
  if (create && (::ftruncate(fd, static_cast<off_t>(len)) != 0 ||
                 ::posix_fallocate(fd, 0, static_cast<off_t>(len)) != 0)) {
    ::close(fd);
    ::shm_unlink(name);
    return nullptr;
  }
  void *p = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED)
    throw std::runtime_error(std::string("ampi: mmap of shared memory: ") + std::strerror(errno));
  w.maps.emplace_back(p, len);
  return p;
}

constexpr const char *kNoShm = "cannot allocate the window's shared memory in /dev/shm (full, or "
                               "too small for the window; AMPI_RMA_SHM=0 uses UCX instead)";

constexpr std::size_t round_up(std::size_t n, std::size_t a) {
  return (n + a - 1) / a * a;
}

} // namespace

int create(Window &w, int flavor, void *base, std::size_t size, int disp_unit, const char **why) {
  Rank &self = w.self;
  Pe &pe = self.pe;
  const comm::Comm &c = *w.comm;
  const int n = c.size();
  w.flavor = flavor;
  w.disp_unit = disp_unit;
  w.size = static_cast<MPI_Aint>(size);
  const int my_pe = pe.config().my_pe;
  const int my_pid = static_cast<int>(::getpid());

  // Where the members live: one PE, one host, or several hosts.
  struct Place {
    std::uint64_t host, size;
  };
  std::vector<Place> places(static_cast<std::size_t>(n));
  const Place mine{host_id(), size};
  coll::allgather(c, &mine, places.data(), sizeof mine);
  bool one_pe = true, one_host = true;
  for (int r = 0; r < n; ++r) {
    if (!pe.local(c.world_rank(r))) one_pe = false;
    if (places[static_cast<std::size_t>(r)].host != mine.host) one_host = false;
  }
  w.node = !one_pe && one_host && pe.config().rma_shm;
  // Cross memory attach needs ptrace rights over us: where Yama restricts ptrace to descendants
  // (ptrace_scope 1), allow the other processes of the job.
  if (w.node) ::prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
  w.remote = !one_pe && !w.node;
  if (flavor == MPI_WIN_FLAVOR_SHARED && w.remote) {
    *why = one_host ? "the communicator has members in other processes and AMPI_RMA_SHM=0 "
                      "turned shared memory off"
                    : "the communicator has members on other hosts";
    return MPI_ERR_RMA_SHARED;
  }
  const std::size_t ctrl_bytes =
      flavor == MPI_WIN_FLAVOR_DYNAMIC ? sizeof(Ctrl) : offsetof(Ctrl, regions);
  const std::size_t ctrl_stride = round_up(ctrl_bytes, 64);

  auto rec = std::make_unique<Record>();
  std::memset(rec.get(), 0, sizeof(Record));
  rec->shm_data = kNone;
  const auto tag = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(&w));

  // Shared windows: one block for all members, member i's part right after member i-1's.
  std::vector<std::uint64_t> offsets(static_cast<std::size_t>(n));
  std::uint64_t total = 0;
  for (int r = 0; r < n; ++r) {
    offsets[static_cast<std::size_t>(r)] = total;
    total += places[static_cast<std::size_t>(r)].size;
  }
  if (flavor == MPI_WIN_FLAVOR_SHARED && !w.node) {
    std::shared_ptr<std::byte[]> *holder = &w.segment;
    if (c.rank == 0) w.segment = std::make_shared<std::byte[]>(total + 64);
    coll::bcast(c, &holder, sizeof holder, 0);
    if (c.rank != 0) w.segment = *holder;
    const auto aligned =
        (reinterpret_cast<std::uintptr_t>(w.segment.get()) + 63) & ~std::uintptr_t{63};
    w.base = reinterpret_cast<std::byte *>(aligned) + offsets[static_cast<std::size_t>(c.rank)];
  }

  // CUDA device memory given to MPI_Win_create: used in place within the process, opened by the
  // other processes of a node-mode window with CUDA IPC; UCX mode does not take it.
  const bool device = flavor == MPI_WIN_FLAVOR_CREATE && base && size > 0 &&
                      gpu::is_device(pe.devptrs().kind(base));
  rec->device = device;
  if (device && w.node && !pe.ipc().describe(base, &rec->ipc)) rec->ipc_failed = 1;

  std::byte *shared_block = nullptr; // node-mode shared window: our mapping of the one file
  std::size_t data_at = 0;
  if (flavor == MPI_WIN_FLAVOR_SHARED && w.node) {
    // Rank 0 creates one file: every member's control block, then the data of all.
    data_at = round_up(ctrl_stride * static_cast<std::size_t>(n), 4096);
    const std::size_t len = data_at + total + 1;
    char name[64] = {};
    if (c.rank == 0) {
      shm_name_of(name, my_pid, self.world_rank, tag);
      shared_block = static_cast<std::byte *>(map_shm(w, name, len, true));
      if (shared_block) {
        std::memset(shared_block, 0, data_at);
        w.shm_name = name;
      } else {
        name[0] = '\0'; // tells the others
      }
    }
    coll::bcast(c, name, sizeof name, 0);
    if (!name[0]) {
      *why = kNoShm;
      return MPI_ERR_NO_MEM;
    }
    if (c.rank != 0) shared_block = static_cast<std::byte *>(map_shm(w, name, len, false));
    w.base = shared_block + data_at + offsets[static_cast<std::size_t>(c.rank)];
    w.ctrl =
        reinterpret_cast<Ctrl *>(shared_block + ctrl_stride * static_cast<std::size_t>(c.rank));
  } else if (w.node) {
    // Our own file: control block, then (MPI_Win_allocate) the data.
    const bool data_here = flavor == MPI_WIN_FLAVOR_ALLOCATE;
    const std::size_t len = round_up(ctrl_bytes, 4096) + (data_here ? size : 0);
    char name[64] = {};
    shm_name_of(name, my_pid, self.world_rank, tag);
    auto *block = static_cast<std::byte *>(map_shm(w, name, len, true));
    if (!block) { // go on to the exchange, where everyone learns of it
      rec->failed = 1;
      w.ctrl_owned = std::make_unique<std::byte[]>(sizeof(Ctrl));
      w.ctrl = reinterpret_cast<Ctrl *>(w.ctrl_owned.get());
    } else {
      w.shm_name = name;
      w.ctrl = reinterpret_cast<Ctrl *>(block);
      std::memset(block, 0, ctrl_bytes);
    }
    rec->shm_len = len;
    rec->shm_tag = tag;
    if (!block) {
    } else if (data_here) {
      rec->shm_data = round_up(ctrl_bytes, 4096);
      w.base = block + rec->shm_data;
    } else if (flavor == MPI_WIN_FLAVOR_CREATE) {
      w.base = base;
    }
  } else {
    if (flavor == MPI_WIN_FLAVOR_ALLOCATE) {
      if (w.remote && size > 0) {
        w.mem = ucx::Registration(transport(w), nullptr, size);
        w.base = w.mem.address();
      } else {
        w.owned = std::make_unique<std::byte[]>(size ? size : 1);
        w.base = w.owned.get();
      }
    } else if (flavor == MPI_WIN_FLAVOR_CREATE) {
      w.base = base;
      if (w.remote && size > 0 && !device) w.mem = ucx::Registration(transport(w), base, size);
    }
    if (w.remote) {
      w.ctrl_mem = ucx::Registration(transport(w), nullptr, ctrl_bytes);
      w.ctrl = static_cast<Ctrl *>(w.ctrl_mem.address());
    } else {
      w.ctrl_owned = std::make_unique<std::byte[]>(sizeof(Ctrl));
      w.ctrl = reinterpret_cast<Ctrl *>(w.ctrl_owned.get());
    }
    std::memset(static_cast<void *>(w.ctrl), 0, ctrl_bytes);
  }

  rec->world = self.world_rank;
  rec->pe = my_pe;
  rec->pid = my_pid;
  rec->base = reinterpret_cast<std::uintptr_t>(w.base);
  rec->size = size;
  rec->disp_unit = disp_unit;
  rec->ctrl = reinterpret_cast<std::uintptr_t>(w.ctrl);
  std::vector<Record> all(static_cast<std::size_t>(n));
  coll::allgather(c, rec.get(), all.data(), sizeof(Record));
  for (const Record &r : all) {
    const char *bad = nullptr;
    int code = MPI_SUCCESS;
    if (r.failed) {
      bad = kNoShm;
      code = MPI_ERR_NO_MEM;
    } else if (r.device && w.remote) {
      bad = "a member's memory is CUDA device memory, which ampi's windows take only when every "
            "member is on one host (with shared memory on: not AMPI_RMA_SHM=0)";
      code = MPI_ERR_UNSUPPORTED_OPERATION;
    } else if (r.ipc_failed) {
      bad = "a member's memory is CUDA device memory that CUDA IPC cannot share with the other "
            "processes (cudaMallocAsync pool or managed memory; use cudaMalloc)";
      code = MPI_ERR_UNSUPPORTED_OPERATION;
    }
    if (bad) {
      if (!w.shm_name.empty()) ::shm_unlink(w.shm_name.c_str());
      w.shm_name.clear();
      *why = bad;
      return code;
    }
  }
  std::vector<Keys> keys;
  if (w.remote) {
    auto mine_keys = std::make_unique<Keys>();
    std::memset(mine_keys.get(), 0, sizeof(Keys));
    if (w.mem.rkey().size() > kRkeyMax || w.ctrl_mem.rkey().size() > kRkeyMax) {
      mine_keys->data_len = mine_keys->ctrl_len = ~0u;
    } else {
      mine_keys->data_len = static_cast<std::uint32_t>(w.mem.rkey().size());
      if (mine_keys->data_len) // a window of 0 bytes has no key
        std::memcpy(mine_keys->data, w.mem.rkey().data(), mine_keys->data_len);
      mine_keys->ctrl_len = static_cast<std::uint32_t>(w.ctrl_mem.rkey().size());
      if (mine_keys->ctrl_len)
        std::memcpy(mine_keys->ctrl, w.ctrl_mem.rkey().data(), mine_keys->ctrl_len);
    }
    keys.resize(static_cast<std::size_t>(n));
    coll::allgather(c, mine_keys.get(), keys.data(), sizeof(Keys));
    for (const Keys &k : keys)
      if (k.data_len == ~0u) {
        *why = "UCX's packed remote key is larger than ampi's limit";
        return MPI_ERR_INTERN;
      }
  }
  w.targets.resize(all.size());
  gpu::CUresult ipc_open_failed = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const Record &r = all[i];
    Target &t = w.targets[i];
    t.world = r.world;
    t.pe = r.pe;
    t.pid = r.pid;
    t.local = r.pe == my_pe;
    t.base = r.base;
    t.size = r.size;
    t.disp_unit = r.disp_unit;
    t.ctrl = r.ctrl;
    t.direct = t.local;
    t.device = r.device != 0;
    if (flavor == MPI_WIN_FLAVOR_SHARED && w.node) {
      // Everyone's part of the one file, through our own mapping.
      t.base = reinterpret_cast<std::uintptr_t>(shared_block + data_at + offsets[i]);
      t.ctrl = reinterpret_cast<std::uintptr_t>(shared_block + ctrl_stride * i);
      t.direct = true;
    } else if (w.node && !t.local) {
      char name[64];
      shm_name_of(name, r.pid, r.world, r.shm_tag);
      auto *block = static_cast<std::byte *>(map_shm(w, name, r.shm_len, false));
      t.ctrl = reinterpret_cast<std::uintptr_t>(block);
      if (r.shm_data != kNone) {
        t.base = reinterpret_cast<std::uintptr_t>(block + r.shm_data);
        t.direct = true;
      } else if (t.device) { // its device memory, opened here for the window's life
        gpu::CUresult err = 0;
        if (void *here = pe.ipc().pin(r.ipc, &err)) {
          t.ipc = r.ipc;
          t.pinned = true;
          t.base = reinterpret_cast<std::uintptr_t>(here);
          t.direct = true;
        } else {
          ipc_open_failed = err ? err : -1;
        }
      } else {
        t.cma = true;
      }
    }
    if (w.remote) {
      t.data_rkey_packed.assign(keys[i].data, keys[i].data + keys[i].data_len);
      t.ctrl_rkey_packed.assign(keys[i].ctrl, keys[i].ctrl + keys[i].ctrl_len);
    }
  }
  if (w.node && std::any_of(all.begin(), all.end(), [](const Record &r) { return r.device; })) {
    // Every member must have opened every other's device memory: one failure fails them all.
    std::vector<std::int32_t> failed(static_cast<std::size_t>(n));
    const std::int32_t mine_failed = ipc_open_failed != 0;
    coll::allgather(c, &mine_failed, failed.data(), sizeof mine_failed);
    if (std::find(failed.begin(), failed.end(), 1) != failed.end()) {
      if (!w.shm_name.empty()) ::shm_unlink(w.shm_name.c_str());
      w.shm_name.clear();
      *why = "a member cannot open another's CUDA device memory with CUDA IPC (no peer access "
             "between their GPUs?)";
      return MPI_ERR_OTHER;
    }
  }
  if (w.node) {
    // Once every member has mapped the files, their names can go: nothing is left behind.
    coll::barrier(c);
    if (!w.shm_name.empty()) ::shm_unlink(w.shm_name.c_str());
    w.shm_name.clear();
  }
  return MPI_SUCCESS;
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
    Attached a{static_cast<std::byte *>(base), len, {}};
    const bool device = len > 0 && gpu::is_device(w.self.pe.devptrs().kind(base));
    if (device && w.remote) {
      *why = "the region is CUDA device memory, which ampi's windows take only when every member "
             "is on one host (with shared memory on: not AMPI_RMA_SHM=0)";
      return MPI_ERR_UNSUPPORTED_OPERATION;
    }
    if (device && w.node) { // the other processes open it with CUDA IPC
      gpu::IpcRef ref;
      if (!w.self.pe.ipc().describe(base, &ref)) {
        *why = "the region is CUDA device memory that CUDA IPC cannot share with the other "
               "processes (cudaMallocAsync pool or managed memory; use cudaMalloc)";
        return MPI_ERR_UNSUPPORTED_OPERATION;
      }
      std::memcpy(r.rkey, &ref, sizeof ref);
      r.rkey_len = sizeof ref;
    }
    r.device = device;
    if (w.remote) {
      a.reg = ucx::Registration(transport(w), base, len);
      if (a.reg.rkey().size() > kRkeyMax) {
        *why = "UCX's packed remote key is larger than ampi's limit";
        return MPI_ERR_RMA_ATTACH;
      }
      r.rkey_len = a.reg.rkey().size();
      std::memcpy(r.rkey, a.reg.rkey().data(), r.rkey_len);
    }
    r.base = reinterpret_cast<std::uintptr_t>(base);
    r.len = len;
    c.nregions = std::max<std::uint64_t>(c.nregions, static_cast<std::uint64_t>(i) + 1);
    w.attached.push_back(std::move(a));
    return MPI_SUCCESS;
  }
  *why = "too many regions attached to this dynamic window (ampi's limit is 32)";
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
    for (auto it = w.attached.begin(); it != w.attached.end(); ++it)
      if (it->base == base) {
        w.attached.erase(it);
        break;
      }
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
  // A packed copy must stay until UCX has read it: wait for local completion then.
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

namespace {

// Element-wise CPU atomics on one 4- or 8-byte integer: old value out, `op` applied with `in`
// (`cmp`: compare-and-swap). Operations without an atomic instruction loop on compare-exchange.
template <class U>
U atomic_element(std::byte *addr, MPI_Op op, datatype::ReduceFn fn, const std::byte *in,
                 const std::byte *cmp) {
  std::atomic_ref<U> a(*reinterpret_cast<U *>(addr));
  U v{};
  if (in) std::memcpy(&v, in, sizeof v);
  if (cmp) {
    U expected;
    std::memcpy(&expected, cmp, sizeof expected);
    a.compare_exchange_strong(expected, v);
    return expected;
  }
  if (op == MPI_NO_OP) return a.load();
  if (op == MPI_REPLACE) return a.exchange(v);
  if (op == MPI_SUM) return a.fetch_add(v);
  if (op == MPI_BAND) return a.fetch_and(v);
  if (op == MPI_BOR) return a.fetch_or(v);
  if (op == MPI_BXOR) return a.fetch_xor(v);
  U old = a.load();
  for (;;) {
    U next = old;
    fn(&v, &next, 1);
    if (a.compare_exchange_weak(old, next)) return old;
  }
}

// Windows whose every member's memory every member can address (node mode, memory the window
// allocated) do accumulates on 4- and 8-byte integers with CPU atomics instead of the
// accumulate lock: all of them, so that the two ways never meet on one location. Returns false
// (nothing done) where that does not apply.
bool accumulate_atomically(Window &w, const Where &wh, const RunList &runs,
                           const datatype::Type &tt, MPI_Op op, datatype::ReduceFn fn,
                           const std::byte *src, std::byte *old, const std::byte *cmp) {
  if (!w.node || (w.flavor != MPI_WIN_FLAVOR_ALLOCATE && w.flavor != MPI_WIN_FLAVOR_SHARED))
    return false;
  const datatype::Builtin *b = datatype::builtin(tt.basic);
  if (!b || (b->category != datatype::Category::Int && b->category != datatype::Category::Uint) ||
      (b->size != 4 && b->size != 8) || b->extent != b->size)
    return false;
  const std::size_t es = b->size;
  for (const Run &r : runs) // whole, aligned elements only (else the lock: same for everyone)
    if (r.len % es || r.packed % es || (wh.addr + static_cast<std::uint64_t>(r.mem)) % es)
      return false;
  for (const Run &r : runs) {
    std::byte *p = local_ptr(wh) + r.mem;
    for (std::size_t k = 0; k < r.len; k += es) {
      const std::size_t at = r.packed + k;
      const std::byte *in = src ? src + at : nullptr;
      const std::byte *c = cmp ? cmp + at : nullptr;
      if (es == 8) {
        const std::uint64_t o = atomic_element<std::uint64_t>(p + k, op, fn, in, c);
        if (old) std::memcpy(old + at, &o, 8);
      } else {
        const std::uint32_t o = atomic_element<std::uint32_t>(p + k, op, fn, in, c);
        if (old) std::memcpy(old + at, &o, 4);
      }
    }
  }
  return true;
}

} // namespace

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
    if (accumulate_atomically(w, wh, runs, tt, op, fn, src.data, rbuf ? result.data() : nullptr,
                              compare ? cmp.data : nullptr)) {
      if (rbuf) origin_store(w, result.data(), len, rbuf, rcount, *rt);
      return MPI_SUCCESS;
    }
  }

  // The read-modify-write under the target's accumulate lock (only needed where another PE may
  // interleave: within a PE-local window every operation runs to its end without yielding).
  if (w.remote || w.node) acquire_exclusive(w, t, kAccOffset, 1);
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
    if (w.remote && !t.local) flush_target(w, t);
  }
  if (w.remote || w.node) atomic(w, t, kAccOffset, false, 0, std::uint64_t(-1));
  return MPI_SUCCESS;
}

// -----------------------------------------------------------------------------------------------
// Synchronisation.

void flush(Window &w, int target) {
  std::atomic_thread_fence(std::memory_order_seq_cst); // node mode: our stores before what follows
  wait_pending(w);
  if (!w.remote) return;
  if (target >= 0) {
    flush_target(w, w.targets[static_cast<std::size_t>(target)]);
    return;
  }
  for (Target &t : w.targets)
    flush_target(w, t);
}

namespace {

void drop_dynamic_keys(Window &w) {
  if (w.flavor != MPI_WIN_FLAVOR_DYNAMIC) return;
  for (Target &t : w.targets)
    t.dyn.clear();
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
  wait_pending(w);
  for (int r : w.access) {
    if (w.remote) flush_target(w, w.targets[static_cast<std::size_t>(r)]);
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
  w.self.pe.poll();
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
    w.self.pe.yield();
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
    flush_target(w, t);
    if (t.lock == MPI_LOCK_EXCLUSIVE)
      atomic(w, t, kLockOffset, false, 0, std::uint64_t(0) - kExclusive);
    else if (t.lock == MPI_LOCK_SHARED)
      atomic(w, t, kLockOffset, false, 0, std::uint64_t(-1));
    t.lock = 0;
  };
  wait_pending(w);
  if (target >= 0) {
    one(w.targets[static_cast<std::size_t>(target)]);
    --w.locks;
  } else {
    for (Target &t : w.targets)
      one(t);
    w.lock_all = false;
  }
}

} // namespace ampi::rma
