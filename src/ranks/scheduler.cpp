// src/ranks/scheduler.cpp — running ready tasks (see scheduler.hpp).
#include "ranks/scheduler.hpp"

#include <cstdlib>

namespace ampi::ranks {

Task *Scheduler::run_one() {
  Task *t = head_;
  if (!t)
    return nullptr;
  head_ = t->next_ready_;
  if (!head_)
    tail_ = nullptr;
  t->state_ = Task::State::Running;
  current_ = t;
  ++switches_;
  t->resume();
  current_ = nullptr;
  return t;
}

void Scheduler::finish_current() noexcept {
  current_->state_ = Task::State::Finished;
  current_->suspend();
  std::abort(); // a finished task is never resumed
}

} // namespace ampi::ranks
