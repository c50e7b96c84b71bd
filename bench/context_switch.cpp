// bench/context_switch.cpp — the cost of the scheduler's switch between virtual ranks: N tasks on
// one PE's scheduler that only yield, timed over many rounds. Reports switches per second and
// nanoseconds per switch (a switch = one task suspending and the next one resuming, directly).
//   usage: context_switch [tasks [yields_per_task]]
#include "ranks/scheduler.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

int main(int argc, char **argv) {
  const int tasks = argc > 1 ? std::atoi(argv[1]) : 2;
  const long yields = argc > 2 ? std::atol(argv[2]) : 5'000'000;
  ampi::ranks::Scheduler sched;
  std::vector<std::unique_ptr<ampi::ranks::Task>> all;
  for (int i = 0; i < tasks; ++i) {
    all.push_back(std::make_unique<ampi::ranks::Task>(64 * 1024, [&sched, yields] {
      for (long k = 0; k < yields; ++k)
        sched.yield();
    }));
    sched.spawn(*all.back());
  }
  const auto t0 = std::chrono::steady_clock::now();
  while (sched.run_one()) {
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double n = static_cast<double>(sched.switches());
  std::printf("%d tasks, %.0f switches in %.3f s: %.1f M switches/s, %.1f ns per switch "
              "(one task to the next)\n",
              tasks, n, s, n / s / 1e6, s / n * 1e9);
  return 0;
}
