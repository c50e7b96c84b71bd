// src/core/crash_report.hpp — naming the rank that crashed: a SIGSEGV/SIGBUS handler that says
// which rank of which process faulted (and whether it overflowed its stack) before the signal
// takes its course.
#pragma once

namespace ampi {

class Pe;

// Installs the handler for the process (once) and an alternate signal stack for the calling
// thread (a PE's), unless it has one. Call on the PE's thread once its ranks exist.
void install_crash_report();

} // namespace ampi
