// src/core/pe_threads.cpp — threads that ranks create: the pthread_create and pthread_join that
// libampi.so interposes (forwarding to the next definition, libc's), entering and leaving the
// library from such a thread, its waits, and the PE loop's part while threads are about (see
// src/ult/os_threads.hpp for the bookkeeping).
#include "core/pe.hpp"
#include "privatize/interpose.hpp"
#include "ult/os_threads.hpp"

#include <dlfcn.h>
#include <poll.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace ampi {

thread_local Rank *Pe::thread_rank_ = nullptr;

namespace core {

using ult::Threads;
using ult::ThreadStart;

namespace {

// The calling thread, when a rank created it (trivially destructible: it lives in TLS).
struct CreatedThread {
  Rank *rank = nullptr;
  Threads *threads = nullptr; // kept alive by the ThreadStart that thread_main holds
  bool counted = false;
};
thread_local CreatedThread created;

// Runs a created thread's start routine, with its rank known; ends by counting it out.
void *thread_main(void *p) {
  std::unique_ptr<std::shared_ptr<ThreadStart>> holder(
      static_cast<std::shared_ptr<ThreadStart> *>(p));
  std::shared_ptr<ThreadStart> start = std::move(*holder);
  holder.reset();
  created = {static_cast<Rank *>(start->owner), start->threads.get(), start->counted};
  // Also on pthread_exit and cancellation (they unwind).
  struct Ended {
    ThreadStart &s;
    ~Ended() {
      Threads &t = *s.threads;
      t.lock();
      s.done = true;
      if (created.counted) --t.live_;
      t.touched(); // a rank may be waiting in pthread_join
      t.unlock();
      created = {};
    }
  } ended{*start};
  return start->fn(start->arg);
}

} // namespace

Rank *creator_rank() noexcept {
  if (created.rank) return Threads::depth() == 0 ? created.rank : nullptr;
  Pe *pe = Pe::get_if();
  // Threads that the library starts inside an MPI call (UCX's, PMIx's) belong to no rank; that
  // is known only while the PE is threaded (depth is not tracked otherwise).
  if (!pe || Threads::depth() != 0) return nullptr;
  return pe->current_if();
}

Rank *creator_rank_any() noexcept {
  return created.rank;
}

} // namespace core

void Pe::enable_threads() noexcept {
  wants_threads_.store(true, std::memory_order_relaxed);
  if (has_threads_.load(std::memory_order_relaxed) && !threaded()) {
    threaded_.store(true, std::memory_order_relaxed);
    threads_->lock();
  }
}

void Pe::thread_created() noexcept {
  // Until a thread exists, nothing but the PE's own thread can call MPI: no mutex needed. The
  // caller is in the program's code (depth 0), so the switch is safe here.
  has_threads_.store(true, std::memory_order_relaxed);
  if (wants_threads_.load(std::memory_order_relaxed) && !threaded())
    threaded_.store(true, std::memory_order_relaxed);
}

Rank *Pe::enter_thread() noexcept {
  core::CreatedThread &c = core::created;
  if (!c.rank) return nullptr;
  ult::Threads &t = *c.threads;
  t.lock();
  if (ult::Threads::depth() > 1) return c.rank; // nested (an error handler's call, ...)
  if (!t.host_) {
    t.unlock();
    return nullptr;
  }
  if (!c.counted) { // created before its rank asked for threads: count it from now on
    c.counted = true;
    ++t.live_;
  }
  current_ = static_cast<Pe *>(t.host_);
  thread_rank_ = c.rank;
  return c.rank;
}

void Pe::leave_call() noexcept {
  ult::Threads &t = *threads_;
  if (thread_rank_ && ult::Threads::depth() == 1) {
    t.touched(); // the PE's loop lets its blocked ranks look again (they share the rank's flags)
    current_ = nullptr;
    thread_rank_ = nullptr;
  }
  t.unlock();
}

void Pe::block_thread(const char *call) {
  if (thread_rank_->coll.run_ready()) return; // a step of its non-blocking collectives is due
  ult::Threads &t = *threads_;
  // Counted as waiting (for the deadlock and termination checks) until a wake-up (which zeroes the
  // count) or until this returns.
  const std::uint64_t epoch = t.wake_epoch_;
  ++t.quiet_;
  t.waiting_.push_back(
      {thread_rank_->world_rank, call, thread_rank_->blocked_source, thread_rank_->blocked_tag});
  [&] {
    // Spin a little before sleeping (a reply often comes within microseconds), and drive the
    // network from here too: the PE's thread may be busy in a rank's code for long.
    // While the PE's loop is idle, it drives the network and wakes us: just sleep.
    const bool poll = port_->remote() && !t.loop_idle_;
    for (int spin = 0; spin < 50; ++spin) {
      if (poll && port_->progress()) return;
      t.pause();
      if (t.wake_epoch_ != epoch) return;
    }
    t.wait(poll ? std::chrono::microseconds(100)
                : std::chrono::milliseconds(port_->remote() ? 1 : 1000));
  }();
  for (std::size_t i = 0; i < t.waiting_.size(); ++i) {
    if (t.waiting_[i].owner_id == thread_rank_->world_rank && t.waiting_[i].call == call) {
      t.waiting_.erase(t.waiting_.begin() + static_cast<long>(i));
      break;
    }
  }
  if (t.wake_epoch_ == epoch) --t.quiet_; // a wake-up zeroed it otherwise
}

void Pe::notify_threads() noexcept {
  threads_->notify();
}

void Pe::yield_thread() noexcept {
  poll();
  threads_->let_in();
}

void Pe::join_thread(pthread_t thread) {
  ult::Threads &t = *threads_;
  t.lock();
  auto it = t.joinable_.find(thread);
  if (it != t.joinable_.end()) {
    std::shared_ptr<ult::ThreadStart> s = it->second;
    Rank &r = current();
    while (!s->done) {
      r.blocked_source = MPI_ANY_SOURCE;
      r.blocked_tag = MPI_ANY_TAG;
      block("pthread_join");
    }
    it = t.joinable_.find(thread);
    if (it != t.joinable_.end() && it->second == s) t.joinable_.erase(it);
  }
  t.unlock();
}

// The scheduling loop has nothing to run and the PE is threaded; it holds the mutex. Returns true
// when the job may end (all PEs agree).
bool Pe::idle_threaded(int &idle) {
  ult::Threads &t = *threads_;
  t.loop_idle_ = true; // until the loop runs a rank again
  if (t.activity_ != seen_activity_) {
    // Threads share their rank's flags (probing, blocked_*) with its main thread, so a wake-up
    // may have been missed: after calls of threads, every blocked rank looks again (block() may
    // return spuriously).
    seen_activity_ = t.activity_;
    for (Rank *r : hosted_) {
      scheduler_.make_ready(r->task);
      for (auto &h : r->coll.helper_tasks) // coll's internal tasks of the rank
        scheduler_.make_ready(*h);
    }
    if (scheduler_.has_ready()) return false;
  }
  const bool threads_quiet = t.quiet_ == t.live_;
  if (port_->remote()) {
    const bool progressed = port_->progress();
    if (termination_->idle(live_ranks_ == 0,
                           !progressed && !scheduler_.has_ready() && threads_quiet))
      return true;
    if (progressed || scheduler_.has_ready()) {
      idle = 0;
      return false;
    }
  } else if (devptrs_.poll_copies()) { // device copies of ours complete requests
    idle = 0;
    return false;
  } else if (threads_quiet && devptrs_.copies_in_flight() == 0) {
    report_deadlock(); // every rank and every thread of them waits, and nobody can wake them
  }
  // Let the threads in while polling the network; after a while, sleep until one of them wakes
  // something up or the network has something (the mutex released meanwhile). The CPU is given
  // up at each turn (sched_yield), not only when a thread waits for the mutex: a thread woken
  // from its condition variable must get a core first, and where ampirun binds the process to one
  // core (its default) the spinning loop kept it off for whole time slices (osu_latency_mt -np 2:
  // 1-3.6 ms per message bound, 50-130 us unbound).
  if (++idle < (port_->remote() ? 2000 : 64)) {
    t.pause();
    return false;
  }
  idle = 0;
  if (!port_->remote())
    t.wait_loop(-1, std::chrono::milliseconds(100));
  else if (port_->arm())
    t.wait_loop(port_->event_fd(), std::chrono::milliseconds(50));
  return false;
}

} // namespace ampi

using ampi::ult::Threads;
using ampi::ult::ThreadStart;

// Threads created by a rank carry the rank (for MPI calls, MPI_Is_thread_main and the
// threaded PE's deadlock detection, which must wait for them).
extern "C" int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                              void *(*start_routine)(void *), void *arg) {
  using Fn = int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
  static const Fn real = ampi::privatize::next_definition<Fn>("pthread_create");
  ampi::Rank *creator = ampi::core::creator_rank();
  if (!creator) return real(thread, attr, start_routine, arg);
  auto start = std::make_shared<ThreadStart>();
  start->fn = start_routine;
  start->arg = arg;
  start->owner = creator;
  start->threads = creator->pe().threads().shared_from_this();
  Threads &t = *start->threads;
  int detached = PTHREAD_CREATE_JOINABLE;
  if (attr) pthread_attr_getdetachstate(attr, &detached);
  creator->pe().thread_created();
  if (creator->pe().threaded()) { // counted before it runs: the ranks may be waiting for it already
    t.lock();
    ++t.live_;
    start->counted = true;
    t.unlock();
  }
  auto holder = std::make_unique<std::shared_ptr<ThreadStart>>(start);
  const int rc = real(thread, attr, ampi::core::thread_main, holder.get());
  if (rc != 0) {
    if (start->counted) {
      t.lock();
      --t.live_;
      t.unlock();
    }
    return rc;
  }
  (void)holder.release(); // thread_main owns it now
  if (start->counted && detached == PTHREAD_CREATE_JOINABLE) {
    t.lock();
    t.joinable_[*thread] = start;
    t.unlock();
  }
  return 0;
}

// A rank's main thread joining one of its threads lets the PE's other ranks run meanwhile.
extern "C" int pthread_join(pthread_t thread, void **retval) {
  using Fn = int (*)(pthread_t, void **);
  static const Fn real = ampi::privatize::next_definition<Fn>("pthread_join");
  ampi::Pe *pe = ampi::Pe::get_if();
  if (pe && pe->threaded() && Threads::depth() == 0 && !ampi::Pe::in_thread() && pe->current_if())
    pe->join_thread(thread);
  return real(thread, retval);
}
