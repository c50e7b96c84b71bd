// src/privatize/rank_state.hpp — what privatization keeps per virtual rank: its own copy of the
// program (a dlopen handle) if it has one, its images of the memory every rank has its own of
// (the program's thread_local block, libc's getopt state), its libc rand/random/drand48/strtok
// state and the destructors of its thread_local objects. core's Rank holds one (rank.privatize).
#pragma once

#include "privatize/libc_state.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace ampi::privatize {

struct RankState {
  void *program = nullptr;     // this rank's copy of the program (dlopen handle), or nullptr
  std::uintptr_t mapped = 0;   // or the base of its mapped copy (copy_maker.hpp), or 0
  void *program_dso = nullptr; // its __dso_handle
  // Its images of the scheduler's regions (setup_rank_images), or nullptr; its tasks run with
  // them live.
  std::unique_ptr<std::byte[]> images;
  RankLibc libc;
  // Destructors of its thread_local objects (registered while its image was live), run when the
  // rank ends, last registered first.
  std::vector<std::pair<void (*)(void *), void *>> tls_destructors;
};

} // namespace ampi::privatize
