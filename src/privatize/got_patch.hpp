// src/privatize/got_patch.hpp — points one loaded object's references to a shared-library
// function at another function: the object's GOT slots (PLT jump slots and data references) for
// that symbol are rewritten in memory. Used for the few library calls whose meaning changes when
// several ranks share a process (cudaDeviceReset), for the program's copies and the program as
// started only, never for the libraries.
#pragma once

#include <link.h>

namespace ampi::privatize {

// Rewrites the GOT slots of `object` that refer to `symbol` so that they hold `replacement`.
// Returns how many slots it rewrote (0: the object does not call `symbol` through its GOT, e.g.
// it contains the function itself).
int patch_got(const link_map &object, const char *symbol, void *replacement) noexcept;

// The link map of the program as started (the main executable).
const link_map *program_link_map() noexcept;

} // namespace ampi::privatize
