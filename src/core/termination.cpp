// src/core/termination.cpp — waves of probes from PE 0 (see termination.hpp).
#include "core/termination.hpp"

#include <time.h>

#include <cstdio>
#include <cstdlib>

namespace ampi::core {

namespace {

std::int64_t now_ms() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::int64_t{ts.tv_sec} * 1000 + ts.tv_nsec / 1000000;
}

// How long PE 0 waits between waves while the job is quiet: finished jobs end quickly, a
// deadlock is reported after about two such periods.
constexpr std::int64_t kWaveIntervalMs = 200;

} // namespace

Termination::Termination(net::ControlChannel &channel, std::function<void()> report)
    : channel_(channel), report_(std::move(report)), npes_(channel.npes()), me_(channel.my_pe()),
      states_(static_cast<std::size_t>(npes_)) {
  channel_.set_control_handler(this);
}

Termination::~Termination() {
  channel_.set_control_handler(nullptr);
}

Termination::State Termination::local_state(bool finished, bool quiet) const {
  State st;
  st.finished = finished;
  st.quiet = quiet && channel_.sends_in_flight() == 0;
  st.sent = channel_.messages_sent();
  st.received = channel_.messages_received();
  return st;
}

void Termination::send(int pe, Type type, std::uint32_t epoch, const State &st) {
  // word = epoch << 2 | flags, a = messages sent, b = messages received.
  net::Control m{};
  m.type = type;
  m.from_pe = me_;
  m.word = (epoch << 2) | (st.quiet ? 1u : 0u) | (st.finished ? 2u : 0u);
  m.a = st.sent;
  m.b = st.received;
  channel_.send_control(pe, m);
}

bool Termination::idle(bool finished, bool quiet) {
  finished_ = finished;
  quiet_ = quiet;
  if (exit_) return true;
  if (me_ != 0 || wave_open_) return false;
  if ((++idle_calls_ & 63) != 0 && next_wave_ms_ != 0) return false;
  if (now_ms() >= next_wave_ms_) start_wave();
  return exit_;
}

void Termination::start_wave() {
  ++epoch_;
  wave_open_ = true;
  replies_ = 1;
  states_[0] = local_state(finished_, quiet_);
  for (int pe = 1; pe < npes_; ++pe)
    send(pe, kProbe, epoch_, {});
  if (npes_ == 1) conclude_wave();
}

void Termination::conclude_wave() {
  wave_open_ = false;
  State total;
  bool all_quiet = true, all_finished = true;
  for (const State &st : states_) {
    total.sent += st.sent;
    total.received += st.received;
    all_quiet = all_quiet && (st.quiet || st.finished);
    all_finished = all_finished && st.finished;
  }
  const bool balanced = total.sent == total.received;
  const bool unchanged =
      last_all_quiet_ && total.sent == last_total_.sent && total.received == last_total_.received;
  if (all_quiet && balanced && unchanged) {
    if (all_finished && last_all_finished_) {
      for (int pe = 1; pe < npes_; ++pe)
        send(pe, kExit, epoch_, {});
      exit_ = true;
      return;
    }
    if (!all_finished) {
      std::fflush(stdout);
      std::fprintf(stderr,
                   "ampi: deadlock: every rank of the job that is still running is "
                   "blocked and no message is in flight between its %d processes\n",
                   npes_);
      for (int pe = 1; pe < npes_; ++pe)
        send(pe, kReport, epoch_, {});
      report_(); // ends the job
    }
  }
  last_total_ = total;
  last_all_quiet_ = all_quiet && balanced;
  last_all_finished_ = all_finished;
  // A finished job ends fast; a quiet one is re-checked after a pause.
  next_wave_ms_ = now_ms() + (all_finished ? 0 : kWaveIntervalMs);
}

void Termination::on_control(const net::Control &m) {
  const auto type = static_cast<Type>(m.type);
  const std::uint32_t epoch = m.word >> 2;
  switch (type) {
  case kProbe:
    send(0, kState, epoch, local_state(finished_, quiet_));
    break;
  case kState: {
    if (me_ != 0 || !wave_open_ || epoch != epoch_) break;
    State &st = states_[static_cast<std::size_t>(m.from_pe)];
    st.quiet = m.word & 1;
    st.finished = m.word & 2;
    st.sent = m.a;
    st.received = m.b;
    if (++replies_ == npes_) conclude_wave();
    break;
  }
  case kReport:
    std::fflush(stdout);
    report_();
    break;
  case kExit:
    exit_ = true;
    break;
  }
}

} // namespace ampi::core
