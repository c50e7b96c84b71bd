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

Task::Task(std::size_t stack_size, std::function<void()> body)
    : body_(std::move(body)), allocator_(stack_size) {
  stack_ = allocator_.allocate();
  context_ = boost::context::detail::make_fcontext(stack_.sp, stack_.size, &Task::entry);
}

Task::~Task() {
  allocator_.deallocate(stack_);
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
