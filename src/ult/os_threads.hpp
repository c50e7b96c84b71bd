// src/ult/os_threads.hpp — MPI_THREAD_SERIALIZED and MPI_THREAD_MULTIPLE: OS threads that a rank
// creates (pthread_create, interposed by libampi.so) carry their creator rank and call MPI
// alongside the ranks of their PE. Once a rank of the PE has asked for it and a rank has created
// a thread, the PE is "threaded": its state (matching queues, requests, scheduler queue, UCX
// worker, bsend buffers) is guarded by one mutex per PE, held by whichever OS thread is inside the
// library: the PE's own thread while it runs library code of its ranks or its scheduling loop (it
// keeps it across switches between ranks and drops it whenever a rank returns to the program), a
// created thread for the length of its MPI call. A created thread that must wait releases the
// mutex and sleeps on a condition variable (driving the network itself while the PE's thread is
// busy in a rank's code), so it never blocks the PE's thread; the idle PE loop sleeps on the
// network's event fd and an eventfd that the threads signal, with the mutex released. Until then
// none of this runs: the PE's thread never touches the mutex (a few instructions per MPI call).
#pragma once

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace ampi::ult {

// What a thread created by a rank starts with (shared by the thread and its joiner).
struct ThreadStart {
  void *(*fn)(void *) = nullptr;
  void *arg = nullptr;
  void *owner = nullptr; // what created it (core: the creator's Rank)
  bool counted = false;  // counted in Threads::live_
  bool done = false;     // its start routine has ended (under the mutex)
  std::shared_ptr<class Threads> threads;
};

// A mutex of one atomic word: 0 free, 1 held, 2 held and maybe waited for (U. Drepper, "Futexes
// Are Tricky", mutex 2; the waiting through std::atomic::wait, a futex on Linux). Lighter than
// std::mutex on the path every MPI call of a threaded PE takes, and it tells whether anybody waits.
class PeMutex {
public:
  void lock() noexcept {
    int c = 0;
    if (state_.compare_exchange_strong(c, 1, std::memory_order_acquire)) [[likely]]
      return;
    lock_slow(c);
  }
  void unlock() noexcept {
    if (state_.exchange(0, std::memory_order_release) == 2) [[unlikely]]
      state_.notify_one();
  }
  bool contended() const noexcept { return state_.load(std::memory_order_relaxed) == 2; }

private:
  void lock_slow(int c) noexcept {
    for (int spin = 0; spin < 100; ++spin) { // hand-offs are short: spin before sleeping
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#elif defined(__aarch64__)
      asm volatile("yield");
#endif
      c = 0;
      if (state_.compare_exchange_weak(c, 1, std::memory_order_acquire)) return;
    }
    if (c != 2) c = state_.exchange(2, std::memory_order_acquire);
    while (c != 0) {
      state_.wait(2, std::memory_order_relaxed);
      c = state_.exchange(2, std::memory_order_acquire);
    }
  }
  std::atomic<int> state_{0};
};

// The per-PE half (shared with the threads, which may outlive the PE by a little).
class Threads : public std::enable_shared_from_this<Threads> {
public:
  explicit Threads(void *host);
  ~Threads();
  Threads(const Threads &) = delete;
  Threads &operator=(const Threads &) = delete;

  // The calling OS thread enters / leaves the library (nested calls only count).
  void lock() noexcept {
    if (depth_++ == 0) mutex_.lock();
  }
  void unlock() noexcept {
    if (--depth_ == 0) mutex_.unlock();
  }
  // How deep the calling OS thread is inside the library (0: in the program's code).
  static int depth() noexcept { return depth_; }
  // Lets waiting threads in for a moment (the caller holds the mutex, at depth 1 or more).
  void let_in() noexcept {
    if (mutex_.contended()) pause();
  }
  // Releases the mutex for a moment (sched_yield) whether or not anybody waits for it.
  void pause() noexcept {
    mutex_.unlock();
    sched_yield_();
    mutex_.lock();
  }
  // A created thread waits: releases the mutex until notify() or `timeout` (the caller holds
  // it); false on time-out.
  bool wait(std::chrono::microseconds timeout);
  // The PE's loop waits: releases the mutex until notify(), touched(), `net_fd` (>= 0) is
  // readable, or `timeout`.
  void wait_loop(int net_fd, std::chrono::milliseconds timeout);
  // Something was completed or made ready: waiting threads and the PE's loop look again.
  void notify() noexcept {
    ++wake_epoch_;
    quiet_ = 0;
    if (sleepers_) cv_.notify_all();
    if (loop_sleeps_) wake_loop();
  }
  // A created thread finished an MPI call or ended: the PE's loop looks again.
  void touched() noexcept {
    ++activity_;
    if (loop_sleeps_) wake_loop();
  }

  // All under mutex_ (the PE's loop and the threads read them).
  void *host_;             // what the threads belong to (core: the Pe); nullptr once it is gone
  int live_ = 0;           // threads created by ranks (while enabled) still running
  bool loop_idle_ = false; // the PE's loop has nothing to run and drives the network
  int quiet_ = 0;          // of those, how many wait inside MPI with no wake-up since
  std::uint64_t wake_epoch_ = 0;
  std::uint64_t activity_ = 0; // MPI calls of threads finished, threads ended
  struct Waiter {
    int owner_id; // core: the world rank
    const char *call;
    int source, tag; // as the rank's blocked_* said when it began to wait
  };
  std::vector<Waiter> waiting_; // threads waiting inside MPI, for the deadlock report
  std::unordered_map<pthread_t, std::shared_ptr<ThreadStart>> joinable_;

private:
  static void sched_yield_() noexcept;
  void wake_loop() noexcept; // under mutex_, loop_sleeps_

  PeMutex mutex_;
  std::condition_variable_any cv_; // created threads waiting inside MPI
  int wake_fd_ = -1; // an eventfd: the PE's loop sleeps in poll() on it (and on the network)
  int sleepers_ = 0; // under mutex_: threads waiting on cv_
  bool loop_sleeps_ = false; // under mutex_: the PE's loop waits on loop_cv_
  static constinit thread_local int depth_;
};

} // namespace ampi::ult
