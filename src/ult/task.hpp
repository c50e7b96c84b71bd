// src/ult/task.hpp — a user-level thread that a Scheduler runs: the execution half of a virtual
// rank, on its own stack, switched with Boost.Context's fcontext primitives. It knows nothing
// about MPI.
#pragma once

#include "ult/stack.hpp"

#include <boost/context/detail/fcontext.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

namespace ampi::ult {

class Scheduler;

class Task {
public:
  enum class State : unsigned char { Ready, Running, Blocked, Finished };

  // `body` runs on the task's own stack, taken from `stacks` (which must outlive the task), the
  // first time the scheduler switches to it. Throws StackError when no stack can be made.
  Task(StackPool &stacks, std::function<void()> body);
  // The same with a stack of its own (one mapping and a guard page; for tests and one-off tasks).
  Task(std::size_t stack_size, std::function<void()> body);
  // Frees the stack. A task that never finished is dropped without unwinding its stack (as
  // exit() drops a program's frames).
  ~Task();
  Task(const Task &) = delete;
  Task &operator=(const Task &) = delete;

  State state() const noexcept { return state_; }
  bool finished() const noexcept { return state_ == State::Finished; }
  // Lowest address of the stack (its guard page or gap) and its size with it, for fault reports.
  const void *stack_low() const noexcept { return stack_.low(); }
  std::size_t stack_size() const noexcept { return stack_.ctx.size; }
  // The part below the usable stack: a guard page (GuardMode::Page) or a checked gap.
  std::size_t stack_guard() const noexcept { return stack_.guard; }
  GuardMode stack_mode() const noexcept { return stack_.mode; }
  // GuardMode::Check: false once the stack pointer went below the usable stack, or (`thorough`,
  // a system call) a page of the gap below it was touched. Always true in Page mode (the guard
  // page faults instead). Call it on the task's own stack for the stack-pointer test.
  bool stack_intact(bool thorough) const noexcept;

  void *owner = nullptr; // what this task runs for (the Rank), for the scheduler's users
  // This task's images of the scheduler's regions (Scheduler::add_region: its thread_local
  // variables, libc's hidden state), live while it runs; nullptr: none of its own (it runs with
  // whatever is live). Owned by the task's user; tasks acting for the same rank share them.
  std::byte *images = nullptr;
  // Whose busy time this task's running counts in (Scheduler::set_timing): nullptr, its own; a
  // helper task working for a rank points it at the rank's task.
  Task *charge_to = nullptr;

private:
  friend class Scheduler;
  static void entry(boost::context::detail::transfer_t t);

  boost::context::detail::fcontext_t context_ = nullptr; // where to resume it while suspended
  Scheduler *scheduler_ = nullptr;
  std::function<void()> body_;
  std::unique_ptr<StackPool> own_stacks_; // Task(size, body) only
  StackPool *stacks_;
  Stack stack_{};
  State state_ = State::Ready;
  Task *next_ready_ = nullptr;
  std::uint64_t busy_ticks_ = 0; // Scheduler::set_timing: clock ticks it ran since reset_busy
};

} // namespace ampi::ult
