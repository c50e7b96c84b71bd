// Raising MPI errors from the MPI layer: finds the error handler that applies (the communicator's,
// or MPI_COMM_WORLD's for calls without one), then returns the code, ends the job with a message
// naming the call and the argument, or calls the user's handler.
#pragma once

#include <mpi.h>

namespace ampi::mpi {

// Raises error `code` (an MPI error class or code) from MPI function `fn` on `comm`. `fmt` and the
// arguments describe the offending argument, printf-style, e.g. ("dest=%d out of range", dest).
// Returns `code` when the handler returns.
int raise(MPI_Comm comm, int code, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

// Raises error `code` from `fn` through window `win`'s error handler (src/mpi/rma.cpp); through
// MPI_COMM_WORLD's, as MPI_ERR_WIN, when `win` is not a window.
int raise_window(MPI_Win win, int code, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

// Raises MPI_ERR_UNSUPPORTED_OPERATION from `fn` on MPI_COMM_WORLD ("<fn> is not supported by
// ampi").
int unsupported(const char *fn);

} // namespace ampi::mpi

// Makes MPI_<name> a weak alias of the implementation PMPI_<name>, so profiling tools can
// interpose MPI_<name> and still reach the library through PMPI_<name>.
#define AMPI_PMPI_ALIAS(name)                                                                      \
  extern "C" decltype(P##name) name __attribute__((weak, alias("P" #name)));
