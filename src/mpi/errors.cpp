// src/mpi/errors.cpp — error classes and strings (predefined, and those a program adds with
// MPI_Add_error_class/code/string), error handlers (MPI_ERRORS_ARE_FATAL, MPI_ERRORS_RETURN, user
// handlers) and the functions that raise errors for the rest of the MPI layer. A raised error's
// code names its message (comm::ErrorMessages): under MPI_ERRORS_RETURN, MPI_Error_string of the
// returned code says which call, argument and value, as MPICH's does.
#include "core/rank.hpp"
#include "mpi/common.hpp"

#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace ampi::mpi {

namespace {

struct ClassInfo {
  int code;
  const char *name;
  const char *text;
};

constexpr ClassInfo kClasses[] = {
    {MPI_SUCCESS, "MPI_SUCCESS", "no error"},
    {MPI_ERR_BUFFER, "MPI_ERR_BUFFER", "invalid buffer pointer"},
    {MPI_ERR_COUNT, "MPI_ERR_COUNT", "invalid count argument"},
    {MPI_ERR_TYPE, "MPI_ERR_TYPE", "invalid datatype"},
    {MPI_ERR_TAG, "MPI_ERR_TAG", "invalid tag argument"},
    {MPI_ERR_COMM, "MPI_ERR_COMM", "invalid communicator"},
    {MPI_ERR_RANK, "MPI_ERR_RANK", "invalid rank"},
    {MPI_ERR_ROOT, "MPI_ERR_ROOT", "invalid root"},
    {MPI_ERR_GROUP, "MPI_ERR_GROUP", "invalid group"},
    {MPI_ERR_OP, "MPI_ERR_OP", "invalid reduce operation"},
    {MPI_ERR_TOPOLOGY, "MPI_ERR_TOPOLOGY", "invalid communicator topology"},
    {MPI_ERR_DIMS, "MPI_ERR_DIMS", "invalid dimension argument"},
    {MPI_ERR_ARG, "MPI_ERR_ARG", "invalid argument"},
    {MPI_ERR_UNKNOWN, "MPI_ERR_UNKNOWN", "unknown error"},
    {MPI_ERR_TRUNCATE, "MPI_ERR_TRUNCATE", "message truncated"},
    {MPI_ERR_OTHER, "MPI_ERR_OTHER", "other error"},
    {MPI_ERR_INTERN, "MPI_ERR_INTERN", "internal error"},
    {MPI_ERR_IN_STATUS, "MPI_ERR_IN_STATUS", "error code is in status"},
    {MPI_ERR_PENDING, "MPI_ERR_PENDING", "pending request"},
    {MPI_ERR_REQUEST, "MPI_ERR_REQUEST", "invalid request"},
    {MPI_ERR_ACCESS, "MPI_ERR_ACCESS", "permission denied"},
    {MPI_ERR_AMODE, "MPI_ERR_AMODE", "invalid access mode"},
    {MPI_ERR_BAD_FILE, "MPI_ERR_BAD_FILE", "invalid file name"},
    {MPI_ERR_BASE, "MPI_ERR_BASE", "invalid base address"},
    {MPI_ERR_CONVERSION, "MPI_ERR_CONVERSION", "data conversion error"},
    {MPI_ERR_DISP, "MPI_ERR_DISP", "invalid displacement"},
    {MPI_ERR_DUP_DATAREP, "MPI_ERR_DUP_DATAREP", "data representation already defined"},
    {MPI_ERR_FILE_EXISTS, "MPI_ERR_FILE_EXISTS", "file exists"},
    {MPI_ERR_FILE_IN_USE, "MPI_ERR_FILE_IN_USE", "file in use"},
    {MPI_ERR_FILE, "MPI_ERR_FILE", "invalid file handle"},
    {MPI_ERR_INFO_KEY, "MPI_ERR_INFO_KEY", "invalid info key"},
    {MPI_ERR_INFO_NOKEY, "MPI_ERR_INFO_NOKEY", "info key not defined"},
    {MPI_ERR_INFO_VALUE, "MPI_ERR_INFO_VALUE", "invalid info value"},
    {MPI_ERR_INFO, "MPI_ERR_INFO", "invalid info object"},
    {MPI_ERR_IO, "MPI_ERR_IO", "I/O error"},
    {MPI_ERR_KEYVAL, "MPI_ERR_KEYVAL", "invalid attribute key"},
    {MPI_ERR_LOCKTYPE, "MPI_ERR_LOCKTYPE", "invalid lock type"},
    {MPI_ERR_NAME, "MPI_ERR_NAME", "invalid service name"},
    {MPI_ERR_NO_MEM, "MPI_ERR_NO_MEM", "out of memory"},
    {MPI_ERR_NOT_SAME, "MPI_ERR_NOT_SAME", "arguments differ between processes"},
    {MPI_ERR_NO_SPACE, "MPI_ERR_NO_SPACE", "no space left"},
    {MPI_ERR_NO_SUCH_FILE, "MPI_ERR_NO_SUCH_FILE", "no such file"},
    {MPI_ERR_PORT, "MPI_ERR_PORT", "invalid port name"},
    {MPI_ERR_QUOTA, "MPI_ERR_QUOTA", "quota exceeded"},
    {MPI_ERR_READ_ONLY, "MPI_ERR_READ_ONLY", "file is read-only"},
    {MPI_ERR_RMA_CONFLICT, "MPI_ERR_RMA_CONFLICT", "conflicting RMA accesses"},
    {MPI_ERR_RMA_SYNC, "MPI_ERR_RMA_SYNC", "RMA synchronization error"},
    {MPI_ERR_SERVICE, "MPI_ERR_SERVICE", "invalid service"},
    {MPI_ERR_SIZE, "MPI_ERR_SIZE", "invalid size"},
    {MPI_ERR_SPAWN, "MPI_ERR_SPAWN", "spawn error"},
    {MPI_ERR_UNSUPPORTED_DATAREP, "MPI_ERR_UNSUPPORTED_DATAREP", "unsupported data representation"},
    {MPI_ERR_UNSUPPORTED_OPERATION, "MPI_ERR_UNSUPPORTED_OPERATION", "operation not supported"},
    {MPI_ERR_WIN, "MPI_ERR_WIN", "invalid window"},
    {MPI_ERR_RMA_RANGE, "MPI_ERR_RMA_RANGE", "RMA access out of the window"},
    {MPI_ERR_RMA_ATTACH, "MPI_ERR_RMA_ATTACH", "memory cannot be attached"},
    {MPI_ERR_RMA_SHARED, "MPI_ERR_RMA_SHARED", "memory cannot be shared"},
    {MPI_ERR_RMA_FLAVOR, "MPI_ERR_RMA_FLAVOR", "wrong window flavor"},
    {MPI_ERR_ASSERT, "MPI_ERR_ASSERT", "invalid assert argument"},
};

const ClassInfo *find_class(int code) {
  code = comm::ErrorMessages::class_of(code); // a raised error's code: its class's
  for (const auto &c : kClasses)
    if (c.code == code) return &c;
  return nullptr;
}

// The calling rank's record of a code the program added, or nullptr.
const comm::UserErrors::Entry *user_error(int code) {
  Pe *pe = Pe::get_if();
  Rank *self = pe ? pe->current_if() : nullptr;
  return self ? self->comm.objects.errors.find(code) : nullptr;
}

// The calling rank's messages of raised errors, or nullptr outside a rank.
const comm::ErrorMessages *messages() {
  Pe *pe = Pe::get_if();
  Rank *self = pe ? pe->current_if() : nullptr;
  return self ? &self->comm.objects.messages : nullptr;
}

[[noreturn]] void fatal(Rank *self, int code, const char *fn, const char *detail,
                        const char *handler = "MPI_ERRORS_ARE_FATAL") {
  code = comm::ErrorMessages::class_of(code);
  const ClassInfo *ci = find_class(code);
  if (!ci)
    if (const comm::UserErrors::Entry *u = user_error(code)) {
      std::fflush(stdout);
      std::fprintf(stderr, "ampi: rank %d: %s: %s: %s (user error code %d, class %d)\n",
                   self ? self->world_rank : -1, fn, u->text.empty() ? "error" : u->text.c_str(),
                   detail, code, u->error_class);
      std::fprintf(stderr, "ampi: %s: ending the job\n", handler);
      Pe::abort_job(1);
    }
  std::fflush(stdout);
  if (self)
    std::fprintf(stderr, "ampi: rank %d: %s: %s: %s (%s)\n", self->world_rank, fn,
                 ci ? ci->text : "error", detail, ci ? ci->name : "unknown error class");
  else
    std::fprintf(stderr, "ampi: %s: %s: %s (%s)\n", fn, ci ? ci->text : "error", detail,
                 ci ? ci->name : "unknown error class");
  std::fprintf(stderr, "ampi: %s: ending the job\n", handler);
  Pe::abort_job(code == MPI_SUCCESS ? 1 : (code & 0xff ? code & 0xff : 1));
}

int dispatch(Rank *self, comm::Comm *c, int code, const char *fn, const char *detail) {
  const MPI_Errhandler eh = c ? c->errhandler : MPI_ERRORS_ARE_FATAL;
  if (eh == MPI_ERRORS_RETURN) return code;
  if (eh == MPI_ERRORS_ARE_FATAL || !self) fatal(self, code, fn, detail);
  // MPI 4's MPI_ERRORS_ABORT aborts "the processes of the communicator"; with ranks as threads
  // of shared processes that is the job, as MPI_Abort on the communicator is.
  if (eh == MPI_ERRORS_ABORT) fatal(self, code, fn, detail, "MPI_ERRORS_ABORT");
  if (const comm::UserErrhandler *u = self->comm.errhandlers.get(eh)) {
    MPI_Comm h = c->handle;
    int e = code;
    u->fn(&h, &e, detail);
    return code;
  }
  fatal(self, code, fn, detail);
}

} // namespace

void errhandler_retain(Rank &self, MPI_Errhandler eh) {
  if (eh == MPI_ERRORS_ABORT) return; // predefined: not counted
  if (comm::UserErrhandler *u = self.comm.errhandlers.get(eh)) ++u->refs;
}

void errhandler_release(Rank &self, MPI_Errhandler eh) {
  if (eh == MPI_ERRORS_ABORT) return;
  comm::UserErrhandler *u = self.comm.errhandlers.get(eh);
  if (u && --u->refs == 0) self.comm.errhandlers.erase(eh);
}

// MPI_ERRORS_ABORT (MPI 4) has the handle of the errhandler table's first slot (0x54000002, as
// MPICH numbers it), so that slot is held, never handed out, by an entry without a function made
// before the rank's first handler: handlers the program creates start at 0x54000003.
MPI_Errhandler errhandler_insert(Rank &self, MPI_Comm_errhandler_function *f) {
  if (!self.comm.errhandlers.get(MPI_ERRORS_ABORT)) {
    const MPI_Errhandler reserved = self.comm.errhandlers.insert({nullptr, 1});
    if (reserved != MPI_ERRORS_ABORT) self.comm.errhandlers.erase(reserved); // slot 0 was used
  }
  return self.comm.errhandlers.insert({f, 1});
}

bool errhandler_valid(const Rank &self, MPI_Errhandler eh) {
  return eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_RETURN || eh == MPI_ERRORS_ABORT ||
         self.comm.errhandlers.get(eh);
}

int raise(MPI_Comm comm, int code, const char *fn, const char *fmt, ...) {
  char detail[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(detail, sizeof detail, fmt, ap);
  va_end(ap);
  Pe *pe = Pe::get_if();
  Rank *self = pe ? pe->current_if() : nullptr;
  comm::Comm *c = nullptr;
  if (self) {
    c = self->comm.comms.find(comm);
    if (!c) c = self->comm.comms.find(MPI_COMM_WORLD);
    // A predefined class gets a code of its own that names this message (a code already
    // specific, or one the program added, stays as it is). MPI_ERR_IN_STATUS and
    // MPI_ERR_PENDING stay plain: they say "see the statuses", whose codes carry the details,
    // and programs compare them as they are.
    if (code != MPI_SUCCESS && code <= 0xff && code != MPI_ERR_IN_STATUS &&
        code != MPI_ERR_PENDING && find_class(code) &&
        (!c || c->errhandler != MPI_ERRORS_ARE_FATAL))
      code = self->comm.objects.messages.record(code, std::string(fn) + ": " + detail);
  }
  return dispatch(self, c, code, fn, detail);
}

int unsupported(const char *fn) {
  return raise(MPI_COMM_WORLD, MPI_ERR_UNSUPPORTED_OPERATION, fn,
               "%s is not supported by ampi (see the README's table of supported functions)", fn);
}

namespace {

// The calling rank, with the PE's mutex taken when the PE is threaded; ends the job if there is
// none.
Rank *find_caller(const char *fn) {
  if (Pe *pe = Pe::get_if()) {
    if (pe->threaded()) pe->threads().lock();
    Rank *r = pe->current_if();
    if (!r) fatal(nullptr, MPI_ERR_OTHER, fn, "called outside the ranks of the process");
    return r;
  }
  // Not the PE's thread: a thread that a rank created, or none of ours.
  Rank *r = Pe::enter_thread();
  if (!r)
    fatal(nullptr, MPI_ERR_OTHER, fn,
          "called from a thread that is not an MPI rank and was not created by one");
  if (r->thread_level < MPI_THREAD_SERIALIZED) {
    fatal(r, MPI_ERR_OTHER, fn,
          r->initialized
              ? "called from a thread the rank created, but MPI_Init_thread did not provide "
                "MPI_THREAD_SERIALIZED or MPI_THREAD_MULTIPLE"
              : "called from a thread the rank created before the rank called MPI_Init_thread");
  }
  return r;
}

} // namespace

Entered enter_slow(const char *fn, bool initialized) {
  if (Pe *pe = Pe::get_if(); pe && pe->threaded()) [[likely]] { // a threaded PE's every call
    pe->threads().lock();
    Rank *self = pe->current_if(); // a created thread's nested call has its own rank
    if (self && (!initialized || (self->initialized && !self->finalized))) [[likely]]
      return Entered(self);
    pe->threads().unlock(); // find_caller takes it again and raises
  }
  Rank *self = find_caller(fn);
  if (initialized && (!self->initialized || self->finalized)) [[unlikely]] {
    fatal(self, MPI_ERR_OTHER, fn,
          self->finalized ? "called after MPI_Finalize" : "called before MPI_Init");
  }
  return Entered(self);
}

comm::Comm *bad_comm(MPI_Comm h, const char *fn, int *err) {
  *err = raise(MPI_COMM_WORLD, MPI_ERR_COMM, fn, "%s",
               h == MPI_COMM_NULL ? "comm=MPI_COMM_NULL" : "comm is not a valid communicator");
  return nullptr;
}

std::size_t bad_type(MPI_Datatype t, MPI_Comm comm, const char *fn, int *err) {
  *err = raise(comm, MPI_ERR_TYPE, fn, "%s",
               t == MPI_DATATYPE_NULL ? "datatype=MPI_DATATYPE_NULL"
                                      : "datatype is not a valid (committed) datatype");
  return 0;
}

const char *comm_label(const comm::Comm &c) {
  return c.name.empty() ? "a communicator" : c.name.c_str();
}

const char *type_label(MPI_Datatype t) {
  const datatype::Builtin *b = datatype::builtin(t);
  return b ? b->name : "a derived datatype";
}

} // namespace ampi::mpi

using namespace ampi;
using namespace ampi::mpi;

extern "C" int PMPI_Error_class(int errorcode, int *errorclass) {
  if (!errorclass) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Error_class", "errorclass=NULL");
  if (find_class(errorcode)) {
    *errorclass = comm::ErrorMessages::class_of(errorcode);
    return MPI_SUCCESS;
  }
  if (const comm::UserErrors::Entry *u = user_error(errorcode)) {
    *errorclass = u->error_class;
    return MPI_SUCCESS;
  }
  return raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Error_class", "errorcode=%d is not an error code",
               errorcode);
}
AMPI_PMPI_ALIAS(MPI_Error_class)

extern "C" int PMPI_Error_string(int errorcode, char *string, int *resultlen) {
  if (!string || !resultlen)
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Error_string", "string or resultlen is NULL");
  int n = 0;
  if (const ClassInfo *ci = find_class(errorcode)) {
    const comm::ErrorMessages *m = messages();
    const std::string *text = m ? m->find(errorcode) : nullptr;
    if (text)
      n = std::snprintf(string, MPI_MAX_ERROR_STRING, "%s: %s: %s", ci->name, ci->text,
                        text->c_str());
    else if (comm::ErrorMessages::is_specific(errorcode))
      n = std::snprintf(string, MPI_MAX_ERROR_STRING,
                        "%s: %s (the details of error code %d are no longer kept: only the "
                        "last %u errors of a rank are)",
                        ci->name, ci->text, errorcode, comm::ErrorMessages::kRing);
    else
      n = std::snprintf(string, MPI_MAX_ERROR_STRING, "%s: %s", ci->name, ci->text);
  } else if (const comm::UserErrors::Entry *u = user_error(errorcode)) {
    n = std::snprintf(string, MPI_MAX_ERROR_STRING, "%s", u->text.c_str());
  } else {
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Error_string",
                 "errorcode=%d is not an error code", errorcode);
  }
  *resultlen = n < MPI_MAX_ERROR_STRING ? n : MPI_MAX_ERROR_STRING - 1;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Error_string)

extern "C" int PMPI_Add_error_class(int *errorclass) {
  static constexpr const char *fn = "MPI_Add_error_class";
  auto self = enter(fn);
  if (!errorclass) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "errorclass=NULL");
  *errorclass = self->comm.objects.errors.add(-1);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Add_error_class)

extern "C" int PMPI_Add_error_code(int errorclass, int *errorcode) {
  static constexpr const char *fn = "MPI_Add_error_code";
  auto self = enter(fn);
  if (!errorcode) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "errorcode=NULL");
  const comm::UserErrors::Entry *u = self->comm.objects.errors.find(errorclass);
  const bool is_class =
      (errorclass > MPI_SUCCESS && errorclass <= 0xff && find_class(errorclass)) ||
      (u && u->error_class == errorclass);
  if (!is_class)
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "errorclass=%d is not an error class",
                 errorclass);
  *errorcode = self->comm.objects.errors.add(errorclass);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Add_error_code)

extern "C" int PMPI_Add_error_string(int errorcode, const char *string) {
  static constexpr const char *fn = "MPI_Add_error_string";
  auto self = enter(fn);
  if (!string) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "string=NULL");
  if (strnlen(string, MPI_MAX_ERROR_STRING) >= MPI_MAX_ERROR_STRING)
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn,
                 "string is longer than MPI_MAX_ERROR_STRING-1=%d characters",
                 MPI_MAX_ERROR_STRING - 1);
  auto &errors = self->comm.objects.errors;
  if (!errors.find(errorcode))
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn,
                 "errorcode=%d was not added by MPI_Add_error_class/code (predefined codes keep "
                 "their strings)",
                 errorcode);
  errors.entries[static_cast<std::size_t>(errorcode - comm::UserErrors::kFirst)].text = string;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Add_error_string)

extern "C" int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  static constexpr const char *fn = "MPI_Comm_set_errhandler";
  auto self = enter_any(fn);
  int err = MPI_SUCCESS;
  comm::Comm *c = find_comm(*self, comm, fn, &err);
  if (!c) return err;
  if (!errhandler_valid(*self, errhandler))
    return raise(comm, MPI_ERR_ARG, fn, "errhandler is not a valid error handler");
  errhandler_retain(*self, errhandler);
  errhandler_release(*self, c->errhandler);
  c->errhandler = errhandler;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Comm_set_errhandler)

extern "C" int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler) {
  static constexpr const char *fn = "MPI_Comm_get_errhandler";
  auto self = enter_any(fn);
  int err = MPI_SUCCESS;
  comm::Comm *c = find_comm(*self, comm, fn, &err);
  if (!c) return err;
  if (!errhandler) return raise(comm, MPI_ERR_ARG, fn, "errhandler=NULL");
  *errhandler = c->errhandler;
  errhandler_retain(*self, c->errhandler); // the caller must free the handle it got
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Comm_get_errhandler)

extern "C" int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *function,
                                           MPI_Errhandler *errhandler) {
  static constexpr const char *fn = "MPI_Comm_create_errhandler";
  auto self = enter_any(fn);
  if (!function || !errhandler)
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "function or errhandler is NULL");
  *errhandler = errhandler_insert(*self, function);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Comm_create_errhandler)

extern "C" int PMPI_Errhandler_free(MPI_Errhandler *errhandler) {
  static constexpr const char *fn = "MPI_Errhandler_free";
  auto self = enter_any(fn);
  if (!errhandler) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "errhandler=NULL");
  if (!errhandler_valid(*self, *errhandler))
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "errhandler is not a valid error handler");
  errhandler_release(*self, *errhandler); // the predefined ones are not counted
  *errhandler = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Errhandler_free)

extern "C" int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
  static constexpr const char *fn = "MPI_Comm_call_errhandler";
  auto self = enter_any(fn);
  int err = MPI_SUCCESS;
  comm::Comm *c = find_comm(*self, comm, fn, &err);
  if (!c) return err;
  dispatch(self, c, errorcode, fn, "error raised by the program");
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Comm_call_errhandler)
