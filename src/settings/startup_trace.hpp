// src/settings/startup_trace.hpp — what AMPI_DEBUG_STARTUP prints: one line per start-up or
// teardown phase, "ampi: startup: WHO +T ms PHASE (+D ms)", T since one origin for the whole job
// (ampirun's start, which it passes to its processes as the setting's value; a process started
// without ampirun takes its own), D since WHO's previous line. Here, beside the settings table,
// because ampirun and the library both print it and share nothing else. Off (the default), a
// mark() is one branch.
#pragma once

#include <cstdint>
#include <cstdio>
#include <ctime>
#include <string>

namespace ampi::settings {

class StartupTrace {
public:
  // Microseconds of CLOCK_MONOTONIC: one clock for every process of the host.
  static std::int64_t now_us() noexcept {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
  }

  StartupTrace() = default; // off
  // `setting`: AMPI_DEBUG_STARTUP's value (0: off; 1: on, origin now; else the origin in us).
  StartupTrace(std::int64_t setting, std::string who)
      : on_(setting != 0), origin_(setting > 1 ? setting : now_us()), last_(now_us()),
        who_(std::move(who)) {}

  bool on() const noexcept { return on_; }
  std::int64_t origin() const noexcept { return origin_; }
  void rename(std::string who) { who_ = std::move(who); }

  void mark(const char *phase) noexcept {
    if (!on_) return;
    const std::int64_t t = now_us();
    std::fprintf(stderr, "ampi: startup: %s +%.3f ms %s (+%.3f ms)\n", who_.c_str(),
                 static_cast<double>(t - origin_) / 1000.0, phase,
                 static_cast<double>(t - last_) / 1000.0);
    last_ = t;
  }

private:
  bool on_ = false;
  std::int64_t origin_ = 0, last_ = 0;
  std::string who_;
};

} // namespace ampi::settings
