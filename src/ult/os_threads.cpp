// src/ult/os_threads.cpp — the OS-thread bookkeeping of a PE (see os_threads.hpp): the mutex's
// waits, the condition variable of waiting threads and the event fd the idle loop sleeps on.
#include "ult/os_threads.hpp"

#include <poll.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace ampi::ult {

thread_local int Threads::depth_ = 0;

void Threads::sched_yield_() noexcept {
  ::sched_yield();
}

bool Threads::wait(std::chrono::microseconds timeout) {
  const std::uint64_t epoch = wake_epoch_;
  ++sleepers_;
  const bool woken = cv_.wait_for(mutex_, timeout, [&] { return wake_epoch_ != epoch; });
  --sleepers_;
  return woken;
}

Threads::Threads(void *host) : host_(host) {
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) {
    std::perror("ampi: eventfd");
    std::abort();
  }
}

Threads::~Threads() {
  ::close(wake_fd_);
}

void Threads::wake_loop() noexcept {
  loop_sleeps_ = false;
  const std::uint64_t one = 1;
  (void)!::write(wake_fd_, &one, sizeof one);
}

void Threads::wait_loop(int net_fd, std::chrono::milliseconds timeout) {
  loop_sleeps_ = true;
  mutex_.unlock(); // the depth stays: the loop is still inside the library
  pollfd fds[2] = {{wake_fd_, POLLIN, 0}, {net_fd, POLLIN, 0}};
  ::poll(fds, net_fd >= 0 ? 2 : 1, static_cast<int>(timeout.count()));
  std::uint64_t n;
  (void)!::read(wake_fd_, &n, sizeof n);
  mutex_.lock();
  loop_sleeps_ = false;
}

} // namespace ampi::ult
