// src/ult/task.hpp — a user-level thread that a Scheduler runs: the execution half of a virtual
// rank, on its own stack, switched with Boost.Context's fcontext primitives. It knows nothing
// about MPI.
#pragma once

#include "ult/stack.hpp"

#include <boost/context/detail/fcontext.hpp>

#include <cstddef>
#include <functional>

namespace ampi::ult {

class Scheduler;

class Task {
public:
  enum class State : unsigned char { Ready, Running, Blocked, Finished };

  // `body` runs on the task's own stack the first time the scheduler switches to it.
  Task(std::size_t stack_size, std::function<void()> body);
  // Frees the stack. A task that never finished is dropped without unwinding its stack (as
  // exit() drops a program's frames).
  ~Task();
  Task(const Task &) = delete;
  Task &operator=(const Task &) = delete;

  State state() const noexcept { return state_; }
  bool finished() const noexcept { return state_ == State::Finished; }
  // Lowest address of the stack (its guard page) and its size, for fault reports.
  const void *stack_low() const noexcept { return static_cast<char *>(stack_.sp) - stack_.size; }
  std::size_t stack_size() const noexcept { return stack_.size; }

  void *owner = nullptr; // what this task runs for (the Rank), for the scheduler's users
  // This task's images of the scheduler's regions (Scheduler::add_region: its thread_local
  // variables, libc's hidden state), live while it runs; nullptr: none of its own (it runs with
  // whatever is live). Owned by the task's user; tasks acting for the same rank share them.
  std::byte *images = nullptr;

private:
  friend class Scheduler;
  static void entry(boost::context::detail::transfer_t t);

  boost::context::detail::fcontext_t context_ = nullptr; // where to resume it while suspended
  Scheduler *scheduler_ = nullptr;
  std::function<void()> body_;
  boost::context::stack_context stack_{};
  StackAllocator allocator_;
  State state_ = State::Ready;
  Task *next_ready_ = nullptr;
};

} // namespace ampi::ult
