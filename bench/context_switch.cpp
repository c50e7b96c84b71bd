// bench/context_switch.cpp — the cost of the scheduler's switch between virtual ranks: N tasks on
// one PE's scheduler that only yield, timed over many rounds. Reports switches per second and
// nanoseconds per switch (a switch = one task suspending and the next one resuming, directly).
// With `getopt` as third argument, every task has its own image of three regions shaped as libc's
// getopt state is on glibc 2.36 (optopt+opterr+optind: 12 bytes, optarg: 8, glibc's position: 56),
// swapped at every switch, as for a program that uses getopt (src/privatize/libc_state.cpp).
// With `timing`, the scheduler measures each task's busy time (what AMPI_LB other than none turns
// on: one clock read per switch).
//   usage: context_switch [tasks [yields_per_task [getopt|timing]]]
#include "ult/scheduler.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

int main(int argc, char **argv) {
  const int tasks = argc > 1 ? std::atoi(argv[1]) : 2;
  const long yields = argc > 2 ? std::atol(argv[2]) : 5'000'000;
  const bool regions = argc > 3 && std::strcmp(argv[3], "getopt") == 0;
  const bool timing = argc > 3 && std::strcmp(argv[3], "timing") == 0;
  struct {
    alignas(8) std::byte vars[12], gap1[20], arg[8], gap2[8], position[56];
  } libc{}; // the gaps keep the scheduler from joining the regions (libc's are apart too)
  ampi::ult::Scheduler sched; // (after libc: its destructor writes the regions back)
  sched.set_timing(timing);
  if (regions) {
    sched.add_region(libc.vars, sizeof libc.vars);
    sched.add_region(libc.arg, sizeof libc.arg);
    sched.add_region(libc.position, sizeof libc.position);
  }
  std::vector<std::unique_ptr<ampi::ult::Task>> all;
  std::vector<std::unique_ptr<std::byte[]>> images;
  for (int i = 0; i < tasks; ++i) {
    all.push_back(std::make_unique<ampi::ult::Task>(64 * 1024, [&sched, yields] {
      for (long k = 0; k < yields; ++k)
        sched.yield();
    }));
    if (regions) {
      images.push_back(std::make_unique<std::byte[]>(sched.images_size()));
      all.back()->images = images.back().get();
    }
    sched.spawn(*all.back());
  }
  const auto t0 = std::chrono::steady_clock::now();
  while (sched.run_one()) {
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double n = static_cast<double>(sched.switches());
  std::printf("%d tasks%s, %.0f switches in %.3f s: %.1f M switches/s, %.1f ns per switch "
              "(one task to the next)\n",
              tasks,
              regions  ? " with getopt's regions"
              : timing ? " timing busy time"
                       : "",
              n, s, n / s / 1e6, s / n * 1e9);
  return 0;
}
