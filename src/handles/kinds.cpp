// src/handles/kinds.cpp — compile-time checks that the handle kinds of handle.hpp, which include
// no mpi.h, give mpi.h's predefined and null handles, so the two cannot drift apart. No code.
#include "handles/handle.hpp"

#include <mpi.h>

namespace ampi::handles {
namespace {

constexpr bool is_null_of(HandleKind k, Handle null) {
  // A null handle is never the handle of a table's object: another top byte, or below `first`.
  return !is_kind(k, null);
}

static_assert(encode(kind::comm, 0) == MPI_COMM_WORLD);
static_assert(encode(kind::comm, 1) == MPI_COMM_SELF);
static_assert(is_null_of(kind::comm, MPI_COMM_NULL));
static_assert(encode(kind::group, 0) == MPI_GROUP_EMPTY);
static_assert(is_null_of(kind::group, MPI_GROUP_NULL));
static_assert(encode(kind::builtin_datatype, 1) == MPI_CHAR);
static_assert(encode(kind::builtin_datatype, 0x3a) == MPI_REAL8);
static_assert(is_null_of(kind::datatype, MPI_DATATYPE_NULL));
static_assert(!is_kind(kind::datatype, MPI_INT));
static_assert(encode(kind::builtin_op, 1) == MPI_MAX && encode(kind::builtin_op, 14) == MPI_NO_OP);
static_assert(!is_kind(kind::op, MPI_NO_OP) && is_null_of(kind::op, MPI_OP_NULL));
static_assert(encode(kind::builtin_errhandler, 0) == MPI_ERRORS_ARE_FATAL);
static_assert(encode(kind::builtin_errhandler, 1) == MPI_ERRORS_RETURN);
static_assert(!is_kind(kind::errhandler, MPI_ERRORS_RETURN));
static_assert(is_null_of(kind::errhandler, MPI_ERRHANDLER_NULL));
static_assert(encode(kind::info, 0) == MPI_INFO_ENV && is_null_of(kind::info, MPI_INFO_NULL));
static_assert(is_null_of(kind::request, MPI_REQUEST_NULL));
static_assert(is_null_of(kind::window, MPI_WIN_NULL));
static_assert(is_null_of(kind::message, MPI_MESSAGE_NULL));
static_assert(is_null_of(kind::message, MPI_MESSAGE_NO_PROC));
static_assert(is_null_of(kind::keyval, MPI_KEYVAL_INVALID));
static_assert(!is_kind(kind::keyval, MPI_TAG_UB) && !is_kind(kind::keyval, MPI_WIN_BASE));

} // namespace
} // namespace ampi::handles
