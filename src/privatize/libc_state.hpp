// src/privatize/libc_state.hpp — libc's hidden state, per rank. What this owns:
//  - getopt: libc's `optind`, `optarg`, `opterr`, `optopt` and glibc's hidden position (the
//    static `struct _getopt_data` in libc's .bss, found at start-up by calibration) are regions
//    that each rank has its own image of (ult::Scheduler::add_region), registered only for
//    programs that use getopt;
//  - rand()/random() and their seeding, the drand48 family and strtok: libampi.so interposes them
//    (src/libampi.map) and keeps each rank's state in its RankLibc (the Rank's `libc`), built on
//    glibc's reentrant functions, so that each rank's sequence is the one a lone process gets;
//  - which code is the library's own (libampi and what it alone loads: UCX, PMIx...): its calls
//    to those functions, and calls outside any rank, use the process's state (glibc's own).
// The scheduler knows nothing of this: it swaps regions.
#pragma once

#include <stdlib.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ampi::ult {
class Scheduler;
}

namespace ampi::privatize {

// A lock for a rank's RankLibc: the rank's user-level thread and the OS threads it created may
// draw at the same time (glibc's own functions lock too). Held for one call of a reentrant
// function, never across a switch between ranks, so spinning is short; it yields the core after
// a while (the holder may have been preempted).
class SpinLock {
public:
  void lock() noexcept {
    if (!held_.exchange(true, std::memory_order_acquire)) [[likely]]
      return;
    lock_slow();
  }
  void unlock() noexcept { held_.store(false, std::memory_order_release); }

private:
  void lock_slow() noexcept;
  std::atomic<bool> held_{false};
};

// One rank's state of the functions that libc keeps in static variables.
struct RankLibc {
  SpinLock lock;
  // random()/rand(): glibc's default state (TYPE_3: 31 words and the type word, 128 bytes), set
  // up on first use as glibc's own is, "as if from initstate(1, table, 128)".
  bool random_ready = false;
  random_data random{};
  alignas(8) std::int32_t random_table[32]{};
  // drand48 and friends: zeroed is glibc's initial state (a and c are set on first use).
  drand48_data drand48{};
  // strtok's position.
  char *strtok_next = nullptr;
};

// A part of the images that every rank starts with: `bytes` at `offset` of a task's images.
struct InitialImage {
  std::size_t offset = 0;
  std::vector<std::byte> bytes;
};

// Called once per PE, on its thread, before its ranks start (the library's objects are all
// loaded by then): learns which code is the library's own, and when the program uses getopt
// registers libc's getopt state as regions of `sched`; returns what each rank's images must hold
// at its start (POSIX's initial values: optind 1, opterr 1, optopt '?', optarg NULL, glibc's
// position zeroed). Notes what it found on stderr when AMPI_VERBOSE is set.
std::vector<InitialImage> setup_libc_state(ult::Scheduler &sched);

} // namespace ampi::privatize
