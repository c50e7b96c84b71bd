// src/pmi/pe_keys.cpp — the PEs of a process sharing its PMIx client (see pe_keys.hpp).
#include "pmi/pe_keys.hpp"

#include <stdexcept>

namespace ampi::pmi {

ProcessKeys::ProcessKeys(std::optional<PmixClient> client, int pes)
    : client_(std::move(client)), pes_(pes), processes_(client_ ? client_->size() : 1) {
}

std::string ProcessKeys::key_of(int pe, const std::string &key) const {
  if (pes_ == 1) return key; // the names of a process of one PE, as before SMP mode
  return key + "@" + std::to_string(pe % pes_);
}

void ProcessKeys::put(int pe, const std::string &key, const std::vector<std::byte> &value) {
  std::lock_guard lock(mutex_);
  if (client_)
    client_->put(key_of(pe, key), value);
  else
    memory_[{pe, key}] = value;
}

std::vector<std::byte> ProcessKeys::get(int pe, const std::string &key) {
  std::lock_guard lock(mutex_);
  if (client_) return client_->get(pe / pes_, key_of(pe, key));
  auto it = memory_.find({pe, key});
  if (it == memory_.end())
    throw std::runtime_error("PE " + std::to_string(pe) + " published no " + key);
  return it->second;
}

void ProcessKeys::arrive(const std::function<void()> &last) {
  std::unique_lock lock(mutex_);
  const std::uint64_t gen = generation_;
  if (++arrived_ == pes_) {
    error_ = nullptr;
    try {
      last();
    } catch (...) {
      error_ = std::current_exception();
    }
    arrived_ = 0;
    ++generation_;
    cv_.notify_all();
  } else {
    cv_.wait(lock, [&] { return generation_ != gen; });
  }
  if (error_) std::rethrow_exception(error_);
}

void ProcessKeys::fence() {
  arrive([this] {
    if (client_ && !finalized_) {
      client_->commit();
      client_->fence();
    }
  });
}

void ProcessKeys::finalize() {
  arrive([this] {
    finalized_ = true;
    client_.reset();
  });
}

void ProcessKeys::abort(int status, const char *message) noexcept {
  // No lock: called on the way out of a failing job, perhaps while another PE holds it in a fence.
  if (client_ && !finalized_) client_->abort(status, message);
}

} // namespace ampi::pmi
