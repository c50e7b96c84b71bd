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

constexpr int kSentinels = 9;

// Where the sentinels are as the library sees them, and which of them the program as started
// defines (a program that declares the COMMON blocks; each is checked, as a program may declare
// some only). Computed once: nothing of it changes while the process runs.
struct Places {
  std::uintptr_t at[kSentinels + 1] = {}; // by Sentinel (0: none)
  bool in_program[kSentinels + 1] = {};
  std::uintptr_t lo = 0, hi = 0; // the range of at[]
  std::uintptr_t program = 0;    // bias of the program as started, if it has some
};

// Out of line, so that classify() (on every choice buffer) stays a leaf without saved registers.
[[gnu::noinline]] Places make_places() noexcept {
  {
    Places p;
    const void *seen[kSentinels + 1] = {nullptr,
                                        &mpi_fortran_bottom_,
                                        &mpi_fortran_in_place_,
                                        &mpi_fortran_st_ignore_,
                                        &mpi_fortran_sts_ignore_,
                                        &mpi_fortran_errcodes_ign_,
                                        &mpi_fortran_unweighted_,
                                        &mpi_fortran_weights_empty_,
                                        &mpi_fortran_argv_null_,
                                        &mpi_fortran_argvs_null_};
    const std::uintptr_t program = privatize::Image::program_bias();
    p.lo = ~std::uintptr_t{0};
    for (int i = 1; i <= kSentinels; ++i) {
      p.at[i] = reinterpret_cast<std::uintptr_t>(seen[i]);
      p.lo = std::min(p.lo, p.at[i]);
      p.hi = std::max(p.hi, p.at[i] + 1);
      Dl_info info{};
      if (::dladdr(seen[i], &info) != 0 &&
          reinterpret_cast<std::uintptr_t>(info.dli_fbase) == program) {
        p.in_program[i] = true;
        p.program = program;
      }
    }
    return p;
  }
}

const Places &places() noexcept {
  static const Places places = make_places();
  return places;
}

// The load address of a dlopened copy (AMPI_PRIVATIZE_LOADER=dlopen, sanitizer runs).
[[gnu::noinline, gnu::cold]] std::uintptr_t dlopened_bias(void *program) noexcept {
  link_map *map = nullptr;
  if (::dlinfo(program, RTLD_DI_LINKMAP, &map) == 0 && map) return map->l_addr;
  return 0;
}

// Where the calling rank's copy of the program is loaded; 0 when it runs the program as started.
std::uintptr_t copy_bias() noexcept {
  Pe *pe = Pe::get_if();
  Rank *r = pe ? pe->current_if() : nullptr;
  if (!r) return 0;
  if (r->privatize.mapped) return r->privatize.mapped;
  if (r->privatize.program) return dlopened_bias(r->privatize.program);
  return 0;
}

Sentinel find(const Places &p, std::uintptr_t a, bool program_only) noexcept {
  for (int i = 1; i <= kSentinels; ++i)
    if (a == p.at[i] && (!program_only || p.in_program[i])) return static_cast<Sentinel>(i);
  return Sentinel::none;
}

} // namespace

Sentinel classify(const void *ptr) noexcept {
  const Places &p = places();
  const auto a = reinterpret_cast<std::uintptr_t>(ptr);
  if (a - p.lo < p.hi - p.lo) [[unlikely]] {
    if (Sentinel s = find(p, a, false); s != Sentinel::none) return s;
  }
  if (p.program == 0) return Sentinel::none; // no copy of the program holds a sentinel
  const std::uintptr_t copy = copy_bias();
  if (copy == 0 || copy == p.program) return Sentinel::none;
  // The same place in the program as started (unsigned arithmetic: wraps, then compares).
  const std::uintptr_t moved = a - copy + p.program;
  if (moved - p.lo >= p.hi - p.lo) [[likely]]
    return Sentinel::none;
  return find(p, moved, true);
}

Status::Status(MPI_Fint *f) noexcept
    : f_(f == nullptr || f == MPI_F_STATUS_IGNORE || classify(f) != Sentinel::none ? nullptr : f) {
  // MPI_Status_set_* read the status they change: start from the Fortran one's fields.
  if (f_) PMPI_Status_f2c(f_, &c_);
}

void Status::back() noexcept {
  if (f_) PMPI_Status_c2f(&c_, f_);
}

InStatus::InStatus(const MPI_Fint *f) noexcept
    : ignored_(f == nullptr || f == MPI_F_STATUS_IGNORE || classify(f) != Sentinel::none) {
  if (!ignored_) PMPI_Status_f2c(f, &c_);
}

Statuses::Statuses(MPI_Fint *f, int count)
    : f_(f == nullptr || f == MPI_F_STATUSES_IGNORE || classify(f) != Sentinel::none ? nullptr : f),
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
