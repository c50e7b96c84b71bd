// src/rma/backend_self.cpp — the back-end of windows whose members all live on this PE: their
// memory and control words are plain memory of this process, and the ranks of a PE run one at a
// time, so nothing needs atomics, locks between PEs or the network.
#include "rma/backend.hpp"

#include "core/pe.hpp"

#include <cstring>
#include <memory>

namespace ampi::rma {

namespace {

class SelfBackend final : public Backend {
public:
  SelfBackend() : Backend(false) {}
  int setup(Window &w, const Setup &s, const char **why) override;
  int attach(Window &, Region &, void *, std::size_t, bool, const char **) override {
    return MPI_SUCCESS; // the region is addressable as it is by every member
  }
  void detach(Window &, const void *) override {}

  std::uint64_t atomic(Window &, Target &t, std::size_t off, bool cswap, std::uint64_t expected,
                       std::uint64_t value) override {
    auto *p = reinterpret_cast<std::uint64_t *>(static_cast<std::uintptr_t>(t.ctrl + off));
    const std::uint64_t old = *p;
    if (!cswap)
      *p = old + value;
    else if (old == expected)
      *p = value;
    return old;
  }
  // An operation runs to its end without yielding: no other rank interleaves.
  bool concurrent() const noexcept override { return false; }

  void locate(Window &, Target &, Where *) override {}
  int locate_dynamic(Window &, Target &t, std::uint64_t a, std::uint64_t b, Where *out,
                     const char **why) override {
    const Region *r = find_region(*reinterpret_cast<const Ctrl *>(t.ctrl), a, b);
    if (!r) {
      *why = "the access lies outside every region attached to the target's dynamic window";
      return MPI_ERR_RMA_RANGE;
    }
    if (r->device) out->device = true; // our own process: the device address as it is
    return MPI_SUCCESS;
  }

  // Every target is addressable here (Where::direct): window.cpp moves the data.
  void read(Window &, Target &, const Where &, const RunList &, std::byte *, bool) override {}
  void write(Window &, Target &, const Where &, const RunList &, const std::byte *, bool) override {
  }
  bool accumulate_atomically(Window &, const Where &, const RunList &, const datatype::Type &,
                             MPI_Op, datatype::ReduceFn, const std::byte *, std::byte *,
                             const std::byte *) override {
    return false;
  }

  void wait_pending(Window &) override {}
  void flush(Window &, int) override {}
  void epoch_start(Window &) override {}

private:
  std::unique_ptr<std::byte[]> owned_;   // MPI_Win_allocate's memory
  std::shared_ptr<std::byte[]> segment_; // MPI_Win_allocate_shared: one block for all
  std::unique_ptr<std::byte[]> ctrl_;    // our control block
};

int SelfBackend::setup(Window &w, const Setup &s, const char **) {
  const comm::Comm &c = *w.comm;
  if (s.flavor == MPI_WIN_FLAVOR_SHARED) {
    // One block for all members, member i's part right after member i-1's: rank 0 makes it and
    // hands the others its holder (they share our address space).
    std::shared_ptr<std::byte[]> *holder = &segment_;
    if (c.rank == 0) segment_ = std::make_shared<std::byte[]>(s.total + 64);
    coll::bcast(c, &holder, sizeof holder, 0);
    if (c.rank != 0) segment_ = *holder;
    const auto aligned =
        (reinterpret_cast<std::uintptr_t>(segment_.get()) + 63) & ~std::uintptr_t{63};
    w.base = reinterpret_cast<std::byte *>(aligned) + s.offsets[static_cast<std::size_t>(c.rank)];
  } else if (s.flavor == MPI_WIN_FLAVOR_ALLOCATE) {
    owned_ = std::make_unique<std::byte[]>(s.size ? s.size : 1);
    w.base = owned_.get();
  } else if (s.flavor == MPI_WIN_FLAVOR_CREATE) {
    w.base = s.base; // device memory too: used in place within the process
  }
  ctrl_ = std::make_unique_for_overwrite<std::byte[]>(sizeof(Ctrl)); // s.ctrl_bytes zeroed
  w.ctrl = reinterpret_cast<Ctrl *>(ctrl_.get());
  std::memset(static_cast<void *>(w.ctrl), 0, s.ctrl_bytes);
  const std::vector<Member> all = exchange(w, member_of(w, s));
  for (std::size_t i = 0; i < all.size(); ++i)
    adopt(w, static_cast<int>(i), all[i]);
  return MPI_SUCCESS;
}

} // namespace

std::unique_ptr<Backend> make_self_backend() {
  return std::make_unique<SelfBackend>();
}

} // namespace ampi::rma
