// src/io/posix.cpp — the POSIX calls under MPI-IO (see posix.hpp).
#include "io/posix.hpp"

#include <mpi.h>

#include <cerrno>
#include <fcntl.h>
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
