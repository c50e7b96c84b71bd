// src/mpi/coll_common.hpp — what the MPI collective functions (src/mpi/coll*.cpp) share: argument
// checks raised with the function's name, user buffers seen as packed bytes (in place for
// contiguous datatypes, packed copies otherwise), and starting a collective either now (blocking),
// or in an internal task of the rank that completes an MPI request (non-blocking), or at each
// MPI_Start of a persistent request (MPI_<Coll>_init, MPI-4.0 section 6.13). The three forms run
// the same algorithm of src/coll, as one closure `f(comm, tag)`; where src/coll has a
// progress-driven schedule (coll/nbc.hpp: barrier, and broadcast, reduce, allreduce and allgather
// of small contiguous host buffers), the non-blocking and persistent forms start that instead
// (schedule()).
#pragma once

#include "coll/coll.hpp"
#include "mpi/comm_util.hpp"
#include "mpi/common.hpp"
#include "p2p/data.hpp"
#include "p2p/p2p.hpp"

#include <cstddef>
#include <cstring>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

namespace ampi::mpi::coll_detail {

// The request argument of a collective: none (blocking), MPI_I<coll>'s, or MPI_<Coll>_init's with
// its info argument.
struct ReqArg {
  MPI_Request *req = nullptr;
  MPI_Info info = MPI_INFO_NULL;
  ReqArg(std::nullptr_t) {}
  ReqArg(MPI_Request *r) : req(r) {}
  ReqArg(MPI_Request *r, MPI_Info i) : req(r), info(i) {}
};

// One collective call: the calling rank, its communicator and the request handle (non-blocking
// and persistent forms).
struct Call {
  enum class Form : unsigned char { Blocking, Nonblocking, Persistent };
  const char *fn;
  MPI_Comm h;
  MPI_Request *req;
  Form form;
  Entered entered; // the calling rank, for the whole call (threads: holds the PE's mutex)
  Rank *self = nullptr;
  comm::Comm *c = nullptr;
  int err = MPI_SUCCESS;

  // The form follows the name: MPI_<Coll>_init is persistent, MPI_I<coll> non-blocking; both
  // need a `request`, and _init's info must be a valid info object or MPI_INFO_NULL (no hint
  // changes what the collective does).
  Call(const char *fn_, MPI_Comm comm, ReqArg request)
      : fn(fn_), h(comm), req(request.req), form(form_of(fn_)), entered(enter(fn_)) {
    self = entered;
    if (!self) {
      err = MPI_ERR_OTHER;
      return;
    }
    c = find_comm(*self, comm, fn, &err);
    if (!c) return;
    if (form != Form::Blocking && !req) {
      fail(MPI_ERR_ARG, "request=NULL");
      return;
    }
    if (form == Form::Persistent && !find_hints(*self, request.info, fn, &err)) return;
  }
  static Form form_of(const char *name) {
    const std::size_t n = std::strlen(name);
    if (n > 5 && std::strcmp(name + n - 5, "_init") == 0) return Form::Persistent;
    return name[4] == 'I' ? Form::Nonblocking : Form::Blocking;
  }
  explicit operator bool() const { return err == MPI_SUCCESS && c; }
  int size() const { return c->size(); }
  int rank() const { return c->rank; }

  template <class... A> bool fail(int cls, const char *fmt, A... args) {
    err = raise(h, cls, fn, fmt, args...);
    return false;
  }
  bool count(int n, const char *arg) {
    return n >= 0 || fail(MPI_ERR_COUNT, "%s=%d is negative", arg, n);
  }
  bool root(int r) {
    if (inter())
      return r == MPI_ROOT || r == MPI_PROC_NULL || (r >= 0 && r < peers()) ||
             fail(MPI_ERR_ROOT,
                  "root=%d is neither MPI_ROOT, MPI_PROC_NULL nor a rank of the remote group "
                  "(size %d) of the intercommunicator",
                  r, peers());
    return (r >= 0 && r < size()) ||
           fail(MPI_ERR_ROOT, "root=%d is not a rank of the communicator (size %d)", r, size());
  }
  // Intercommunicators: the ranks the data comes from or goes to are the remote group's.
  bool inter() const { return c->inter(); }
  int peers() const { return c->peer_size(); }
  // Whether this rank is the root of a rooted collective (MPI_ROOT on an intercommunicator).
  bool at_root(int r) const { return inter() ? r == MPI_ROOT : rank() == r; }
  // On an intercommunicator, the members of the root's group other than the root (MPI_PROC_NULL)
  // take no part: none of their arguments is significant.
  bool idle(int r) const { return inter() && r == MPI_PROC_NULL; }
  // Collectives that MPI defines on intracommunicators only (scan, exscan).
  bool intra_only() {
    return !inter() || fail(MPI_ERR_COMM,
                            "%s is defined on intracommunicators only, and %s is an "
                            "intercommunicator",
                            fn, comm_label(*c));
  }
  bool buffer(const void *b, long long n, const char *arg) {
    return b || n <= 0 || fail(MPI_ERR_BUFFER, "%s=NULL with a count of %lld", arg, n);
  }
  // A datatype usable for communication; nullptr after raising.
  const datatype::Type *type(MPI_Datatype t) { return find_type(*self, t, h, fn, &err); }
  // An array of `n` non-negative counts.
  bool counts(const int *a, int n, const char *arg) {
    if (n > 0 && !a) return fail(MPI_ERR_ARG, "%s=NULL", arg);
    for (int i = 0; i < n; ++i)
      if (a[i] < 0) return fail(MPI_ERR_COUNT, "%s[%d]=%d is negative", arg, i, a[i]);
    return true;
  }
  bool array(const void *a, int n, const char *arg) {
    return n <= 0 || a || fail(MPI_ERR_ARG, "%s=NULL", arg);
  }

  // The request of a non-blocking or persistent collective, in *req.
  p2p::Request &new_request() {
    p2p::Request &r = self->p2p.requests.create(*self);
    r.kind = p2p::Kind::Send; // its status carries nothing but MPI_ERROR
    r.comm = h;
    r.collective = true;
    *req = r.handle;
    return r;
  }

  // Persistent, on a progress-driven schedule (coll/nbc.hpp): each MPI_Start runs
  // `start(comm, tag, request)`, which must complete the request later; the tag is taken here,
  // once, as in launch().
  template <class F> int persist(F &&start) {
    const int tag = coll::next_tag(*c);
    p2p::Request &r = new_request();
    r.persistent = true;
    r.active = false;
    comm::Comm comm;
    comm.context = c->context;
    comm.rank = c->rank;
    comm.group = c->group;
    comm.handle = c->handle;
    comm.pe_layout = c->pe_layout;
    auto op = std::make_unique<p2p::Persistent>();
    op->kind = p2p::Kind::Send;
    op->start = [comm = std::move(comm), tag, f = std::forward<F>(start)](p2p::Request &pr) {
      f(comm, tag, pr);
    };
    r.ext().op = std::move(op);
    return MPI_SUCCESS;
  }

  // Non-blocking or persistent, on a progress-driven schedule: `start(comm, tag, request)` runs
  // now (non-blocking) or at each MPI_Start (persistent); it must complete the request later.
  template <class F> int schedule(F &&start) {
    if (form == Form::Persistent) return persist(std::forward<F>(start));
    p2p::Request &r = new_request();
    start(*c, coll::next_tag(*c), r);
    return MPI_SUCCESS;
  }
  // Whether this call may run on a schedule: not blocking, an intracommunicator, and the buffers
  // (contiguous data of `bytes`) in host memory.
  bool schedulable(std::size_t bytes, std::size_t max, const void *a,
                   const void *b = nullptr) const {
    return form != Form::Blocking && !c->inter() && bytes <= max && !p2p::on_device(a) &&
           !p2p::on_device(b);
  }

  // Runs `f(comm, tag)` now (blocking); or in a pooled internal task of the rank (core's
  // Pe::spawn_helper) that completes a new request *req at its end (non-blocking); or makes *req
  // a persistent request whose every MPI_Start runs `f` that way (persistent: the tags are taken
  // here, once, so that its starts need no agreement; two starts of one request never overlap,
  // and messages between two ranks do not overtake, as for blocking collectives). `f` must own
  // copies of everything it needs that the caller may change, and must not change them itself
  // (a persistent request runs it again).
  template <class F> int launch(F &&f, int ntags = 1) {
    if (form == Form::Blocking) {
      f(*c, coll::kBlockingTag);
      return MPI_SUCCESS;
    }
    const int tag = coll::next_tag(*c, ntags);
    p2p::Request &r = new_request();
    // The task keeps what the algorithms use of the communicator (the user may free it).
    comm::Comm comm;
    comm.context = c->context;
    comm.rank = c->rank;
    comm.group = c->group;
    comm.handle = c->handle;
    comm.remote = c->remote;
    comm.local = c->local;
    comm.pe_layout = c->pe_layout; // else the PE-aware path would rebuild it at every call
    if (form == Form::Persistent) {
      r.persistent = true;
      r.active = false;
      auto op = std::make_unique<p2p::Persistent>();
      op->kind = p2p::Kind::Send;
      // MPI_Start: the job refers to what the request keeps (MPI_Request_free refuses an active
      // persistent collective, so they outlive it).
      op->start =
          [comm = std::move(comm), tag,
           f = std::function<void(const comm::Comm &, int)>(std::forward<F>(f))](p2p::Request &pr) {
            pr.owner->pe().spawn_helper(*pr.owner, [&comm, tag, &f, &pr] {
              f(comm, tag);
              p2p::complete(pr);
            });
          };
      r.ext().op = std::move(op);
      return MPI_SUCCESS;
    }
    self->pe().spawn_helper(*self,
                            [comm = std::move(comm), tag, &r, f = std::forward<F>(f)]() mutable {
                              f(comm, tag);
                              p2p::complete(r);
                            });
    return MPI_SUCCESS;
  }
};

// Device memory (CUDA) in a collective's buffers is staged through host memory as p2p stages it
// (p2p/data.hpp): the classes below then work on a host image of the buffer (`view_`) instead of
// the buffer itself, and store() copies the runs of the elements back (never the gaps).

// `count` elements of a datatype at `buf`, as packed bytes.
class Packed {
public:
  Packed(const datatype::Type &t, const void *buf, std::size_t count, bool load)
      : t_(t), buf_(const_cast<void *>(buf)), view_(buf_), count_(count), bytes_(t.size * count) {
    if (buf && p2p::on_device(buf)) [[unlikely]] {
      stage_ = p2p::stage_in(t, buf, count, load);
      view_ = stage_.as_buffer();
      device_ = true;
    }
    if (t.contiguous || !buf) {
      data_ = buf ? static_cast<std::byte *>(datatype::data_start(t, view_)) : nullptr;
      return;
    }
    tmp_ = std::make_unique_for_overwrite<std::byte[]>(bytes_ ? bytes_ : 1);
    data_ = tmp_.get();
    if (load) datatype::pack(t, view_, count, 0, data_, bytes_);
  }
  std::byte *data() const { return data_; }
  std::size_t bytes() const { return bytes_; }
  // Writes packed results back into the user's buffer.
  void store() const {
    if (tmp_) datatype::unpack(t_, data_, bytes_, 0, view_, count_);
    if (device_) [[unlikely]]
      p2p::store_runs(t_, count_, stage_.as_buffer(), buf_);
  }

private:
  const datatype::Type &t_;
  void *buf_;
  void *view_; // buf_, or the host image of a device buffer
  std::size_t count_, bytes_;
  std::unique_ptr<std::byte[]> tmp_;
  std::byte *data_ = nullptr;
  bool device_ = false;
  p2p::DeviceStage stage_;
};

// Per-rank blocks of a v/w collective: counts[i] elements of types[i] (or of the one type) at
// buf + displs[i] bytes; in place when every type is contiguous, else packed one after another.
class PackedBlocks {
public:
  PackedBlocks(const std::vector<datatype::Type> &types, void *buf, const std::vector<int> &counts,
               const std::vector<std::ptrdiff_t> &displs, bool load)
      : types_(types), buf_(static_cast<std::byte *>(buf)), view_(buf_), counts_(counts),
        displs_(displs) {
    const std::size_t n = counts.size();
    bool contiguous = true;
    for (std::size_t i = 0; i < n; ++i) {
      const datatype::Type &t = type(i);
      contiguous = contiguous && t.contiguous;
      b.bytes.push_back(t.size * static_cast<std::size_t>(counts[i]));
    }
    if (buf && p2p::on_device(buf)) [[unlikely]]
      stage(load);
    if (contiguous) {
      b.base = view_;
      for (std::size_t i = 0; i < n; ++i)
        b.off.push_back(displs[i] + type(i).true_lb);
      return;
    }
    std::size_t total = 0;
    for (std::size_t i = 0; i < n; ++i) {
      b.off.push_back(static_cast<std::ptrdiff_t>(total));
      total += b.bytes[i];
    }
    tmp_ = std::make_unique_for_overwrite<std::byte[]>(total ? total : 1);
    b.base = tmp_.get();
    if (load)
      for (std::size_t i = 0; i < n; ++i)
        datatype::pack(type(i), view_ + displs[i], static_cast<std::size_t>(counts[i]), 0,
                       b.base + b.off[i], b.bytes[i]);
  }
  // Writes the packed blocks back (all of them, or only block `only`).
  void store(int only = -1) const {
    if (!tmp_ && !device_) return;
    for (std::size_t i = 0; i < counts_.size(); ++i)
      if (only < 0 || static_cast<std::size_t>(only) == i) store_block(i);
  }
  coll::Blocks b;

private:
  // Device buffer: the host image of the span all blocks cover (read from the device if `read`).
  void stage(bool read);
  void store_block(std::size_t i) const;
  const datatype::Type &type(std::size_t i) const {
    return types_.size() == 1 ? types_[0] : types_[i];
  }
  const std::vector<datatype::Type> &types_;
  std::byte *buf_;
  std::byte *view_; // buf_, or the host image of a device buffer
  const std::vector<int> &counts_;
  const std::vector<std::ptrdiff_t> &displs_;
  std::unique_ptr<std::byte[]> tmp_;
  bool device_ = false;
  p2p::DeviceStage stage_;
};

// Byte displacements from element displacements (of a type's extent).
inline std::vector<std::ptrdiff_t> byte_displs(const int *displs, int n, const datatype::Type &t) {
  std::vector<std::ptrdiff_t> d(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    d[static_cast<std::size_t>(i)] = static_cast<std::ptrdiff_t>(displs[i]) * t.extent;
  return d;
}

// The reduction for (op, datatype); false after raising MPI_ERR_OP.
bool make_reducer(Call &call, MPI_Op op, MPI_Datatype handle, const datatype::Type &t,
                  coll::Reducer &out);

} // namespace ampi::mpi::coll_detail
