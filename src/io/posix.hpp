// src/io/posix.hpp — the POSIX calls under MPI-IO: an owned file descriptor, whole-buffer pread
// and pwrite (retrying short transfers and EINTR), vectored reads and writes of file runs scattered
// over memory (collective I/O's aggregators), a reusable uninitialized buffer (Scratch), byte-range
// locks for atomic mode, and the mapping of errno to MPI's I/O error classes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <sys/types.h>
#include <sys/uio.h>
#include <utility>
#include <vector>

namespace ampi::io {

// The MPI error class of a failed system call's errno (ENOENT: MPI_ERR_NO_SUCH_FILE, EACCES:
// MPI_ERR_ACCESS, EEXIST: MPI_ERR_FILE_EXISTS, EROFS: MPI_ERR_READ_ONLY, ENOSPC:
// MPI_ERR_NO_SPACE, EDQUOT: MPI_ERR_QUOTA, ENAMETOOLONG/EISDIR/ENOTDIR/ELOOP: MPI_ERR_BAD_FILE,
// anything else MPI_ERR_IO).
int error_class(int err) noexcept;

// An open file descriptor, closed on destruction.
class Fd {
public:
  Fd() noexcept = default;
  explicit Fd(int fd) noexcept : fd_(fd) {}
  Fd(Fd &&o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd &operator=(Fd &&o) noexcept {
    if (this != &o) {
      reset();
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  Fd(const Fd &) = delete;
  Fd &operator=(const Fd &) = delete;
  ~Fd() { reset(); }
  int get() const noexcept { return fd_; }
  explicit operator bool() const noexcept { return fd_ >= 0; }
  // Closes the descriptor; returns errno of a failed close (0 on success or when none is open).
  int reset() noexcept;

private:
  int fd_ = -1;
};

// Writes all `len` bytes at `off`; returns 0 or an errno.
int pwrite_all(int fd, const void *buf, std::size_t len, std::int64_t off) noexcept;
// Reads up to `len` bytes at `off` into `buf`, stopping early only at end of file; `*got` is the
// bytes read. Returns 0 or an errno.
int pread_all(int fd, void *buf, std::size_t len, std::int64_t off, std::size_t *got) noexcept;

// A buffer that grows to the largest size asked of it and keeps its bytes uninitialized.
class Scratch {
public:
  char *get(std::size_t n) {
    if (n > size_) {
      p_.reset();
      p_ = std::make_unique_for_overwrite<char[]>(n);
      size_ = n;
    }
    return p_.get();
  }

private:
  std::unique_ptr<char[]> p_;
  std::size_t size_ = 0;
};

// File bytes scattered over memory: a run starts at `off` and goes on through its parts, in order.
// One preadv/pwritev reads or writes a run (several past IOV_MAX parts).
struct Run {
  std::int64_t off = 0;
  std::vector<iovec> parts;
};
// A piece of a file access: `len` file bytes from `off`, at `buf` in memory.
struct Part {
  std::int64_t off;
  std::size_t len;
  char *buf;
};
// The runs of `parts`, sorted by file offset: a part that starts where the run before it ends joins
// it (pieces of different ranks that meet in the file make one system call).
std::vector<Run> runs_of(std::vector<Part> parts);
// Writes every run; 0 or an errno (retrying short transfers and EINTR).
int pwrite_runs(int fd, const std::vector<Run> &runs) noexcept;
// Reads every run; what lies past the end of the file is zero-filled. 0 or an errno.
int pread_runs(int fd, const std::vector<Run> &runs) noexcept;

// A write (or read) lock of bytes [off, off + len) of an open file, released on destruction:
// fcntl's record locks, which exclude other processes; the ranks of one process run one at a time
// on their PE and never yield inside a locked access, so they need no lock among themselves.
class RangeLock {
public:
  RangeLock(int fd, bool write, std::int64_t off, std::int64_t len) noexcept;
  RangeLock(const RangeLock &) = delete;
  RangeLock &operator=(const RangeLock &) = delete;
  ~RangeLock();

private:
  int fd_;
  std::int64_t off_, len_;
  bool held_ = false;
};

} // namespace ampi::io
