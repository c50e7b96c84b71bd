// src/privatize/interpose.hpp — finding the definition that a function libampi.so interposes
// (pthread_create, rand, strtok, ...) would have had without it: the next one after libampi in
// the lookup order. Header-only so that the lookup is made from libampi's own code (RTLD_NEXT is
// relative to the caller's object).
#pragma once

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace ampi::privatize {

// The next definition of `name` after libampi.so; a missing one ends the process with a message
// (the C library always has them).
template <class Fn> Fn next_definition(const char *name) {
  void *p = ::dlsym(RTLD_NEXT, name);
  if (!p) {
    std::fprintf(stderr, "ampi: cannot find %s after libampi.so: %s\n", name, ::dlerror());
    std::abort();
  }
  return reinterpret_cast<Fn>(p);
}

} // namespace ampi::privatize
