// src/rma/window.hpp — MPI one-sided communication below the MPI layer: a rank's Window (its
// memory, what it knows of every other member's memory, its epochs) and the operations on it.
//
// Each member of a window has a control block: the window lock word (bit 62: held exclusively,
// low bits: shared holders), the accumulate lock word, and for dynamic windows the table of
// attached regions. A window works in one of three modes (rma::Mode), chosen at creation by
// window.cpp; each is a back-end behind the operations table rma::Backend (backend.hpp):
//  - Self, backend_self.cpp (every member on this PE): data and control words are plain
//    memory; the ranks of a PE run one at a time, so no atomics are needed.
//  - Shm, backend_shm.cpp (members in several processes of one host; AMPI_RMA_SHM=0 turns it
//    off): every member's control block, and the memory of MPI_Win_allocate(_shared) windows,
//    live in POSIX shared memory that every member maps; control words change with CPU atomics,
//    mapped data with memcpy, and the memory of MPI_Win_create and dynamic windows is read and
//    written with process_vm_readv/writev (cross memory attach).
//  - Net, backend_net.cpp (members on several hosts): memory is registered with the network
//    port's RMA interface (src/net/rma.hpp; UCX today) and remote keys are exchanged at creation;
//    data moves with its put/get (memcpy for members on this PE), every control word changes with
//    its atomics (through the endpoint to our own PE for members on this PE).
// Memory of any member may be CUDA device memory (MPI_Win_create, MPI_Win_attach), as may origin
// and result buffers: such bytes move with CUDA copies (DevPtrCache). Within a process the device
// address is used as it is; in Shm mode other members open it with CUDA IPC at creation (or at
// first access, for attached regions) and copy to and from it directly. Net mode does not take
// device memory (creation and attach fail with MPI_ERR_UNSUPPORTED_OPERATION).
// Accumulates hold the target's accumulate lock for their read-modify-write, which makes them
// element-wise atomic and ordered (in Shm mode on memory the window allocated, those on 4- and
// 8-byte integers use CPU atomics instead: every one of them, so the two never meet). In the first
// two modes nothing needs the target rank's help: passive-target operations complete while it
// computes. In Net mode that holds where UCX does RMA in hardware; where it emulates RMA (TCP), the
// target's PE serves requests whenever it drives the network (any MPI call of any of its ranks, or
// idle).
#pragma once

#include "comm/comm.hpp"
#include "datatype/type.hpp"
#include "devptr_cache/ipc.hpp"

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ampi {
class Rank;
}

namespace ampi::rma {

inline constexpr std::uint64_t kExclusive = std::uint64_t{1} << 62;
inline constexpr std::size_t kRkeyMax = 512;
// Regions one dynamic window may have attached at once. Programs attach one region per list
// element (MPICH's rma/linked_list* tests several hundred per rank); the table is 544 bytes a slot,
// only in dynamic windows' control blocks, and a network peer reads only the slots in use.
inline constexpr int kMaxRegions = 1024;

// One attached region of a dynamic window, as other members read it from the control block.
// Shm mode: a region in device memory carries its gpu::IpcRef in `rkey`.
struct Region {
  std::uint64_t base = 0, len = 0, rkey_len = 0;
  std::uint64_t device = 0; // 1: CUDA device memory
  std::byte rkey[kRkeyMax];
};
static_assert(sizeof(gpu::IpcRef) <= kRkeyMax);
struct Ctrl {
  std::uint64_t lock = 0;
  std::uint64_t acc = 0;
  std::uint64_t nregions = 0;
  std::uint64_t pad = 0;
  Region regions[kMaxRegions]; // present only in the control blocks of dynamic windows
};
inline constexpr std::size_t kCtrlWords = 4 * sizeof(std::uint64_t);
inline constexpr std::size_t kLockOffset = 0;
inline constexpr std::size_t kAccOffset = 8;

// What this rank knows of one member of the window (what its back-end keeps besides, it keeps).
struct Target {
  int rank = 0; // in the window's communicator (index in Window::targets)
  int world = 0;
  int pe = 0;
  bool local = false;     // on this PE
  bool direct = false;    // its memory is addressable here (same PE, or mapped)
  bool device = false;    // its memory is CUDA device memory (`base` is mapped here when `direct`)
  std::uint64_t base = 0; // address of its memory (here when `direct`, else in its process)
  std::uint64_t size = 0;
  int disp_unit = 1;
  std::uint64_t ctrl = 0; // address of its control block (here, except in network mode)
  int lock = 0;           // our lock on it: 0, MPI_LOCK_SHARED or MPI_LOCK_EXCLUSIVE
};

class Backend;
enum class Mode { Self, Shm, Net };

struct Window {
  Window(Rank &self);
  ~Window();

  Rank &self;
  MPI_Win handle = MPI_WIN_NULL;
  comm::Comm *comm = nullptr; // internal duplicate of the creating communicator
  int flavor = MPI_WIN_FLAVOR_CREATE;
  void *base = nullptr;
  MPI_Aint size = 0;
  int disp_unit = 1;
  int model = MPI_WIN_UNIFIED;
  std::string name;
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  comm::AttrStore attrs; // user attributes (MPI_Win_set_attr)
  comm::Info info;       // hints given at creation and by MPI_Win_set_info (none change anything)
  Mode mode = Mode::Self;

  std::vector<Target> targets; // by rank in comm
  Ctrl *ctrl = nullptr;        // our control block
  // The mode's back-end: the memory it made for the window, its state for every target.
  std::unique_ptr<Backend> backend;
  std::shared_ptr<void> run_cache; // the byte runs of recently used derived target types

  // Epochs.
  bool fence = false;      // between fences (not after MPI_MODE_NOSUCCEED)
  std::vector<int> access; // MPI_Win_start's targets
  bool access_open = false;
  std::vector<int> exposure;       // MPI_Win_post's origins
  std::vector<bool> exposure_done; // MPI_Win_test: completions received
  bool exposure_open = false;
  bool lock_all = false;
  int locks = 0;
};

// Creation (collective over `parent`; `comm` is the window's own duplicate, already made).
// `flavor` says what `base`/`size` mean: CREATE: the caller's memory; ALLOCATE and SHARED: the
// window allocates `size` bytes (SHARED: every member on this PE, one contiguous block);
// DYNAMIC: none yet. Returns MPI_SUCCESS or an error class, with `why` set.
int create(Window &w, int flavor, void *base, std::size_t size, int disp_unit, const char **why);
// Collective end: completes everything, then releases memory and keys.
void destroy(Window &w);

// Dynamic windows: MPI_Win_attach / MPI_Win_detach (MPI_ERR_RMA_ATTACH when no slot is free).
int attach(Window &w, void *base, std::size_t len, const char **why);
int detach(Window &w, const void *base, const char **why);

// Whether `target` may be accessed now (an access epoch names it).
bool in_epoch_slow(const Window &w, int target);
inline bool in_epoch(const Window &w, int target) {
  if (w.fence || w.lock_all || w.targets[static_cast<std::size_t>(target)].lock) [[likely]]
    return true;
  return in_epoch_slow(w, target);
}

// Operations. Each returns MPI_SUCCESS or an error class with `why` set. Types are resolved;
// counts and the target rank are checked by the caller.
int put(Window &w, const void *obuf, std::size_t ocount, const datatype::Type &ot, int target,
        MPI_Aint disp, std::size_t tcount, const datatype::Type &tt, const char **why);
int get(Window &w, void *obuf, std::size_t ocount, const datatype::Type &ot, int target,
        MPI_Aint disp, std::size_t tcount, const datatype::Type &tt, const char **why);
// Accumulate, get-accumulate, fetch-and-op and compare-and-swap in one: `obuf` may be null
// (MPI_NO_OP), `rbuf` null (no result), `compare` non-null for compare-and-swap.
int accumulate(Window &w, const void *obuf, std::size_t ocount, const datatype::Type *ot,
               void *rbuf, std::size_t rcount, const datatype::Type *rt, int target, MPI_Aint disp,
               std::size_t tcount, const datatype::Type &tt, MPI_Op op, const void *compare,
               const char **why);

// Synchronisation.
void flush(Window &w, int target); // target < 0: all
void fence(Window &w, int assert_flags);
void post(Window &w, std::vector<int> origins);
void start(Window &w, std::vector<int> targets);
void complete(Window &w);
void wait(Window &w);
bool test(Window &w);
void lock(Window &w, int type, int target, bool nocheck);
void unlock(Window &w, int target);

} // namespace ampi::rma
