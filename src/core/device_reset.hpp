// src/core/device_reset.hpp — cudaDeviceReset() in a process of several ranks. To the program
// each rank is a process of its own, but the ranks of a process share one CUDA context: a rank
// that resets the device after MPI_Finalize (the OSU benchmarks do) would destroy the streams
// and memory of the ranks still running (OSU 7.4 -d cuda with --vp 2: SIGSEGV in the other rank's
// cudaStreamDestroy, seen on H100). The program's calls are pointed at a replacement that, while
// other ranks of the process still run, only waits for the device (what the rank's own work needs
// from a reset before it exits); the last rank's call resets the device.
#pragma once

#include <link.h>

namespace ampi {

// Points `program`'s (the program as started, or a rank's copy) calls of the shared CUDA
// runtime's cudaDeviceReset at the replacement. A program with the static runtime (nvcc's
// default) calls its own copy of the function, which cannot be redirected: there a rank's reset
// resets the device for its whole process (README, GPU).
void redirect_device_reset(const link_map &program) noexcept;

} // namespace ampi
