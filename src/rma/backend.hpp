// src/rma/backend.hpp — inside the RMA layer: the operations table that every window mode
// implements (rma::Backend), and what window.cpp and the back-ends share: the byte runs of an
// access, where a target's bytes are, and the creation record. The mode-independent part (epochs,
// locks, checks, the choice of mode) is window.cpp; the back-ends are backend_self.cpp (every
// member on this PE), backend_shm.cpp (one host: shared memory, cross memory attach, CUDA IPC) and
// backend_net.cpp (several hosts: the network port's RMA interface, src/net/rma.hpp).
#pragma once

#include "coll/coll.hpp"
#include "rma/window.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace ampi::rma {

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

// The runs of (count, t), from a small per-window cache for derived types (layout.cpp).
RunList cached_runs_of(Window &w, const datatype::Type &t, std::size_t count);

// Where the bytes of one access lie at the target.
struct Where {
  std::uint64_t addr = 0;       // start of the target buffer (runs are relative to it)
  const void *handle = nullptr; // the back-end's name for that memory (network: its remote key)
  bool direct = false;          // addressable here (`addr` is ours)
  bool device = false;          // CUDA device memory
};

inline std::byte *local_ptr(const Where &wh) {
  return reinterpret_cast<std::byte *>(static_cast<std::uintptr_t>(wh.addr));
}

// Copies `n` bytes where either side may be CUDA device memory.
void move(Window &w, void *dst, bool dst_device, const void *src, bool src_device, std::size_t n);

// Where a dynamic window's control block, addressable here, has [a, b) attached: the region that
// holds `a` (the access may run on through adjacent host regions), null if not all attached.
const Region *find_region(const Ctrl &c, std::uint64_t a, std::uint64_t b);

// ---------------------------------------------------------------------------------------------
// Creation.

// What create() decided, for a back-end's setup.
struct Setup {
  int flavor = MPI_WIN_FLAVOR_CREATE;
  void *base = nullptr;
  std::size_t size = 0;
  int disp_unit = 1;
  bool device = false;                // `base` is CUDA device memory (MPI_Win_create)
  std::size_t ctrl_bytes = 0;         // our control block (with the region table when dynamic)
  std::vector<std::uint64_t> offsets; // MPI_Win_allocate_shared: each member's part of the block
  std::uint64_t total = 0;            // ... and the size of all parts
};

// What every member tells the others at creation, in every mode (back-ends add their own fields).
struct Member {
  std::int32_t world, pe, pid, disp_unit;
  std::uint64_t base, size, ctrl;
  std::int32_t device, pad;
};
// Ours, from the window as the back-end set it up.
Member member_of(const Window &w, const Setup &s);
// Everyone's record (collective; a back-end's record type starts with a Member).
template <class R> std::vector<R> exchange(Window &w, const R &mine);
// The fields of target `rank` that every mode fills alike.
void adopt(Window &w, int rank, const Member &m);

// ---------------------------------------------------------------------------------------------
// The operations table: what differs between modes. Data to and from targets addressable here
// (Where::direct) moves in window.cpp; a back-end moves the rest.
class Backend {
public:
  // `deferred`: operations may finish after they return (wait_pending and flush have work).
  explicit Backend(bool deferred) : deferred(deferred) {}
  virtual ~Backend() = default;

  // Read by window.cpp before calling wait_pending/flush, so that modes whose operations finish
  // at once (Self, Shm) pay no call at a flush, unlock or complete: these are on the latency path.
  const bool deferred;

  // Collective: makes the window's memory (w.base) and control block (w.ctrl), exchanges what
  // the members must know of each other and fills w.targets. MPI_SUCCESS or an error, with `why`.
  virtual int setup(Window &w, const Setup &s, const char **why) = 0;
  // Dynamic windows: makes [base, base + len) reachable by the other members, through `r` (the
  // region's entry in our control block, filled in by the caller once this succeeded).
  virtual int attach(Window &w, Region &r, void *base, std::size_t len, bool device,
                     const char **why) = 0;
  virtual void detach(Window &w, const void *base) = 0;

  // Atomically on the 64-bit word at `off` in t's control block: old = *word; then
  // if (cswap) { if (old == expected) *word = value; } else *word += value. Returns old.
  virtual std::uint64_t atomic(Window &w, Target &t, std::size_t off, bool cswap,
                               std::uint64_t expected, std::uint64_t value) = 0;
  // Whether other PEs may touch the window's memory meanwhile: accumulates then take the
  // target's accumulate lock.
  virtual bool concurrent() const noexcept = 0;

  // A static window's access at out->addr in t's memory: sets what the back-end needs.
  virtual void locate(Window &w, Target &t, Where *out) = 0;
  // A dynamic window's access to [a, b) of t's address space: sets *out, or returns
  // MPI_ERR_RMA_RANGE (or another error) with `why`.
  virtual int locate_dynamic(Window &w, Target &t, std::uint64_t a, std::uint64_t b, Where *out,
                             const char **why) = 0;

  // Moves the runs' packed bytes between here (host memory) and a target not addressable here.
  // `wait_now`: finished when this returns; else by the next wait_pending.
  virtual void read(Window &w, Target &t, const Where &wh, const RunList &runs, std::byte *out,
                    bool wait_now) = 0;
  virtual void write(Window &w, Target &t, const Where &wh, const RunList &runs,
                     const std::byte *in, bool wait_now) = 0;

  // Accumulates on integers with CPU atomics where every member does so (see backend_shm.cpp);
  // false: not done, take the accumulate lock.
  virtual bool accumulate_atomically(Window &w, const Where &wh, const RunList &runs,
                                     const datatype::Type &tt, MPI_Op op, datatype::ReduceFn fn,
                                     const std::byte *src, std::byte *old,
                                     const std::byte *cmp) = 0;

  // Local completion of every operation posted so far (their buffers may be reused).
  virtual void wait_pending(Window &w) = 0;
  // Completion at target `target` (rank in the window; negative: every target).
  virtual void flush(Window &w, int target) = 0;
  // A new access epoch: what was learnt of dynamic windows' regions may be stale.
  virtual void epoch_start(Window &w) = 0;
};

std::unique_ptr<Backend> make_self_backend();
std::unique_ptr<Backend> make_shm_backend();
std::unique_ptr<Backend> make_net_backend();

// ---------------------------------------------------------------------------------------------

template <class R> std::vector<R> exchange(Window &w, const R &mine) {
  std::vector<R> all(static_cast<std::size_t>(w.comm->size()));
  coll::allgather(*w.comm, &mine, all.data(), sizeof(R));
  return all;
}

} // namespace ampi::rma
