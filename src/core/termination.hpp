// src/core/termination.hpp — agreement between the PEs of a job on two global facts that no PE
// can see alone: "every rank of the job has finished" (then all PEs leave together) and "every
// rank still alive is blocked and no message is in flight" (a deadlock across processes: every PE
// prints what its ranks wait for and the job ends). PE 0 coordinates with waves of probes; a PE
// answers with whether it is quiet and how many messages it has sent and received. Two
// consecutive waves in which every PE is quiet (all its live ranks blocked, nothing of its own in
// flight), the sums of sent and received messages are equal, and the sums did not change in
// between prove quiescence (the four-counter method): a quiet PE can only be woken by a message.
// It sees the network only as a net::ControlChannel: control messages and message counts.
#pragma once

#include "net/port.hpp"

#include <cstdint>
#include <functional>
#include <vector>

namespace ampi::core {

class Termination final : public net::ControlHandler {
public:
  // `report` prints this PE's blocked ranks (called on every PE when a deadlock is found).
  // Receives the channel's control messages while it exists.
  Termination(net::ControlChannel &channel, std::function<void()> report);
  ~Termination();
  Termination(const Termination &) = delete;
  Termination &operator=(const Termination &) = delete;

  // Called by the PE loop whenever it has nothing to run. `finished`: all local ranks ended.
  // `quiet`: every live local rank is blocked. Returns true when the job may end (all finished).
  bool idle(bool finished, bool quiet);
  // A control message from another PE.
  void on_control(const net::Control &m) override;

private:
  enum Type : std::uint32_t { kProbe = 1, kState, kReport, kExit };
  struct State {
    bool quiet = false, finished = false;
    std::uint64_t sent = 0, received = 0;
  };
  void send(int pe, Type type, std::uint32_t epoch, const State &st);
  State local_state(bool finished, bool quiet) const;
  void start_wave();
  void conclude_wave();

  net::ControlChannel &channel_;
  std::function<void()> report_;
  const int npes_;
  const int me_;
  bool finished_ = false, quiet_ = false;
  bool exit_ = false;
  // PE 0 only.
  std::uint32_t epoch_ = 0;
  int replies_ = 0;
  bool wave_open_ = false;
  std::vector<State> states_;
  State last_total_{};
  bool last_all_quiet_ = false;
  bool last_all_finished_ = false;
  std::int64_t next_wave_ms_ = 0;
  // idle() reads the clock on every 64th call only: PE 0's idle loop calls it between every two
  // polls of the network (clock_gettime was 2.7% of a 2-process osu_bw 8 B profile on this VM).
  unsigned idle_calls_ = 0;
};

} // namespace ampi::core
