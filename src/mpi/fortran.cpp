// src/mpi/fortran.cpp — the run-time side of the Fortran bindings (see fortran.hpp): the sentinel
// COMMON blocks libampi defines and their recognition in every rank's copy of the program, status
// and string conversions, predefined attribute keys.
#include "mpi/fortran.hpp"

#include "core/pe.hpp"
#include "core/rank.hpp"
#include "privatize/privatize.hpp"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

// The COMMON blocks of mpif.h and the `mpi` module, as gfortran names them (lower case, one
// trailing underscore), at least as large as the Fortran declarations. Only their addresses are
// ever used. They must be exported (libampi.map): a program that declares the block then provides
// the definition every reference binds to, libampi's included.
extern "C" {
struct AmpiFortranInt {
  MPI_Fint v[1];
};
struct AmpiFortranStatus {
  MPI_Fint v[AMPI_F_STATUS_SIZE];
};
struct AmpiFortranChar {
  char v[1];
};
AmpiFortranInt mpi_fortran_bottom_;
AmpiFortranInt mpi_fortran_in_place_;
AmpiFortranStatus mpi_fortran_st_ignore_;
AmpiFortranStatus mpi_fortran_sts_ignore_;
AmpiFortranInt mpi_fortran_errcodes_ign_;
AmpiFortranInt mpi_fortran_unweighted_;
AmpiFortranInt mpi_fortran_weights_empty_;
AmpiFortranChar mpi_fortran_argv_null_;
AmpiFortranChar mpi_fortran_argvs_null_;
}

namespace ampi::mpi::fortran {
namespace {

// The addresses the library sees, in Sentinel's order.
const void *seen(Sentinel s) noexcept {
  switch (s) {
  case Sentinel::bottom:
    return &mpi_fortran_bottom_;
  case Sentinel::in_place:
    return &mpi_fortran_in_place_;
  case Sentinel::status_ignore:
    return &mpi_fortran_st_ignore_;
  case Sentinel::statuses_ignore:
    return &mpi_fortran_sts_ignore_;
  case Sentinel::errcodes_ignore:
    return &mpi_fortran_errcodes_ign_;
  case Sentinel::unweighted:
    return &mpi_fortran_unweighted_;
  case Sentinel::weights_empty:
    return &mpi_fortran_weights_empty_;
  case Sentinel::argv_null:
    return &mpi_fortran_argv_null_;
  case Sentinel::argvs_null:
    return &mpi_fortran_argvs_null_;
  }
  return nullptr;
}

// Where the program as started is loaded, if the sentinels live in it (the program declared the
// COMMON blocks); 0 if they are libampi's own (no copy of the program has them). Computed once:
// it never changes while the process runs.
std::uintptr_t program_bias_of_sentinels() noexcept {
  static const std::uintptr_t bias = [] {
    Dl_info info{};
    if (::dladdr(&mpi_fortran_bottom_, &info) == 0) return std::uintptr_t{0};
    const std::uintptr_t program = privatize::Image::program_bias();
    return reinterpret_cast<std::uintptr_t>(info.dli_fbase) == program ? program
                                                                       : std::uintptr_t{0};
  }();
  return bias;
}

// Where the calling rank's copy of the program is loaded; 0 when it runs the program as started.
std::uintptr_t copy_bias() noexcept {
  Pe *pe = Pe::get_if();
  Rank *r = pe ? pe->current_if() : nullptr;
  if (!r) return 0;
  if (r->privatize.mapped) return r->privatize.mapped;
  if (r->privatize.program) {
    link_map *map = nullptr;
    if (::dlinfo(r->privatize.program, RTLD_DI_LINKMAP, &map) == 0 && map) return map->l_addr;
  }
  return 0;
}

} // namespace

bool is(const void *p, Sentinel s) noexcept {
  const void *at = seen(s);
  if (p == at) return true;
  if (p == nullptr) return false;
  const std::uintptr_t program = program_bias_of_sentinels();
  if (program == 0) return false;
  const std::uintptr_t copy = copy_bias();
  if (copy == 0 || copy == program) return false;
  return reinterpret_cast<std::uintptr_t>(p) ==
         reinterpret_cast<std::uintptr_t>(at) - program + copy;
}

Status::Status(MPI_Fint *f) noexcept
    : f_(f == nullptr || f == MPI_F_STATUS_IGNORE || is(f, Sentinel::status_ignore) ||
                 is(f, Sentinel::statuses_ignore)
             ? nullptr
             : f) {
  // MPI_Status_set_* read the status they change: start from the Fortran one's fields.
  if (f_) PMPI_Status_f2c(f_, &c_);
}

void Status::back() noexcept {
  if (f_) PMPI_Status_c2f(&c_, f_);
}

InStatus::InStatus(const MPI_Fint *f) noexcept
    : ignored_(f == nullptr || f == MPI_F_STATUS_IGNORE || is(f, Sentinel::status_ignore)) {
  if (!ignored_) PMPI_Status_f2c(f, &c_);
}

Statuses::Statuses(MPI_Fint *f, int count)
    : f_(f == nullptr || f == MPI_F_STATUSES_IGNORE || is(f, Sentinel::statuses_ignore) ? nullptr
                                                                                        : f),
      c_(f_ && count > 0 ? static_cast<std::size_t>(count) : 0) {
}

void Statuses::back() noexcept {
  for (std::size_t i = 0; i < c_.size(); ++i)
    PMPI_Status_c2f(&c_[i], f_ + i * AMPI_F_STATUS_SIZE);
}

std::string in_string(const char *s, std::size_t len) {
  while (len > 0 && s[len - 1] == ' ')
    --len;
  return std::string(s, len);
}

// 8192: MPI_MAX_LIBRARY_VERSION_STRING, the largest bound a call writes up to.
OutString::OutString(char *f, std::size_t len, int min_chars)
    : f_(f), len_(len),
      c_(std::max<std::size_t>({len, static_cast<std::size_t>(std::max(min_chars, 0)),
                                std::size_t{MPI_MAX_LIBRARY_VERSION_STRING}}) +
             1,
         '\0') {
}

void OutString::back() noexcept {
  const std::size_t n = std::min(std::strlen(c_.data()), len_);
  std::memcpy(f_, c_.data(), n);
  std::memset(f_ + n, ' ', len_ - n);
}

int attr_key(MPI_Fint key) noexcept {
  switch (key) {
  case MPI_TAG_UB + 1:
  case MPI_HOST + 1:
  case MPI_IO + 1:
  case MPI_WTIME_IS_GLOBAL + 1:
  case MPI_UNIVERSE_SIZE + 1:
  case MPI_LASTUSEDCODE + 1:
  case MPI_APPNUM + 1:
  case MPI_WIN_BASE + 1:
  case MPI_WIN_SIZE + 1:
  case MPI_WIN_DISP_UNIT + 1:
  case MPI_WIN_CREATE_FLAVOR + 1:
  case MPI_WIN_MODEL + 1:
    return key - 1;
  default:
    return key;
  }
}

MPI_Aint attr_value(int c_key, void *value) noexcept {
  switch (c_key) {
  case MPI_TAG_UB:
  case MPI_HOST:
  case MPI_IO:
  case MPI_WTIME_IS_GLOBAL:
  case MPI_UNIVERSE_SIZE:
  case MPI_LASTUSEDCODE:
  case MPI_APPNUM:
  case MPI_WIN_DISP_UNIT:
  case MPI_WIN_CREATE_FLAVOR:
  case MPI_WIN_MODEL:
    return *static_cast<const int *>(value);
  case MPI_WIN_SIZE:
    return *static_cast<const MPI_Aint *>(value);
  default: // MPI_WIN_BASE and user attributes: the value itself
    return reinterpret_cast<MPI_Aint>(value);
  }
}

} // namespace ampi::mpi::fortran
