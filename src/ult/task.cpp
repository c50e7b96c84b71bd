// src/ult/task.cpp — creating user-level threads and their first entry (see task.hpp).
#include "ult/task.hpp"

#include "ult/scheduler.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>

namespace ampi::ult {

#if defined(__SANITIZE_ADDRESS__)
namespace sanitizer {
void finish_switch(void *fake_stack) noexcept; // scheduler.cpp
}
#endif

Task::Task(StackPool &stacks, std::function<void()> body)
    : body_(std::move(body)), stacks_(&stacks), stack_(stacks.allocate()) {
  context_ = boost::context::detail::make_fcontext(stack_.ctx.sp, stack_.ctx.size, &Task::entry);
}

Task::Task(std::size_t stack_size, std::function<void()> body)
    : body_(std::move(body)), own_stacks_(std::make_unique<StackPool>(stack_size, GuardMode::Page)),
      stacks_(own_stacks_.get()), stack_(stacks_->allocate()) {
  context_ = boost::context::detail::make_fcontext(stack_.ctx.sp, stack_.ctx.size, &Task::entry);
}

Task::~Task() {
  stacks_->release(stack_);
}

bool Task::stack_intact(bool thorough) const noexcept {
  if (stack_.mode != GuardMode::Check) return true;
  const char probe = 0;
  const char *sp = &probe;
  if (sp >= stack_.low() && sp < stack_.usable_low()) return false;
  return !(thorough && StackPool::gap_touched(stack_));
}

void Task::entry(boost::context::detail::transfer_t t) {
#if defined(__SANITIZE_ADDRESS__)
  sanitizer::finish_switch(nullptr); // first thing on this fresh stack (see scheduler.cpp)
#endif
  Scheduler::arrived(t);
  Task *self = static_cast<Scheduler::Arrival *>(t.data)->target;
  try {
    self->body_();
  } catch (const std::exception &e) {
    std::fprintf(stderr, "ampi: uncaught exception in a rank: %s\n", e.what());
    std::abort();
  }
  self->scheduler_->finish_current();
}

} // namespace ampi::ult
