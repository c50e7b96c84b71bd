// src/mpi/fortran.hpp — what the generated Fortran bindings (tools/gen_fortran.py, written into
// the build tree as fortran_bindings.cpp) share: the sentinels of mpif.h and the `mpi` module
// recognized by address, the conversions of statuses (MPI_Fint[MPI_STATUS_SIZE]) and of Fortran
// CHARACTER arguments (blank-padded, with a hidden length, no NUL), and the predefined attribute
// keys' Fortran values; and, for the mpi_f08 module, the choice buffers that arrive as Fortran
// 2018 descriptors (CFI_cdesc_t, TYPE(*), DIMENSION(..)): fortran::Choice.
//
// The sentinels are COMMON blocks (MPI_FORTRAN_BOTTOM, ...). libampi defines them, but a Fortran
// program that uses one allocates the block itself (a COMMON block is a common symbol, and the
// executable's definition wins over the library's), so with per-rank copies of the program
// (src/privatize) each rank has its own copy at its own address. is() recognizes the address the
// library sees (the program as started, or libampi's own) and the calling rank's copy of it.
#pragma once

#include <mpi.h>

// The descriptors of TYPE(*), DIMENSION(..) arguments (mpi_f08). The header comes with gfortran
// (in GCC's own include directory); without it mpi_f08's shims are left out (no module either).
#if __has_include(<ISO_Fortran_binding.h>)
#include <ISO_Fortran_binding.h>
#define AMPI_FORTRAN_CFI 1
#else
#define AMPI_FORTRAN_CFI 0
#endif

#include <cstddef>
#include <string>
#include <vector>

namespace ampi::mpi::fortran {

enum class Sentinel {
  none, // an ordinary address
  bottom,
  in_place,
  status_ignore,
  statuses_ignore,
  errcodes_ignore,
  unweighted,
  weights_empty,
  argv_null,
  argvs_null,
};

// Which sentinel `p` is in the calling rank's copy of the program, if any. One range check in the
// common case (an ordinary buffer): the binding of MPI_Send costs about 25 instructions more than
// the C call (bench/fortran_overhead.sh).
Sentinel classify(const void *p) noexcept;
inline bool is(const void *p, Sentinel s) noexcept {
  return classify(p) == s;
}

// A choice buffer for C: MPI_BOTTOM and MPI_IN_PLACE become C's, anything else stays.
inline const void *buffer(const void *p) noexcept {
  switch (classify(p)) {
  case Sentinel::bottom:
    return MPI_BOTTOM;
  case Sentinel::in_place:
    return MPI_IN_PLACE;
  default:
    return p;
  }
}
inline void *buffer(void *p) noexcept {
  return const_cast<void *>(buffer(static_cast<const void *>(p)));
}

// Weights of a distributed graph: MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY become C's.
inline const int *weights(const int *p) noexcept {
  switch (classify(p)) {
  case Sentinel::unweighted:
    return MPI_UNWEIGHTED;
  case Sentinel::weights_empty:
    return MPI_WEIGHTS_EMPTY;
  default:
    return p;
  }
}
inline int *weights(int *p) noexcept {
  return const_cast<int *>(weights(static_cast<const int *>(p)));
}

// An output status: c() is MPI_STATUS_IGNORE for Fortran's MPI_STATUS_IGNORE, else a C status
// holding the Fortran one's fields (MPI_Status_set_* read it); back() stores it in Fortran's.
class Status {
public:
  explicit Status(MPI_Fint *f) noexcept;
  MPI_Status *c() noexcept { return f_ ? &c_ : MPI_STATUS_IGNORE; }
  void back() noexcept;

private:
  MPI_Fint *f_;
  MPI_Status c_{};
};

// An input status (MPI_Get_count, ...).
class InStatus {
public:
  explicit InStatus(const MPI_Fint *f) noexcept;
  const MPI_Status *c() const noexcept { return ignored_ ? MPI_STATUS_IGNORE : &c_; }

private:
  bool ignored_;
  MPI_Status c_{};
};

// An array of `count` output statuses, MPI_STATUSES_IGNORE recognized.
class Statuses {
public:
  Statuses(MPI_Fint *f, int count);
  MPI_Status *c() noexcept { return f_ ? c_.data() : MPI_STATUSES_IGNORE; }
  void back() noexcept;

private:
  MPI_Fint *f_;
  std::vector<MPI_Status> c_;
};

// A Fortran CHARACTER input: trailing blanks removed (the standard ignores them).
std::string in_string(const char *s, std::size_t len);

// A Fortran CHARACTER output: c() is a NUL-terminated C buffer of at least `min_chars` characters
// (the call's MPI_MAX_* bound), back() copies its text into the Fortran variable, blank-padded
// (truncated to the variable's length).
class OutString {
public:
  OutString(char *f, std::size_t len, int min_chars = 0);
  char *c() noexcept { return c_.data(); }
  void back() noexcept;

private:
  char *f_;
  std::size_t len_;
  std::vector<char> c_;
};

// The C key of attribute key `key` as Fortran passes it: Fortran's predefined keys
// (MPI_TAG_UB, ..., MPI_WIN_MODEL) are the C values + 1.
int attr_key(MPI_Fint key) noexcept;
// The Fortran value of the attribute `c_key` whose C value is `value`: a predefined attribute's
// C value points to it (MPI_WIN_BASE is the address itself), a user attribute is the value.
MPI_Aint attr_value(int c_key, void *value) noexcept;

// MPI_Comm/Type/Win_create_keyval and MPI_Keyval_create from Fortran: `copy` and `del` are
// Fortran procedures (by-reference arguments, the value and extra state INTEGER(KIND=
// MPI_ADDRESS_KIND), or INTEGER for MPI_Keyval_create: mpi1). The keyval's C callbacks call them;
// the extra state travels as the C extra_state. MPI_SUCCESS or the error raised.
enum class KeyKind { comm, type, win };
int create_keyval(KeyKind kind, void (*copy)(), void (*del)(), MPI_Fint *keyval, MPI_Aint extra,
                  bool mpi1, bool profiled);

// MPI_Grequest_start from Fortran: query_fn(extra_state, status, ierror), free_fn(extra_state,
// ierror) and cancel_fn(extra_state, complete, ierror) are Fortran procedures; a record of them
// and the extra state is the C extra_state, released by the free callback (which MPI calls once,
// when the request is freed). MPI_SUCCESS or the error raised.
int grequest_start(void (*query)(), void (*free_fn)(), void (*cancel)(), MPI_Aint extra,
                   MPI_Fint *request, bool profiled);

#if AMPI_FORTRAN_CFI
// A choice buffer of mpi_f08 (a CFI descriptor) as the address the C call takes. A contiguous
// array (or a scalar, or an array of no elements) is used in place: its base address, which is
// also how MPI_BOTTOM and MPI_IN_PLACE (COMMON blocks) arrive. A non-contiguous array section is
// copied, element after element in array order, into a temporary that the call uses instead;
// for a buffer the call may write (inout), the temporary is copied back into the section when
// the Choice is destroyed, after the call. A `deferred` buffer (a call that uses it after it
// returns: nonblocking, persistent, split-collective, one-sided) must be contiguous: a section
// is refused with MPI_ERR_BUFFER (the temporary would be gone). An `address` argument
// (MPI_Get_address) is its first element's address, whatever the layout.
class Choice {
public:
  enum Mode { in, inout, deferred, address };
  // On refusal, *ierror holds the error (raised on MPI_COMM_WORLD) and the Choice is false.
  Choice(const CFI_cdesc_t *d, Mode mode, const char *fn, const char *arg, MPI_Fint *ierror);
  ~Choice();
  Choice(const Choice &) = delete;
  Choice &operator=(const Choice &) = delete;
  explicit operator bool() const noexcept { return ok_; }
  void *get() const noexcept { return p_; }

private:
  const CFI_cdesc_t *d_;
  Mode mode_;
  void *p_ = nullptr;
  bool ok_ = true;
  std::vector<std::byte> tmp_;
};
#endif

} // namespace ampi::mpi::fortran
