// src/ult/scheduler.hpp — the per-PE cooperative scheduler: a FIFO of ready tasks run one at a
// time on the PE's OS thread. A task blocks (until someone calls make_ready on it) or yields
// (stays runnable); either way control passes straight to the next ready task, with one context
// switch. Control returns to the scheduler loop (run_one's caller) only when no task is ready or
// a task has finished. Tasks may each have their own image of some memory regions, which the
// switch swaps (add_region); the scheduler does not know what they hold.
#pragma once

#include "ult/task.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace ampi::ult {

class Scheduler {
public:
  Scheduler() = default;
  ~Scheduler(); // puts back what the regions held before any task ran (see add_region)
  Scheduler(const Scheduler &) = delete;
  Scheduler &operator=(const Scheduler &) = delete;

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

  // Moving a suspended task to the scheduler of another OS thread (rank migration): detach() on
  // the old one's thread takes it out of the ready queue (Blocked from then on) and, if its images
  // are the live ones, saves them into its images; adopt() on the new one's makes it this
  // scheduler's, still Blocked (make_ready() runs it). Never for the running task. Its frames
  // resume inside the old scheduler's switch code, which touches no member after the switch.
  void detach(Task &t) noexcept;
  void adopt(Task &t) noexcept { t.scheduler_ = this; }

  // Memory that each task has an image of its own: whatever the scheduler's users register (what
  // it holds is theirs: src/privatize registers a program's thread_local block and libc's getopt
  // state). add_region() returns where the region's image lies in a task's `images` buffer
  // (images_size() bytes in all); from then on, entering a task whose images are not the live
  // ones saves the live contents into the images of the task that had them (or the scheduler's
  // own copy of what was there before any task ran) and copies the entered task's in. Register
  // every region before a task with images runs; tasks without images run with whatever is live.
  // No region, no cost: the switch compares one pointer, as before. Each region costs a few ns per
  // switch (CPU time of bench/context_switch 2 5000000 [getopt]: 18 ns per switch without
  // regions, 29 ns with three of 12, 8 and 56 bytes, as for libc's getopt state).
  std::size_t add_region(void *live, std::size_t size);
  std::size_t images_size() const noexcept { return images_size_; }
  bool has_regions() const noexcept { return !regions_.empty(); }
  // Whether `p` lies in the live memory of a region (of this thread).
  bool in_region(const void *p) const noexcept;

  // GuardMode::Check stacks: called, on the overflowing task's stack, when a task is found to
  // have overflowed its stack (see stack.hpp); it should report and end the process. Unset: a
  // message that names no rank, then abort().
  using OverflowFn = void (*)(Task &);
  void set_overflow_report(OverflowFn fn) noexcept { on_overflow_ = fn; }

  // Busy time (load balancing): while timing is on, each task's running time is summed, from the
  // switch into it to the switch out of it (to another task, or to the loop when it blocks or
  // yields with nobody else ready, or ends): not the time it is blocked, nor the loop's polling
  // or idling. One clock read per switch: rdtsc on x86-64 (32 ns on this VM's EPYC, where
  // clock_gettime(CLOCK_MONOTONIC) through the vDSO took 67-75 ns; ticks are turned into seconds
  // against CLOCK_MONOTONIC over the whole time timing has been on), CLOCK_MONOTONIC elsewhere.
  // Off (the default), a switch pays one predictable branch.
  void set_timing(bool on) noexcept;
  bool timing() const noexcept { return timing_; }
  // The CPU time `t` ran since timing began or its last reset_busy (0 when timing is off). The
  // running task's current stint is not in it until it switches out.
  double busy_seconds(const Task &t) const noexcept;
  void reset_busy(Task &t) noexcept { t.busy_ticks_ = 0; }
  // Charges the running task for its current stint so far (before reading loads from inside a
  // task); no effect when timing is off.
  void charge_now() noexcept {
    if (timing_) charge_current();
  }

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
  // Timing on: charges the running task (if any) for the time since the last switch; the clock
  // starts again for whoever runs next. Kept out of line (cold): inlined into enter(), it cost 7
  // instructions per switch with timing off (callgrind, bench/pingpong 8 B), the saved registers
  // of the inlined path.
  [[gnu::noinline, gnu::cold]] void charge_current() noexcept;
  // GuardMode::Check: the stack-pointer test of a task that leaves the CPU (one compare, skipped
  // for Page-mode stacks), and the thorough one when it ends.
  void check_stack(Task &self, bool thorough) noexcept {
    if (self.stack_.mode == GuardMode::Check && !self.stack_intact(thorough)) [[unlikely]]
      overflowed(self);
  }
  [[noreturn]] void overflowed(Task &self) noexcept;
  OverflowFn on_overflow_ = nullptr;

  Task *head_ = nullptr;
  Task *tail_ = nullptr;
  Task *current_ = nullptr;
  Task *returned_ = nullptr; // the task that handed control back to the loop
  boost::context::detail::fcontext_t loop_context_ = nullptr;
  std::uint64_t switches_ = 0;
  bool timing_ = false;
  std::uint64_t since_ = 0;         // timing: the tick of the last switch
  std::uint64_t timing_ticks0_ = 0; // timing: the tick and the CLOCK_MONOTONIC time (ns)
  std::uint64_t timing_ns0_ = 0;    // when it was turned on, to turn ticks into seconds
  struct Region {
    std::byte *live;
    std::size_t size, offset; // offset: of its image in a task's images
  };
  void swap_images(std::byte *images) noexcept;
  std::vector<Region> regions_;
  std::size_t images_size_ = 0;
  std::unique_ptr<std::byte[]> before_; // what the regions held before any task ran
  std::byte *loaded_ = nullptr;         // whose images are live now (nullptr: no region yet)
};

} // namespace ampi::ult
