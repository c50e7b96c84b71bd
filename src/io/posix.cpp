// src/io/posix.cpp — the POSIX calls under MPI-IO (see posix.hpp).
#include "io/posix.hpp"

#include <mpi.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

namespace ampi::io {

int error_class(int err) noexcept {
  switch (err) {
  case ENOENT:
    return MPI_ERR_NO_SUCH_FILE;
  case EACCES:
  case EPERM:
    return MPI_ERR_ACCESS;
  case EEXIST:
    return MPI_ERR_FILE_EXISTS;
  case EROFS:
    return MPI_ERR_READ_ONLY;
  case ENOSPC:
    return MPI_ERR_NO_SPACE;
  case EDQUOT:
    return MPI_ERR_QUOTA;
  case ENAMETOOLONG:
  case EISDIR:
  case ENOTDIR:
  case ELOOP:
    return MPI_ERR_BAD_FILE;
  case ETXTBSY:
    return MPI_ERR_FILE_IN_USE;
  case ENOMEM:
    return MPI_ERR_NO_MEM;
  default:
    return MPI_ERR_IO;
  }
}

int Fd::reset() noexcept {
  if (fd_ < 0) return 0;
  const int r = ::close(fd_);
  fd_ = -1;
  return r == 0 ? 0 : errno;
}

int pwrite_all(int fd, const void *buf, std::size_t len, std::int64_t off) noexcept {
  const char *p = static_cast<const char *>(buf);
  while (len > 0) {
    const ssize_t n = ::pwrite(fd, p, len, static_cast<off_t>(off));
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return ENOSPC;
    p += n;
    len -= static_cast<std::size_t>(n);
    off += n;
  }
  return 0;
}

int pread_all(int fd, void *buf, std::size_t len, std::int64_t off, std::size_t *got) noexcept {
  char *p = static_cast<char *>(buf);
  std::size_t done = 0;
  while (done < len) {
    const ssize_t n = ::pread(fd, p + done, len - done, static_cast<off_t>(off) + done);
    if (n < 0) {
      if (errno == EINTR) continue;
      *got = done;
      return errno;
    }
    if (n == 0) break; // end of file
    done += static_cast<std::size_t>(n);
  }
  *got = done;
  return 0;
}

std::vector<Run> runs_of(std::vector<Part> parts) {
  std::stable_sort(parts.begin(), parts.end(),
                   [](const Part &x, const Part &y) { return x.off < y.off; });
  std::vector<Run> runs;
  std::int64_t end = -1;
  for (const Part &p : parts) {
    if (p.len == 0) continue;
    if (runs.empty() || p.off != end) runs.push_back({p.off, {}});
    runs.back().parts.push_back({p.buf, p.len});
    end = p.off + static_cast<std::int64_t>(p.len);
  }
  return runs;
}

namespace {

// Moves one run with preadv/pwritev, IOV_MAX parts at a time, going on after short transfers;
// `*moved` is the bytes moved (a read stops at the end of the file). 0 or an errno.
int move_run(int fd, bool write, const Run &run, std::size_t *moved) noexcept {
  const std::size_t n = run.parts.size();
  std::size_t i = 0, skip = 0; // the next part, and bytes of it already moved
  std::int64_t off = run.off;
  *moved = 0;
  iovec batch[IOV_MAX];
  while (i < n) {
    int k = 0;
    for (std::size_t j = i; j < n && k < IOV_MAX; ++j, ++k) {
      batch[k] = run.parts[j];
      if (j == i) {
        batch[k].iov_base = static_cast<char *>(batch[k].iov_base) + skip;
        batch[k].iov_len -= skip;
      }
    }
    const ssize_t got = write ? ::pwritev(fd, batch, k, static_cast<off_t>(off))
                              : ::preadv(fd, batch, k, static_cast<off_t>(off));
    if (got < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (got == 0) return write ? ENOSPC : 0; // a read at the end of the file
    off += got;
    *moved += static_cast<std::size_t>(got);
    auto left = static_cast<std::size_t>(got);
    while (left > 0) {
      const std::size_t rest = run.parts[i].iov_len - skip;
      if (left < rest) {
        skip += left;
        left = 0;
      } else {
        left -= rest;
        skip = 0;
        ++i;
      }
    }
  }
  return 0;
}

} // namespace

int pwrite_runs(int fd, const std::vector<Run> &runs) noexcept {
  for (const Run &run : runs) {
    std::size_t moved = 0;
    if (int e = move_run(fd, true, run, &moved)) return e;
  }
  return 0;
}

int pread_runs(int fd, const std::vector<Run> &runs) noexcept {
  for (const Run &run : runs) {
    std::size_t moved = 0;
    if (int e = move_run(fd, false, run, &moved)) return e;
    for (const iovec &part : run.parts) { // past the end of the file: zeros
      const std::size_t have = std::min(moved, part.iov_len);
      std::memset(static_cast<char *>(part.iov_base) + have, 0, part.iov_len - have);
      moved -= have;
    }
  }
  return 0;
}

RangeLock::RangeLock(int fd, bool write, std::int64_t off, std::int64_t len) noexcept
    : fd_(fd), off_(off), len_(len) {
  if (len <= 0) return;
  struct flock fl {};
  fl.l_type = write ? F_WRLCK : F_RDLCK;
  fl.l_whence = SEEK_SET;
  fl.l_start = static_cast<off_t>(off);
  fl.l_len = static_cast<off_t>(len);
  while (::fcntl(fd, F_SETLKW, &fl) != 0) {
    if (errno != EINTR) return; // a file system without locks: the access goes on unlocked
  }
  held_ = true;
}

RangeLock::~RangeLock() {
  if (!held_) return;
  struct flock fl {};
  fl.l_type = F_UNLCK;
  fl.l_whence = SEEK_SET;
  fl.l_start = static_cast<off_t>(off_);
  fl.l_len = static_cast<off_t>(len_);
  ::fcntl(fd_, F_SETLK, &fl);
}

} // namespace ampi::io
