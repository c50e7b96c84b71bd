// src/ranks/scheduler.cpp — switching between tasks and the scheduler loop (see scheduler.hpp).
#include "ranks/scheduler.hpp"

#include <cstdlib>

namespace ampi::ranks {

namespace ctx = boost::context::detail;

void Scheduler::enter(Task &next, ctx::fcontext_t *resume_slot) noexcept {
  next.state_ = Task::State::Running;
  current_ = &next;
  ++switches_;
  Arrival a{resume_slot, &next};
  arrived(ctx::jump_fcontext(next.context_, &a));
}

void Scheduler::switch_from(Task &self) noexcept {
  Task *next = pop();
  if (next == &self) { // yielded with nobody else ready: keep running
    self.state_ = Task::State::Running;
    return;
  }
  if (next) {
    enter(*next, &self.context_);
    return;
  }
  // Nothing else can run: back to the loop (which makes progress or reports a deadlock).
  returned_ = &self;
  current_ = nullptr;
  Arrival a{&self.context_, nullptr};
  arrived(ctx::jump_fcontext(loop_context_, &a));
}

void Scheduler::finish_current() noexcept {
  Task &self = *current_;
  self.state_ = Task::State::Finished;
  returned_ = &self;
  current_ = nullptr;
  ctx::fcontext_t dead = nullptr; // nobody resumes a finished task
  Arrival a{&dead, nullptr};
  ctx::jump_fcontext(loop_context_, &a);
  std::abort();
}

Task *Scheduler::run_one() {
  Task *t = pop();
  if (!t) return nullptr;
  returned_ = nullptr;
  enter(*t, &loop_context_);
  return returned_;
}

} // namespace ampi::ranks
