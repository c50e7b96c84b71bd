// src/ranks/pe.hpp — the per-PE context: one OS thread, its scheduler and the virtual ranks it
// hosts, and everything that is shared by those ranks (message pool, world group, limits). The
// running code finds it through Pe::get(); there is no other process-wide mutable state.
#pragma once

#include "comm/comm.hpp"
#include "p2p/request.hpp"
#include "ranks/rank.hpp"
#include "ranks/scheduler.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ampi {

struct PeConfig {
  int world_size = 1;       // ranks in the job
  int first_rank = 0;       // the first world rank hosted here
  int local_ranks = 1;      // ranks hosted here: [first_rank, first_rank + local_ranks)
  std::size_t stack_size = ranks::StackAllocator::kDefaultSize;
  std::size_t eager_limit = 64 * 1024; // unexpected sends up to this size are buffered
  static PeConfig from_environment(int default_vp); // AMPI_VP, AMPI_STACK_SIZE, AMPI_EAGER_LIMIT
};

class Pe {
public:
  using MainFn = int (*)(int, char **, char **);

  Pe(const PeConfig &config, MainFn user_main, std::vector<std::string> args, char **envp);
  ~Pe();
  Pe(const Pe &) = delete;
  Pe &operator=(const Pe &) = delete;

  // Runs every rank to completion; returns the job's exit status (first non-zero rank status).
  int run();

  static Pe &get() noexcept { return *current_; }
  static Pe *get_if() noexcept { return current_; }

  const PeConfig &config() const noexcept { return config_; }
  int world_size() const noexcept { return config_.world_size; }
  // The rank running now (inside an MPI call made by user code).
  Rank &current() noexcept { return *static_cast<Rank *>(scheduler_.current()->owner); }
  Rank *current_if() noexcept {
    ranks::Task *t = scheduler_.current();
    return t ? static_cast<Rank *>(t->owner) : nullptr;
  }
  // The hosted rank with this world rank, or nullptr if it lives elsewhere.
  Rank *local(int world_rank) noexcept {
    const unsigned i = static_cast<unsigned>(world_rank - config_.first_rank);
    return i < ranks_.size() ? ranks_[i].get() : nullptr;
  }

  // Scheduling, from inside a rank.
  void block(const char *call) noexcept;
  void yield() noexcept { scheduler_.yield(); }
  void wake(Rank &r) noexcept { scheduler_.make_ready(r.task); }
  [[noreturn]] void exit_current(int code) noexcept;
  std::uint64_t context_switches() const noexcept { return scheduler_.switches(); }

  p2p::MessagePool &messages() noexcept { return messages_; }
  const std::shared_ptr<const comm::Group> &world_group() const noexcept { return world_group_; }

  // Ends the whole job now (MPI_Abort, fatal errors): flushes stdio and exits with `code`.
  [[noreturn]] static void abort_job(int code) noexcept;

private:
  void run_rank(Rank &r);
  [[noreturn]] void report_deadlock();

  static thread_local Pe *current_;
  PeConfig config_;
  MainFn user_main_;
  std::vector<std::string> args_;
  char **envp_;
  ranks::Scheduler scheduler_;
  p2p::MessagePool messages_;
  std::shared_ptr<const comm::Group> world_group_;
  std::vector<std::unique_ptr<Rank>> ranks_;
  int live_ranks_ = 0;
};

} // namespace ampi
