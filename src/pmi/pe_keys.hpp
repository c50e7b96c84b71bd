// src/pmi/pe_keys.hpp — the job's key-value exchange as the PEs of one process see it (SMP mode,
// AMPI_PES > 1): the process's one PMIx client shared by its T PEs, each publishing and fetching
// keys under its own PE index (process * T + t), and fences that every PE of the process enters
// (the last one to arrive runs the process's one PMIx_Fence for all of them). Without a PMIx
// client (a one-process job) the keys stay in this process's memory and a fence is a barrier of
// its PEs. Used only at start-up, at the first contact with a PE and at teardown, never per
// message, so a mutex serialises the PMIx calls of the PEs. With T = 1 every call goes straight
// to the client with the same key names as before SMP mode.
#pragma once

#include "pmi/pmix_client.hpp"

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ampi::pmi {

class ProcessKeys {
public:
  // `client`: the process's PMIx client (nullopt: a one-process job). `pes`: PEs per process.
  ProcessKeys(std::optional<PmixClient> client, int pes);
  ProcessKeys(const ProcessKeys &) = delete;
  ProcessKeys &operator=(const ProcessKeys &) = delete;

  int pes_per_process() const noexcept { return pes_; }
  int process() const noexcept { return client_ ? client_->rank() : 0; }
  int processes() const noexcept { return processes_; }
  int npes() const noexcept { return processes_ * pes_; }
  // Every process of the job runs on this host.
  bool one_host() const noexcept { return !client_ || client_->local_size() == client_->size(); }

  // `key` of PE `pe` (one of this process's), visible to all after the next fence.
  void put(int pe, const std::string &key, const std::vector<std::byte> &value);
  std::vector<std::byte> get(int pe, const std::string &key);
  // Every PE of the job: each PE of this process calls it; throws what the fence threw.
  void fence();
  // Every PE of this process calls it at its end; the last one ends the PMIx client (the launcher
  // hears of it before the slower teardown of the network).
  void finalize();
  void abort(int status, const char *message) noexcept;

private:
  // Waits until every PE of this process has arrived; the last one runs `last` for all.
  void arrive(const std::function<void()> &last);
  std::string key_of(int pe, const std::string &key) const;

  std::mutex mutex_;
  std::condition_variable cv_;
  int arrived_ = 0;
  std::uint64_t generation_ = 0;
  std::exception_ptr error_;
  std::optional<PmixClient> client_;
  bool finalized_ = false;
  const int pes_;
  const int processes_;
  std::map<std::pair<int, std::string>, std::vector<std::byte>> memory_; // without a client
};

// One PE's view (what the UCX port and the same-host exchange of the PE use).
class PeKeys {
public:
  PeKeys(ProcessKeys &process, int pe) noexcept : process_(process), pe_(pe) {}
  int pe() const noexcept { return pe_; }
  int npes() const noexcept { return process_.npes(); }
  bool one_host() const noexcept { return process_.one_host(); }
  void put(const std::string &key, const std::vector<std::byte> &value) {
    process_.put(pe_, key, value);
  }
  void fence() { process_.fence(); } // commits what was put, then waits for every PE
  std::vector<std::byte> get(int pe, const std::string &key) { return process_.get(pe, key); }
  ProcessKeys &process() noexcept { return process_; }

private:
  ProcessKeys &process_;
  int pe_;
};

} // namespace ampi::pmi
