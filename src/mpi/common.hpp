// src/mpi/common.hpp — what every file of the MPI layer needs: finding the calling rank and
// resolving and checking handles and arguments, each failure raised through the right error
// handler with the function's name.
#pragma once

#include "comm/comm.hpp"
#include "core/pe.hpp"
#include "datatype/datatype.hpp"
#include "datatype/type.hpp"
#include "mpi/errors.hpp"

#include <mpi.h>

#include <climits>
#include <cstddef>

namespace ampi::mpi {

inline constexpr int kTagUb = (1 << 30) - 1;

// What enter() returns: the calling rank (a pointer to it, never null), for the length of one MPI
// call. While its PE is threaded (MPI_THREAD_SERIALIZED/MULTIPLE, src/ult/os_threads.hpp) it also
// holds the PE's mutex and releases it at the end of the call, so keep it for the whole call:
// `auto self = enter(fn);` (`auto self = enter(fn);` does not compile: it would drop the mutex at
// once).
class Entered {
public:
  explicit Entered(Rank *rank) noexcept : rank_(rank) {}
  // A call of the rank that its PE's thread runs alone (not threaded): the PE trusts its device
  // pointer checks until the call returns or the rank switches out (DevPtrCache::trust).
  struct Alone {};
  Entered(Rank *rank, Alone) noexcept : rank_(rank), alone_(true) {
    ++rank->calls_open;
    rank->pe().devptrs().trust(true);
  }
  Entered(const Entered &) = delete;
  Entered &operator=(const Entered &) = delete;
  // The calling OS thread is inside the library (depth > 0) only while its PE is threaded.
  ~Entered() {
    if (alone_) {
      Pe &pe = rank_->pe();
      pe.devptrs().trust(--rank_->calls_open > 0 && !pe.threaded());
    }
    if (ult::Threads::depth() != 0) [[unlikely]]
      Pe::get().leave_call();
  }
  Rank *operator->() const noexcept { return rank_; }
  Rank &operator*() const &noexcept { return *rank_; }
  Rank &operator*() const && = delete; // `Rank &self = *enter(fn);` would drop the mutex at once
  operator Rank *() const &noexcept { return rank_; }
  operator Rank *() const && = delete;

private:
  Rank *rank_;
  bool alone_ = false;
};

// The slow paths of enter() and enter_any() (errors.cpp): a threaded PE, a created thread, errors.
Entered enter_slow(const char *fn, bool initialized);

// The calling rank; ends the job with a message when the caller is no rank (nor a thread of a
// rank that asked for MPI_THREAD_SERIALIZED or MULTIPLE), or is outside MPI_Init..MPI_Finalize.
inline Entered enter(const char *fn) {
  if (Pe *pe = Pe::get_if(); pe && !pe->threaded()) [[likely]] {
    Rank *self = pe->scheduled_if();
    if (self && self->initialized && !self->finalized) [[likely]]
      return Entered(self, Entered::Alone{});
  }
  return enter_slow(fn, true);
}
// Like enter() but accepts calls before MPI_Init and after MPI_Finalize.
inline Entered enter_any(const char *fn) {
  if (Pe *pe = Pe::get_if(); pe && !pe->threaded()) [[likely]] {
    if (Rank *self = pe->scheduled_if()) [[likely]]
      return Entered(self, Entered::Alone{});
  }
  return enter_slow(fn, false);
}

// Raise MPI_ERR_COMM / MPI_ERR_TYPE for a bad handle (the cold paths of the lookups below).
comm::Comm *bad_comm(MPI_Comm h, const char *fn, int *err);
std::size_t bad_type(MPI_Datatype t, MPI_Comm comm, const char *fn, int *err);

// The communicator behind `h` for the calling rank, or nullptr after raising MPI_ERR_COMM.
inline comm::Comm *find_comm(Rank &self, MPI_Comm h, const char *fn, int *err) {
  if (comm::Comm *c = self.comm.comms.find(h)) [[likely]]
    return c;
  return bad_comm(h, fn, err);
}

// Bytes one element of `t` takes in a message; 0 after raising MPI_ERR_TYPE on `comm`.
inline std::size_t element_extent(MPI_Datatype t, MPI_Comm comm, const char *fn, int *err) {
  if (const datatype::Builtin *b = datatype::builtin(t)) [[likely]]
    return b->extent;
  return bad_type(t, comm, fn, err);
}
// The datatype behind `t` for the calling rank, usable for communication (predefined, or derived
// and committed), or nullptr after raising MPI_ERR_TYPE on `comm`. The slow path resolves derived
// types (src/mpi/datatype.cpp).
const datatype::Type *find_derived_type(Rank &self, MPI_Datatype t, MPI_Comm comm, const char *fn,
                                        int *err);
inline const datatype::Type *find_type(Rank &self, MPI_Datatype t, MPI_Comm comm, const char *fn,
                                       int *err) {
  if (const datatype::Type *p = datatype::predefined(t)) [[likely]]
    return p;
  return find_derived_type(self, t, comm, fn, err);
}

// Reference counting of user error handlers held by communicators (predefined ones: no-ops).
void errhandler_retain(Rank &self, MPI_Errhandler eh);
void errhandler_release(Rank &self, MPI_Errhandler eh);
// A predefined error handler or one of the rank's live ones.
bool errhandler_valid(const Rank &self, MPI_Errhandler eh);

// The name of a communicator for messages ("MPI_COMM_WORLD", a user's name, or "comm 0x...").
const char *comm_label(const comm::Comm &c);
// The name of a datatype handle for messages.
const char *type_label(MPI_Datatype t);

} // namespace ampi::mpi

// The error-return convention inside MPI functions: `if (!x) return err;` after a lookup that
// raised.
