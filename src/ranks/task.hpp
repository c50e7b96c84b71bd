// src/ranks/task.hpp — a user-level thread (Boost.Context fiber) that a Scheduler runs: the
// execution half of a virtual rank. It knows nothing about MPI.
#pragma once

#include "ranks/stack.hpp"

#include <boost/context/fiber.hpp>

#include <functional>
#include <utility>

namespace ampi::ranks {

class Scheduler;

class Task {
public:
  enum class State : unsigned char { Ready, Running, Blocked, Finished };

  // `body` runs on the task's own stack the first time the scheduler resumes it.
  Task(std::size_t stack_size, std::function<void()> body);
  Task(const Task &) = delete;
  Task &operator=(const Task &) = delete;

  State state() const noexcept { return state_; }
  bool finished() const noexcept { return state_ == State::Finished; }
  // Ended by returning from its body (not by finishing from inside, as exit() in a rank does).
  bool finished_normally() const noexcept { return finished() && !fiber_; }
  // Lets go of a task that will never run again without unwinding its stack (destructors of
  // the user's locals must not run after exit()). Its stack stays mapped until the process ends.
  void abandon() noexcept;
  // Lowest and highest address of the stack (guard page included), for fault reports.
  const void *stack_low() const noexcept { return stack_low_; }
  std::size_t stack_size() const noexcept { return stack_size_; }

  void *owner = nullptr; // what this task runs for (the Rank), for its scheduler's users

private:
  friend class Scheduler;
  void resume();  // scheduler side: run until the task suspends or ends
  void suspend(); // task side: back to the scheduler

  boost::context::fiber fiber_;
  boost::context::fiber scheduler_;
  std::function<void()> body_;
  State state_ = State::Ready;
  Task *next_ready_ = nullptr;
  const void *stack_low_ = nullptr;
  std::size_t stack_size_ = 0;
};

} // namespace ampi::ranks
