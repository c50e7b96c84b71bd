// tests/ult/busy_test.cpp — the scheduler's busy time per task (load balancing): a task is
// charged for the time it runs and not for the time it is blocked or the loop spins; more work,
// more busy time; helper tasks charge their owner; reset starts again; timing off measures
// nothing.
#include "ult/scheduler.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>

namespace {

using ampi::ult::Scheduler;
using ampi::ult::Task;
using Clock = std::chrono::steady_clock;
constexpr std::size_t kStack = 64 * 1024;

// Runs for about `ms` milliseconds of wall time (CPU-bound).
void spin_ms(double ms) {
  const auto end = Clock::now() + std::chrono::duration<double, std::milli>(ms);
  volatile std::uint64_t x = 0;
  while (Clock::now() < end)
    for (int i = 0; i < 1000; ++i)
      x = x + 1;
}

void drain(Scheduler &s) {
  while (s.run_one()) {
  }
}

TEST(UltBusy, OffMeasuresNothing) {
  Scheduler s;
  Task t(kStack, [] { spin_ms(5); });
  s.spawn(t);
  drain(s);
  EXPECT_FALSE(s.timing());
  EXPECT_EQ(s.busy_seconds(t), 0.0);
}

// The task runs ~40 ms over four stints; it is blocked while the loop spins 4 x 40 ms: its busy
// time counts the former and not the latter.
TEST(UltBusy, CountsRunningNotBlocked) {
  Scheduler s;
  s.set_timing(true);
  Task t(kStack, [&] {
    for (int i = 0; i < 4; ++i) {
      spin_ms(10);
      s.block();
    }
  });
  s.spawn(t);
  const auto start = Clock::now();
  for (int i = 0; i < 4; ++i) {
    ASSERT_EQ(s.run_one(), &t); // it ran a stint and blocked
    spin_ms(40);                // the loop "polls" for nobody
    s.make_ready(t);
  }
  drain(s);
  ASSERT_TRUE(t.finished());
  const double wall = std::chrono::duration<double>(Clock::now() - start).count();
  const double busy = s.busy_seconds(t);
  EXPECT_GE(busy, 0.035); // 4 stints of at least 10 ms each (less 5 ms for the clock's rate)
  EXPECT_LT(busy, wall - 0.1) << "the loop's 160 ms were charged to the task";
}

// Two tasks that take turns, one doing four times the other's work per turn.
TEST(UltBusy, MoreWorkMoreBusyTime) {
  Scheduler s;
  s.set_timing(true);
  Task light(kStack, [&] {
    for (int i = 0; i < 5; ++i) {
      spin_ms(2);
      s.yield();
    }
  });
  Task heavy(kStack, [&] {
    for (int i = 0; i < 5; ++i) {
      spin_ms(8);
      s.yield();
    }
  });
  s.spawn(light);
  s.spawn(heavy);
  drain(s);
  EXPECT_GE(s.busy_seconds(light), 0.009);
  EXPECT_GE(s.busy_seconds(heavy), 0.039);
  EXPECT_GT(s.busy_seconds(heavy), s.busy_seconds(light));
}

TEST(UltBusy, HelperChargesItsOwnerAndResetStartsAgain) {
  Scheduler s;
  s.set_timing(true);
  Task owner(kStack, [&] { s.block(); });
  Task helper(kStack, [&] { spin_ms(20); });
  helper.charge_to = &owner;
  s.spawn(owner);
  s.spawn(helper);
  drain(s);
  EXPECT_EQ(s.busy_seconds(helper), 0.0);
  EXPECT_GE(s.busy_seconds(owner), 0.019);
  s.reset_busy(owner);
  EXPECT_EQ(s.busy_seconds(owner), 0.0);
  s.make_ready(owner);
  drain(s);
  EXPECT_TRUE(owner.finished());
  EXPECT_LT(s.busy_seconds(owner), 0.019); // only its last, short stint
}

// charge_now(), called from inside a task, counts the stint so far.
TEST(UltBusy, ChargeNowCountsTheRunningStint) {
  Scheduler s;
  s.set_timing(true);
  double seen = -1;
  Task t(kStack, [&] {
    spin_ms(10);
    s.charge_now();
    seen = s.busy_seconds(*s.current());
  });
  s.spawn(t);
  drain(s);
  EXPECT_GE(seen, 0.009);
}

} // namespace
