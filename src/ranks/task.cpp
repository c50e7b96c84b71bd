// src/ranks/task.cpp — creating and switching user-level threads (see task.hpp).
#include "ranks/task.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>

namespace ampi::ranks {

namespace {
// Records the stack bounds the allocator chose, then forwards to it.
struct RecordingAllocator {
  StackAllocator inner;
  Task::State *unused;
  const void **low;
  std::size_t *size;
  boost::context::stack_context allocate() {
    auto sctx = inner.allocate();
    *low = static_cast<char *>(sctx.sp) - sctx.size;
    *size = sctx.size;
    return sctx;
  }
  void deallocate(boost::context::stack_context &sctx) noexcept { inner.deallocate(sctx); }
};
} // namespace

Task::Task(std::size_t stack_size, std::function<void()> body) : body_(std::move(body)) {
  RecordingAllocator alloc{StackAllocator(stack_size), nullptr, &stack_low_, &stack_size_};
  fiber_ = boost::context::fiber(std::allocator_arg, std::move(alloc),
                                 [this](boost::context::fiber &&scheduler) {
                                   scheduler_ = std::move(scheduler);
                                   try {
                                     body_();
                                   } catch (const std::exception &e) {
                                     std::fprintf(stderr, "ampi: uncaught exception in rank: %s\n",
                                                  e.what());
                                     std::abort();
                                   }
                                   state_ = State::Finished;
                                   return std::move(scheduler_);
                                 });
}

void Task::resume() { fiber_ = std::move(fiber_).resume(); }

void Task::abandon() noexcept {
  // Deliberately leaked: destroying a suspended fiber would unwind the user's stack.
  static_cast<void>(std::make_unique<boost::context::fiber>(std::move(fiber_)).release());
}

void Task::suspend() { scheduler_ = std::move(scheduler_).resume(); }

} // namespace ampi::ranks
