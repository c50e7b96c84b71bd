// src/ranks/scheduler.hpp — the per-PE cooperative scheduler: a FIFO of ready tasks run one at a
// time on the PE's OS thread. A task blocks (until someone calls make_ready on it) or yields
// (stays runnable); either way control passes straight to the next ready task, with one context
// switch. Control returns to the scheduler loop (run_one's caller) only when no task is ready or
// a task has finished.
#pragma once

#include "ranks/task.hpp"

#include <cstddef>
#include <cstdint>

namespace ampi::ranks {

class Scheduler {
public:
  // Blocked -> Ready and queued; no effect on a task that is ready, running or finished.
  void make_ready(Task &t) noexcept {
    if (t.state_ == Task::State::Blocked) {
      t.state_ = Task::State::Ready;
      push(t);
    }
  }
  // Queues a new task.
  void spawn(Task &t) noexcept {
    t.scheduler_ = this;
    push(t);
  }

  // Called by the running task: suspend until make_ready() is called on it.
  void block() noexcept {
    current_->state_ = Task::State::Blocked;
    switch_from(*current_);
  }
  // Called by the running task: let every other ready task run once, then continue.
  void yield() noexcept {
    current_->state_ = Task::State::Ready;
    push(*current_);
    switch_from(*current_);
  }
  // Called by the running task when it must never run again (its body ended, or exit()).
  [[noreturn]] void finish_current() noexcept;

  Task *current() const noexcept { return current_; }

  // The program's static TLS block on this thread (`live`, `size` bytes): from now on, entering a
  // task with a tls_area of its own swaps that area in (the previous owner's contents saved back
  // first), so each rank has its own thread_local variables. Off (size 0) unless ranks run
  // per-rank copies of a program that has thread_local variables.
  void set_program_tls(std::byte *live, std::size_t size) noexcept {
    tls_live_ = live;
    tls_size_ = size;
  }
  bool program_tls() const noexcept { return tls_size_ != 0; }
  // Whether `p` lies in the program's TLS block of this thread.
  bool in_program_tls(const void *p) const noexcept {
    const auto *b = static_cast<const std::byte *>(p);
    return tls_size_ != 0 && b >= tls_live_ && b < tls_live_ + tls_size_;
  }
  // Makes `area` the live contents of the program's TLS block (the running task's, now).
  void load_tls(std::byte *area) noexcept;
  bool has_ready() const noexcept { return head_ != nullptr; }
  std::uint64_t switches() const noexcept { return switches_; }

  // Scheduler loop: runs ready tasks until none is ready or one finishes. Returns the task that
  // handed control back (check finished()), or nullptr if no task was ready.
  Task *run_one();

  // What a context switch carries: where the switching context must be resumed from, and
  // which task is being entered.
  struct Arrival {
    boost::context::detail::fcontext_t *resume_slot;
    Task *target;
  };
  // Records the context that just switched to us (first thing after every switch).
  static void arrived(boost::context::detail::transfer_t t) noexcept {
    *static_cast<Arrival *>(t.data)->resume_slot = t.fctx;
  }

private:
  void push(Task &t) noexcept {
    t.next_ready_ = nullptr;
    if (tail_)
      tail_->next_ready_ = &t;
    else
      head_ = &t;
    tail_ = &t;
  }
  Task *pop() noexcept {
    Task *t = head_;
    if (t) {
      head_ = t->next_ready_;
      if (!head_) tail_ = nullptr;
    }
    return t;
  }
  // Leaves `self` for the next ready task, or for the scheduler loop if none is ready.
  void switch_from(Task &self) noexcept;
  void enter(Task &next, boost::context::detail::fcontext_t *resume_slot) noexcept;

  Task *head_ = nullptr;
  Task *tail_ = nullptr;
  Task *current_ = nullptr;
  Task *returned_ = nullptr; // the task that handed control back to the loop
  boost::context::detail::fcontext_t loop_context_ = nullptr;
  std::uint64_t switches_ = 0;
  std::byte *tls_live_ = nullptr;   // the program's TLS block on this thread
  std::size_t tls_size_ = 0;        // 0: no per-task TLS
  std::byte *tls_loaded_ = nullptr; // whose contents are live now
};

} // namespace ampi::ranks
