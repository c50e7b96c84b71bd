// tests/ult/ult_test.cpp — the user-level-thread runtime alone (src/ult): tasks run on their own
// stacks in FIFO order, block until made ready, yield to each other, finish once; per-task images
// of memory regions follow the running task; a stack overflow faults in the guard page, a failed
// guard page is an error, Check-mode stacks share mappings and their overflows are found; the
// OS-thread bookkeeping's waits wake on notify; a finished task's stack leaves no AddressSanitizer
// poison behind.
#include "ult/os_threads.hpp"
#include "ult/scheduler.hpp"
#include "ult/stack.hpp"

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

namespace {

using ampi::ult::Scheduler;
using ampi::ult::Task;

constexpr std::size_t kStack = 64 * 1024;

// Runs the scheduler loop until no task is ready; returns the tasks that finished, in order.
std::vector<Task *> drain(Scheduler &s) {
  std::vector<Task *> finished;
  while (Task *t = s.run_one())
    if (t->finished()) finished.push_back(t);
  return finished;
}

TEST(UltScheduler, RunsTasksInSpawnOrderAndYieldRoundRobins) {
  Scheduler s;
  std::string trace;
  std::vector<std::unique_ptr<Task>> tasks;
  for (char name : {'a', 'b', 'c'}) {
    tasks.push_back(std::make_unique<Task>(kStack, [&, name] {
      for (int i = 0; i < 3; ++i) {
        trace += name;
        s.yield();
      }
    }));
    s.spawn(*tasks.back());
  }
  const auto finished = drain(s);
  EXPECT_EQ(trace, "abcabcabc");
  ASSERT_EQ(finished.size(), 3u);
  for (auto &t : tasks)
    EXPECT_TRUE(t->finished());
}

TEST(UltScheduler, BlockedTaskRunsOnlyAfterMakeReady) {
  Scheduler s;
  int stage = 0;
  Task waiter(kStack, [&] {
    stage = 1;
    s.block();
    stage = 3;
  });
  Task waker(kStack, [&] {
    EXPECT_EQ(stage, 1);
    stage = 2;
    s.make_ready(waiter);
    s.make_ready(waiter); // a second call on a ready task has no effect (queued once)
  });
  s.spawn(waiter);
  s.spawn(waker);
  drain(s);
  EXPECT_EQ(stage, 3);
  EXPECT_TRUE(waiter.finished());
  EXPECT_TRUE(waker.finished());
}

TEST(UltScheduler, LoopReturnsWhenEveryTaskIsBlocked) {
  Scheduler s;
  bool resumed = false;
  Task t(kStack, [&] {
    s.block();
    resumed = true;
  });
  s.spawn(t);
  // It blocked: control comes back to the loop from it, unfinished; then nothing is ready.
  EXPECT_EQ(s.run_one(), &t);
  EXPECT_FALSE(t.finished());
  EXPECT_EQ(s.run_one(), nullptr);
  EXPECT_FALSE(s.has_ready());
  s.make_ready(t);
  EXPECT_TRUE(s.has_ready());
  Task *last = s.run_one();
  EXPECT_EQ(last, &t);
  EXPECT_TRUE(t.finished());
  EXPECT_TRUE(resumed);
}

TEST(UltScheduler, CurrentIsTheRunningTaskAndOwnerIsKept) {
  Scheduler s;
  int owner_value = 7;
  Task *seen = nullptr;
  void *seen_owner = nullptr;
  Task t(kStack, [&] {
    seen = s.current();
    seen_owner = s.current()->owner;
  });
  t.owner = &owner_value;
  s.spawn(t);
  drain(s);
  EXPECT_EQ(seen, &t);
  EXPECT_EQ(seen_owner, &owner_value);
}

TEST(UltScheduler, EachTaskSeesItsOwnImageOfARegion) {
  long live = 100; // the memory every task has its own image of
  std::vector<long> seen;
  {
    Scheduler s;
    const std::size_t offset = s.add_region(&live, sizeof live);
    ASSERT_EQ(s.images_size(), sizeof live);
    std::vector<std::unique_ptr<std::byte[]>> images;
    std::vector<std::unique_ptr<Task>> tasks;
    for (long start : {1L, 2L}) {
      images.push_back(std::make_unique<std::byte[]>(s.images_size()));
      std::memcpy(images.back().get() + offset, &start, sizeof start);
      tasks.push_back(std::make_unique<Task>(kStack, [&] {
        for (int i = 0; i < 3; ++i) {
          seen.push_back(live);
          live += 10; // changes this task's image only
          s.yield();
        }
      }));
      tasks.back()->images = images.back().get();
      s.spawn(*tasks.back());
    }
    EXPECT_TRUE(s.in_region(&live));
    drain(s);
  }
  EXPECT_EQ(seen, (std::vector<long>{1, 2, 11, 12, 21, 22}));
  EXPECT_EQ(live, 100); // the scheduler put back what was there before any task ran
}

TEST(UltScheduler, CountsSwitches) {
  Scheduler s;
  Task a(kStack, [&] { s.yield(); });
  Task b(kStack, [&] { s.yield(); });
  s.spawn(a);
  s.spawn(b);
  drain(s);
  EXPECT_GE(s.switches(), 4u); // a->b, b->a, a->b (a ends), b ends: at least one per hand-over
}

TEST(UltStack, GuardPageBelowTheUsableStack) {
  ampi::ult::StackPool alloc(kStack, ampi::ult::GuardMode::Page);
  ampi::ult::Stack stack = alloc.allocate();
  auto ctx = stack.ctx;
  const std::size_t page = ampi::ult::StackPool::page_size();
  auto *top = static_cast<unsigned char *>(ctx.sp);
  auto *low = top - ctx.size;
  EXPECT_GE(ctx.size, kStack);
  top[-1] = 1;   // the usable stack is writable
  low[page] = 1; // down to just above the guard page
  // The lowest page is the guard: writing to it faults.
  EXPECT_EXIT(
      {
        low[0] = 1;
        std::exit(0);
      },
      ::testing::KilledBySignal(SIGSEGV), "");
  alloc.release(stack);
}

// Touches every page of its frame on the way down, so an endless descent meets the guard page
// (rather than jumping over it into whatever lies below).
int descend(int depth) {
  volatile char frame[1024];
  frame[0] = static_cast<char>(depth);
  frame[sizeof frame - 1] = static_cast<char>(depth);
  return descend(depth + 1) + frame[0];
}

TEST(UltStack, OverflowInATaskFaults) {
  EXPECT_EXIT(
      {
        Scheduler s;
        Task t(kStack, [] { (void)descend(0); });
        s.spawn(t);
        drain(s);
        std::exit(0);
      },
      ::testing::KilledBySignal(SIGSEGV), "");
}

// A failed mprotect of the guard page (ENOMEM when the split passes vm.max_map_count) is an
// error naming the limit, not a stack without a guard. The failure is injected.
int failing_protect(void *, std::size_t, int) {
  errno = ENOMEM;
  return -1;
}

TEST(UltStack, FailedGuardPageIsAnError) {
  ampi::ult::StackPool pool(kStack, ampi::ult::GuardMode::Page, failing_protect);
  try {
    (void)pool.allocate();
    FAIL() << "allocate() made a stack without a guard page";
  } catch (const ampi::ult::StackError &e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("guard page"), std::string::npos) << what;
    EXPECT_NE(what.find("vm.max_map_count"), std::string::npos) << what;
  }
  // A task on such a pool is not created either.
  EXPECT_THROW(Task(pool, [] {}), ampi::ult::StackError);
}

std::size_t mappings() {
  std::FILE *f = std::fopen("/proc/self/maps", "r");
  std::size_t n = 0;
  for (int c; (c = std::fgetc(f)) != EOF;)
    n += c == '\n';
  std::fclose(f);
  return n;
}

TEST(UltStack, PageModeCostsTwoMappingsPerStack) {
  ampi::ult::StackPool pool(kStack, ampi::ult::GuardMode::Page);
  const std::size_t before = mappings();
  std::vector<ampi::ult::Stack> stacks;
  for (int i = 0; i < 100; ++i)
    stacks.push_back(pool.allocate());
  EXPECT_GE(mappings() - before, 150u); // (the kernel may merge a few neighbours)
  EXPECT_EQ(pool.mappings_for(100), 200u);
  for (auto &s : stacks)
    pool.release(s);
}

// Check mode: 2,000 stacks of one pool cost a handful of mappings, not 4,000; each is usable down
// to its gap, and released slots are reused.
TEST(UltStack, CheckModeStacksShareMappings) {
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer maps shadow memory for what the stacks' first bytes touch: it counts too.
  GTEST_SKIP() << "mapping counts include AddressSanitizer's shadow memory";
#endif
  ampi::ult::StackPool pool(kStack, ampi::ult::GuardMode::Check);
  const std::size_t before = mappings();
  std::vector<ampi::ult::Stack> stacks;
  for (int i = 0; i < 2000; ++i) {
    stacks.push_back(pool.allocate());
    auto &s = stacks.back();
    ASSERT_EQ(s.guard, ampi::ult::StackPool::kCheckGap);
    s.usable_low()[0] = 1;
    static_cast<char *>(s.ctx.sp)[-1] = 1;
    EXPECT_FALSE(ampi::ult::StackPool::gap_touched(s));
  }
  EXPECT_LE(mappings() - before, 4u);
  EXPECT_LE(pool.mappings_for(2000), 4u);
  char *first = stacks.front().low();
  pool.release(stacks.front());
  EXPECT_EQ(pool.allocate().low(), first);
}

// Goes `bytes` below the stack pointer it started at, touching a word every 512 bytes, and
// optionally yields at the bottom.
[[gnu::noinline]] void dig(std::size_t bytes, Scheduler *yield_at_bottom) {
  volatile char frame[512];
  frame[0] = 1;
  if (bytes > sizeof frame)
    dig(bytes - sizeof frame, yield_at_bottom);
  else if (yield_at_bottom)
    yield_at_bottom->yield();
  frame[sizeof frame - 1] = 2;
}

Scheduler *g_overflow_scheduler = nullptr; // (the report is a plain function pointer)

// Check mode: an overflow into the gap that returned is found when the task ends; one whose
// stack pointer is in the gap when it switches is found at the switch. Both end the process
// through the scheduler's overflow report.
TEST(UltStack, CheckModeFindsAnOverflowWhenTheTaskEnds) {
  EXPECT_EXIT(
      {
        ampi::ult::StackPool pool(kStack, ampi::ult::GuardMode::Check);
        Scheduler s;
        s.set_overflow_report([](Task &) {
          std::fputs("overflow reported\n", stderr);
          std::_Exit(3); // at once: the dropped task keeps its objects, no leak check
        });
        Task t(pool, [] { dig(kStack + 16 * 1024, nullptr); });
        s.spawn(t);
        drain(s);
        std::exit(0);
      },
      ::testing::ExitedWithCode(3), "overflow reported");
}

TEST(UltStack, CheckModeFindsAnOverflowAtASwitch) {
  EXPECT_EXIT(
      {
        ampi::ult::StackPool pool(kStack, ampi::ult::GuardMode::Check);
        Scheduler s;
        g_overflow_scheduler = &s;
        s.set_overflow_report([](Task &) {
          std::fputs(g_overflow_scheduler->current() ? "at a switch\n" : "?\n", stderr);
          std::_Exit(3); // at once: the dropped task keeps its objects, no leak check
        });
        Task t(pool, [&] { dig(kStack + 16 * 1024, &s); });
        Task other(pool, [] {});
        s.spawn(t);
        s.spawn(other);
        drain(s);
        std::exit(0);
      },
      ::testing::ExitedWithCode(3), "at a switch");
}

TEST(UltStack, CheckModeTaskWithinItsStackIsFine) {
  ampi::ult::StackPool pool(kStack, ampi::ult::GuardMode::Check);
  Scheduler s;
  s.set_overflow_report([](Task &) { std::abort(); });
  Task t(pool, [&] { dig(kStack / 2, &s); });
  Task other(pool, [&] { s.yield(); });
  s.spawn(t);
  s.spawn(other);
  EXPECT_EQ(drain(s).size(), 2u);
}

TEST(UltThreads, WaitWakesOnNotifyFromAnotherThread) {
  auto threads = std::make_shared<ampi::ult::Threads>(nullptr);
  threads->lock();
  EXPECT_EQ(ampi::ult::Threads::depth(), 1);
  bool woken = false;
  std::thread notifier([&] {
    threads->lock();
    threads->notify();
    threads->unlock();
  });
  // Without the notify this waits the full minute and fails; with it, it returns true.
  woken = threads->wait(std::chrono::minutes(1));
  threads->unlock();
  notifier.join();
  EXPECT_TRUE(woken);
  EXPECT_EQ(ampi::ult::Threads::depth(), 0);
}

TEST(UltThreads, WaitTimesOutWithoutNotify) {
  ampi::ult::Threads threads(nullptr);
  threads.lock();
  EXPECT_FALSE(threads.wait(std::chrono::microseconds(1000)));
  threads.unlock();
}

TEST(UltThreads, LoopWakesOnTouched) {
  auto threads = std::make_shared<ampi::ult::Threads>(nullptr);
  threads->lock();
  std::thread toucher([&] {
    threads->lock(); // gets in only once the loop sleeps (it released the mutex)
    threads->touched();
    threads->unlock();
  });
  const auto t0 = std::chrono::steady_clock::now();
  threads->wait_loop(-1, std::chrono::milliseconds(60000));
  const auto waited = std::chrono::steady_clock::now() - t0;
  threads->unlock();
  toucher.join();
  EXPECT_LT(waited, std::chrono::seconds(59)); // woken, not timed out
  EXPECT_EQ(threads->activity_, 1u);
}

} // namespace

namespace {

// Rank migration (src/mpi/migrate.cpp): a suspended task, detached from the scheduler of one OS
// thread and adopted by another thread's, resumes there with its image of that thread's region
// and ends there; a task waiting in the ready queue is taken out of it.
thread_local long tls_live = -1; // each thread's live memory of the region

__attribute__((noinline)) long read_tls_live() {
  return tls_live;
}
__attribute__((noinline)) void write_tls_live(long v) {
  tls_live = v;
}
// pthread_self() is declared const: within one function the compiler may reuse its value across
// a switch, as it may a thread_local's address (what MPIX_Migrate's callers must know).
__attribute__((noinline)) std::thread::id this_thread() {
  return std::this_thread::get_id();
}

TEST(UltScheduler, DetachedTaskResumesOnAnotherThreadsScheduler) {
  Scheduler a;
  const std::size_t offset = a.add_region(&tls_live, sizeof tls_live);
  auto image1 = std::make_unique<std::byte[]>(a.images_size());
  auto image2 = std::make_unique<std::byte[]>(a.images_size());
  const long zero = 0;
  std::memcpy(image1.get() + offset, &zero, sizeof zero);
  std::memcpy(image2.get() + offset, &zero, sizeof zero);
  std::thread::id ran_on[2], resumed_on[2];
  long seen[2] = {0, 0};
  Task t1(kStack, [&] {
    ran_on[0] = this_thread();
    write_tls_live(5);
    a.block(); // resumed by the other thread's scheduler
    resumed_on[0] = this_thread();
    seen[0] = read_tls_live();
  });
  Task t2(kStack, [&] {
    ran_on[1] = this_thread();
    write_tls_live(7);
    a.yield(); // still ready, in the queue, when the loop gets control back
    resumed_on[1] = this_thread();
    seen[1] = read_tls_live();
  });
  bool t3_done = false;
  Task t3(kStack, [&] { t3_done = true; });
  t1.images = image1.get();
  t2.images = image2.get();
  a.spawn(t1);
  a.spawn(t2);
  a.spawn(t3);
  EXPECT_EQ(a.run_one(), &t3); // t1 blocked, t2 yielded, t3 finished: t2 waits in the queue
  ASSERT_TRUE(t3_done);
  ASSERT_TRUE(a.has_ready());
  a.detach(t1);
  a.detach(t2);
  EXPECT_FALSE(a.has_ready());
  EXPECT_EQ(t2.state(), Task::State::Blocked);
  EXPECT_EQ(a.run_one(), nullptr); // nothing left here
  std::vector<Task *> finished;
  std::thread other([&] {
    Scheduler b;
    EXPECT_EQ(b.add_region(&tls_live, sizeof tls_live), offset); // same layout on every thread
    b.adopt(t1);
    b.adopt(t2);
    b.make_ready(t2);
    b.make_ready(t1);
    finished = drain(b);
  });
  other.join();
  EXPECT_EQ(finished, (std::vector<Task *>{&t2, &t1}));
  for (int i = 0; i < 2; ++i) {
    EXPECT_NE(ran_on[i], resumed_on[i]);
    EXPECT_NE(resumed_on[i], std::this_thread::get_id());
  }
  EXPECT_EQ(seen[0], 5); // each task's value followed it to the other thread
  EXPECT_EQ(seen[1], 7);
  EXPECT_EQ(read_tls_live(), -1); // this thread's memory was given back its own value
}

} // namespace

// A finished task's stack, once given back, carries no AddressSanitizer poison. A task never
// returns from its first frame (it jumps to the scheduler), so without clearing that frame's
// redzones stay in the shadow: memory mapped at the same addresses next by a path ASan does not
// intercept (ld.so mapping a dlopen'ed library, UCX's own mmap) then reads as a stack overflow
// in whatever copies from it. Both guard modes: Page stacks are unmapped, Check slots are kept.
TEST(UltStack, GivenBackStackCarriesNoPoison) {
#if !defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "the shadow memory exists only under AddressSanitizer";
#else
  for (auto mode : {ampi::ult::GuardMode::Page, ampi::ult::GuardMode::Check}) {
    SCOPED_TRACE(mode == ampi::ult::GuardMode::Page ? "Page" : "Check");
    ampi::ult::StackPool pool(kStack, mode);
    Scheduler s;
    char *low = nullptr;
    std::size_t size = 0;
    {
      Task t(pool, [&] {
        volatile char frame[200]; // a frame with redzones, left for the scheduler once
        frame[0] = 1;
        s.yield();
        frame[1] = frame[0];
      });
      low = static_cast<char *>(const_cast<void *>(t.stack_low()));
      size = t.stack_size();
      s.spawn(t);
      drain(s);
      ASSERT_TRUE(t.finished());
      // The premise: the finished task left poison on its stack.
      ASSERT_NE(__asan_region_is_poisoned(low, size), nullptr);
    } // the task's stack goes back to the pool here
    if (mode == ampi::ult::GuardMode::Page) {
      // Map the same addresses as ld.so would, with the system call itself.
      void *p = reinterpret_cast<void *>(
          ::syscall(SYS_mmap, low, size, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0));
      ASSERT_EQ(p, static_cast<void *>(low)) << "the stack's addresses were taken meanwhile";
      EXPECT_EQ(__asan_region_is_poisoned(low, size), nullptr);
      std::vector<char> copy(size);
      std::memcpy(copy.data(), low, size); // ASan's memcpy checks the shadow of all of it
      ::syscall(SYS_munmap, low, size);
    } else {
      EXPECT_EQ(__asan_region_is_poisoned(low, size), nullptr);
    }
  }
#endif
}
