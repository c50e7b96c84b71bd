// src/rma/backend_shm.cpp — the back-end of windows whose members live in several processes of
// one host. Every member's control block, and the memory of MPI_Win_allocate(_shared) windows,
// live in POSIX shared memory that every member maps: control words change with CPU atomics,
// mapped data moves with memcpy. The memory of MPI_Win_create and dynamic windows is read and
// written with process_vm_readv/writev (cross memory attach), or, when it is CUDA device memory,
// opened with CUDA IPC (at creation, or at first access for attached regions) and copied directly.
#include "rma/backend.hpp"

#include "core/pe.hpp"
#include "datatype/datatype.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace ampi::rma {

namespace {

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

// A mapping of a shared-memory file, unmapped when it goes.
class Mapping {
public:
  Mapping(void *a, std::size_t l) : addr_(a), len_(l) {}
  Mapping(Mapping &&o) noexcept : addr_(std::exchange(o.addr_, nullptr)), len_(o.len_) {}
  Mapping &operator=(Mapping &&) = delete;
  ~Mapping() {
    if (addr_) ::munmap(addr_, len_);
  }

private:
  void *addr_;
  std::size_t len_;
};

// What every member tells the others at creation in this mode.
struct Record {
  Member m;
  std::uint64_t shm_len, shm_data; // file size, data offset (kNone: absent)
  std::uint64_t shm_tag;           // names the file with pid and world rank
  std::uint64_t failed;            // our file could not be made
  std::int32_t ipc_failed;         // CUDA cannot export our device memory (pool or managed)
  std::int32_t pad;
  gpu::IpcRef ipc; // device memory: its CUDA IPC description
};
constexpr std::uint64_t kNone = ~std::uint64_t{0};

void shm_name_of(char (&name)[64], int pid, int world, std::uint64_t tag) {
  std::snprintf(name, sizeof name, "/ampi.%d.%d.%llx", pid, world,
                static_cast<unsigned long long>(tag));
}

constexpr const char *kNoShm = "cannot allocate the window's shared memory in /dev/shm (full, or "
                               "too small for the window; AMPI_RMA_SHM=0 uses UCX instead)";

constexpr std::size_t round_up(std::size_t n, std::size_t a) {
  return (n + a - 1) / a * a;
}

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

class ShmBackend final : public Backend {
public:
  ShmBackend() : Backend(false) {}
  ~ShmBackend() override {
    for (const Peer &p : peers_)
      if (p.pinned) ipc_->unpin(p.ipc);
  }

  int setup(Window &w, const Setup &s, const char **why) override;
  int attach(Window &w, Region &r, void *base, std::size_t len, bool device,
             const char **why) override;
  void detach(Window &, const void *) override {}

  std::uint64_t atomic(Window &, Target &t, std::size_t off, bool cswap, std::uint64_t expected,
                       std::uint64_t value) override {
    std::atomic_ref<std::uint64_t> a(
        *reinterpret_cast<std::uint64_t *>(static_cast<std::uintptr_t>(t.ctrl + off)));
    if (!cswap) return a.fetch_add(value);
    std::uint64_t old = expected;
    a.compare_exchange_strong(old, value);
    return old;
  }
  bool concurrent() const noexcept override { return true; }

  void locate(Window &, Target &, Where *) override {}
  int locate_dynamic(Window &w, Target &t, std::uint64_t a, std::uint64_t b, Where *out,
                     const char **why) override;

  // Targets not addressable here: cross memory attach (finished at once).
  void read(Window &, Target &t, const Where &wh, const RunList &runs, std::byte *out,
            bool) override {
    for (const Run &r : runs)
      cma(peer(t).pid, out + r.packed, wh.addr + static_cast<std::uint64_t>(r.mem), r.len, false);
  }
  void write(Window &, Target &t, const Where &wh, const RunList &runs, const std::byte *in,
             bool) override {
    for (const Run &r : runs)
      cma(peer(t).pid, const_cast<std::byte *>(in + r.packed),
          wh.addr + static_cast<std::uint64_t>(r.mem), r.len, true);
  }
  bool accumulate_atomically(Window &w, const Where &wh, const RunList &runs,
                             const datatype::Type &tt, MPI_Op op, datatype::ReduceFn fn,
                             const std::byte *src, std::byte *old, const std::byte *cmp) override;

  // Stores and CPU atomics are complete when made (window.cpp fences before synchronising).
  void wait_pending(Window &) override {}
  void flush(Window &, int) override {}
  void epoch_start(Window &) override {}

private:
  struct Peer {
    int pid = 0;
    bool pinned = false; // `ipc` is held open in our PE's IpcCache until the window is freed
    gpu::IpcRef ipc{};
  };
  Peer &peer(const Target &t) { return peers_[static_cast<std::size_t>(t.rank)]; }
  // Creates (O_EXCL, its pages reserved) or opens and maps a shared-memory file.
  void *map(const char *name, std::size_t len, bool create);
  int make_shared_block(Window &w, const Setup &s, const char **why);
  void make_own_file(Window &w, const Setup &s, Record &rec);
  void open_peer(Window &w, const Setup &s, const Record &r, int rank, gpu::CUresult *ipc_err);
  int fail(const char *why_text, const char **why, int code);

  gpu::IpcCache *ipc_ = nullptr;
  std::vector<Peer> peers_;
  std::vector<Mapping> maps_;
  std::string shm_name_;              // unlinked once every member has mapped it
  std::unique_ptr<std::byte[]> ctrl_; // our control block when our file could not be made
  std::byte *block_ = nullptr;        // shared windows: our mapping of the one file
  std::size_t data_at_ = 0, ctrl_stride_ = 0;
};

// Creates (O_EXCL, its pages reserved) or opens the shared-memory file `name` of `len` bytes and
// maps it. A file that cannot be created (e.g. /dev/shm is full) gives nullptr; other failures
// throw.
void *ShmBackend::map(const char *name, std::size_t len, bool create) {
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
  maps_.emplace_back(p, len);
  return p;
}

int ShmBackend::fail(const char *why_text, const char **why, int code) {
  if (!shm_name_.empty()) ::shm_unlink(shm_name_.c_str());
  shm_name_.clear();
  *why = why_text;
  return code;
}

// MPI_Win_allocate_shared: rank 0 creates one file, every member's control block, then the data
// of all, member i's part right after member i-1's.
int ShmBackend::make_shared_block(Window &w, const Setup &s, const char **why) {
  const comm::Comm &c = *w.comm;
  data_at_ = round_up(ctrl_stride_ * static_cast<std::size_t>(c.size()), 4096);
  const std::size_t len = data_at_ + s.total + 1;
  char name[64] = {};
  if (c.rank == 0) {
    shm_name_of(name, static_cast<int>(::getpid()), w.self.world_rank,
                reinterpret_cast<std::uintptr_t>(&w));
    block_ = static_cast<std::byte *>(map(name, len, true));
    if (block_) {
      std::memset(block_, 0, data_at_);
      shm_name_ = name;
    } else {
      name[0] = '\0'; // tells the others
    }
  }
  coll::bcast(c, name, sizeof name, 0);
  if (!name[0]) {
    *why = kNoShm;
    return MPI_ERR_NO_MEM;
  }
  if (c.rank != 0) block_ = static_cast<std::byte *>(map(name, len, false));
  w.base = block_ + data_at_ + s.offsets[static_cast<std::size_t>(c.rank)];
  w.ctrl = reinterpret_cast<Ctrl *>(block_ + ctrl_stride_ * static_cast<std::size_t>(c.rank));
  return MPI_SUCCESS;
}

// Other flavors: our own file, our control block then (MPI_Win_allocate) the data. A file that
// cannot be made is reported in `rec`, so that every member learns of it at the exchange.
void ShmBackend::make_own_file(Window &w, const Setup &s, Record &rec) {
  const bool data_here = s.flavor == MPI_WIN_FLAVOR_ALLOCATE;
  const std::size_t len = round_up(s.ctrl_bytes, 4096) + (data_here ? s.size : 0);
  const auto tag = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(&w));
  char name[64] = {};
  shm_name_of(name, static_cast<int>(::getpid()), w.self.world_rank, tag);
  auto *block = static_cast<std::byte *>(map(name, len, true));
  rec.shm_len = len;
  rec.shm_tag = tag;
  if (!block) {
    rec.failed = 1;
    ctrl_ = std::make_unique_for_overwrite<std::byte[]>(sizeof(Ctrl)); // s.ctrl_bytes zeroed
    w.ctrl = reinterpret_cast<Ctrl *>(ctrl_.get());
    return;
  }
  shm_name_ = name;
  w.ctrl = reinterpret_cast<Ctrl *>(block);
  std::memset(block, 0, s.ctrl_bytes);
  if (data_here) {
    rec.shm_data = round_up(s.ctrl_bytes, 4096);
    w.base = block + rec.shm_data;
  } else if (s.flavor == MPI_WIN_FLAVOR_CREATE) {
    w.base = s.base;
  }
}

// Makes member `rank`'s memory reachable from here: its part of the shared block, its file
// mapped, its device memory opened with CUDA IPC, or else cross memory attach.
void ShmBackend::open_peer(Window &w, const Setup &s, const Record &r, int rank,
                           gpu::CUresult *ipc_err) {
  Target &t = w.targets[static_cast<std::size_t>(rank)];
  Peer &p = peers_[static_cast<std::size_t>(rank)];
  p.pid = r.m.pid;
  if (s.flavor == MPI_WIN_FLAVOR_SHARED) { // through our own mapping of the one file
    const auto i = static_cast<std::size_t>(rank);
    t.base = reinterpret_cast<std::uintptr_t>(block_ + data_at_ + s.offsets[i]);
    t.ctrl = reinterpret_cast<std::uintptr_t>(block_ + ctrl_stride_ * i);
    t.direct = true;
    return;
  }
  if (t.local) return;
  char name[64];
  shm_name_of(name, r.m.pid, r.m.world, r.shm_tag);
  auto *block = static_cast<std::byte *>(map(name, r.shm_len, false));
  t.ctrl = reinterpret_cast<std::uintptr_t>(block);
  if (r.shm_data != kNone) {
    t.base = reinterpret_cast<std::uintptr_t>(block + r.shm_data);
    t.direct = true;
  } else if (t.device) { // its device memory, opened here for the window's life
    gpu::CUresult err = 0;
    if (void *here = ipc_->pin(r.ipc, &err)) {
      p.ipc = r.ipc;
      p.pinned = true;
      t.base = reinterpret_cast<std::uintptr_t>(here);
      t.direct = true;
    } else {
      *ipc_err = err ? err : -1;
    }
  }
}

int ShmBackend::setup(Window &w, const Setup &s, const char **why) {
  ipc_ = &w.self.pe().ipc();
  // Cross memory attach needs ptrace rights over us: where Yama restricts ptrace to descendants
  // (ptrace_scope 1), allow the other processes of the job.
  ::prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
  ctrl_stride_ = round_up(s.ctrl_bytes, 64);
  Record rec{};
  rec.shm_data = kNone;
  if (s.device && !ipc_->describe(s.base, &rec.ipc)) rec.ipc_failed = 1;
  if (s.flavor == MPI_WIN_FLAVOR_SHARED) {
    if (int e = make_shared_block(w, s, why)) return e;
  } else {
    make_own_file(w, s, rec);
  }
  rec.m = member_of(w, s);
  const std::vector<Record> all = exchange(w, rec);
  for (const Record &r : all) {
    if (r.failed) return fail(kNoShm, why, MPI_ERR_NO_MEM);
    if (r.ipc_failed)
      return fail("a member's memory is CUDA device memory that CUDA IPC cannot share with the "
                  "other processes (cudaMallocAsync pool or managed memory; use cudaMalloc)",
                  why, MPI_ERR_UNSUPPORTED_OPERATION);
  }
  peers_.resize(all.size());
  gpu::CUresult ipc_open_failed = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    adopt(w, static_cast<int>(i), all[i].m);
    open_peer(w, s, all[i], static_cast<int>(i), &ipc_open_failed);
  }
  if (std::any_of(all.begin(), all.end(), [](const Record &r) { return r.m.device; })) {
    // Every member must have opened every other's device memory: one failure fails them all.
    std::vector<std::int32_t> failed(all.size());
    const std::int32_t mine_failed = ipc_open_failed != 0;
    coll::allgather(*w.comm, &mine_failed, failed.data(), sizeof mine_failed);
    if (std::find(failed.begin(), failed.end(), 1) != failed.end())
      return fail("a member cannot open another's CUDA device memory with CUDA IPC (no peer "
                  "access between their GPUs?)",
                  why, MPI_ERR_OTHER);
  }
  // Once every member has mapped the files, their names can go: nothing is left behind.
  coll::barrier(*w.comm);
  if (!shm_name_.empty()) ::shm_unlink(shm_name_.c_str());
  shm_name_.clear();
  return MPI_SUCCESS;
}

// A region in device memory carries its CUDA IPC description in the region's `rkey`: the other
// processes open it at first access.
int ShmBackend::attach(Window &w, Region &r, void *base, std::size_t, bool device,
                       const char **why) {
  if (!device) return MPI_SUCCESS;
  gpu::IpcRef ref;
  if (!w.self.pe().ipc().describe(base, &ref)) {
    *why = "the region is CUDA device memory that CUDA IPC cannot share with the other "
           "processes (cudaMallocAsync pool or managed memory; use cudaMalloc)";
    return MPI_ERR_UNSUPPORTED_OPERATION;
  }
  std::memcpy(r.rkey, &ref, sizeof ref);
  r.rkey_len = sizeof ref;
  return MPI_SUCCESS;
}

int ShmBackend::locate_dynamic(Window &w, Target &t, std::uint64_t a, std::uint64_t b, Where *out,
                               const char **why) {
  // Its control block is mapped here.
  const Region *r = find_region(*reinterpret_cast<const Ctrl *>(t.ctrl), a, b);
  if (!r) {
    *why = "the access lies outside every region attached to the target's dynamic window";
    return MPI_ERR_RMA_RANGE;
  }
  if (!r->device) return MPI_SUCCESS;
  out->device = true;
  if (t.direct) return MPI_SUCCESS; // our own process
  // Another process's device memory: opened with CUDA IPC (kept open by our PE's cache).
  gpu::IpcRef ref;
  std::memcpy(&ref, r->rkey, sizeof ref);
  gpu::CUresult err = 0;
  void *here = w.self.pe().ipc().resolve(ref, &err);
  if (!here) {
    *why = "the target's attached device memory cannot be opened here with CUDA IPC";
    return MPI_ERR_OTHER;
  }
  out->addr = reinterpret_cast<std::uintptr_t>(here) + (out->addr - r->base);
  out->direct = true;
  return MPI_SUCCESS;
}

// Windows whose every member's memory every member can address (this mode, memory the window
// allocated) do accumulates on 4- and 8-byte integers with CPU atomics instead of the
// accumulate lock: all of them, so that the two ways never meet on one location. Returns false
// (nothing done) where that does not apply.
bool ShmBackend::accumulate_atomically(Window &w, const Where &wh, const RunList &runs,
                                       const datatype::Type &tt, MPI_Op op, datatype::ReduceFn fn,
                                       const std::byte *src, std::byte *old, const std::byte *cmp) {
  if (w.flavor != MPI_WIN_FLAVOR_ALLOCATE && w.flavor != MPI_WIN_FLAVOR_SHARED) return false;
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

std::unique_ptr<Backend> make_shm_backend() {
  return std::make_unique<ShmBackend>();
}

} // namespace ampi::rma
