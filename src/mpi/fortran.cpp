// src/mpi/fortran.cpp — the run-time side of the Fortran bindings (see fortran.hpp): the sentinel
// COMMON blocks libampi defines and their recognition in every rank's copy of the program, status
// and string conversions, predefined attribute keys.
#include "mpi/fortran.hpp"

#include "mpi/errors.hpp"

#include "core/pe.hpp"
#include "core/rank.hpp"
#include "privatize/privatize.hpp"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>

// The COMMON blocks of mpif.h and the `mpi` module, as gfortran names them (lower case, one
// trailing underscore), at least as large as the Fortran declarations. Only their addresses are
// ever used; aligned as gfortran aligns them (16 bytes: the mpi_f08 module's object in
// libampi.so declares them too, and ld warns of a smaller alignment). They must be exported
// (libampi.map): a program that declares the block then provides the definition every reference
// binds to, libampi's included.
extern "C" {
struct alignas(16) AmpiFortranInt {
  MPI_Fint v[1];
};
struct alignas(16) AmpiFortranStatus {
  MPI_Fint v[AMPI_F_STATUS_SIZE];
};
struct alignas(16) AmpiFortranChar {
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

// ---- attribute callbacks written in Fortran ----------------------------------------------------
namespace {

// The Fortran procedures' forms (every argument by reference; LOGICAL flag: 0 or 1).
using FCopy = void(MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Aint *, MPI_Aint *, MPI_Fint *,
                   MPI_Fint *);
using FDelete = void(MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Aint *, MPI_Fint *);
using FCopy1 = void(MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                    MPI_Fint *);
using FDelete1 = void(MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *);

// One trampoline pair serves communicators, datatypes and windows: their handles are ints, the
// same in Fortran (MPI_Comm_c2f is the identity).
static_assert(std::is_same_v<MPI_Comm, int> && std::is_same_v<MPI_Datatype, int> &&
              std::is_same_v<MPI_Win, int>);

const comm::FortranKeyval *fortran_keyval(int keyval) noexcept {
  Pe *pe = Pe::get_if();
  Rank *r = pe ? pe->current_if() : nullptr;
  if (!r) return nullptr;
  const auto it = r->comm.fortran_keyvals.find(keyval);
  return it == r->comm.fortran_keyvals.end() ? nullptr : &it->second;
}

// An attribute's value as C stores it is the Fortran value itself (MPI_*_set_attr, MPI_Attr_put).
int copy_trampoline(int oldobj, int keyval, void *extra, void *in, void *out, int *flag) {
  *flag = 0;
  const comm::FortranKeyval *k = fortran_keyval(keyval);
  if (!k || !k->copy) return MPI_SUCCESS;
  MPI_Fint obj = oldobj, key = keyval, f = 0, ierr = MPI_SUCCESS;
  MPI_Aint value = 0;
  if (k->mpi1) {
    MPI_Fint x = static_cast<MPI_Fint>(reinterpret_cast<MPI_Aint>(extra));
    MPI_Fint vin = static_cast<MPI_Fint>(reinterpret_cast<MPI_Aint>(in)), vout = 0;
    reinterpret_cast<FCopy1 *>(k->copy)(&obj, &key, &x, &vin, &vout, &f, &ierr);
    value = vout;
  } else {
    MPI_Aint x = reinterpret_cast<MPI_Aint>(extra), vin = reinterpret_cast<MPI_Aint>(in);
    reinterpret_cast<FCopy *>(k->copy)(&obj, &key, &x, &vin, &value, &f, &ierr);
  }
  if (ierr != MPI_SUCCESS) return ierr;
  *flag = f != 0;
  if (*flag) *static_cast<void **>(out) = reinterpret_cast<void *>(value);
  return MPI_SUCCESS;
}

int delete_trampoline(int obj, int keyval, void *value, void *extra) {
  const comm::FortranKeyval *k = fortran_keyval(keyval);
  if (!k || !k->del) return MPI_SUCCESS;
  MPI_Fint o = obj, key = keyval, ierr = MPI_SUCCESS;
  if (k->mpi1) {
    MPI_Fint x = static_cast<MPI_Fint>(reinterpret_cast<MPI_Aint>(extra));
    MPI_Fint v = static_cast<MPI_Fint>(reinterpret_cast<MPI_Aint>(value));
    reinterpret_cast<FDelete1 *>(k->del)(&o, &key, &v, &x, &ierr);
  } else {
    MPI_Aint x = reinterpret_cast<MPI_Aint>(extra), v = reinterpret_cast<MPI_Aint>(value);
    reinterpret_cast<FDelete *>(k->del)(&o, &key, &v, &x, &ierr);
  }
  return ierr;
}

} // namespace

int create_keyval(KeyKind kind, void (*copy)(), void (*del)(), MPI_Fint *keyval, MPI_Aint extra,
                  bool mpi1, bool profiled) {
  int k = MPI_KEYVAL_INVALID;
  void *x = reinterpret_cast<void *>(extra);
  int rc = MPI_SUCCESS;
  switch (kind) {
  case KeyKind::comm:
    if (mpi1)
      rc = profiled ? MPI_Keyval_create(copy_trampoline, delete_trampoline, &k, x)
                    : PMPI_Keyval_create(copy_trampoline, delete_trampoline, &k, x);
    else
      rc = profiled ? MPI_Comm_create_keyval(copy_trampoline, delete_trampoline, &k, x)
                    : PMPI_Comm_create_keyval(copy_trampoline, delete_trampoline, &k, x);
    break;
  case KeyKind::type:
    rc = profiled ? MPI_Type_create_keyval(copy_trampoline, delete_trampoline, &k, x)
                  : PMPI_Type_create_keyval(copy_trampoline, delete_trampoline, &k, x);
    break;
  case KeyKind::win:
    rc = profiled ? MPI_Win_create_keyval(copy_trampoline, delete_trampoline, &k, x)
                  : PMPI_Win_create_keyval(copy_trampoline, delete_trampoline, &k, x);
    break;
  }
  if (rc != MPI_SUCCESS) return rc;
  Pe *pe = Pe::get_if();
  Rank *r = pe ? pe->current_if() : nullptr;
  if (r) r->comm.fortran_keyvals[k] = comm::FortranKeyval{copy, del, mpi1};
  *keyval = k;
  return MPI_SUCCESS;
}

// ---- generalized requests with Fortran callbacks ---------------------------------------------
namespace {

struct FortranGrequest {
  void (*query)();
  void (*free_fn)();
  void (*cancel)();
  MPI_Aint extra;
};
using FQuery = void(MPI_Aint *, MPI_Fint *, MPI_Fint *);
using FFree = void(MPI_Aint *, MPI_Fint *);
using FCancel = void(MPI_Aint *, MPI_Fint *, MPI_Fint *);

int query_trampoline(void *extra, MPI_Status *status) {
  auto *g = static_cast<FortranGrequest *>(extra);
  MPI_Fint f[AMPI_F_STATUS_SIZE] = {};
  PMPI_Status_c2f(status, f);
  MPI_Fint ierr = MPI_SUCCESS;
  reinterpret_cast<FQuery *>(g->query)(&g->extra, f, &ierr);
  PMPI_Status_f2c(f, status);
  return ierr;
}

int free_trampoline(void *extra) {
  // Called once, as the request goes: the record goes with it.
  const std::unique_ptr<FortranGrequest> g(static_cast<FortranGrequest *>(extra));
  MPI_Fint ierr = MPI_SUCCESS;
  reinterpret_cast<FFree *>(g->free_fn)(&g->extra, &ierr);
  return ierr;
}

int cancel_trampoline(void *extra, int complete) {
  auto *g = static_cast<FortranGrequest *>(extra);
  MPI_Fint done = complete ? 1 : 0, ierr = MPI_SUCCESS;
  reinterpret_cast<FCancel *>(g->cancel)(&g->extra, &done, &ierr);
  return ierr;
}

} // namespace

int grequest_start(void (*query)(), void (*free_fn)(), void (*cancel)(), MPI_Aint extra,
                   MPI_Fint *request, bool profiled) {
  auto g = std::make_unique<FortranGrequest>(FortranGrequest{query, free_fn, cancel, extra});
  MPI_Request r = MPI_REQUEST_NULL;
  const int rc =
      profiled
          ? MPI_Grequest_start(query_trampoline, free_trampoline, cancel_trampoline, g.get(), &r)
          : PMPI_Grequest_start(query_trampoline, free_trampoline, cancel_trampoline, g.get(), &r);
  if (rc != MPI_SUCCESS) return rc;
  static_cast<void>(g.release()); // owned by the request now: free_trampoline deletes it
  *request = MPI_Request_c2f(r);
  return MPI_SUCCESS;
}

#if AMPI_FORTRAN_CFI
namespace {

// Whether the descriptor's elements are adjacent in array order (a scalar, a whole array, a
// section of whole columns; an array of no elements counts as contiguous, it is never read).
bool contiguous(const CFI_cdesc_t *d) noexcept {
  for (int i = 0; i < d->rank; ++i)
    if (d->dim[i].extent <= 0) return true;
  auto want = static_cast<CFI_index_t>(d->elem_len);
  for (int i = 0; i < d->rank; ++i) {
    if (d->dim[i].extent != 1 && d->dim[i].sm != want) return false;
    want *= d->dim[i].extent;
  }
  return true;
}

// Calls f(address in the section, offset in the packed copy, bytes) for each run of adjacent
// bytes of a non-contiguous section (rank >= 1, no empty dimension), in array element order:
// whole rows of the first dimension when its elements are adjacent, else single elements.
template <class F> void each_run(const CFI_cdesc_t *d, F &&f) {
  const auto el = static_cast<CFI_index_t>(d->elem_len);
  const bool dense0 = d->dim[0].sm == el;
  const int first = dense0 ? 1 : 0;
  const auto run = static_cast<std::size_t>(dense0 ? d->dim[0].extent * el : el);
  CFI_index_t idx[CFI_MAX_RANK] = {};
  std::size_t packed = 0;
  auto *base = static_cast<std::byte *>(d->base_addr);
  for (;;) {
    std::ptrdiff_t off = 0;
    for (int i = first; i < d->rank; ++i)
      off += idx[i] * d->dim[i].sm;
    f(base + off, packed, run);
    packed += run;
    int i = first;
    for (; i < d->rank; ++i) {
      if (++idx[i] < d->dim[i].extent) break;
      idx[i] = 0;
    }
    if (i == d->rank) return;
  }
}

} // namespace

Choice::Choice(const CFI_cdesc_t *d, Mode mode, const char *fn, const char *arg, MPI_Fint *ierror)
    : d_(d), mode_(mode), p_(d->base_addr) {
  if (mode == address || contiguous(d)) return;
  if (mode == deferred) {
    ok_ = false;
    *ierror = raise(MPI_COMM_WORLD, MPI_ERR_BUFFER, fn,
                    "%s is a non-contiguous array section, which this call cannot take: it uses "
                    "the buffer after it returns (MPI_SUBARRAYS_SUPPORTED is .FALSE.); pass a "
                    "contiguous array, or describe the layout with a derived datatype",
                    arg);
    return;
  }
  std::size_t n = d->elem_len;
  for (int i = 0; i < d->rank; ++i)
    n *= static_cast<std::size_t>(d->dim[i].extent);
  tmp_.resize(n);
  each_run(d, [this](std::byte *at, std::size_t off, std::size_t len) {
    std::memcpy(tmp_.data() + off, at, len);
  });
  p_ = tmp_.data();
}

Choice::~Choice() {
  if (tmp_.empty() || mode_ != inout) return;
  each_run(d_, [this](std::byte *at, std::size_t off, std::size_t len) {
    std::memcpy(at, tmp_.data() + off, len);
  });
}
#endif

} // namespace ampi::mpi::fortran

// The predefined attribute callbacks of Fortran (MPI_COMM_DUP_FN, ...: EXTERNAL procedures of
// mpif.h and the modules), with Fortran's arguments; MPI_NULL_COPY_FN, MPI_DUP_FN and
// MPI_NULL_DELETE_FN are MPI_Keyval_create's (INTEGER values).
extern "C" {
#define AMPI_FORTRAN_ATTR_FNS(obj)                                                                 \
  void mpi_##obj##_null_copy_fn_(MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Aint *, MPI_Aint *,       \
                                 MPI_Fint *flag, MPI_Fint *ierror) {                               \
    *flag = 0;                                                                                     \
    *ierror = MPI_SUCCESS;                                                                         \
  }                                                                                                \
  void mpi_##obj##_dup_fn_(MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Aint *in, MPI_Aint *out,        \
                           MPI_Fint *flag, MPI_Fint *ierror) {                                     \
    *out = *in;                                                                                    \
    *flag = 1;                                                                                     \
    *ierror = MPI_SUCCESS;                                                                         \
  }                                                                                                \
  void mpi_##obj##_null_delete_fn_(MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Aint *,                 \
                                   MPI_Fint *ierror) {                                             \
    *ierror = MPI_SUCCESS;                                                                         \
  }
AMPI_FORTRAN_ATTR_FNS(comm)
AMPI_FORTRAN_ATTR_FNS(type)
AMPI_FORTRAN_ATTR_FNS(win)
#undef AMPI_FORTRAN_ATTR_FNS
void mpi_null_copy_fn_(MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *flag,
                       MPI_Fint *ierror) {
  *flag = 0;
  *ierror = MPI_SUCCESS;
}
void mpi_dup_fn_(MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *in, MPI_Fint *out, MPI_Fint *flag,
                 MPI_Fint *ierror) {
  *out = *in;
  *flag = 1;
  *ierror = MPI_SUCCESS;
}
void mpi_null_delete_fn_(MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *ierror) {
  *ierror = MPI_SUCCESS;
}
}
