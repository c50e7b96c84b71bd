// src/mpi/file.cpp — the MPI-IO entry points (MPI-3.1 chapter 13): opening and closing files, their
// hints and error handlers, views, independent, collective, shared-pointer, ordered, non-blocking
// and split-collective reads and writes. The pieces that know no MPI live in src/io (descriptors,
// pread/pwrite, views); this file adds the communication: collective reads and writes go through
// aggregators (collective(): in place for ranks of the aggregator's process, two-phase for the
// others), the shared file pointer is a counter behind an RMA window.
#include "io/file.hpp"
#include "copy/copy.hpp"
#include "io/posix.hpp"
#include "io/view.hpp"
#include "mpi/common.hpp"
#include "pmi/host.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace ampi;
using namespace ampi::mpi;
using File = ampi_file_s;
using io::Segment;

namespace ampi::mpi {
// A handler made by MPI_*_create_errhandler (src/mpi/errors.cpp).
MPI_Errhandler errhandler_insert(Rank &self, MPI_Comm_errhandler_function *f);
} // namespace ampi::mpi

namespace {

// ---- errors ------------------------------------------------------------------------------------

// Raises `code` through error handler `eh` for file `fh` (MPI_FILE_NULL for open and delete). A
// fatal handler ends the job through the communicator path (`via`'s handler set for the moment),
// so the message looks like every other fatal error.
int raise_eh(Rank &self, MPI_Errhandler eh, MPI_File fh, MPI_Comm via, int code, const char *fn,
             const char *detail) {
  if (eh == MPI_ERRORS_RETURN) return code;
  if (eh != MPI_ERRORS_ARE_FATAL && eh != MPI_ERRORS_ABORT)
    if (const comm::UserErrhandler *u = self.comm.errhandlers.get(eh); u && u->fn) {
      auto *f = reinterpret_cast<MPI_File_errhandler_function *>(u->fn);
      MPI_File h = fh;
      int e = code;
      f(&h, &e, detail);
      return code;
    }
  comm::Comm *c = self.comm.comms.find(via);
  if (!c) c = self.comm.comms.find(MPI_COMM_SELF);
  const MPI_Errhandler saved = c->errhandler;
  c->errhandler = eh == MPI_ERRORS_ABORT ? MPI_ERRORS_ABORT : MPI_ERRORS_ARE_FATAL;
  raise(c->handle, code, fn, "%s", detail);
  c->errhandler = saved;
  return code;
}

// Raises `code` on file `f` (nullptr: MPI_FILE_NULL's handler, as for open, delete and invalid
// file handles).
int file_error(Rank &self, File *f, int code, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
int file_error(Rank &self, File *f, int code, const char *fn, const char *fmt, ...) {
  char detail[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(detail, sizeof detail, fmt, ap);
  va_end(ap);
  if (f) return raise_eh(self, f->errhandler, f, f->comm, code, fn, detail);
  return raise_eh(self, self.io.null_errhandler, MPI_FILE_NULL, MPI_COMM_SELF, code, fn, detail);
}

// A failed system call: its errno's class, the call and the path in the message.
int os_error(Rank &self, File *f, int err, const char *fn, const char *what, const char *path) {
  return file_error(self, f, io::error_class(err), fn, "%s(\"%s\"): %s", what, path,
                    std::strerror(err));
}

File *file_of(MPI_File fh) noexcept {
  return fh && fh->magic == File::kMagic ? fh : nullptr;
}

#define AMPI_FILE_OR_RETURN(self, f, fh, fn)                                                       \
  File *f = file_of(fh);                                                                           \
  if (!f)                                                                                          \
    return file_error(self, nullptr, MPI_ERR_FILE, fn, "fh is %s",                                 \
                      (fh) == MPI_FILE_NULL ? "MPI_FILE_NULL" : "not an open file");

void set_status(MPI_Status *status, std::int64_t bytes) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = MPI_ANY_SOURCE;
  status->MPI_TAG = MPI_ANY_TAG;
  status->MPI_ERROR = MPI_SUCCESS;
  status->ampi_cancelled = 0;
  status->ampi_count = bytes;
}

// ---- hints
// ---------------------------------------------------------------------------------------

bool info_long(MPI_Info info, const char *key, long long *out) {
  if (info == MPI_INFO_NULL) return false;
  char value[MPI_MAX_INFO_VAL + 1];
  int flag = 0;
  if (PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag) != MPI_SUCCESS || !flag)
    return false;
  char *end = nullptr;
  errno = 0;
  const long long v = std::strtoll(value, &end, 10);
  if (errno || end == value || v <= 0) return false; // a hint may be ignored
  *out = v;
  return true;
}

// Takes the hints ampi uses from `info`; others are ignored, as the standard allows.
void apply_hints(File &f, MPI_Info info) {
  long long v = 0;
  if (info_long(info, "cb_nodes", &v))
    f.cb_nodes = static_cast<int>(std::min<long long>(v, f.size));
  if (info_long(info, "cb_buffer_size", &v)) f.cb_buffer_size = std::max<long long>(v, 4096);
  if (info_long(info, "striping_factor", &v)) f.striping_factor = static_cast<int>(v);
  if (info_long(info, "striping_unit", &v)) f.striping_unit = v;
}

// The aggregators of collective I/O: cb_nodes ranks, taken round-robin over the processes of the
// file's communicator (lowest rank of each first), so that by default (cb_nodes = the number of
// processes) every process's PE writes its share of the file and no process has two.
int choose_aggregators(File &f, int requested) {
  struct Where {
    long long host, pid;
  };
  Where me{static_cast<long long>(host_id()), static_cast<long long>(getpid())};
  std::vector<Where> all(static_cast<std::size_t>(f.size));
  if (int e = PMPI_Allgather(&me, 2, MPI_LONG_LONG, all.data(), 2, MPI_LONG_LONG, f.comm)) return e;
  // Ranks grouped by process, in order of each process's lowest rank.
  std::vector<std::vector<int>> procs;
  std::vector<Where> keys;
  for (int r = 0; r < f.size; ++r) {
    const Where &w = all[static_cast<std::size_t>(r)];
    std::size_t i = 0;
    while (i < keys.size() && (keys[i].host != w.host || keys[i].pid != w.pid))
      ++i;
    if (i == keys.size()) {
      keys.push_back(w);
      procs.emplace_back();
    }
    procs[i].push_back(r);
  }
  f.same_process.assign(static_cast<std::size_t>(f.size), 0);
  for (int r = 0; r < f.size; ++r)
    f.same_process[static_cast<std::size_t>(r)] =
        all[static_cast<std::size_t>(r)].host == me.host &&
        all[static_cast<std::size_t>(r)].pid == me.pid;
  const int n = requested > 0 ? std::min(requested, f.size) : static_cast<int>(procs.size());
  f.aggregators.clear();
  for (std::size_t depth = 0; static_cast<int>(f.aggregators.size()) < n; ++depth)
    for (auto &p : procs)
      if (depth < p.size() && static_cast<int>(f.aggregators.size()) < n)
        f.aggregators.push_back(p[depth]);
  std::sort(f.aggregators.begin(), f.aggregators.end());
  f.cb_nodes = n;
  return MPI_SUCCESS;
}

// Hints given after open (MPI_File_set_info, MPI_File_set_view): a new cb_nodes chooses the
// aggregators again, collectively (every rank passes the same hints, as the standard requires).
int change_hints(File &f, MPI_Info info) {
  const int before = f.cb_nodes;
  f.cb_nodes = 0;
  apply_hints(f, info);
  if (f.cb_nodes != 0 && f.cb_nodes != before) return choose_aggregators(f, f.cb_nodes);
  f.cb_nodes = before;
  return MPI_SUCCESS;
}

// ---- amode -------------------------------------------------------------------------------------

const char *amode_problem(int amode) {
  const int access = amode & (MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR);
  if (access != MPI_MODE_RDONLY && access != MPI_MODE_WRONLY && access != MPI_MODE_RDWR)
    return "exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY and MPI_MODE_RDWR is required";
  if ((amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
    return "MPI_MODE_RDONLY with MPI_MODE_CREATE or MPI_MODE_EXCL";
  if ((amode & MPI_MODE_RDWR) && (amode & MPI_MODE_SEQUENTIAL))
    return "MPI_MODE_RDWR with MPI_MODE_SEQUENTIAL";
  const int known = MPI_MODE_CREATE | MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR |
                    MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN | MPI_MODE_EXCL |
                    MPI_MODE_APPEND | MPI_MODE_SEQUENTIAL;
  if (amode & ~known) return "unknown bits";
  return nullptr;
}

// "ufs:" and "nfs:" prefixes (ROMIO's file-system names, which programs sometimes pass) name the
// same POSIX file here.
std::string strip_prefix(const char *name) {
  for (const char *p : {"ufs:", "nfs:", "file:"})
    if (std::strncmp(name, p, std::strlen(p)) == 0) return name + std::strlen(p);
  return name;
}

// ---- the shared file pointer
// ---------------------------------------------------------------------

// Adds `delta` etypes to the shared file pointer and returns its old value: one MPI_Fetch_and_op
// on the counter at rank 0, atomic among all the file's ranks, in any process.
int shared_fetch_add(File &f, std::int64_t delta, std::int64_t *old, MPI_Op op = MPI_SUM) {
  if (int e = PMPI_Win_lock(MPI_LOCK_SHARED, 0, 0, f.shared_win)) return e;
  int e = PMPI_Fetch_and_op(&delta, old, MPI_INT64_T, 0, 0, op, f.shared_win);
  if (int e2 = PMPI_Win_unlock(0, f.shared_win); e == MPI_SUCCESS) e = e2;
  return e;
}

// ---- data: the user's buffer as contiguous bytes ------------------------------------------------

// The packed bytes of `count` elements of `t` at `buf`: in place when contiguous host memory,
// otherwise staged (device memory through a host copy, non-contiguous types packed; "external32"
// converted with MPI_Pack_external / MPI_Unpack_external).
class Staged {
public:
  Staged(const datatype::Type &t, MPI_Datatype h, void *buf, std::int64_t count, bool external)
      : t_(t), h_(h), buf_(buf), count_(count), external_(external) {
    bytes_ = static_cast<std::int64_t>(t.size) * count;
    if (buf && count > 0) {
      kind_ = Pe::get().devptrs().kind(static_cast<char *>(buf) + t.true_lb);
      span_ = t.true_extent + (count - 1) * t.extent;
    }
  }
  std::int64_t bytes() const noexcept { return bytes_; }

  // For a write: the bytes to write.
  const char *for_write() {
    host_from_device();
    if (!external_ && t_.contiguous)
      return static_cast<const char *>(datatype::data_start(t_, host()));
    packed_.resize(static_cast<std::size_t>(bytes_));
    if (external_) {
      MPI_Aint pos = 0;
      PMPI_Pack_external("external32", host(), static_cast<int>(count_), h_, packed_.data(), bytes_,
                         &pos);
    } else {
      datatype::pack(t_, host(), static_cast<std::size_t>(count_), 0, packed_.data(),
                     static_cast<std::size_t>(bytes_));
    }
    return packed_.data();
  }
  // For a read: where to read the bytes to; then finish_read(bytes read).
  char *for_read() {
    if (!external_ && t_.contiguous && kind_ == gpu::MemKind::Host)
      return static_cast<char *>(datatype::data_start(t_, buf_));
    packed_.resize(static_cast<std::size_t>(bytes_));
    return packed_.data();
  }
  void finish_read(std::int64_t got) {
    if (!external_ && t_.contiguous && kind_ == gpu::MemKind::Host) return;
    host_from_device(); // elements only partly read keep their other bytes
    if (external_) {
      MPI_Aint pos = 0;
      const std::int64_t whole = t_.size ? got / static_cast<std::int64_t>(t_.size) : 0;
      PMPI_Unpack_external("external32", packed_.data(), got, &pos, host(), static_cast<int>(whole),
                           h_);
    } else {
      datatype::unpack(t_, packed_.data(), static_cast<std::size_t>(got), 0, host(),
                       static_cast<std::size_t>(count_));
    }
    if (gpu::is_device(kind_))
      Pe::get().devptrs().copy(static_cast<char *>(buf_) + t_.true_lb, kind_, stage_.data(),
                               gpu::MemKind::Host, static_cast<std::size_t>(span_));
  }

private:
  // The host image of the user's buffer (its own address, or the staging copy of device memory),
  // as a pointer the datatype's displacements apply to.
  void *host() {
    if (!gpu::is_device(kind_)) return buf_;
    return stage_.data() - t_.true_lb;
  }
  void host_from_device() {
    if (!gpu::is_device(kind_) || staged_) return;
    stage_.resize(static_cast<std::size_t>(span_));
    Pe::get().devptrs().copy(stage_.data(), gpu::MemKind::Host,
                             static_cast<char *>(buf_) + t_.true_lb, kind_,
                             static_cast<std::size_t>(span_));
    staged_ = true;
  }

  const datatype::Type &t_;
  MPI_Datatype h_;
  void *buf_;
  std::int64_t count_;
  bool external_;
  std::int64_t bytes_ = 0, span_ = 0;
  gpu::MemKind kind_ = gpu::MemKind::Host;
  bool staged_ = false;
  std::vector<char> packed_, stage_;
};

// ---- checks common to every read and write ------------------------------------------------------

enum class Dir { Read, Write };

// Checks the access mode, the count and the datatype of an access; the type on success.
const datatype::Type *check_access(Rank &self, File &f, Dir dir, const void *buf,
                                   std::int64_t count, MPI_Datatype type, const char *fn, int *err,
                                   bool explicit_or_individual) {
  if (dir == Dir::Write && (f.amode & MPI_MODE_RDONLY)) {
    *err = file_error(self, &f, MPI_ERR_READ_ONLY, fn, "the file was opened MPI_MODE_RDONLY");
    return nullptr;
  }
  if (dir == Dir::Read && (f.amode & MPI_MODE_WRONLY)) {
    *err = file_error(self, &f, MPI_ERR_ACCESS, fn, "the file was opened MPI_MODE_WRONLY");
    return nullptr;
  }
  if (explicit_or_individual && (f.amode & MPI_MODE_SEQUENTIAL)) {
    *err = file_error(self, &f, MPI_ERR_UNSUPPORTED_OPERATION, fn,
                      "the file was opened MPI_MODE_SEQUENTIAL: only shared-pointer accesses");
    return nullptr;
  }
  if (count < 0) {
    *err = file_error(self, &f, MPI_ERR_COUNT, fn, "count=%lld is negative",
                      static_cast<long long>(count));
    return nullptr;
  }
  int e = MPI_SUCCESS;
  const datatype::Type *t = find_type(self, type, f.comm, fn, &e); // f.comm returns errors
  if (!t) {
    *err = file_error(self, &f, MPI_ERR_TYPE, fn, "datatype is %s",
                      type == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL"
                                                : "not a valid committed datatype");
    return nullptr;
  }
  if (count > 0 && t->size > 0 && !buf) {
    *err = file_error(self, &f, MPI_ERR_BUFFER, fn, "buf=NULL with count=%lld",
                      static_cast<long long>(count));
    return nullptr;
  }
  if (t->size % static_cast<std::size_t>(f.etype_native_size) != 0 && count > 0) {
    *err = file_error(self, &f, MPI_ERR_TYPE, fn,
                      "datatype's size %zu is not a multiple of the view's etype size %lld",
                      t->size, static_cast<long long>(f.etype_native_size));
    return nullptr;
  }
  return t;
}

// ---- independent access
// --------------------------------------------------------------------------

// Reads or writes `bytes` of the view's stream from stream byte `pos` with pread/pwrite, one per
// contiguous piece of the file; `*done` is the bytes moved (a read stops at the end of the file).
int independent(Rank &self, File &f, Dir dir, std::int64_t pos, char *data, std::int64_t bytes,
                std::int64_t *done, const char *fn) {
  *done = 0;
  if (bytes == 0) return MPI_SUCCESS;
  std::vector<Segment> segs;
  f.view.map(pos, bytes, segs);
  if (segs.empty()) return MPI_SUCCESS; // a filetype without data
  // Atomic mode: the accessed range is locked against other processes for the whole access.
  std::unique_ptr<io::RangeLock> lock;
  if (f.atomic)
    lock = std::make_unique<io::RangeLock>(f.fd.get(), dir == Dir::Write, segs.front().off,
                                           segs.back().off + segs.back().len - segs.front().off);
  std::int64_t at = 0;
  for (const Segment &s : segs) {
    if (dir == Dir::Write) {
      if (int e = io::pwrite_all(f.fd.get(), data + at, static_cast<std::size_t>(s.len), s.off))
        return os_error(self, &f, e, fn, "pwrite", f.path.c_str());
      at += s.len;
    } else {
      std::size_t got = 0;
      if (int e =
              io::pread_all(f.fd.get(), data + at, static_cast<std::size_t>(s.len), s.off, &got))
        return os_error(self, &f, e, fn, "pread", f.path.c_str());
      at += static_cast<std::int64_t>(got);
      if (static_cast<std::int64_t>(got) < s.len) break; // end of file
    }
  }
  *done = at;
  return MPI_SUCCESS;
}

// ---- collective access: two-phase aggregation
// ----------------------------------------------------

// A rank's contiguous piece of one aggregator's round: where it goes in the file and where its
// bytes are in the rank's packed data.
struct Piece {
  int agg;   // index into f.aggregators
  int round; // cb_buffer_size window of that aggregator's domain
  std::int64_t off, len, data;
};
// What an aggregator learns of each piece; `addr` is where its bytes are in the owner's memory,
// used only when the owner lives in the aggregator's process.
struct Header {
  std::int64_t round, off, len;
  std::uintptr_t addr;
};

// Where a rank's side of one round's exchange can be its own stream bytes, without a packed copy:
// when each aggregator's pieces [pcur[a], pend[a]) are one run of the stream, and the runs all lie
// within INT_MAX bytes of the first (MPI_Alltoallv's int displacements). Then `displ[rank of a]` is
// that run's displacement from the returned base; otherwise nullptr. Aggregators with `skip[a]`
// take no part (they reach my bytes directly). Saves one copy of every exchanged byte each way.
char *direct_side(const std::vector<Piece> &pieces, const std::vector<std::size_t> &pcur,
                  const std::vector<std::size_t> &pend, const std::vector<int> &rank_of_agg,
                  const std::vector<char> &skip, char *data, std::vector<int> &displ) {
  std::int64_t lo = INT64_MAX, hi = 0;
  for (std::size_t a = 0; a < pend.size(); ++a) {
    if (pcur[a] == pend[a] || skip[a]) continue;
    for (std::size_t i = pcur[a] + 1; i < pend[a]; ++i)
      if (pieces[i].data != pieces[i - 1].data + pieces[i - 1].len) return nullptr;
    lo = std::min(lo, pieces[pcur[a]].data);
    hi = std::max(hi, pieces[pend[a] - 1].data + pieces[pend[a] - 1].len);
  }
  if (lo == INT64_MAX) return data; // nothing of mine this round: counts are all zero
  if (hi - lo > INT_MAX) return nullptr;
  for (std::size_t a = 0; a < pend.size(); ++a)
    if (pcur[a] != pend[a] && !skip[a])
      displ[static_cast<std::size_t>(rank_of_agg[a])] = static_cast<int>(pieces[pcur[a]].data - lo);
  return data + lo;
}

// Every rank of the file calls this with its own stream position and bytes (possibly none). The
// union of the accessed file range is cut into one domain per aggregator, each domain into rounds
// of at most cb_buffer_size bytes. In each round an aggregator reads or writes its window's pieces
// with a few preadv/pwritev (pieces that meet in the file share one call: N ranks writing every
// N-th block make file_size/cb_buffer_size large accesses instead of file_size/block small ones):
//  - pieces of ranks in the aggregator's process straight in their memory (no copy but the
//    kernel's: virtual ranks share an address space);
//  - pieces of other processes' ranks through the aggregator's window, exchanged with
//    MPI_Alltoallv (two-phase I/O).
// Nobody returns before every aggregator's last access has ended (the closing MPI_Allreduce), so
// ranks' buffers stay in place while aggregators use them. A one-process strided read of 1 GiB
// (bench/io_strided, 4 ranks) went from 1.2 to 3.2-3.6 GB/s with the direct pieces.
int collective(Rank &self, File &f, Dir dir, std::int64_t pos, char *data, std::int64_t bytes,
               std::int64_t *done, const char *fn) {
  *done = 0;
  std::vector<Segment> segs;
  f.view.map(pos, bytes, segs);
  std::int64_t range[2] = {INT64_MIN, INT64_MIN}; // -lo, hi
  if (!segs.empty()) {
    range[0] = -segs.front().off;
    range[1] = segs.back().off + segs.back().len;
    for (const Segment &s : segs) { // views keep offsets monotonic, but be safe
      range[0] = std::max(range[0], -s.off);
      range[1] = std::max(range[1], s.off + s.len);
    }
  }
  if (int e = PMPI_Allreduce(MPI_IN_PLACE, range, 2, MPI_INT64_T, MPI_MAX, f.comm))
    return file_error(self, &f, e, fn, "agreeing on the accessed range failed");
  if (range[1] == INT64_MIN) return MPI_SUCCESS; // nobody accesses anything
  const std::int64_t lo = -range[0], hi = range[1];
  const int naggs = static_cast<int>(f.aggregators.size());
  const auto nag = static_cast<std::size_t>(naggs);
  const std::int64_t align = f.striping_unit > 0 ? f.striping_unit : 4096;
  const std::vector<std::int64_t> bounds = io::split_domains(lo, hi, naggs, align);
  const std::int64_t cb = f.cb_buffer_size;
  int rounds = 0;
  for (std::size_t a = 0; a < nag; ++a)
    rounds = std::max<int>(rounds, static_cast<int>((bounds[a + 1] - bounds[a] + cb - 1) / cb));

  // My pieces, by aggregator and round.
  std::vector<Piece> pieces;
  {
    std::int64_t at = 0;
    for (const Segment &s : segs) {
      std::int64_t cur = s.off;
      const std::int64_t end = s.off + s.len;
      while (cur < end) {
        const int a = static_cast<int>(std::upper_bound(bounds.begin() + 1, bounds.end() - 1, cur) -
                                       (bounds.begin() + 1));
        const std::int64_t base = bounds[static_cast<std::size_t>(a)];
        const int r = static_cast<int>((cur - base) / cb);
        const std::int64_t limit =
            std::min({end, bounds[static_cast<std::size_t>(a) + 1], base + (r + 1) * cb});
        pieces.push_back({a, r, cur, limit - cur, at});
        at += limit - cur;
        cur = limit;
      }
    }
  }
  std::stable_sort(pieces.begin(), pieces.end(), [](const Piece &x, const Piece &y) {
    return x.agg != y.agg ? x.agg < y.agg : x.round < y.round;
  });

  // Headers to the aggregators: what each one will get from me, round by round.
  const auto n = static_cast<std::size_t>(f.size);
  std::vector<int> rank_of_agg(nag);
  std::vector<int> agg_of_rank(n, -1);
  std::vector<char> local_agg(nag); // the aggregator lives in my process
  for (std::size_t a = 0; a < nag; ++a) {
    rank_of_agg[a] = f.aggregators[a];
    agg_of_rank[static_cast<std::size_t>(f.aggregators[a])] = static_cast<int>(a);
    local_agg[a] = f.same_process[static_cast<std::size_t>(f.aggregators[a])];
  }
  std::vector<int> scount(n, 0), sdispl(n, 0), rcount(n, 0), rdispl(n, 0);
  std::vector<Header> sh;
  sh.reserve(pieces.size());
  for (const Piece &p : pieces) {
    scount[static_cast<std::size_t>(rank_of_agg[static_cast<std::size_t>(p.agg)])] +=
        static_cast<int>(sizeof(Header));
    sh.push_back({p.round, p.off, p.len, reinterpret_cast<std::uintptr_t>(data + p.data)});
  }
  for (std::size_t i = 1; i < n; ++i)
    sdispl[i] = sdispl[i - 1] + scount[i - 1];
  if (int e = PMPI_Alltoall(scount.data(), 1, MPI_INT, rcount.data(), 1, MPI_INT, f.comm))
    return file_error(self, &f, e, fn, "exchanging piece counts failed");
  for (std::size_t i = 1; i < n; ++i)
    rdispl[i] = rdispl[i - 1] + rcount[i - 1];
  std::vector<Header> rh(
      static_cast<std::size_t>((rdispl[n - 1] + rcount[n - 1]) / static_cast<int>(sizeof(Header))));
  if (int e = PMPI_Alltoallv(sh.data(), scount.data(), sdispl.data(), MPI_BYTE, rh.data(),
                             rcount.data(), rdispl.data(), MPI_BYTE, f.comm))
    return file_error(self, &f, e, fn, "exchanging piece headers failed");
  const int my_agg = agg_of_rank[static_cast<std::size_t>(f.rank)];
  // An aggregator's received headers, by round: (source rank, header index), in source order.
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> by_round;
  if (my_agg >= 0) {
    by_round.resize(static_cast<std::size_t>(rounds));
    std::size_t i = 0;
    for (std::size_t s = 0; s < n; ++s)
      for (const std::size_t end = i + static_cast<std::size_t>(rcount[s]) / sizeof(Header);
           i < end; ++i)
        by_round[static_cast<std::size_t>(rh[i].round)].emplace_back(s, i);
  }

  // The window holds a round's pieces of other processes' ranks; written before it is read
  // (received pieces, or read from the file and zeros past its end), never zero-filled.
  int first_error = MPI_SUCCESS;
  char *const window =
      my_agg >= 0 ? f.window.get(static_cast<std::size_t>(std::min(cb, hi - lo))) : nullptr;
  // Round r's file access at my aggregator: every piece, in its owner's memory or the window.
  const auto access_round = [&](int r, std::int64_t wlo) {
    std::vector<io::Part> parts;
    for (const auto &[s, i] : by_round[static_cast<std::size_t>(r)])
      parts.push_back(
          {rh[i].off, static_cast<std::size_t>(rh[i].len),
           f.same_process[s] ? reinterpret_cast<char *>(rh[i].addr) : window + (rh[i].off - wlo)});
    const std::vector<io::Run> runs = io::runs_of(std::move(parts));
    const int e =
        dir == Dir::Write ? io::pwrite_runs(f.fd.get(), runs) : io::pread_runs(f.fd.get(), runs);
    if (e && first_error == MPI_SUCCESS) first_error = io::error_class(e);
  };

  char *sbuf = nullptr, *rbuf = nullptr;
  std::vector<std::size_t> pidx(nag + 1, 0); // my pieces of aggregator a: [pidx[a], pidx[a + 1])
  for (std::size_t i = 0, a = 0; a <= nag; ++a) {
    while (i < pieces.size() && static_cast<std::size_t>(pieces[i].agg) < a)
      ++i;
    pidx[a] = i;
  }
  std::vector<std::size_t> pcur(pidx.begin(), pidx.end() - 1), pend(nag);
  std::vector<int> mydispl(n, 0);
  for (int r = 0; r < rounds; ++r) {
    // This round's pieces of mine, per aggregator: [pcur[a], pend[a]); sent to (or received from)
    // aggregators of other processes only.
    std::fill(scount.begin(), scount.end(), 0);
    for (std::size_t a = 0; a < nag; ++a) {
      std::size_t i = pcur[a];
      while (i < pidx[a + 1] && pieces[i].round == r) {
        if (!local_agg[a])
          scount[static_cast<std::size_t>(rank_of_agg[a])] += static_cast<int>(pieces[i].len);
        ++i;
      }
      pend[a] = i;
    }
    // This round's pieces of other processes' ranks at my aggregator, per source.
    std::fill(rcount.begin(), rcount.end(), 0);
    if (my_agg >= 0)
      for (const auto &[s, i] : by_round[static_cast<std::size_t>(r)])
        if (!f.same_process[s]) rcount[s] += static_cast<int>(rh[i].len);
    for (std::size_t i = 1; i < n; ++i) {
      sdispl[i] = sdispl[i - 1] + scount[i - 1];
      rdispl[i] = rdispl[i - 1] + rcount[i - 1];
    }
    const std::int64_t wlo =
        my_agg >= 0 ? bounds[static_cast<std::size_t>(my_agg)] + static_cast<std::int64_t>(r) * cb
                    : 0;
    // My side of the exchange: straight from (write) or into (read) my stream's bytes when each
    // aggregator's pieces of this round are one run of them (always, for monotonic views), else
    // through a packed buffer in aggregator order.
    char *const mine = direct_side(pieces, pcur, pend, rank_of_agg, local_agg, data, mydispl);
    const auto packed = [&](bool to_packed, char *buf) {
      std::size_t at = 0;
      for (std::size_t a = 0; a < nag; ++a)
        for (std::size_t i = pcur[a]; i < pend[a] && !local_agg[a]; ++i) {
          const auto len = static_cast<std::size_t>(pieces[i].len);
          if (to_packed)
            copy::copy(buf + at, data + pieces[i].data, len);
          else
            copy::copy(data + pieces[i].data, buf + at, len);
          at += len;
        }
    };
    // The aggregator's window and the exchanged bytes of other processes' ranks, per source.
    const auto window_side = [&](bool to_window, char *buf) {
      std::vector<int> next(rdispl);
      for (const auto &[s, i] : by_round[static_cast<std::size_t>(r)]) {
        if (f.same_process[s]) continue;
        char *const at = buf + next[s];
        const auto len = static_cast<std::size_t>(rh[i].len);
        next[s] += static_cast<int>(len);
        if (to_window)
          copy::copy(window + (rh[i].off - wlo), at, len);
        else
          copy::copy(at, window + (rh[i].off - wlo), len);
      }
    };

    if (dir == Dir::Write) {
      if (!mine) {
        sbuf = f.sendbuf.get(static_cast<std::size_t>(sdispl[n - 1] + scount[n - 1]));
        packed(true, sbuf);
      }
      rbuf = f.recvbuf.get(static_cast<std::size_t>(rdispl[n - 1] + rcount[n - 1]));
      if (int e = PMPI_Alltoallv(mine ? mine : sbuf, scount.data(),
                                 mine ? mydispl.data() : sdispl.data(), MPI_BYTE, rbuf,
                                 rcount.data(), rdispl.data(), MPI_BYTE, f.comm))
        return file_error(self, &f, e, fn, "exchanging data failed");
      if (my_agg >= 0) {
        window_side(true, rbuf);
        access_round(r, wlo);
      }
    } else {
      // Aggregator: read this round's pieces, then send each source of another process its
      // pieces. (The roles of the counts swap: I send rcount to the sources, they receive scount.)
      if (my_agg >= 0) {
        access_round(r, wlo);
        sbuf = f.sendbuf.get(static_cast<std::size_t>(rdispl[n - 1] + rcount[n - 1]));
        window_side(false, sbuf);
      }
      if (!mine) rbuf = f.recvbuf.get(static_cast<std::size_t>(sdispl[n - 1] + scount[n - 1]));
      if (int e = PMPI_Alltoallv(sbuf, rcount.data(), rdispl.data(), MPI_BYTE, mine ? mine : rbuf,
                                 scount.data(), mine ? mydispl.data() : sdispl.data(), MPI_BYTE,
                                 f.comm))
        return file_error(self, &f, e, fn, "exchanging data failed");
      if (!mine) packed(false, rbuf);
    }
    pcur = pend;
  }

  // Every rank learns whether an aggregator failed (its error class); no rank returns before
  // every aggregator is done with its buffer.
  int worst = first_error;
  if (int e = PMPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_INT, MPI_MAX, f.comm))
    return file_error(self, &f, e, fn, "agreeing on the result failed");
  if (worst != MPI_SUCCESS)
    return file_error(self, &f, worst, fn, "%s of \"%s\" by an aggregator failed",
                      dir == Dir::Write ? "pwrite" : "pread", f.path.c_str());
  if (dir == Dir::Write) {
    *done = bytes;
  } else {
    // A read stops at the end of the file: the bytes of my stream before it.
    struct stat st {};
    if (::fstat(f.fd.get(), &st) != 0)
      return os_error(self, &f, errno, fn, "fstat", f.path.c_str());
    std::int64_t got = 0;
    for (const Segment &s : segs) {
      if (s.off >= st.st_size) break;
      const std::int64_t take = std::min<std::int64_t>(s.len, st.st_size - s.off);
      got += take;
      if (take < s.len) break;
    }
    *done = got;
  }
  return MPI_SUCCESS;
}

// ---- user data representations ------------------------------------------------------------------

// The file bytes of one element of `t` in data representation `rep`: its predefined type's file
// extent (the datarep's extent function) times the elements of that type in it. Types mixing
// predefined types are refused: the view is mapped by one ratio of file to native bytes.
int rep_elem_bytes(Rank &self, File *f, const io::Datarep &rep, const datatype::Type &t,
                   std::int64_t *out, const char *fn) {
  *out = 0;
  if (t.size == 0) return MPI_SUCCESS;
  if (t.basic == MPI_DATATYPE_NULL)
    return file_error(self, f, MPI_ERR_UNSUPPORTED_DATAREP, fn,
                      "datarep \"%s\": ampi converts datatypes made of one predefined type only, "
                      "and this one mixes several",
                      rep.name.c_str());
  MPI_Aint ext = 0;
  if (int rc = rep.extent(t.basic, &ext, rep.extra); rc != MPI_SUCCESS)
    return file_error(self, f, rc, fn, "the extent function of datarep \"%s\" returned %d",
                      rep.name.c_str(), rc);
  if (ext <= 0)
    return file_error(self, f, MPI_ERR_CONVERSION, fn,
                      "the extent function of datarep \"%s\" gave a file extent of %lld",
                      rep.name.c_str(), static_cast<long long>(ext));
  *out = static_cast<std::int64_t>(t.basic_count) * ext;
  return MPI_SUCCESS;
}

// Calls a datarep's read or write conversion function on `count` elements (the int-count form
// refuses counts past INT_MAX); a failure goes through the file's error handler.
int convert(Rank &self, File &f, Dir dir, void *userbuf, MPI_Datatype type, std::int64_t count,
            char *filebuf, std::int64_t position, const char *fn) {
  const io::Datarep &rep = *f.user_rep;
  int rc = MPI_SUCCESS;
  if (rep.large) {
    rc = (dir == Dir::Read ? rep.read_c : rep.write_c)(userbuf, type, count, filebuf, position,
                                                       rep.extra);
  } else {
    if (count > INT_MAX)
      return file_error(self, &f, MPI_ERR_COUNT, fn,
                        "%lld elements for the int-count conversion function of datarep \"%s\" "
                        "(register it with MPI_Register_datarep_c)",
                        static_cast<long long>(count), rep.name.c_str());
    rc = (dir == Dir::Read ? rep.read : rep.write)(userbuf, type, static_cast<int>(count), filebuf,
                                                   position, rep.extra);
  }
  if (rc != MPI_SUCCESS)
    return file_error(self, &f, rc, fn, "the %s conversion function of datarep \"%s\" returned %d",
                      dir == Dir::Read ? "read" : "write", rep.name.c_str(), rc);
  return MPI_SUCCESS;
}

// ---- one read or write, any flavour ------------------------------------------------------------

enum class Where { Explicit, Individual, Shared, Ordered };

// Performs an access: `where` picks the position (an explicit offset in etypes, the individual
// pointer, the shared pointer or the ordered shared pointer), `coll` two-phase aggregation.
int access(Rank &self, MPI_File fh, Dir dir, Where where, bool coll, std::int64_t offset, void *buf,
           std::int64_t count, MPI_Datatype type, MPI_Status *status, const char *fn) {
  AMPI_FILE_OR_RETURN(self, f, fh, fn)
  if (where == Where::Explicit && offset < 0)
    return file_error(self, f, MPI_ERR_ARG, fn, "offset=%lld is negative",
                      static_cast<long long>(offset));
  int err = MPI_SUCCESS;
  const datatype::Type *t = check_access(self, *f, dir, buf, count, type, fn, &err,
                                         where == Where::Explicit || where == Where::Individual);
  if (!t) return err;
  const bool external = f->datarep == "external32";
  Staged staged(*t, type, buf, count, external);
  std::int64_t bytes = staged.bytes(); // of the view's stream: file bytes
  const std::int64_t esize = f->view.etype_size;
  // A user datarep with a conversion function for this direction: the file bytes are a buffer of
  // their own, converted from or to the user's buffer by the callback (`per`: file bytes of one
  // element). MPI_CONVERSION_FN_NULL copies packed native bytes (Staged), whose sizes must then be
  // the file's.
  std::int64_t per = static_cast<std::int64_t>(t->size);
  bool converting = false;
  if (f->user_rep) {
    if (int e = rep_elem_bytes(self, f, *f->user_rep, *t, &per, fn)) return e;
    converting = dir == Dir::Read ? f->user_rep->converts_read() : f->user_rep->converts_write();
    if (!converting && per != static_cast<std::int64_t>(t->size))
      return file_error(self, f, MPI_ERR_CONVERSION, fn,
                        "datarep \"%s\" has no %s conversion function (MPI_CONVERSION_FN_NULL) "
                        "but stores %lld bytes for a datatype of %zu bytes",
                        f->user_rep->name.c_str(), dir == Dir::Read ? "read" : "write",
                        static_cast<long long>(per), t->size);
    bytes = per * count;
  }
  std::int64_t pos = 0; // in etypes
  switch (where) {
  case Where::Explicit:
    pos = offset;
    break;
  case Where::Individual:
    pos = f->fp;
    break;
  case Where::Shared:
    if (int e = shared_fetch_add(*f, bytes / esize, &pos))
      return file_error(self, f, e, fn, "updating the shared file pointer failed");
    break;
  case Where::Ordered: {
    // Rank order: each rank's place is the shared pointer plus the bytes of the ranks before it.
    std::int64_t mine = bytes / esize, before = 0, total = 0, base = 0;
    if (int e = PMPI_Exscan(&mine, &before, 1, MPI_INT64_T, MPI_SUM, f->comm))
      return file_error(self, f, e, fn, "ordering the ranks failed");
    if (f->rank == 0) before = 0;
    if (int e = PMPI_Allreduce(&mine, &total, 1, MPI_INT64_T, MPI_SUM, f->comm))
      return file_error(self, f, e, fn, "ordering the ranks failed");
    if (f->rank == 0)
      if (int e = shared_fetch_add(*f, total, &base))
        return file_error(self, f, e, fn, "updating the shared file pointer failed");
    if (int e = PMPI_Bcast(&base, 1, MPI_INT64_T, 0, f->comm))
      return file_error(self, f, e, fn, "ordering the ranks failed");
    pos = base + before;
    break;
  }
  }
  std::int64_t done = 0;
  int rc = MPI_SUCCESS;
  if (converting) {
    if (per > 0 && bytes / per != count)
      return file_error(self, f, MPI_ERR_COUNT, fn, "count=%lld overflows the file's byte count",
                        static_cast<long long>(count));
    std::vector<char> filebuf(static_cast<std::size_t>(bytes));
    if (dir == Dir::Write) {
      if (int e = convert(self, *f, dir, buf, type, count, filebuf.data(), pos, fn)) return e;
      rc = coll ? collective(self, *f, dir, pos * esize, filebuf.data(), bytes, &done, fn)
                : independent(self, *f, dir, pos * esize, filebuf.data(), bytes, &done, fn);
    } else {
      rc = coll ? collective(self, *f, dir, pos * esize, filebuf.data(), bytes, &done, fn)
                : independent(self, *f, dir, pos * esize, filebuf.data(), bytes, &done, fn);
      // Whole elements only: a partly read element at the end of the file is not converted.
      if (rc == MPI_SUCCESS && per > 0 && done / per > 0)
        rc = convert(self, *f, dir, buf, type, done / per, filebuf.data(), pos, fn);
    }
    if (rc != MPI_SUCCESS) return rc;
    if (where == Where::Individual) f->fp = pos + done / esize;
    set_status(status, per > 0 ? done / per * static_cast<std::int64_t>(t->size) : 0);
    return MPI_SUCCESS;
  }
  if (dir == Dir::Write) {
    const char *data = staged.for_write();
    rc = coll ? collective(self, *f, dir, pos * esize, const_cast<char *>(data), bytes, &done, fn)
              : independent(self, *f, dir, pos * esize, const_cast<char *>(data), bytes, &done, fn);
  } else {
    char *data = staged.for_read();
    rc = coll ? collective(self, *f, dir, pos * esize, data, bytes, &done, fn)
              : independent(self, *f, dir, pos * esize, data, bytes, &done, fn);
    if (rc == MPI_SUCCESS) staged.finish_read(done);
  }
  if (rc != MPI_SUCCESS) return rc;
  if (where == Where::Individual) f->fp = pos + done / esize;
  set_status(status, done);
  return MPI_SUCCESS;
}

// ---- requests of the non-blocking forms ------------------------------------------------------
// The access is done when the call is made (collective ones meet the other ranks then, as the
// blocking form does); the request is a generalized request, complete at once, whose status is
// the access's, so MPI_Wait/MPI_Test and friends complete it as usual.

int query_done(void *extra, MPI_Status *status) {
  *status = *static_cast<MPI_Status *>(extra);
  return MPI_SUCCESS;
}
int free_done(void *extra) {
  std::unique_ptr<MPI_Status> own(static_cast<MPI_Status *>(extra));
  return MPI_SUCCESS;
}
int cancel_done(void *, int) {
  return MPI_SUCCESS;
}

int nonblocking(Rank &self, MPI_File fh, Dir dir, Where where, bool coll, std::int64_t offset,
                void *buf, std::int64_t count, MPI_Datatype type, MPI_Request *request,
                const char *fn) {
  if (!request) {
    File *f = file_of(fh);
    return file_error(self, f, MPI_ERR_ARG, fn, "request=NULL");
  }
  auto st = std::make_unique<MPI_Status>();
  set_status(st.get(), 0);
  if (int e = access(self, fh, dir, where, coll, offset, buf, count, type, st.get(), fn)) return e;
  if (int e = PMPI_Grequest_start(query_done, free_done, cancel_done, st.get(), request)) return e;
  st.release(); // free_done owns it now
  return PMPI_Grequest_complete(*request);
}

// ---- split collectives
// ---------------------------------------------------------------------------

int split_begin(Rank &self, MPI_File fh, Dir dir, Where where, std::int64_t offset, void *buf,
                std::int64_t count, MPI_Datatype type, const char *fn) {
  AMPI_FILE_OR_RETURN(self, f, fh, fn)
  if (f->split_active)
    return file_error(self, f, MPI_ERR_OTHER, fn,
                      "a split collective is already active on this file (end it first)");
  MPI_Status st;
  set_status(&st, 0);
  if (int e = access(self, fh, dir, where, true, offset, buf, count, type, &st, fn)) return e;
  f->split_active = true;
  f->split_buf = buf;
  f->split_status = st;
  return MPI_SUCCESS;
}

int split_end(Rank &self, MPI_File fh, const void *buf, MPI_Status *status, const char *fn) {
  AMPI_FILE_OR_RETURN(self, f, fh, fn)
  if (!f->split_active)
    return file_error(self, f, MPI_ERR_OTHER, fn, "no split collective is active on this file");
  if (buf != f->split_buf)
    return file_error(self, f, MPI_ERR_BUFFER, fn, "buf is not the buffer of the _begin call");
  f->split_active = false;
  if (status != MPI_STATUS_IGNORE) *status = f->split_status;
  return MPI_SUCCESS;
}

// Releases what a file holds besides its descriptor: the view's types, the window, the
// communicator.
void release(File &f) {
  if (f.etype != MPI_DATATYPE_NULL && !datatype::predefined(f.etype)) PMPI_Type_free(&f.etype);
  if (f.filetype != MPI_DATATYPE_NULL && !datatype::predefined(f.filetype))
    PMPI_Type_free(&f.filetype);
  if (f.shared_win != MPI_WIN_NULL) PMPI_Win_free(&f.shared_win);
  if (f.comm != MPI_COMM_NULL) PMPI_Comm_free(&f.comm);
  f.magic = 0;
}

} // namespace

// =================================================================================================
// Opening, closing, deleting

extern "C" int PMPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info,
                              MPI_File *fh) {
  static constexpr const char *fn = "MPI_File_open";
  auto self = enter(fn);
  int err = MPI_SUCCESS;
  comm::Comm *c = find_comm(*self, comm, fn, &err);
  if (!c) return err;
  if (c->inter()) return raise(comm, MPI_ERR_COMM, fn, "comm is an intercommunicator");
  if (!fh) return file_error(*self, nullptr, MPI_ERR_ARG, fn, "fh=NULL");
  *fh = MPI_FILE_NULL;
  if (!filename) return file_error(*self, nullptr, MPI_ERR_BAD_FILE, fn, "filename=NULL");
  if (const char *why = amode_problem(amode))
    return file_error(*self, nullptr, MPI_ERR_AMODE, fn, "amode=%d: %s", amode, why);

  auto f = std::make_unique<File>();
  f->path = strip_prefix(filename);
  f->amode = amode;
  f->errhandler = self->io.null_errhandler;
  errhandler_retain(*self, f->errhandler);
  if (int e = PMPI_Comm_dup(comm, &f->comm)) return e;
  PMPI_Comm_set_errhandler(f->comm, MPI_ERRORS_RETURN); // errors of its calls go to the file's
  PMPI_Comm_rank(f->comm, &f->rank);
  PMPI_Comm_size(f->comm, &f->size);

  int flags = (amode & MPI_MODE_RDONLY) ? O_RDONLY : (amode & MPI_MODE_WRONLY) ? O_WRONLY : O_RDWR;
  flags |= O_CLOEXEC;
  // Rank 0 creates the file (MPI_MODE_EXCL is decided once), then the others open it.
  int oserr = 0;
  if (f->rank == 0) {
    const int create =
        ((amode & MPI_MODE_CREATE) ? O_CREAT : 0) | ((amode & MPI_MODE_EXCL) ? O_EXCL : 0);
    const int fd = ::open(f->path.c_str(), flags | create, 0666);
    if (fd < 0)
      oserr = errno;
    else
      f->fd = io::Fd(fd);
  }
  PMPI_Bcast(&oserr, 1, MPI_INT, 0, f->comm);
  if (oserr == 0 && f->rank != 0) {
    const int fd = ::open(f->path.c_str(), flags, 0666);
    if (fd < 0)
      oserr = errno;
    else
      f->fd = io::Fd(fd);
  }
  PMPI_Allreduce(MPI_IN_PLACE, &oserr, 1, MPI_INT, MPI_MAX, f->comm);
  if (oserr != 0) {
    errhandler_release(*self, f->errhandler);
    release(*f);
    return os_error(*self, nullptr, oserr, fn, "open", filename);
  }
  apply_hints(*f, info);
  if (int e = choose_aggregators(*f, f->cb_nodes)) {
    errhandler_release(*self, f->errhandler);
    release(*f);
    return file_error(*self, nullptr, e, fn, "choosing aggregators failed");
  }
  if (int e = PMPI_Win_create(&f->shared_fp, f->rank == 0 ? sizeof(std::int64_t) : 0,
                              sizeof(std::int64_t), MPI_INFO_NULL, f->comm, &f->shared_win)) {
    errhandler_release(*self, f->errhandler);
    release(*f);
    return file_error(*self, nullptr, e, fn, "creating the shared file pointer failed");
  }
  if (amode & MPI_MODE_APPEND) {
    // Both pointers start at the end of the file.
    struct stat st {};
    if (::fstat(f->fd.get(), &st) == 0) f->fp = st.st_size;
    if (f->rank == 0) f->shared_fp = f->fp;
  }
  PMPI_Barrier(f->comm); // the shared pointer is set before anyone uses it
  *fh = f.release();     // the program owns it until MPI_File_close
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_File_open)

extern "C" int PMPI_File_close(MPI_File *fh) {
  static constexpr const char *fn = "MPI_File_close";
  auto self = enter(fn);
  if (!fh) return file_error(*self, nullptr, MPI_ERR_ARG, fn, "fh=NULL");
  AMPI_FILE_OR_RETURN(*self, f, *fh, fn)
  std::unique_ptr<File> own(f);
  *fh = MPI_FILE_NULL;
  // Everyone's accesses are done before the file goes (and before MPI_MODE_DELETE_ON_CLOSE).
  PMPI_Barrier(f->comm);
  const int cerr = f->fd.reset();
  int derr = 0;
  if ((f->amode & MPI_MODE_DELETE_ON_CLOSE) && f->rank == 0 && ::unlink(f->path.c_str()) != 0)
    derr = errno;
  PMPI_Barrier(f->comm);
  const MPI_Errhandler eh = f->errhandler;
  release(*f);
  if (cerr || derr) {
    const int e = cerr ? cerr : derr;
    char detail[512];
    std::snprintf(detail, sizeof detail, "%s(\"%s\"): %s", cerr ? "close" : "unlink",
                  f->path.c_str(), std::strerror(e));
    const int rc =
        raise_eh(*self, eh, MPI_FILE_NULL, MPI_COMM_SELF, io::error_class(e), fn, detail);
    errhandler_release(*self, eh);
    return rc;
  }
  errhandler_release(*self, eh);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_File_close)

extern "C" int PMPI_File_delete(const char *filename, MPI_Info) {
  static constexpr const char *fn = "MPI_File_delete";
  auto self = enter(fn);
  if (!filename) return file_error(*self, nullptr, MPI_ERR_BAD_FILE, fn, "filename=NULL");
  const std::string path = strip_prefix(filename);
  if (::unlink(path.c_str()) != 0) return os_error(*self, nullptr, errno, fn, "unlink", filename);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_File_delete)

// =================================================================================================
// Size, group, mode, hints, consistency

extern "C" int PMPI_File_set_size(MPI_File fh, MPI_Offset size) {
  static constexpr const char *fn = "MPI_File_set_size";
  auto self = enter(fn);
  AMPI_FILE_OR_RETURN(*self, f, fh, fn)
  if (size < 0) return file_error(*self, f, MPI_ERR_ARG, fn, "size=%lld is negative", size);
  if (f->amode & MPI_MODE_RDONLY)
    return file_error(*self, f, MPI_ERR_READ_ONLY, fn, "the file was opened MPI_MODE_RDONLY");
  if (f->amode & MPI_MODE_SEQUENTIAL)
    return file_error(*self, f, MPI_ERR_UNSUPPORTED_OPERATION, fn,
                      "the file was opened MPI_MODE_SEQUENTIAL");
  PMPI_Barrier(f->comm);
  int oserr = 0;
  if (f->rank == 0 && ::ftruncate(f->fd.get(), static_cast<off_t>(size)) != 0) oserr = errno;
  PMPI_Bcast(&oserr, 1, MPI_INT, 0, f->comm);
  if (oserr) return os_error(*self, f, oserr, fn, "ftruncate", f->path.c_str());
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_File_set_size)

extern "C" int PMPI_File_preallocate(MPI_File fh, MPI_Offset size) {
  static constexpr const char *fn = "MPI_File_preallocate";
  auto self = enter(fn);
  AMPI_FILE_OR_RETURN(*self, f, fh, fn)
  if (size < 0) return file_error(*self, f, MPI_ERR_ARG, fn, "size=%lld is negative", size);
  if (f->amode & MPI_MODE_RDONLY)
    return file_error(*self, f, MPI_ERR_READ_ONLY, fn, "the file was opened MPI_MODE_RDONLY");
  if (f->amode & MPI_MODE_SEQUENTIAL)
    return file_error(*self, f, MPI_ERR_UNSUPPORTED_OPERATION, fn,
                      "the file was opened MPI_MODE_SEQUENTIAL");
  PMPI_Barrier(f->comm);
  int oserr = 0;
  if (f->rank == 0 && size > 0) oserr = ::posix_fallocate(f->fd.get(), 0, static_cast<off_t>(size));
  PMPI_Bcast(&oserr, 1, MPI_INT, 0, f->comm);
  if (oserr) return os_error(*self, f, oserr, fn, "posix_fallocate", f->path.c_str());
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_File_preallocate)

extern "C" int PMPI_File_get_size(MPI_File fh, MPI_Offset *size) {
  static constexpr const char *fn = "MPI_File_get_size";
  auto self = enter(fn);
  AMPI_FILE_OR_RETURN(*self, f, fh, fn)
  if (!size) return file_error(*self, f, MPI_ERR_ARG, fn, "size=NULL");
  struct stat st {};
  if (::fstat(f->fd.get(), &st) != 0)
    return os_error(*self, f, errno, fn, "fstat", f->path.c_str());
  *size = st.st_size;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_File_get_size)

extern "C" int PMPI_File_get_group(MPI_File fh, MPI_Group *group) {
  static constexpr const char *fn = "MPI_File_get_group";
  auto self = enter(fn);
  AMPI_FILE_OR_RETURN(*self, f, fh, fn)
  if (!group) return file_error(*self, f, MPI_ERR_ARG, fn, "group=NULL");
  return PMPI_Comm_group(f->comm, group);
}
AMPI_PMPI_ALIAS(MPI_File_get_group)

extern "C" int PMPI_File_get_amode(MPI_File fh, int *amode) {
  static constexpr const char *fn = "MPI_File_get_amode";
  auto self = enter(fn);
  AMPI_FILE_OR_RETURN(*self, f, fh, fn)
  if (!amode) return file_error(*self, f, MPI_ERR_ARG, fn, "amode=NULL");
  *amode = f->amode;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_File_get_amode)

extern "C" int PMPI_File_set_info(MPI_File fh, MPI_Info info) {
  static constexpr const char *fn = "MPI_File_set_info";
  auto self = enter(fn);
  AMPI_FILE_OR_RETURN(*self, f, fh, fn)
  if (int e = change_hints(*f, info))
    return file_error(*self, f, e, fn, "choosing aggregators failed");
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_File_set_info)

extern "C" int PMPI_File_get_info(MPI_File fh, MPI_Info *info_used) {
  static constexpr const char *fn = "MPI_File_get_info";
  auto self = enter(fn);
  AMPI_FILE_OR_RETURN(*self, f, fh, fn)
  if (!info_used) return file_error(*self, f, MPI_ERR_ARG, fn, "info_used=NULL");
  if (int e = PMPI_Info_create(info_used)) return e;
  const auto put = [&](const char *key, long long v) {
    const std::string s = std::to_string(v);
    PMPI_Info_set(*info_used, key, s.c_str());
  };
  put("cb_nodes", f->cb_nodes);
  put("cb_buffer_size", f->cb_buffer_size);
  if (f->striping_factor > 0) put("striping_factor", f->striping_factor);
  if (f->striping_unit > 0) put("striping_unit", f->striping_unit);
  PMPI_Info_set(*info_used, "romio_cb_write", "enable");
  PMPI_Info_set(*info_used, "romio_cb_read", "enable");
  PMPI_Info_set(*info_used, "filename", f->path.c_str());
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_File_get_info)

extern "C" int PMPI_File_sync(MPI_File fh) {
  static constexpr const char *fn = "MPI_File_sync";
  auto self = enter(fn);
  AMPI_FILE_OR_RETURN(*self, f, fh, fn)
  int oserr = 0;
  if (!(f->amode & MPI_MODE_RDONLY) && ::fsync(f->fd.get()) != 0) oserr = errno;
  PMPI_Barrier(f->comm);
  if (oserr) return os_error(*self, f, oserr, fn, "fsync", f->path.c_str());
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_File_sync)

extern "C" int PMPI_File_set_atomicity(MPI_File fh, int flag) {
  static constexpr const char *fn = "MPI_File_set_atomicity";
  auto self = enter(fn);
  AMPI_FILE_OR_RETURN(*self, f, fh, fn)
  PMPI_Barrier(f->comm);
  f->atomic = flag != 0;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_File_set_atomicity)

extern "C" int PMPI_File_get_atomicity(MPI_File fh, int *flag) {
  static constexpr const char *fn = "MPI_File_get_atomicity";
  auto self = enter(fn);
  AMPI_FILE_OR_RETURN(*self, f, fh, fn)
  if (!flag) return file_error(*self, f, MPI_ERR_ARG, fn, "flag=NULL");
  *flag = f->atomic ? 1 : 0;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_File_get_atomicity)

// =================================================================================================
// Error handlers

extern "C" int PMPI_File_create_errhandler(MPI_File_errhandler_function *function,
                                           MPI_Errhandler *errhandler) {
  static constexpr const char *fn = "MPI_File_create_errhandler";
  auto self = enter_any(fn);
  if (!function || !errhandler)
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "function or errhandler is NULL");
  *errhandler =
      errhandler_insert(*self, reinterpret_cast<MPI_Comm_errhandler_function *>(function));
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_File_create_errhandler)

extern "C" int PMPI_File_set_errhandler(MPI_File fh, MPI_Errhandler errhandler) {
  static constexpr const char *fn = "MPI_File_set_errhandler";
  auto self = enter(fn);
  MPI_Errhandler *slot = nullptr;
  File *f = nullptr;
  if (fh == MPI_FILE_NULL) {
    slot = &self->io.null_errhandler;
  } else {
    f = file_of(fh);
    if (!f) return file_error(*self, nullptr, MPI_ERR_FILE, fn, "fh is not an open file");
    slot = &f->errhandler;
  }
  if (!errhandler_valid(*self, errhandler))
    return file_error(*self, f, MPI_ERR_ARG, fn, "errhandler is not a valid error handler");
  errhandler_retain(*self, errhandler);
  errhandler_release(*self, *slot);
  *slot = errhandler;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_File_set_errhandler)

extern "C" int PMPI_File_get_errhandler(MPI_File fh, MPI_Errhandler *errhandler) {
  static constexpr const char *fn = "MPI_File_get_errhandler";
  auto self = enter(fn);
  File *f = nullptr;
  if (fh != MPI_FILE_NULL) {
    f = file_of(fh);
    if (!f) return file_error(*self, nullptr, MPI_ERR_FILE, fn, "fh is not an open file");
  }
  if (!errhandler) return file_error(*self, f, MPI_ERR_ARG, fn, "errhandler=NULL");
  *errhandler = f ? f->errhandler : self->io.null_errhandler;
  errhandler_retain(*self, *errhandler);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_File_get_errhandler)

extern "C" int PMPI_File_call_errhandler(MPI_File fh, int errorcode) {
  static constexpr const char *fn = "MPI_File_call_errhandler";
  auto self = enter(fn);
  File *f = nullptr;
  if (fh != MPI_FILE_NULL) {
    f = file_of(fh);
    if (!f) return file_error(*self, nullptr, MPI_ERR_FILE, fn, "fh is not an open file");
  }
  file_error(*self, f, errorcode, fn, "error raised by the program");
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_File_call_errhandler)

// =================================================================================================
// Views and file pointers

extern "C" int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype,
                                  MPI_Datatype filetype, const char *datarep, MPI_Info info) {
  static constexpr const char *fn = "MPI_File_set_view";
  auto self = enter(fn);
  AMPI_FILE_OR_RETURN(*self, f, fh, fn)
  if (!datarep) return file_error(*self, f, MPI_ERR_ARG, fn, "datarep=NULL");
  const std::string rep = datarep;
  std::optional<io::Datarep> user; // a registered representation
  if (rep != "native" && rep != "internal" && rep != "external32") {
    const auto it = self->io.datareps.find(rep);
    if (it == self->io.datareps.end())
      return file_error(*self, f, MPI_ERR_UNSUPPORTED_DATAREP, fn,
                        "datarep \"%s\" is neither \"native\", \"internal\", \"external32\" nor "
                        "registered by this rank (MPI_Register_datarep)",
                        datarep);
    user = it->second;
  }
  if (disp == MPI_DISPLACEMENT_CURRENT) {
    if (!(f->amode & MPI_MODE_SEQUENTIAL))
      return file_error(*self, f, MPI_ERR_ARG, fn,
                        "disp=MPI_DISPLACEMENT_CURRENT needs MPI_MODE_SEQUENTIAL");
  } else if (disp < 0) {
    return file_error(*self, f, MPI_ERR_ARG, fn, "disp=%lld is negative", disp);
  }
  int e = MPI_SUCCESS;
  const datatype::Type *et = find_type(*self, etype, f->comm, fn, &e);
  if (!et) return file_error(*self, f, MPI_ERR_TYPE, fn, "etype is not a valid committed datatype");
  const datatype::Type *ft = find_type(*self, filetype, f->comm, fn, &e);
  if (!ft)
    return file_error(*self, f, MPI_ERR_TYPE, fn, "filetype is not a valid committed datatype");
  if (et->size == 0) return file_error(*self, f, MPI_ERR_TYPE, fn, "etype has size 0");
  if (ft->size % et->size != 0)
    return file_error(*self, f, MPI_ERR_TYPE, fn,
                      "filetype's size %zu is not a multiple of etype's size %zu", ft->size,
                      et->size);
  if (ft->size > 0 && ft->extent <= 0)
    return file_error(*self, f, MPI_ERR_TYPE, fn, "filetype's extent is not positive");
  if (rep == "external32") {
    // Files in external32 are read and written through MPI_Pack_external; ampi maps the view in
    // native sizes, so types whose external32 size differs are refused.
    MPI_Aint es = 0, fs = 0;
    PMPI_Pack_external_size("external32", 1, etype, &es);
    PMPI_Pack_external_size("external32", 1, filetype, &fs);
    if (es != static_cast<MPI_Aint>(et->size) || fs != static_cast<MPI_Aint>(ft->size))
      return file_error(*self, f, MPI_ERR_UNSUPPORTED_DATAREP, fn,
                        "external32 sizes of etype/filetype differ from their native sizes");
  }
  if (f->split_active)
    return file_error(*self, f, MPI_ERR_OTHER, fn, "a split collective is active on this file");
  // Flattening may fail for huge extents only by exhausting memory, which ends the job anyway.
  std::vector<Segment> runs = io::flatten(*ft);
  // A user datarep: the view's layout in the file is its native layout scaled by the ratio of
  // file to native bytes of the etype's predefined type (a vector of ints widened to 8 bytes
  // strides twice as far); the filetype must have the same ratio.
  std::int64_t num = 1, den = 1, ft_extent = ft->extent;
  if (user) {
    if (int e2 = rep_elem_bytes(*self, f, *user, *et, &num, fn)) return e2;
    den = static_cast<std::int64_t>(et->size);
    std::int64_t ff = 0;
    if (int e2 = rep_elem_bytes(*self, f, *user, *ft, &ff, fn)) return e2;
    if (ft->size > 0 && ff * den != static_cast<std::int64_t>(ft->size) * num)
      return file_error(*self, f, MPI_ERR_UNSUPPORTED_DATAREP, fn,
                        "datarep \"%s\": the filetype's file bytes per native byte differ from "
                        "the etype's",
                        datarep);
    const std::int64_t g = std::gcd(num, den);
    num /= g;
    den /= g;
    auto scale = [&](std::int64_t v, std::int64_t *out) {
      if (v * num % den != 0) return false;
      *out = v * num / den;
      return true;
    };
    bool ok = scale(ft_extent, &ft_extent);
    for (Segment &r : runs)
      ok = ok && scale(r.off, &r.off) && scale(r.len, &r.len);
    if (!ok)
      return file_error(*self, f, MPI_ERR_UNSUPPORTED_DATAREP, fn,
                        "datarep \"%s\": the filetype's displacements do not scale to whole file "
                        "bytes (%lld/%lld)",
                        datarep, static_cast<long long>(num), static_cast<long long>(den));
  }
  std::int64_t shared_now = 0;
  if (disp == MPI_DISPLACEMENT_CURRENT) {
    if (int e2 = shared_fetch_add(*f, 0, &shared_now, MPI_NO_OP))
      return file_error(*self, f, e2, fn, "reading the shared file pointer failed");
    disp = f->view.byte_offset(shared_now * f->view.etype_size);
  }
  PMPI_Barrier(f->comm); // everyone has read the old shared pointer
  if (f->etype != MPI_DATATYPE_NULL && !datatype::predefined(f->etype)) PMPI_Type_free(&f->etype);
  if (f->filetype != MPI_DATATYPE_NULL && !datatype::predefined(f->filetype))
    PMPI_Type_free(&f->filetype);
  f->etype = etype;
  f->filetype = filetype;
  if (!datatype::predefined(etype)) PMPI_Type_dup(etype, &f->etype);
  if (!datatype::predefined(filetype)) PMPI_Type_dup(filetype, &f->filetype);
  f->view.disp = disp;
  f->etype_native_size = static_cast<std::int64_t>(et->size);
  f->view.etype_size = f->etype_native_size * num / den;
  f->view.set_filetype(std::move(runs), ft_extent);
  f->datarep = rep;
  f->user_rep = std::move(user);
  f->file_num = num;
  f->file_den = den;
  f->fp = 0;
  if (f->rank == 0) {
    std::int64_t old = 0;
    shared_fetch_add(*f, 0, &old, MPI_REPLACE);
  }
  PMPI_Barrier(f->comm);
  if (int e2 = change_hints(*f, info))
    return file_error(*self, f, e2, fn, "choosing aggregators failed");
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_File_set_view)

extern "C" int PMPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype,
                                  MPI_Datatype *filetype, char *datarep) {
  static constexpr const char *fn = "MPI_File_get_view";
  auto self = enter(fn);
  AMPI_FILE_OR_RETURN(*self, f, fh, fn)
  if (!disp || !etype || !filetype || !datarep)
    return file_error(*self, f, MPI_ERR_ARG, fn, "disp, etype, filetype or datarep is NULL");
  *disp = f->view.disp;
  *etype = f->etype;
  *filetype = f->filetype;
  // Derived types come back as new handles the caller frees.
  if (!datatype::predefined(f->etype)) PMPI_Type_dup(f->etype, etype);
  if (!datatype::predefined(f->filetype)) PMPI_Type_dup(f->filetype, filetype);
  std::snprintf(datarep, MPI_MAX_DATAREP_STRING, "%s", f->datarep.c_str());
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_File_get_view)

extern "C" int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence) {
  static constexpr const char *fn = "MPI_File_seek";
  auto self = enter(fn);
  AMPI_FILE_OR_RETURN(*self, f, fh, fn)
  if (f->amode & MPI_MODE_SEQUENTIAL)
    return file_error(*self, f, MPI_ERR_UNSUPPORTED_OPERATION, fn,
                      "the file was opened MPI_MODE_SEQUENTIAL");
  std::int64_t base = 0;
  if (whence == MPI_SEEK_SET) {
    base = 0;
  } else if (whence == MPI_SEEK_CUR) {
    base = f->fp;
  } else if (whence == MPI_SEEK_END) {
    struct stat st {};
    if (::fstat(f->fd.get(), &st) != 0)
      return os_error(*self, f, errno, fn, "fstat", f->path.c_str());
    const std::int64_t pos = f->view.position_at_or_after(st.st_size);
    base = (pos + f->view.etype_size - 1) / f->view.etype_size;
  } else {
    return file_error(*self, f, MPI_ERR_ARG, fn, "whence=%d is not an MPI_SEEK_* value", whence);
  }
  if (base + offset < 0)
    return file_error(*self, f, MPI_ERR_ARG, fn, "the new position %lld is negative",
                      static_cast<long long>(base + offset));
  f->fp = base + offset;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_File_seek)

extern "C" int PMPI_File_get_position(MPI_File fh, MPI_Offset *offset) {
  static constexpr const char *fn = "MPI_File_get_position";
  auto self = enter(fn);
  AMPI_FILE_OR_RETURN(*self, f, fh, fn)
  if (!offset) return file_error(*self, f, MPI_ERR_ARG, fn, "offset=NULL");
  *offset = f->fp;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_File_get_position)

extern "C" int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp) {
  static constexpr const char *fn = "MPI_File_get_byte_offset";
  auto self = enter(fn);
  AMPI_FILE_OR_RETURN(*self, f, fh, fn)
  if (!disp) return file_error(*self, f, MPI_ERR_ARG, fn, "disp=NULL");
  if (offset < 0) return file_error(*self, f, MPI_ERR_ARG, fn, "offset=%lld is negative", offset);
  *disp = f->view.byte_offset(offset * f->view.etype_size);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_File_get_byte_offset)

extern "C" int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence) {
  static constexpr const char *fn = "MPI_File_seek_shared";
  auto self = enter(fn);
  AMPI_FILE_OR_RETURN(*self, f, fh, fn)
  std::int64_t cur = 0;
  PMPI_Barrier(f->comm); // every rank's earlier shared accesses are done
  if (whence == MPI_SEEK_SET) {
    cur = 0;
  } else if (whence == MPI_SEEK_CUR) {
    if (int e = shared_fetch_add(*f, 0, &cur, MPI_NO_OP))
      return file_error(*self, f, e, fn, "reading the shared file pointer failed");
  } else if (whence == MPI_SEEK_END) {
    struct stat st {};
    if (::fstat(f->fd.get(), &st) != 0)
      return os_error(*self, f, errno, fn, "fstat", f->path.c_str());
    const std::int64_t pos = f->view.position_at_or_after(st.st_size);
    cur = (pos + f->view.etype_size - 1) / f->view.etype_size;
  } else {
    return file_error(*self, f, MPI_ERR_ARG, fn, "whence=%d is not an MPI_SEEK_* value", whence);
  }
  if (cur + offset < 0)
    return file_error(*self, f, MPI_ERR_ARG, fn, "the new position %lld is negative",
                      static_cast<long long>(cur + offset));
  PMPI_Barrier(f->comm); // everyone has read the pointer before rank 0 changes it
  if (f->rank == 0) {
    std::int64_t old = 0;
    if (int e = shared_fetch_add(*f, cur + offset, &old, MPI_REPLACE))
      return file_error(*self, f, e, fn, "setting the shared file pointer failed");
  }
  PMPI_Barrier(f->comm);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_File_seek_shared)

extern "C" int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset) {
  static constexpr const char *fn = "MPI_File_get_position_shared";
  auto self = enter(fn);
  AMPI_FILE_OR_RETURN(*self, f, fh, fn)
  if (!offset) return file_error(*self, f, MPI_ERR_ARG, fn, "offset=NULL");
  std::int64_t cur = 0;
  if (int e = shared_fetch_add(*f, 0, &cur, MPI_NO_OP))
    return file_error(*self, f, e, fn, "reading the shared file pointer failed");
  *offset = cur;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_File_get_position_shared)

extern "C" int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent) {
  static constexpr const char *fn = "MPI_File_get_type_extent";
  auto self = enter(fn);
  AMPI_FILE_OR_RETURN(*self, f, fh, fn)
  if (!extent) return file_error(*self, f, MPI_ERR_ARG, fn, "extent=NULL");
  int e = MPI_SUCCESS;
  const datatype::Type *t = find_type(*self, datatype, f->comm, fn, &e);
  if (!t) return file_error(*self, f, MPI_ERR_TYPE, fn, "datatype is not a valid datatype");
  if (f->datarep == "external32") return PMPI_Pack_external_size("external32", 1, datatype, extent);
  if (f->user_rep) {
    std::int64_t per = 0;
    if (int e2 = rep_elem_bytes(*self, f, *f->user_rep, *t, &per, fn)) return e2;
    // The extent scaled as the data is (a resized type's padding grows with its elements).
    *extent = t->size ? static_cast<MPI_Aint>(t->extent * per / static_cast<std::int64_t>(t->size))
                      : t->extent;
    return MPI_SUCCESS;
  }
  *extent = t->extent;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_File_get_type_extent)

namespace {
// Registers `rep` for the calling rank (MPI-3.1 13.5.3): the name must be new to the rank and
// not one of the predefined representations (MPI_ERR_DUP_DATAREP), the extent function given.
int register_datarep(Rank &self, const char *name, io::Datarep rep, const char *fn) {
  if (!name) return file_error(self, nullptr, MPI_ERR_ARG, fn, "datarep=NULL");
  const std::size_t len = std::strlen(name);
  if (len == 0 || len >= MPI_MAX_DATAREP_STRING)
    return file_error(self, nullptr, MPI_ERR_ARG, fn,
                      "datarep \"%.40s\" has %zu characters (1 to MPI_MAX_DATAREP_STRING-1 = %d)",
                      name, len, MPI_MAX_DATAREP_STRING - 1);
  if (!rep.extent) return file_error(self, nullptr, MPI_ERR_ARG, fn, "dtype_file_extent_fn=NULL");
  const std::string key = name;
  if (key == "native" || key == "internal" || key == "external32" || self.io.datareps.count(key))
    return file_error(self, nullptr, MPI_ERR_DUP_DATAREP, fn, "datarep \"%s\" is already defined",
                      name);
  rep.name = key;
  self.io.datareps.emplace(key, std::move(rep));
  return MPI_SUCCESS;
}
} // namespace

extern "C" int PMPI_Register_datarep(const char *datarep,
                                     MPI_Datarep_conversion_function *read_conversion_fn,
                                     MPI_Datarep_conversion_function *write_conversion_fn,
                                     MPI_Datarep_extent_function *dtype_file_extent_fn,
                                     void *extra_state) {
  static constexpr const char *fn = "MPI_Register_datarep";
  auto self = enter(fn);
  io::Datarep rep;
  // MPI_CONVERSION_FN_NULL is recognized by its address: no conversion.
  rep.read = read_conversion_fn == MPI_CONVERSION_FN_NULL ? nullptr : read_conversion_fn;
  rep.write = write_conversion_fn == MPI_CONVERSION_FN_NULL ? nullptr : write_conversion_fn;
  rep.extent = dtype_file_extent_fn;
  rep.extra = extra_state;
  return register_datarep(*self, datarep, std::move(rep), fn);
}
AMPI_PMPI_ALIAS(MPI_Register_datarep)

extern "C" int PMPI_Register_datarep_c(const char *datarep,
                                       MPI_Datarep_conversion_function_c *read_conversion_fn,
                                       MPI_Datarep_conversion_function_c *write_conversion_fn,
                                       MPI_Datarep_extent_function *dtype_file_extent_fn,
                                       void *extra_state) {
  static constexpr const char *fn = "MPI_Register_datarep_c";
  auto self = enter(fn);
  io::Datarep rep;
  rep.large = true;
  rep.read_c = read_conversion_fn == MPI_CONVERSION_FN_NULL_C ? nullptr : read_conversion_fn;
  rep.write_c = write_conversion_fn == MPI_CONVERSION_FN_NULL_C ? nullptr : write_conversion_fn;
  rep.extent = dtype_file_extent_fn;
  rep.extra = extra_state;
  return register_datarep(*self, datarep, std::move(rep), fn);
}
AMPI_PMPI_ALIAS(MPI_Register_datarep_c)

// =================================================================================================
// Reads and writes. Every flavour is one call of access() (or nonblocking(), split_begin()).

#define AMPI_FILE_RW(NAME, DIR, WHERE, COLL)                                                       \
  extern "C" int PMPI_File_##NAME(MPI_File fh, AMPI_BUFQ void *buf, int count,                     \
                                  MPI_Datatype datatype, MPI_Status *status) {                     \
    static constexpr const char *fn = "MPI_File_" #NAME;                                           \
    auto self = enter(fn);                                                                         \
    return access(*self, fh, DIR, WHERE, COLL, 0, const_cast<void *>(buf), count, datatype,        \
                  status, fn);                                                                     \
  }                                                                                                \
  AMPI_PMPI_ALIAS(MPI_File_##NAME)
#define AMPI_FILE_RW_AT(NAME, DIR, COLL)                                                           \
  extern "C" int PMPI_File_##NAME(MPI_File fh, MPI_Offset offset, AMPI_BUFQ void *buf, int count,  \
                                  MPI_Datatype datatype, MPI_Status *status) {                     \
    static constexpr const char *fn = "MPI_File_" #NAME;                                           \
    auto self = enter(fn);                                                                         \
    return access(*self, fh, DIR, Where::Explicit, COLL, offset, const_cast<void *>(buf), count,   \
                  datatype, status, fn);                                                           \
  }                                                                                                \
  AMPI_PMPI_ALIAS(MPI_File_##NAME)
#define AMPI_FILE_IRW(NAME, DIR, WHERE, COLL)                                                      \
  extern "C" int PMPI_File_##NAME(MPI_File fh, AMPI_BUFQ void *buf, int count,                     \
                                  MPI_Datatype datatype, MPI_Request *request) {                   \
    static constexpr const char *fn = "MPI_File_" #NAME;                                           \
    auto self = enter(fn);                                                                         \
    return nonblocking(*self, fh, DIR, WHERE, COLL, 0, const_cast<void *>(buf), count, datatype,   \
                       request, fn);                                                               \
  }                                                                                                \
  AMPI_PMPI_ALIAS(MPI_File_##NAME)
#define AMPI_FILE_IRW_AT(NAME, DIR, COLL)                                                          \
  extern "C" int PMPI_File_##NAME(MPI_File fh, MPI_Offset offset, AMPI_BUFQ void *buf, int count,  \
                                  MPI_Datatype datatype, MPI_Request *request) {                   \
    static constexpr const char *fn = "MPI_File_" #NAME;                                           \
    auto self = enter(fn);                                                                         \
    return nonblocking(*self, fh, DIR, Where::Explicit, COLL, offset, const_cast<void *>(buf),     \
                       count, datatype, request, fn);                                              \
  }                                                                                                \
  AMPI_PMPI_ALIAS(MPI_File_##NAME)

#define AMPI_BUFQ
AMPI_FILE_RW(read, Dir::Read, Where::Individual, false)
AMPI_FILE_RW(read_all, Dir::Read, Where::Individual, true)
AMPI_FILE_RW(read_shared, Dir::Read, Where::Shared, false)
AMPI_FILE_RW(read_ordered, Dir::Read, Where::Ordered, true)
AMPI_FILE_RW_AT(read_at, Dir::Read, false)
AMPI_FILE_RW_AT(read_at_all, Dir::Read, true)
AMPI_FILE_IRW(iread, Dir::Read, Where::Individual, false)
AMPI_FILE_IRW(iread_all, Dir::Read, Where::Individual, true)
AMPI_FILE_IRW(iread_shared, Dir::Read, Where::Shared, false)
AMPI_FILE_IRW_AT(iread_at, Dir::Read, false)
AMPI_FILE_IRW_AT(iread_at_all, Dir::Read, true)
#undef AMPI_BUFQ
#define AMPI_BUFQ const
AMPI_FILE_RW(write, Dir::Write, Where::Individual, false)
AMPI_FILE_RW(write_all, Dir::Write, Where::Individual, true)
AMPI_FILE_RW(write_shared, Dir::Write, Where::Shared, false)
AMPI_FILE_RW(write_ordered, Dir::Write, Where::Ordered, true)
AMPI_FILE_RW_AT(write_at, Dir::Write, false)
AMPI_FILE_RW_AT(write_at_all, Dir::Write, true)
AMPI_FILE_IRW(iwrite, Dir::Write, Where::Individual, false)
AMPI_FILE_IRW(iwrite_all, Dir::Write, Where::Individual, true)
AMPI_FILE_IRW(iwrite_shared, Dir::Write, Where::Shared, false)
AMPI_FILE_IRW_AT(iwrite_at, Dir::Write, false)
AMPI_FILE_IRW_AT(iwrite_at_all, Dir::Write, true)
#undef AMPI_BUFQ

// Split collectives: the access is done by _begin; _end hands back its status.
#define AMPI_FILE_SPLIT(NAME, DIR, WHERE, BUFQ)                                                    \
  extern "C" int PMPI_File_##NAME##_begin(MPI_File fh, BUFQ void *buf, int count,                  \
                                          MPI_Datatype datatype) {                                 \
    static constexpr const char *fn = "MPI_File_" #NAME "_begin";                                  \
    auto self = enter(fn);                                                                         \
    return split_begin(*self, fh, DIR, WHERE, 0, const_cast<void *>(buf), count, datatype, fn);    \
  }                                                                                                \
  AMPI_PMPI_ALIAS(MPI_File_##NAME##_begin)                                                         \
  extern "C" int PMPI_File_##NAME##_end(MPI_File fh, BUFQ void *buf, MPI_Status *status) {         \
    static constexpr const char *fn = "MPI_File_" #NAME "_end";                                    \
    auto self = enter(fn);                                                                         \
    return split_end(*self, fh, buf, status, fn);                                                  \
  }                                                                                                \
  AMPI_PMPI_ALIAS(MPI_File_##NAME##_end)

AMPI_FILE_SPLIT(read_all, Dir::Read, Where::Individual, )
AMPI_FILE_SPLIT(write_all, Dir::Write, Where::Individual, const)
AMPI_FILE_SPLIT(read_ordered, Dir::Read, Where::Ordered, )
AMPI_FILE_SPLIT(write_ordered, Dir::Write, Where::Ordered, const)

#define AMPI_FILE_SPLIT_AT(NAME, DIR, BUFQ)                                                        \
  extern "C" int PMPI_File_##NAME##_begin(MPI_File fh, MPI_Offset offset, BUFQ void *buf,          \
                                          int count, MPI_Datatype datatype) {                      \
    static constexpr const char *fn = "MPI_File_" #NAME "_begin";                                  \
    auto self = enter(fn);                                                                         \
    return split_begin(*self, fh, DIR, Where::Explicit, offset, const_cast<void *>(buf), count,    \
                       datatype, fn);                                                              \
  }                                                                                                \
  AMPI_PMPI_ALIAS(MPI_File_##NAME##_begin)                                                         \
  extern "C" int PMPI_File_##NAME##_end(MPI_File fh, BUFQ void *buf, MPI_Status *status) {         \
    static constexpr const char *fn = "MPI_File_" #NAME "_end";                                    \
    auto self = enter(fn);                                                                         \
    return split_end(*self, fh, buf, status, fn);                                                  \
  }                                                                                                \
  AMPI_PMPI_ALIAS(MPI_File_##NAME##_end)

AMPI_FILE_SPLIT_AT(read_at_all, Dir::Read, )
AMPI_FILE_SPLIT_AT(write_at_all, Dir::Write, const)
