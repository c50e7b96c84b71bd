// src/mpi/rma.cpp — the MPI layer of one-sided communication: window creation and queries,
// window error handlers, RMA operations and synchronisation calls (argument checks, handles);
// the work is done by src/rma/window.cpp.
#include "mpi/comm_util.hpp"
#include "mpi/common.hpp"
#include "p2p/p2p.hpp"
#include "rma/window.hpp"

#include "comm/context.hpp"

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstring>

using namespace ampi;
using namespace ampi::mpi;

namespace ampi::mpi {
// A handler made by MPI_*_create_errhandler (src/mpi/errors.cpp: keeps MPI_ERRORS_ABORT's handle).
MPI_Errhandler errhandler_insert(Rank &self, MPI_Comm_errhandler_function *f);
} // namespace ampi::mpi

namespace {

int no_window(MPI_Win h, const char *fn) {
  return raise(MPI_COMM_WORLD, MPI_ERR_WIN, fn, "%s",
               h == MPI_WIN_NULL ? "win=MPI_WIN_NULL" : "win is not a valid window");
}

// Raises an error through the window's error handler (MPI_ERRORS_ARE_FATAL unless set).
int raise_win(rma::Window &w, int code, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int raise_win(rma::Window &w, int code, const char *fn, const char *fmt, ...) {
  char detail[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(detail, sizeof detail, fmt, ap);
  va_end(ap);
  const MPI_Errhandler eh = w.errhandler;
  if (eh == MPI_ERRORS_RETURN) return code;
  const comm::UserErrhandler *u =
      eh == MPI_ERRORS_ABORT ? nullptr : w.self.comm.errhandlers.get(eh);
  if (u) {
    // Created by MPI_Win_create_errhandler: called with the window.
    auto *f = reinterpret_cast<MPI_Win_errhandler_function *>(u->fn);
    MPI_Win h = w.handle;
    int e = code;
    f(&h, &e, detail);
    return code;
  }
  // Fatal: through the window's communicator, whose handler is MPI_ERRORS_RETURN otherwise.
  w.comm->errhandler = MPI_ERRORS_ARE_FATAL;
  raise(w.comm->handle, code, fn, "%s", detail);
  w.comm->errhandler = MPI_ERRORS_RETURN;
  return code;
}

// Resolve a datatype for a window operation; errors go to the window's handler.
const datatype::Type *win_type(rma::Window &w, MPI_Datatype t, const char *fn, const char *arg,
                               int *err) {
  int e = MPI_SUCCESS;
  if (const datatype::Type *p = find_type(w.self, t, w.comm->handle, fn, &e)) return p;
  *err = raise_win(w, MPI_ERR_TYPE, fn, "%s is %s", arg,
                   t == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL" : "not a valid committed datatype");
  return nullptr;
}

#define AMPI_WIN_OR_RETURN(self, w, h, fn)                                                         \
  rma::Window *w = (self).rma.windows.find(h);                                                     \
  if (!w) return no_window(h, fn);

int make_window(MPI_Comm comm, int flavor, void *base, MPI_Aint size, int disp_unit, MPI_Info info,
                void *baseptr, MPI_Win *win, const char *fn) {
  auto self = enter(fn);
  int err = MPI_SUCCESS;
  comm::Comm *parent = find_comm(*self, comm, fn, &err);
  if (!parent) return err;
  const comm::Info *hints = find_hints(*self, info, fn, &err);
  if (!hints) return err;
  if (!win) return raise(comm, MPI_ERR_ARG, fn, "win=NULL");
  if (size < 0)
    return raise(comm, MPI_ERR_SIZE, fn, "size=%ld is negative", static_cast<long>(size));
  if (disp_unit <= 0)
    return raise(comm, MPI_ERR_DISP, fn, "disp_unit=%d must be positive", disp_unit);
  if (flavor == MPI_WIN_FLAVOR_CREATE && size > 0 && !base)
    return raise(comm, MPI_ERR_BASE, fn, "base=NULL with size=%ld", static_cast<long>(size));
  if ((flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED) && !baseptr)
    return raise(comm, MPI_ERR_ARG, fn, "baseptr=NULL");
  auto ic = std::make_unique<comm::Comm>();
  ic->context = comm::agree_context(*self, *parent);
  ic->rank = parent->rank;
  ic->group = parent->group;
  ic->errhandler = MPI_ERRORS_RETURN;
  ic->name = "window communicator";
  comm::Comm &c = self->comm.comms.add(std::move(ic));
  auto w = std::make_unique<rma::Window>(*self);
  w->comm = &c;
  w->info = *hints;
  const char *why = "";
  if (int e = rma::create(*w, flavor, base, static_cast<std::size_t>(size), disp_unit, &why)) {
    w.reset();
    self->comm.comms.remove(c.handle);
    return raise(comm, e, fn, "%s", why);
  }
  rma::Window &ref = self->rma.windows.add(std::move(w));
  *win = ref.handle;
  if (baseptr) *static_cast<void **>(baseptr) = ref.base;
  return MPI_SUCCESS;
}

// Common checks of an RMA operation on `target`: false (with *err set) if it must not go on,
// *skip when the target is MPI_PROC_NULL.
bool check_target(rma::Window &w, int target, MPI_Aint disp, const char *fn, int *err, bool *skip) {
  *skip = false;
  if (target == MPI_PROC_NULL) {
    *skip = true;
    return true;
  }
  if (target < 0 || static_cast<std::size_t>(target) >= w.targets.size()) {
    *err = raise_win(w, MPI_ERR_RANK, fn, "target_rank=%d is not a rank of the window (size %d)",
                     target, w.comm->size());
    return false;
  }
  if (disp < 0 && w.flavor != MPI_WIN_FLAVOR_DYNAMIC) {
    *err = raise_win(w, MPI_ERR_DISP, fn, "target_disp=%ld is negative", static_cast<long>(disp));
    return false;
  }
  if (!rma::in_epoch(w, target)) {
    *err = raise_win(w, MPI_ERR_RMA_SYNC, fn,
                     "no access epoch to target %d is open (call MPI_Win_fence, MPI_Win_start, "
                     "MPI_Win_lock or MPI_Win_lock_all first)",
                     target);
    return false;
  }
  return true;
}

bool check_count(rma::Window &w, int count, const char *arg, const char *fn, int *err) {
  if (count >= 0) return true;
  *err = raise_win(w, MPI_ERR_COUNT, fn, "%s=%d is negative", arg, count);
  return false;
}

bool same_size(rma::Window &w, const datatype::Type &a, int na, const datatype::Type &b, int nb,
               const char *what, const char *fn, int *err) {
  if (a.size * static_cast<std::size_t>(na) == b.size * static_cast<std::size_t>(nb)) return true;
  *err =
      raise_win(w, MPI_ERR_TYPE, fn, "%s data (%zu bytes) does not match the target's (%zu bytes)",
                what, a.size * static_cast<std::size_t>(na), b.size * static_cast<std::size_t>(nb));
  return false;
}

bool check_acc_op(rma::Window &w, MPI_Op op, bool no_op_ok, const char *fn, int *err) {
  if (op == MPI_REPLACE || (op == MPI_NO_OP && no_op_ok)) return true;
  if (op != MPI_NO_OP && datatype::op_name(op)) return true;
  *err = raise_win(w, MPI_ERR_OP, fn, "op is not a predefined operation%s",
                   no_op_ok ? "" : " or MPI_REPLACE");
  return false;
}

bool same_basic(rma::Window &w, const datatype::Type &a, const datatype::Type &t, const char *fn,
                int *err) {
  if (t.basic != MPI_DATATYPE_NULL && a.basic == t.basic) return true;
  *err = raise_win(w, MPI_ERR_TYPE, fn,
                   "accumulate needs origin and target datatypes made of one and the same "
                   "predefined type");
  return false;
}

// A request that is already complete (request-based operations finish before returning).
int done_request(Rank &self, rma::Window &w, MPI_Request *request) {
  p2p::Request &r = self.p2p.requests.create(self);
  r.kind = p2p::Kind::Send;
  r.complete = true;
  r.comm = w.comm->handle;
  *request = r.handle;
  return MPI_SUCCESS;
}

// MPI_(R)put and MPI_(R)get: the same checks, then one transfer to (put) or from (get) the target.
int do_transfer(bool put, const char *fn, void *oaddr, int ocount, MPI_Datatype otype, int target,
                MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Win win, MPI_Request *request) {
  auto self = enter(fn);
  AMPI_WIN_OR_RETURN(*self, w, win, fn)
  int err = MPI_SUCCESS;
  bool skip = false;
  if (request) *request = MPI_REQUEST_NULL;
  if (!check_count(*w, ocount, "origin_count", fn, &err) ||
      !check_count(*w, tcount, "target_count", fn, &err) ||
      !check_target(*w, target, disp, fn, &err, &skip))
    return err;
  const datatype::Type *ot = win_type(*w, otype, fn, "origin_datatype", &err);
  if (!ot) return err;
  const datatype::Type *tt = win_type(*w, ttype, fn, "target_datatype", &err);
  if (!tt) return err;
  if (!skip) {
    if (!same_size(*w, *ot, ocount, *tt, tcount, "origin", fn, &err)) return err;
    const char *why = "";
    const auto on = static_cast<std::size_t>(ocount), tn = static_cast<std::size_t>(tcount);
    if (int e = put ? rma::put(*w, oaddr, on, *ot, target, disp, tn, *tt, &why)
                    : rma::get(*w, oaddr, on, *ot, target, disp, tn, *tt, &why))
      return raise_win(*w, e, fn, "target %d, target_disp=%ld: %s", target, static_cast<long>(disp),
                       why);
    if (request) rma::flush(*w, target);
  }
  return request ? done_request(*self, *w, request) : MPI_SUCCESS;
}

int do_acc(const char *fn, const void *oaddr, int ocount, MPI_Datatype otype, void *raddr,
           int rcount, MPI_Datatype rtype, int target, MPI_Aint disp, int tcount,
           MPI_Datatype ttype, MPI_Op op, MPI_Win win, bool fetch, MPI_Request *request) {
  auto self = enter(fn);
  AMPI_WIN_OR_RETURN(*self, w, win, fn)
  int err = MPI_SUCCESS;
  bool skip = false;
  if (!check_count(*w, tcount, "target_count", fn, &err) ||
      !check_acc_op(*w, op, fetch, fn, &err) || !check_target(*w, target, disp, fn, &err, &skip))
    return err;
  const datatype::Type *tt = win_type(*w, ttype, fn, "target_datatype", &err);
  if (!tt) return err;
  const datatype::Type *ot = nullptr, *rt = nullptr;
  if (op != MPI_NO_OP) {
    if (!check_count(*w, ocount, "origin_count", fn, &err)) return err;
    if (!(ot = win_type(*w, otype, fn, "origin_datatype", &err))) return err;
  }
  if (fetch) {
    if (!check_count(*w, rcount, "result_count", fn, &err)) return err;
    if (!(rt = win_type(*w, rtype, fn, "result_datatype", &err))) return err;
  }
  if (!skip) {
    if (ot && !same_size(*w, *ot, ocount, *tt, tcount, "origin", fn, &err)) return err;
    if (rt && !same_size(*w, *rt, rcount, *tt, tcount, "result", fn, &err)) return err;
    // An empty accumulate (zero counts or zero-size types, in any mix: MPICH's badrma) moves
    // nothing, so what its types are made of does not matter: done.
    if (tt->size * static_cast<std::size_t>(tcount) == 0)
      return request ? done_request(*self, *w, request) : MPI_SUCCESS;
    if (ot && !same_basic(*w, *ot, *tt, fn, &err)) return err;
    if (!ot && !rt) {
    } else if (tt->basic == MPI_DATATYPE_NULL && op != MPI_REPLACE && op != MPI_NO_OP) {
      return raise_win(*w, MPI_ERR_TYPE, fn, "target_datatype mixes predefined types");
    }
    const char *why = "";
    if (int e =
            rma::accumulate(*w, ot ? oaddr : nullptr, static_cast<std::size_t>(ocount), ot,
                            fetch ? raddr : nullptr, static_cast<std::size_t>(rcount), rt, target,
                            disp, static_cast<std::size_t>(tcount), *tt, op, nullptr, &why))
      return raise_win(*w, e, fn, "target %d, target_disp=%ld: %s", target, static_cast<long>(disp),
                       why);
  }
  return request ? done_request(*self, *w, request) : MPI_SUCCESS;
}

std::vector<int> window_ranks(Rank &self, rma::Window &w, MPI_Group group, const char *fn, int *err,
                              bool *ok) {
  std::vector<int> out;
  *ok = false;
  const comm::Group *g = self.comm.groups.find(group);
  if (!g) {
    *err = raise_win(w, MPI_ERR_GROUP, fn, "group is not a valid group");
    return out;
  }
  for (int i = 0; i < g->size(); ++i) {
    const int r = w.comm->group->rank_of(g->world_rank(i));
    if (r == MPI_UNDEFINED) {
      *err = raise_win(w, MPI_ERR_GROUP, fn, "member %d of group is not in the window", i);
      return out;
    }
    out.push_back(r);
  }
  *ok = true;
  return out;
}

} // namespace

int ampi::mpi::raise_window(MPI_Win win, int code, const char *fn, const char *fmt, ...) {
  char detail[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(detail, sizeof detail, fmt, ap);
  va_end(ap);
  auto self = enter(fn);
  rma::Window *w = self->rma.windows.find(win);
  if (!w) return no_window(win, fn);
  return raise_win(*w, code, fn, "%s", detail);
}

// -----------------------------------------------------------------------------------------------
// Windows.

extern "C" int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info,
                               MPI_Comm comm, MPI_Win *win) {
  return make_window(comm, MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, nullptr, win,
                     "MPI_Win_create");
}
AMPI_PMPI_ALIAS(MPI_Win_create)

extern "C" int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                 void *baseptr, MPI_Win *win) {
  return make_window(comm, MPI_WIN_FLAVOR_ALLOCATE, nullptr, size, disp_unit, info, baseptr, win,
                     "MPI_Win_allocate");
}
AMPI_PMPI_ALIAS(MPI_Win_allocate)

extern "C" int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                        void *baseptr, MPI_Win *win) {
  return make_window(comm, MPI_WIN_FLAVOR_SHARED, nullptr, size, disp_unit, info, baseptr, win,
                     "MPI_Win_allocate_shared");
}
AMPI_PMPI_ALIAS(MPI_Win_allocate_shared)

extern "C" int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win) {
  return make_window(comm, MPI_WIN_FLAVOR_DYNAMIC, nullptr, 0, 1, info, nullptr, win,
                     "MPI_Win_create_dynamic");
}
AMPI_PMPI_ALIAS(MPI_Win_create_dynamic)

extern "C" int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit,
                                     void *baseptr) {
  static constexpr const char *fn = "MPI_Win_shared_query";
  auto self = enter(fn);
  AMPI_WIN_OR_RETURN(*self, w, win, fn)
  if (!size || !disp_unit || !baseptr)
    return raise_win(*w, MPI_ERR_ARG, fn, "size, disp_unit or baseptr is NULL");
  if (rank == MPI_PROC_NULL) { // the first member with memory
    rank = 0;
    for (int r = 0; r < w->comm->size(); ++r)
      if (w->targets[static_cast<std::size_t>(r)].size > 0) {
        rank = r;
        break;
      }
  } else if (rank < 0 || rank >= w->comm->size()) {
    return raise_win(*w, MPI_ERR_RANK, fn, "rank=%d is not a rank of the window (size %d)", rank,
                     w->comm->size());
  }
  const rma::Target &t = w->targets[static_cast<std::size_t>(rank)];
  if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
    return raise_win(*w, MPI_ERR_RMA_FLAVOR, fn, "win is a dynamic window (no memory to share)");
  if (!t.direct) { // as MPI-4: memory this rank cannot load and store directly gives size 0, NULL
    *size = 0;
    *disp_unit = t.disp_unit;
    *static_cast<void **>(baseptr) = nullptr;
    return MPI_SUCCESS;
  }
  *size = static_cast<MPI_Aint>(t.size);
  *disp_unit = t.disp_unit;
  // A member with no memory has no base (MPI-4.1 12.2.3): its address would be the next
  // member's segment, and a program may test for NULL.
  *static_cast<void **>(baseptr) =
      t.size ? reinterpret_cast<void *>(static_cast<std::uintptr_t>(t.base)) : nullptr;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Win_shared_query)

extern "C" int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size) {
  static constexpr const char *fn = "MPI_Win_attach";
  auto self = enter(fn);
  AMPI_WIN_OR_RETURN(*self, w, win, fn)
  if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
    return raise_win(*w, MPI_ERR_RMA_FLAVOR, fn, "win was not made by MPI_Win_create_dynamic");
  if (size < 0)
    return raise_win(*w, MPI_ERR_SIZE, fn, "size=%ld is negative", static_cast<long>(size));
  if (size > 0 && !base) return raise_win(*w, MPI_ERR_BASE, fn, "base=NULL");
  if (size == 0) return MPI_SUCCESS;
  const char *why = "";
  if (int e = rma::attach(*w, base, static_cast<std::size_t>(size), &why))
    return raise_win(*w, e, fn, "%s", why);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Win_attach)

extern "C" int PMPI_Win_detach(MPI_Win win, const void *base) {
  static constexpr const char *fn = "MPI_Win_detach";
  auto self = enter(fn);
  AMPI_WIN_OR_RETURN(*self, w, win, fn)
  if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
    return raise_win(*w, MPI_ERR_RMA_FLAVOR, fn, "win was not made by MPI_Win_create_dynamic");
  const char *why = "";
  if (int e = rma::detach(*w, base, &why)) return raise_win(*w, e, fn, "%s", why);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Win_detach)

extern "C" int PMPI_Win_free(MPI_Win *win) {
  static constexpr const char *fn = "MPI_Win_free";
  auto self = enter(fn);
  if (!win) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "win=NULL");
  AMPI_WIN_OR_RETURN(*self, w, *win, fn)
  if (w->locks > 0 || w->lock_all || w->access_open || w->exposure_open)
    return raise_win(*w, MPI_ERR_RMA_SYNC, fn,
                     "an epoch is still open (unlock, complete or wait before freeing)");
  if (int e = comm::delete_all_attrs(self->comm.objects.keyvals, w->attrs, *win))
    return raise_win(*w, e, fn, "an attribute's delete callback returned %d", e);
  rma::destroy(*w);
  const MPI_Comm ch = w->comm->handle;
  errhandler_release(*self, w->errhandler);
  self->rma.windows.remove(*win);
  self->comm.comms.remove(ch);
  *win = MPI_WIN_NULL;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Win_free)

extern "C" int PMPI_Win_get_group(MPI_Win win, MPI_Group *group) {
  static constexpr const char *fn = "MPI_Win_get_group";
  auto self = enter(fn);
  AMPI_WIN_OR_RETURN(*self, w, win, fn)
  if (!group) return raise_win(*w, MPI_ERR_ARG, fn, "group=NULL");
  *group = self->comm.groups.add(w->comm->group);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Win_get_group)

extern "C" int PMPI_Win_set_name(MPI_Win win, const char *win_name) {
  static constexpr const char *fn = "MPI_Win_set_name";
  auto self = enter(fn);
  AMPI_WIN_OR_RETURN(*self, w, win, fn)
  if (!win_name) return raise_win(*w, MPI_ERR_ARG, fn, "win_name=NULL");
  w->name.assign(win_name, strnlen(win_name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Win_set_name)

extern "C" int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen) {
  static constexpr const char *fn = "MPI_Win_get_name";
  auto self = enter(fn);
  AMPI_WIN_OR_RETURN(*self, w, win, fn)
  if (!win_name || !resultlen)
    return raise_win(*w, MPI_ERR_ARG, fn, "win_name or resultlen is NULL");
  std::memcpy(win_name, w->name.c_str(), w->name.size() + 1);
  *resultlen = static_cast<int>(w->name.size());
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Win_get_name)

extern "C" int PMPI_Win_set_info(MPI_Win win, MPI_Info info) {
  static constexpr const char *fn = "MPI_Win_set_info";
  auto self = enter(fn);
  AMPI_WIN_OR_RETURN(*self, w, win, fn)
  int err = MPI_SUCCESS;
  const comm::Info *i = find_hints(*self, info, fn, &err);
  if (!i) return err;
  // Hints only: none changes how ampi's windows work (MPI lets an implementation ignore them).
  for (const auto &[k, v] : i->entries)
    w->info.set(k, v);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Win_set_info)

extern "C" int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used) {
  static constexpr const char *fn = "MPI_Win_get_info";
  auto self = enter(fn);
  AMPI_WIN_OR_RETURN(*self, w, win, fn)
  if (!info_used) return raise_win(*w, MPI_ERR_ARG, fn, "info_used=NULL");
  *info_used = self->comm.objects.infos.add(w->info);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Win_get_info)

// -----------------------------------------------------------------------------------------------
// Attributes: the predefined ones, and user keyvals (src/comm/objects.hpp's store).

namespace {

bool predefined_win_key(int keyval) {
  return keyval == MPI_WIN_BASE || keyval == MPI_WIN_SIZE || keyval == MPI_WIN_DISP_UNIT ||
         keyval == MPI_WIN_CREATE_FLAVOR || keyval == MPI_WIN_MODEL;
}

} // namespace

extern "C" int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                                      MPI_Win_delete_attr_function *win_delete_attr_fn,
                                      int *win_keyval, void *extra_state) {
  static constexpr const char *fn = "MPI_Win_create_keyval";
  auto self = enter(fn);
  if (!win_keyval) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "win_keyval=NULL");
  // Windows are never duplicated: the copy callback is kept but never called.
  comm::CopyAttrFn *copy = win_copy_attr_fn == &MPI_WIN_NULL_COPY_FN ? nullptr : win_copy_attr_fn;
  comm::DeleteAttrFn *del =
      win_delete_attr_fn == &MPI_WIN_NULL_DELETE_FN ? nullptr : win_delete_attr_fn;
  *win_keyval = self->comm.objects.keyvals.create(comm::ObjectKind::Win, copy, del, extra_state);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Win_create_keyval)

extern "C" int PMPI_Win_free_keyval(int *win_keyval) {
  static constexpr const char *fn = "MPI_Win_free_keyval";
  auto self = enter(fn);
  if (!win_keyval) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "win_keyval=NULL");
  if (predefined_win_key(*win_keyval))
    return raise(MPI_COMM_WORLD, MPI_ERR_KEYVAL, fn, "win_keyval=%d is predefined", *win_keyval);
  // As MPI_Comm_free_keyval (src/mpi/attr.cpp): a second free of a keyval still alive is a no-op.
  comm::Keyval *k = self->comm.objects.keyvals.find_any(*win_keyval);
  if (!k || k->kind != comm::ObjectKind::Win)
    return raise(MPI_COMM_WORLD, MPI_ERR_KEYVAL, fn,
                 "win_keyval=%d is not a window keyval (or was freed)", *win_keyval);
  if (!k->freed) {
    k->freed = true;
    self->comm.objects.keyvals.release(*win_keyval);
  }
  *win_keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Win_free_keyval)

extern "C" int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val) {
  static constexpr const char *fn = "MPI_Win_set_attr";
  auto self = enter(fn);
  AMPI_WIN_OR_RETURN(*self, w, win, fn)
  if (predefined_win_key(win_keyval))
    return raise_win(*w, MPI_ERR_KEYVAL, fn, "win_keyval=%d is predefined (read-only)", win_keyval);
  if (!self->comm.objects.keyvals.find(win_keyval, comm::ObjectKind::Win))
    return raise_win(*w, MPI_ERR_KEYVAL, fn, "win_keyval=%d is not a window keyval", win_keyval);
  if (int e = comm::set_attr(self->comm.objects.keyvals, w->attrs, win, win_keyval, attribute_val))
    return raise_win(*w, e, fn, "the delete callback of the old value returned %d", e);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Win_set_attr)

extern "C" int PMPI_Win_delete_attr(MPI_Win win, int win_keyval) {
  static constexpr const char *fn = "MPI_Win_delete_attr";
  auto self = enter(fn);
  AMPI_WIN_OR_RETURN(*self, w, win, fn)
  if (predefined_win_key(win_keyval))
    return raise_win(*w, MPI_ERR_KEYVAL, fn, "win_keyval=%d is predefined (read-only)", win_keyval);
  if (!self->comm.objects.keyvals.find_attached(win_keyval, comm::ObjectKind::Win, w->attrs))
    return raise_win(*w, MPI_ERR_KEYVAL, fn, "win_keyval=%d is not a window keyval", win_keyval);
  const int e = comm::delete_attr(self->comm.objects.keyvals, w->attrs, win, win_keyval);
  if (e == MPI_ERR_KEYVAL)
    return raise_win(*w, e, fn, "the window has no attribute for win_keyval=%d", win_keyval);
  if (e != MPI_SUCCESS) return raise_win(*w, e, fn, "the delete callback returned %d", e);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Win_delete_attr)

extern "C" int PMPI_Win_get_attr(MPI_Win win, int keyval, void *attribute_val, int *flag) {
  static constexpr const char *fn = "MPI_Win_get_attr";
  auto self = enter(fn);
  AMPI_WIN_OR_RETURN(*self, w, win, fn)
  if (!attribute_val || !flag)
    return raise_win(*w, MPI_ERR_ARG, fn, "attribute_val or flag is NULL");
  void *v = nullptr;
  switch (keyval) {
  case MPI_WIN_BASE:
    v = w->base;
    break;
  case MPI_WIN_SIZE:
    v = &w->size;
    break;
  case MPI_WIN_DISP_UNIT:
    v = &w->disp_unit;
    break;
  case MPI_WIN_CREATE_FLAVOR:
    v = &w->flavor;
    break;
  case MPI_WIN_MODEL:
    v = &w->model;
    break;
  default: {
    if (!self->comm.objects.keyvals.find_attached(keyval, comm::ObjectKind::Win, w->attrs))
      return raise_win(*w, MPI_ERR_KEYVAL, fn, "win_keyval=%d is not a window keyval", keyval);
    void **p = w->attrs.find(keyval);
    *flag = p != nullptr;
    if (p) *static_cast<void **>(attribute_val) = *p;
    return MPI_SUCCESS;
  }
  }
  *static_cast<void **>(attribute_val) = v;
  *flag = 1;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Win_get_attr)

// -----------------------------------------------------------------------------------------------
// Error handlers.

extern "C" int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *function,
                                          MPI_Errhandler *errhandler) {
  static constexpr const char *fn = "MPI_Win_create_errhandler";
  auto self = enter_any(fn);
  if (!function || !errhandler)
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "function or errhandler is NULL");
  *errhandler =
      errhandler_insert(*self, reinterpret_cast<MPI_Comm_errhandler_function *>(function));
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Win_create_errhandler)

extern "C" int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) {
  static constexpr const char *fn = "MPI_Win_set_errhandler";
  auto self = enter(fn);
  AMPI_WIN_OR_RETURN(*self, w, win, fn)
  if (!errhandler_valid(*self, errhandler))
    return raise_win(*w, MPI_ERR_ARG, fn, "errhandler is not a valid error handler");
  errhandler_retain(*self, errhandler);
  errhandler_release(*self, w->errhandler);
  w->errhandler = errhandler;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Win_set_errhandler)

extern "C" int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler) {
  static constexpr const char *fn = "MPI_Win_get_errhandler";
  auto self = enter(fn);
  AMPI_WIN_OR_RETURN(*self, w, win, fn)
  if (!errhandler) return raise_win(*w, MPI_ERR_ARG, fn, "errhandler=NULL");
  *errhandler = w->errhandler;
  errhandler_retain(*self, w->errhandler);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Win_get_errhandler)

extern "C" int PMPI_Win_call_errhandler(MPI_Win win, int errorcode) {
  static constexpr const char *fn = "MPI_Win_call_errhandler";
  auto self = enter(fn);
  AMPI_WIN_OR_RETURN(*self, w, win, fn)
  raise_win(*w, errorcode, fn, "error raised by the program");
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Win_call_errhandler)

// -----------------------------------------------------------------------------------------------
// Operations.

extern "C" int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Win win) {
  return do_transfer(true, "MPI_Put", const_cast<void *>(origin_addr), origin_count,
                     origin_datatype, target_rank, target_disp, target_count, target_datatype, win,
                     nullptr);
}
AMPI_PMPI_ALIAS(MPI_Put)

extern "C" int PMPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                         int target_rank, MPI_Aint target_disp, int target_count,
                         MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request) {
  if (!request) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Rput", "request=NULL");
  return do_transfer(true, "MPI_Rput", const_cast<void *>(origin_addr), origin_count,
                     origin_datatype, target_rank, target_disp, target_count, target_datatype, win,
                     request);
}
AMPI_PMPI_ALIAS(MPI_Rput)

extern "C" int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Win win) {
  return do_transfer(false, "MPI_Get", origin_addr, origin_count, origin_datatype, target_rank,
                     target_disp, target_count, target_datatype, win, nullptr);
}
AMPI_PMPI_ALIAS(MPI_Get)

extern "C" int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                         int target_rank, MPI_Aint target_disp, int target_count,
                         MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request) {
  if (!request) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Rget", "request=NULL");
  return do_transfer(false, "MPI_Rget", origin_addr, origin_count, origin_datatype, target_rank,
                     target_disp, target_count, target_datatype, win, request);
}
AMPI_PMPI_ALIAS(MPI_Rget)

extern "C" int PMPI_Accumulate(const void *origin_addr, int origin_count,
                               MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                               int target_count, MPI_Datatype target_datatype, MPI_Op op,
                               MPI_Win win) {
  return do_acc("MPI_Accumulate", origin_addr, origin_count, origin_datatype, nullptr, 0,
                MPI_DATATYPE_NULL, target_rank, target_disp, target_count, target_datatype, op, win,
                false, nullptr);
}
AMPI_PMPI_ALIAS(MPI_Accumulate)

extern "C" int PMPI_Raccumulate(const void *origin_addr, int origin_count,
                                MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                                int target_count, MPI_Datatype target_datatype, MPI_Op op,
                                MPI_Win win, MPI_Request *request) {
  if (!request) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Raccumulate", "request=NULL");
  return do_acc("MPI_Raccumulate", origin_addr, origin_count, origin_datatype, nullptr, 0,
                MPI_DATATYPE_NULL, target_rank, target_disp, target_count, target_datatype, op, win,
                false, request);
}
AMPI_PMPI_ALIAS(MPI_Raccumulate)

extern "C" int PMPI_Get_accumulate(const void *origin_addr, int origin_count,
                                   MPI_Datatype origin_datatype, void *result_addr,
                                   int result_count, MPI_Datatype result_datatype, int target_rank,
                                   MPI_Aint target_disp, int target_count,
                                   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  return do_acc("MPI_Get_accumulate", origin_addr, origin_count, origin_datatype, result_addr,
                result_count, result_datatype, target_rank, target_disp, target_count,
                target_datatype, op, win, true, nullptr);
}
AMPI_PMPI_ALIAS(MPI_Get_accumulate)

extern "C" int PMPI_Rget_accumulate(const void *origin_addr, int origin_count,
                                    MPI_Datatype origin_datatype, void *result_addr,
                                    int result_count, MPI_Datatype result_datatype, int target_rank,
                                    MPI_Aint target_disp, int target_count,
                                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                                    MPI_Request *request) {
  if (!request) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Rget_accumulate", "request=NULL");
  return do_acc("MPI_Rget_accumulate", origin_addr, origin_count, origin_datatype, result_addr,
                result_count, result_datatype, target_rank, target_disp, target_count,
                target_datatype, op, win, true, request);
}
AMPI_PMPI_ALIAS(MPI_Rget_accumulate)

extern "C" int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                                 int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
  return do_acc("MPI_Fetch_and_op", origin_addr, 1, datatype, result_addr, 1, datatype, target_rank,
                target_disp, 1, datatype, op, win, true, nullptr);
}
AMPI_PMPI_ALIAS(MPI_Fetch_and_op)

extern "C" int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr,
                                     void *result_addr, MPI_Datatype datatype, int target_rank,
                                     MPI_Aint target_disp, MPI_Win win) {
  static constexpr const char *fn = "MPI_Compare_and_swap";
  auto self = enter(fn);
  AMPI_WIN_OR_RETURN(*self, w, win, fn)
  int err = MPI_SUCCESS;
  bool skip = false;
  if (!check_target(*w, target_rank, target_disp, fn, &err, &skip)) return err;
  const datatype::Type *t = win_type(*w, datatype, fn, "datatype", &err);
  if (!t) return err;
  const datatype::Builtin *b = datatype::builtin(datatype);
  if (!b ||
      !(b->category == datatype::Category::Int || b->category == datatype::Category::Uint ||
        b->category == datatype::Category::Char || b->category == datatype::Category::Logical ||
        b->category == datatype::Category::Byte))
    return raise_win(*w, MPI_ERR_TYPE, fn,
                     "datatype must be a predefined integer, logical or byte type (is %s)",
                     type_label(datatype));
  if (skip) return MPI_SUCCESS;
  if (!origin_addr || !compare_addr || !result_addr)
    return raise_win(*w, MPI_ERR_BUFFER, fn, "origin_addr, compare_addr or result_addr is NULL");
  const char *why = "";
  if (int e = rma::accumulate(*w, origin_addr, 1, t, result_addr, 1, t, target_rank, target_disp, 1,
                              *t, MPI_REPLACE, compare_addr, &why))
    return raise_win(*w, e, fn, "target %d, target_disp=%ld: %s", target_rank,
                     static_cast<long>(target_disp), why);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Compare_and_swap)

// -----------------------------------------------------------------------------------------------
// Synchronisation.

extern "C" int PMPI_Win_fence(int assert_flags, MPI_Win win) {
  static constexpr const char *fn = "MPI_Win_fence";
  auto self = enter(fn);
  AMPI_WIN_OR_RETURN(*self, w, win, fn)
  constexpr int kValid =
      MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED;
  if (assert_flags & ~kValid)
    return raise_win(*w, MPI_ERR_ASSERT, fn, "assert=%d has bits MPI_Win_fence does not know",
                     assert_flags);
  if (w->access_open || w->exposure_open || w->locks > 0 || w->lock_all)
    return raise_win(*w, MPI_ERR_RMA_SYNC, fn, "a start/post or lock epoch is open on this window");
  rma::fence(*w, assert_flags);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Win_fence)

extern "C" int PMPI_Win_post(MPI_Group group, int assert_flags, MPI_Win win) {
  static constexpr const char *fn = "MPI_Win_post";
  auto self = enter(fn);
  AMPI_WIN_OR_RETURN(*self, w, win, fn)
  if (assert_flags & ~(MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT))
    return raise_win(*w, MPI_ERR_ASSERT, fn, "assert=%d has bits MPI_Win_post does not know",
                     assert_flags);
  if (w->exposure_open)
    return raise_win(*w, MPI_ERR_RMA_SYNC, fn, "an exposure epoch is already open (MPI_Win_wait)");
  int err = MPI_SUCCESS;
  bool ok = false;
  std::vector<int> ranks = window_ranks(*self, *w, group, fn, &err, &ok);
  if (!ok) return err;
  rma::post(*w, std::move(ranks));
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Win_post)

extern "C" int PMPI_Win_start(MPI_Group group, int assert_flags, MPI_Win win) {
  static constexpr const char *fn = "MPI_Win_start";
  auto self = enter(fn);
  AMPI_WIN_OR_RETURN(*self, w, win, fn)
  if (assert_flags & ~MPI_MODE_NOCHECK)
    return raise_win(*w, MPI_ERR_ASSERT, fn, "assert=%d has bits MPI_Win_start does not know",
                     assert_flags);
  if (w->access_open)
    return raise_win(*w, MPI_ERR_RMA_SYNC, fn,
                     "an access epoch is already open (MPI_Win_complete)");
  int err = MPI_SUCCESS;
  bool ok = false;
  std::vector<int> ranks = window_ranks(*self, *w, group, fn, &err, &ok);
  if (!ok) return err;
  rma::start(*w, std::move(ranks));
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Win_start)

extern "C" int PMPI_Win_complete(MPI_Win win) {
  static constexpr const char *fn = "MPI_Win_complete";
  auto self = enter(fn);
  AMPI_WIN_OR_RETURN(*self, w, win, fn)
  if (!w->access_open)
    return raise_win(*w, MPI_ERR_RMA_SYNC, fn, "no access epoch is open (MPI_Win_start)");
  rma::complete(*w);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Win_complete)

extern "C" int PMPI_Win_wait(MPI_Win win) {
  static constexpr const char *fn = "MPI_Win_wait";
  auto self = enter(fn);
  AMPI_WIN_OR_RETURN(*self, w, win, fn)
  if (!w->exposure_open)
    return raise_win(*w, MPI_ERR_RMA_SYNC, fn, "no exposure epoch is open (MPI_Win_post)");
  rma::wait(*w);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Win_wait)

extern "C" int PMPI_Win_test(MPI_Win win, int *flag) {
  static constexpr const char *fn = "MPI_Win_test";
  auto self = enter(fn);
  AMPI_WIN_OR_RETURN(*self, w, win, fn)
  if (!flag) return raise_win(*w, MPI_ERR_ARG, fn, "flag=NULL");
  if (!w->exposure_open)
    return raise_win(*w, MPI_ERR_RMA_SYNC, fn, "no exposure epoch is open (MPI_Win_post)");
  *flag = rma::test(*w) ? 1 : 0;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Win_test)

extern "C" int PMPI_Win_lock(int lock_type, int rank, int assert_flags, MPI_Win win) {
  static constexpr const char *fn = "MPI_Win_lock";
  auto self = enter(fn);
  AMPI_WIN_OR_RETURN(*self, w, win, fn)
  if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
    return raise_win(*w, MPI_ERR_LOCKTYPE, fn,
                     "lock_type=%d is neither MPI_LOCK_SHARED nor MPI_LOCK_EXCLUSIVE", lock_type);
  if (assert_flags & ~MPI_MODE_NOCHECK)
    return raise_win(*w, MPI_ERR_ASSERT, fn, "assert=%d: only MPI_MODE_NOCHECK applies",
                     assert_flags);
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  if (rank < 0 || rank >= w->comm->size())
    return raise_win(*w, MPI_ERR_RANK, fn, "rank=%d is not a rank of the window (size %d)", rank,
                     w->comm->size());
  if (w->lock_all || w->targets[static_cast<std::size_t>(rank)].lock)
    return raise_win(*w, MPI_ERR_RMA_SYNC, fn, "rank %d is already locked by this rank", rank);
  rma::lock(*w, lock_type, rank, assert_flags & MPI_MODE_NOCHECK);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Win_lock)

extern "C" int PMPI_Win_unlock(int rank, MPI_Win win) {
  static constexpr const char *fn = "MPI_Win_unlock";
  auto self = enter(fn);
  AMPI_WIN_OR_RETURN(*self, w, win, fn)
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  if (rank < 0 || rank >= w->comm->size())
    return raise_win(*w, MPI_ERR_RANK, fn, "rank=%d is not a rank of the window (size %d)", rank,
                     w->comm->size());
  if (w->lock_all || !w->targets[static_cast<std::size_t>(rank)].lock)
    return raise_win(*w, MPI_ERR_RMA_SYNC, fn, "rank %d is not locked by MPI_Win_lock", rank);
  rma::unlock(*w, rank);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Win_unlock)

extern "C" int PMPI_Win_lock_all(int assert_flags, MPI_Win win) {
  static constexpr const char *fn = "MPI_Win_lock_all";
  auto self = enter(fn);
  AMPI_WIN_OR_RETURN(*self, w, win, fn)
  if (assert_flags & ~MPI_MODE_NOCHECK)
    return raise_win(*w, MPI_ERR_ASSERT, fn, "assert=%d: only MPI_MODE_NOCHECK applies",
                     assert_flags);
  if (w->lock_all || w->locks > 0)
    return raise_win(*w, MPI_ERR_RMA_SYNC, fn, "this rank already holds locks on the window");
  rma::lock(*w, MPI_LOCK_SHARED, -1, assert_flags & MPI_MODE_NOCHECK);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Win_lock_all)

extern "C" int PMPI_Win_unlock_all(MPI_Win win) {
  static constexpr const char *fn = "MPI_Win_unlock_all";
  auto self = enter(fn);
  AMPI_WIN_OR_RETURN(*self, w, win, fn)
  if (!w->lock_all)
    return raise_win(*w, MPI_ERR_RMA_SYNC, fn, "the window is not locked by MPI_Win_lock_all");
  rma::unlock(*w, -1);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Win_unlock_all)

namespace {

int do_flush(const char *fn, MPI_Win win, int rank, bool all) {
  auto self = enter(fn);
  AMPI_WIN_OR_RETURN(*self, w, win, fn)
  if (!all) {
    if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
    if (rank < 0 || rank >= w->comm->size())
      return raise_win(*w, MPI_ERR_RANK, fn, "rank=%d is not a rank of the window (size %d)", rank,
                       w->comm->size());
  }
  if (!w->lock_all && w->locks == 0)
    return raise_win(*w, MPI_ERR_RMA_SYNC, fn,
                     "no passive-target epoch is open (MPI_Win_lock or MPI_Win_lock_all)");
  rma::flush(*w, all ? -1 : rank);
  return MPI_SUCCESS;
}

} // namespace

extern "C" int PMPI_Win_flush(int rank, MPI_Win win) {
  return do_flush("MPI_Win_flush", win, rank, false);
}
AMPI_PMPI_ALIAS(MPI_Win_flush)

// Local completion is not cheaper than remote completion here: both wait for UCX's flush.
extern "C" int PMPI_Win_flush_local(int rank, MPI_Win win) {
  return do_flush("MPI_Win_flush_local", win, rank, false);
}
AMPI_PMPI_ALIAS(MPI_Win_flush_local)

extern "C" int PMPI_Win_flush_all(MPI_Win win) {
  return do_flush("MPI_Win_flush_all", win, 0, true);
}
AMPI_PMPI_ALIAS(MPI_Win_flush_all)

extern "C" int PMPI_Win_flush_local_all(MPI_Win win) {
  return do_flush("MPI_Win_flush_local_all", win, 0, true);
}
AMPI_PMPI_ALIAS(MPI_Win_flush_local_all)

extern "C" int PMPI_Win_sync(MPI_Win win) {
  static constexpr const char *fn = "MPI_Win_sync";
  auto self = enter(fn);
  AMPI_WIN_OR_RETURN(*self, w, win, fn)
  (void)w;
  // The unified model: public and private copies are one memory; order our loads and stores.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Win_sync)
