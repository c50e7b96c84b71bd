// src/mpi/attr.cpp — communicator attributes: user keyvals with their copy and delete callbacks
// (MPI_Comm_create_keyval, ..., and the MPI-1 names MPI_Keyval_create, MPI_Attr_put/get/delete),
// and the predefined attributes (MPI_TAG_UB, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL,
// MPI_UNIVERSE_SIZE, MPI_LASTUSEDCODE, MPI_APPNUM), readable on every communicator.
#include "core/pe.hpp"
#include "core/rank.hpp"
#include "mpi/comm_util.hpp"

#include <cstring>

using namespace ampi;
using namespace ampi::mpi;

namespace {

// Values that MPI_Comm_get_attr hands out by address: they must outlive the call (constants).
struct PredefinedAttrs {
  int tag_ub = kTagUb;
  int host = MPI_PROC_NULL;
  int io = MPI_ANY_SOURCE;
  int wtime_is_global = 1; // one clock for all ranks of one machine
  int appnum = 0;
};
constexpr PredefinedAttrs kAttrs;

bool is_predefined(int keyval) {
  switch (keyval) {
  case MPI_TAG_UB:
  case MPI_HOST:
  case MPI_IO:
  case MPI_WTIME_IS_GLOBAL:
  case MPI_UNIVERSE_SIZE:
  case MPI_LASTUSEDCODE:
  case MPI_APPNUM:
    return true;
  default:
    return false;
  }
}

const int *predefined_value(Rank &self, int keyval) {
  switch (keyval) {
  case MPI_TAG_UB:
    return &kAttrs.tag_ub;
  case MPI_HOST:
    return &kAttrs.host;
  case MPI_IO:
    return &kAttrs.io;
  case MPI_WTIME_IS_GLOBAL:
    return &kAttrs.wtime_is_global;
  case MPI_UNIVERSE_SIZE:
    return &self.pe().config().placement.world_size;
  case MPI_LASTUSEDCODE:
    return &self.comm.objects.errors.last_used_code;
  case MPI_APPNUM:
    return &kAttrs.appnum;
  default:
    return nullptr;
  }
}

// The keyval argument's name in `fn`'s signature.
const char *keyval_arg(const char *fn) {
  return std::strncmp(fn, "MPI_Comm_", 9) == 0 ? "comm_keyval" : "keyval";
}

int create_keyval(comm::CopyAttrFn *copy, comm::DeleteAttrFn *del, int *keyval, void *extra,
                  const char *fn) {
  auto self = enter(fn);
  if (!keyval) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "keyval=NULL");
  // The predefined "null" callbacks need not be called at all.
  if (copy == &MPI_COMM_NULL_COPY_FN || copy == &MPI_NULL_COPY_FN) copy = nullptr;
  if (del == &MPI_COMM_NULL_DELETE_FN || del == &MPI_NULL_DELETE_FN) del = nullptr;
  *keyval = self->comm.objects.keyvals.create(comm::ObjectKind::Comm, copy, del, extra);
  return MPI_SUCCESS;
}

int free_keyval(int *keyval, const char *fn) {
  auto self = enter(fn);
  if (!keyval) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "keyval=NULL");
  if (is_predefined(*keyval))
    return raise(MPI_COMM_WORLD, MPI_ERR_KEYVAL, fn, "%s=%d is predefined", keyval_arg(fn),
                 *keyval);
  // find_any: a keyval the program freed already while values still hold it (a delete callback
  // that frees its keyval, then the program's own free) may be freed again, as MPICH and Open MPI
  // allow; only the first free drops the program's reference.
  comm::Keyval *k = self->comm.objects.keyvals.find_any(*keyval);
  if (!k || k->kind != comm::ObjectKind::Comm)
    return raise(MPI_COMM_WORLD, MPI_ERR_KEYVAL, fn,
                 "%s=%d is not a communicator keyval (or was freed)", keyval_arg(fn), *keyval);
  if (!k->freed) {
    k->freed = true; // values still attached keep it alive for their delete callbacks
    self->comm.objects.keyvals.release(*keyval);
  }
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

int set_attr(MPI_Comm comm, int keyval, void *value, const char *fn) {
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  if (is_predefined(keyval))
    return raise(comm, MPI_ERR_KEYVAL, fn, "%s=%d is predefined (read-only)", keyval_arg(fn),
                 keyval);
  if (!self->comm.objects.keyvals.find(keyval, comm::ObjectKind::Comm))
    return raise(comm, MPI_ERR_KEYVAL, fn, "%s=%d is not a communicator keyval", keyval_arg(fn),
                 keyval);
  if (int e = comm::set_attr(self->comm.objects.keyvals, c->attrs, comm, keyval, value))
    return raise(comm, e, fn, "the delete callback of the old value returned %d", e);
  return MPI_SUCCESS;
}

int get_attr(MPI_Comm comm, int keyval, void *value, int *flag, const char *fn) {
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  if (!value || !flag) return raise(comm, MPI_ERR_ARG, fn, "attribute_val or flag is NULL");
  if (const int *v = predefined_value(*self, keyval)) {
    *static_cast<const int **>(value) = v;
    *flag = 1;
    return MPI_SUCCESS;
  }
  if (!self->comm.objects.keyvals.find_attached(keyval, comm::ObjectKind::Comm, c->attrs))
    return raise(comm, MPI_ERR_KEYVAL, fn, "%s=%d is not a communicator keyval", keyval_arg(fn),
                 keyval);
  void **v = c->attrs.find(keyval);
  *flag = v != nullptr;
  if (v) *static_cast<void **>(value) = *v;
  return MPI_SUCCESS;
}

int delete_attr(MPI_Comm comm, int keyval, const char *fn) {
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  if (is_predefined(keyval))
    return raise(comm, MPI_ERR_KEYVAL, fn, "%s=%d is predefined (read-only)", keyval_arg(fn),
                 keyval);
  if (!self->comm.objects.keyvals.find_attached(keyval, comm::ObjectKind::Comm, c->attrs))
    return raise(comm, MPI_ERR_KEYVAL, fn, "%s=%d is not a communicator keyval", keyval_arg(fn),
                 keyval);
  const int e = comm::delete_attr(self->comm.objects.keyvals, c->attrs, comm, keyval);
  if (e == MPI_ERR_KEYVAL)
    return raise(comm, e, fn, "the communicator has no attribute for %s=%d", keyval_arg(fn),
                 keyval);
  if (e != MPI_SUCCESS) return raise(comm, e, fn, "the delete callback returned %d", e);
  return MPI_SUCCESS;
}

} // namespace

extern "C" int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                                       MPI_Comm_delete_attr_function *comm_delete_attr_fn,
                                       int *comm_keyval, void *extra_state) {
  return create_keyval(comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval, extra_state,
                       "MPI_Comm_create_keyval");
}
AMPI_PMPI_ALIAS(MPI_Comm_create_keyval)

extern "C" int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn,
                                  int *keyval, void *extra_state) {
  return create_keyval(copy_fn, delete_fn, keyval, extra_state, "MPI_Keyval_create");
}
AMPI_PMPI_ALIAS(MPI_Keyval_create)

extern "C" int PMPI_Comm_free_keyval(int *comm_keyval) {
  return free_keyval(comm_keyval, "MPI_Comm_free_keyval");
}
AMPI_PMPI_ALIAS(MPI_Comm_free_keyval)

extern "C" int PMPI_Keyval_free(int *keyval) {
  return free_keyval(keyval, "MPI_Keyval_free");
}
AMPI_PMPI_ALIAS(MPI_Keyval_free)

extern "C" int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val) {
  return set_attr(comm, comm_keyval, attribute_val, "MPI_Comm_set_attr");
}
AMPI_PMPI_ALIAS(MPI_Comm_set_attr)

extern "C" int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val) {
  return set_attr(comm, keyval, attribute_val, "MPI_Attr_put");
}
AMPI_PMPI_ALIAS(MPI_Attr_put)

extern "C" int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag) {
  return get_attr(comm, comm_keyval, attribute_val, flag, "MPI_Comm_get_attr");
}
AMPI_PMPI_ALIAS(MPI_Comm_get_attr)

extern "C" int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag) {
  return get_attr(comm, keyval, attribute_val, flag, "MPI_Attr_get");
}
AMPI_PMPI_ALIAS(MPI_Attr_get)

extern "C" int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval) {
  return delete_attr(comm, comm_keyval, "MPI_Comm_delete_attr");
}
AMPI_PMPI_ALIAS(MPI_Comm_delete_attr)

extern "C" int PMPI_Attr_delete(MPI_Comm comm, int keyval) {
  return delete_attr(comm, keyval, "MPI_Attr_delete");
}
AMPI_PMPI_ALIAS(MPI_Attr_delete)
