// src/ranks/scheduler.hpp — the per-PE cooperative scheduler: a FIFO of ready tasks, run one at a
// time on the PE's OS thread. A task blocks (waits for an event someone else signals with
// make_ready) or yields (stays runnable); the scheduler resumes the next ready task.
#pragma once

#include "ranks/task.hpp"

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
  // Queues a new task (state Ready).
  void spawn(Task &t) noexcept { push(t); }

  // Called by the running task: suspend until make_ready() is called on it.
  void block() noexcept {
    current_->state_ = Task::State::Blocked;
    current_->suspend();
  }
  // Called by the running task: let every other ready task run once, then continue.
  void yield() noexcept {
    current_->state_ = Task::State::Ready;
    push(*current_);
    current_->suspend();
  }
  // Called by the running task when it must never run again (exit() in a rank).
  [[noreturn]] void finish_current() noexcept;

  Task *current() const noexcept { return current_; }
  bool has_ready() const noexcept { return head_ != nullptr; }
  std::uint64_t switches() const noexcept { return switches_; }

  // Runs the next ready task until it suspends or ends and returns it; nullptr if none was ready.
  Task *run_one();

private:
  void push(Task &t) noexcept {
    t.next_ready_ = nullptr;
    if (tail_)
      tail_->next_ready_ = &t;
    else
      head_ = &t;
    tail_ = &t;
  }

  Task *head_ = nullptr;
  Task *tail_ = nullptr;
  Task *current_ = nullptr;
  std::uint64_t switches_ = 0;
};

} // namespace ampi::ranks
