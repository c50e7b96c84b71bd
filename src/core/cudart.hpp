// src/core/cudart.hpp — the CUDA runtime as the virtual ranks of one process see it: blocking
// waits that let the PE's other ranks run, and a default stream per rank (see cudart.cpp).
#pragma once

#include <vector>

namespace ampi::cudart {

// The shared CUDA runtime's waits, copies, launches and stream calls, each with ours, for the
// program's GOT slots (device_reset.cpp points them there, in the program as started and in each
// rank's copy); empty without the shared runtime. A program with the static runtime is linked
// with wrappers instead (src/start/cudart_wrap.c, which mpicc/mpicxx add).
struct Replacement {
  const char *name;
  void *fn;
};
std::vector<Replacement> shared_replacements();

// The stream that the running rank's work on `stream` goes to: its own stream for the default
// ones (0, cudaStreamLegacy, cudaStreamPerThread) where ranks have their own, else `stream`.
// nullptr with a CUDA error in *err when the rank's stream cannot be made.
void *stream_of_rank(void *stream, int *err);

// Waits until the work queued on `stream` so far has completed, the running rank suspended
// meanwhile (the PE runs its other ranks); the driver's outcome (0: success).
int wait_stream(void *stream);

} // namespace ampi::cudart
