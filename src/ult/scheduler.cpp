// src/ult/scheduler.cpp — switching between tasks and the scheduler loop (see scheduler.hpp).
#include "ult/scheduler.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

namespace ampi::ult {

namespace ctx = boost::context::detail;

// AddressSanitizer must be told of every switch between stacks (the PE thread's own stack, where
// the scheduler loop runs, and each task's mmap'd one), or it takes one stack's frames for
// overflows of another and cannot unpoison a stack left by a noreturn call. start_switch: just
// before a jump, with the bounds of the stack being entered (nullptr: the loop's); finish_switch:
// first thing after arriving, with what start_switch saved on this stack (nullptr on a fresh
// stack); start_switch(nullptr, ...) when leaving a stack for good. No-ops without ASan.
namespace sanitizer {
#if defined(__SANITIZE_ADDRESS__)
namespace {
thread_local const void *loop_bottom = nullptr; // the PE thread's stack, learnt on the first
thread_local std::size_t loop_size = 0;         // switch from the loop into a task
thread_local bool leaving_loop = false;
} // namespace

void leave_loop() noexcept {
  leaving_loop = true;
}

void start_switch(void **fake_stack, const Task *to) noexcept {
  if (to)
    __sanitizer_start_switch_fiber(fake_stack, to->stack_low(), to->stack_size());
  else
    __sanitizer_start_switch_fiber(fake_stack, loop_bottom, loop_size);
}

// Not inlined: a task may resume on another OS thread than it left (rank migration), and the
// compiler may keep a thread_local's address from before the switch within one function.
__attribute__((noinline)) void finish_switch(void *fake_stack) noexcept {
  const void *bottom = nullptr;
  std::size_t size = 0;
  __sanitizer_finish_switch_fiber(fake_stack, &bottom, &size);
  if (leaving_loop) { // we came from the loop: `bottom`/`size` are the thread's own stack
    loop_bottom = bottom;
    loop_size = size;
    leaving_loop = false;
  }
}
#else
inline void leave_loop() noexcept {
}
inline void start_switch(void **, const Task *) noexcept {
}
inline void finish_switch(void *) noexcept {
}
#endif
} // namespace sanitizer

Scheduler::~Scheduler() {
  // The tasks' images may be gone by now (their owners go first): nothing is saved into them.
  for (const Region &r : regions_)
    std::memcpy(r.live, before_.get() + r.offset, r.size);
}

std::size_t Scheduler::add_region(void *live, std::size_t size) {
  auto *p = static_cast<std::byte *>(live);
  const std::size_t offset = images_size_;
  // A region that starts where the last one ends (libc's optopt, opterr, optind are neighbours)
  // joins it: one copy instead of two.
  if (!regions_.empty() && regions_.back().live + regions_.back().size == p)
    regions_.back().size += size;
  else
    regions_.push_back({p, size, offset});
  images_size_ += size;
  auto before = std::make_unique<std::byte[]>(images_size_);
  if (before_) std::memcpy(before.get(), before_.get(), offset);
  std::memcpy(before.get() + offset, p, size);
  before_ = std::move(before);
  loaded_ = before_.get();
  return offset;
}

bool Scheduler::in_region(const void *p) const noexcept {
  const auto *b = static_cast<const std::byte *>(p);
  for (const Region &r : regions_)
    if (b >= r.live && b < r.live + r.size) return true;
  return false;
}

namespace {
// Saves `live` into `save` and loads `load` into it, `n` bytes. Regions of libc's state are a few
// words: copied inline, a word at a time, in one pass (two calls of memcpy per region cost more
// than the copies: 3 regions of 12, 8 and 56 bytes added 20 ns per switch that way, 11 ns inline:
// CPU time of bench/context_switch 2 5000000 getopt, 18 ns per switch without regions).
inline void exchange(std::byte *live, std::byte *save, const std::byte *load, std::size_t n) {
  if (n > 256) {
    std::memcpy(save, live, n);
    std::memcpy(live, load, n);
    return;
  }
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t w, v;
    std::memcpy(&w, live + i, 8);
    std::memcpy(&v, load + i, 8);
    std::memcpy(save + i, &w, 8);
    std::memcpy(live + i, &v, 8);
  }
  if (i + 4 <= n) {
    std::uint32_t w, v;
    std::memcpy(&w, live + i, 4);
    std::memcpy(&v, load + i, 4);
    std::memcpy(save + i, &w, 4);
    std::memcpy(live + i, &v, 4);
    i += 4;
  }
  for (; i < n; ++i) {
    save[i] = live[i];
    live[i] = load[i];
  }
}
} // namespace

void Scheduler::swap_images(std::byte *images) noexcept {
  for (const Region &r : regions_)
    exchange(r.live, loaded_ + r.offset, images + r.offset, r.size);
  loaded_ = images;
}

namespace {
std::uint64_t monotonic_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u +
         static_cast<std::uint64_t>(ts.tv_nsec);
}
// The switch clock. rdtsc needs an invariant TSC (constant_tsc, nonstop_tsc: every x86-64 CPU
// of the last decade; Linux then uses it for CLOCK_MONOTONIC too); a PE thread that moves to a
// core whose TSC is behind sees a step back, which charge_current() drops rather than wrapping.
inline std::uint64_t ticks() noexcept {
#if defined(__x86_64__)
  return __rdtsc();
#else
  return monotonic_ns();
#endif
}
} // namespace

void Scheduler::set_timing(bool on) noexcept {
  if (on && !timing_) {
    timing_ticks0_ = ticks();
    timing_ns0_ = monotonic_ns();
    since_ = timing_ticks0_;
  }
  timing_ = on;
}

double Scheduler::busy_seconds(const Task &t) const noexcept {
  if (!timing_ || t.busy_ticks_ == 0) return 0.0;
#if defined(__x86_64__)
  const std::uint64_t dt = ticks() - timing_ticks0_;
  const std::uint64_t dns = monotonic_ns() - timing_ns0_;
  if (dt == 0) return 0.0;
  return static_cast<double>(t.busy_ticks_) * (static_cast<double>(dns) * 1e-9) /
         static_cast<double>(dt);
#else
  return static_cast<double>(t.busy_ticks_) * 1e-9;
#endif
}

void Scheduler::charge_current() noexcept {
  const std::uint64_t now = ticks();
  if (Task *t = current_) {
    Task &to = t->charge_to ? *t->charge_to : *t;
    if (now > since_) to.busy_ticks_ += now - since_;
  }
  since_ = now;
}

void Scheduler::enter(Task &next, ctx::fcontext_t *resume_slot) noexcept {
  if (timing_) [[unlikely]]
    charge_current();
  if (next.images != loaded_ && next.images) [[unlikely]]
    swap_images(next.images);
  next.state_ = Task::State::Running;
  current_ = &next;
  ++switches_;
  Arrival a{resume_slot, &next};
  void *fake_stack = nullptr;
  sanitizer::start_switch(&fake_stack, &next);
  ctx::transfer_t t = ctx::jump_fcontext(next.context_, &a);
  sanitizer::finish_switch(fake_stack);
  arrived(t);
}

void Scheduler::detach(Task &t) noexcept {
  if (t.state_ == Task::State::Ready) {
    Task *prev = nullptr;
    for (Task *q = head_; q; prev = q, q = q->next_ready_) {
      if (q != &t) continue;
      (prev ? prev->next_ready_ : head_) = q->next_ready_;
      if (tail_ == q) tail_ = prev;
      break;
    }
    t.next_ready_ = nullptr;
    t.state_ = Task::State::Blocked;
  }
  if (t.images && loaded_ == t.images) swap_images(before_.get());
  t.scheduler_ = nullptr;
}

void Scheduler::overflowed(Task &self) noexcept {
  if (on_overflow_) on_overflow_(self);
  std::fprintf(stderr, "ampi: a task overflowed its stack (%zu bytes)\n",
               self.stack_size() - self.stack_guard());
  std::abort();
}

void Scheduler::switch_from(Task &self) noexcept {
  check_stack(self, false);
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
  if (timing_) [[unlikely]]
    charge_current();
  returned_ = &self;
  current_ = nullptr;
  Arrival a{&self.context_, nullptr};
  void *fake_stack = nullptr;
  sanitizer::start_switch(&fake_stack, nullptr);
  ctx::transfer_t t = ctx::jump_fcontext(loop_context_, &a);
  sanitizer::finish_switch(fake_stack);
  arrived(t);
}

void Scheduler::finish_current() noexcept {
  Task &self = *current_;
  check_stack(self, true);
  self.state_ = Task::State::Finished;
  if (timing_) [[unlikely]]
    charge_current();
  returned_ = &self;
  current_ = nullptr;
  ctx::fcontext_t dead = nullptr; // nobody resumes a finished task
  Arrival a{&dead, nullptr};
  sanitizer::start_switch(nullptr, nullptr); // this stack is left for good
  ctx::jump_fcontext(loop_context_, &a);
  std::abort();
}

Task *Scheduler::run_one() {
  Task *t = pop();
  if (!t) return nullptr;
  returned_ = nullptr;
  sanitizer::leave_loop();
  enter(*t, &loop_context_);
  return returned_;
}

} // namespace ampi::ult
