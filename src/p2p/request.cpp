// src/p2p/request.cpp — the pools behind Requests and Messages, and the request handle table
// (its hot half, create/find/release, is inline in request.hpp).
#include "p2p/request.hpp"

#include <stdexcept>
#include <string>

namespace ampi::p2p {

Message &MessagePool::get() {
  if (Message *m = free_) {
    free_ = m->next_free;
    return *m;
  }
  all_.push_back(std::make_unique<Message>());
  return *all_.back();
}

void MessagePool::put(Message &m) noexcept {
  m.heap.reset();
  m.data = nullptr;
  m.send_request = nullptr;
  m.data_tag = 0;
  m.next_free = free_;
  free_ = &m;
}

MessagePool::~MessagePool() = default;

RequestTable::RequestTable() = default;

void RequestTable::grow() {
  if (slots_.size() >= handles::capacity(kKind))
    throw std::length_error("ampi: out of MPI handles (" +
                            std::to_string(handles::capacity(kKind)) +
                            " live requests in one rank)");
  pool_.push_back(std::make_unique<Request>());
  slots_.push_back(Slot{pool_.back().get(), 0, 0, free_});
  free_ = static_cast<std::uint32_t>(slots_.size() - 1);
}

void RequestTable::drop_extra(Request &r) noexcept {
  r.extra.reset();
}

RequestTable::~RequestTable() = default;

std::size_t RequestTable::in_progress() noexcept {
  std::size_t n = 0;
  for (const Slot &s : slots_) {
    if (!s.handle) continue;
    const Request &r = *s.request;
    if (!r.complete && !(r.persistent && !r.active)) ++n;
  }
  return n;
}

bool RequestTable::has_collective() noexcept {
  for (const Slot &s : slots_)
    if (s.handle && s.request->collective) return true;
  return false;
}

} // namespace ampi::p2p
