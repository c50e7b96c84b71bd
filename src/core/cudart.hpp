// src/core/cudart.hpp — the CUDA runtime as the virtual ranks of one process see it: blocking
// waits that let the PE's other ranks run, and a default stream per rank (see cudart.cpp).
#pragma once

#include <link.h>

namespace ampi {

// Points `program`'s (the program as started, or a rank's copy) calls of the shared CUDA
// runtime's waits, copies, launches and stream calls at ours (nothing without the shared
// runtime). A program with the static runtime is linked with wrappers instead
// (src/start/cudart_wrap.c, which mpicc/mpicxx add).
void redirect_cuda_runtime(const link_map &program) noexcept;

namespace cudart {

// The stream that the running rank's work on `stream` goes to: its own stream for the default
// ones (0, cudaStreamLegacy, cudaStreamPerThread) where ranks have their own, else `stream`.
// nullptr with a CUDA error in *err when the rank's stream cannot be made.
void *stream_of_rank(void *stream, int *err);

// Waits until the work queued on `stream` so far has completed, the running rank suspended
// meanwhile (the PE runs its other ranks); the driver's outcome (0: success).
int wait_stream(void *stream);

} // namespace cudart

} // namespace ampi
