// src/p2p/request.cpp — the pools behind Requests and Messages, and the request handle table.
#include "p2p/request.hpp"

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

Request &RequestTable::create(Rank &owner) {
  Request *r;
  if (!free_requests_.empty()) {
    r = free_requests_.back();
    free_requests_.pop_back();
    *r = Request{};
  } else {
    pool_.push_back(std::make_unique<Request>());
    r = pool_.back().get();
  }
  r->owner = &owner;
  r->handle = handles_.insert(r);
  return *r;
}

void RequestTable::release(Request &r) noexcept {
  if (handles_.get(r.handle) == &r) handles_.erase(r.handle);
  r.handle = MPI_REQUEST_NULL;
  // Give back what a datatype, persistent or generalized request held, now rather than at reuse.
  r.extra.reset();
  r.on_complete = nullptr;
  free_requests_.push_back(&r);
}

RequestTable::~RequestTable() = default;

std::size_t RequestTable::in_progress() noexcept {
  std::size_t n = 0;
  for (auto e : handles_) {
    const Request &r = *e.object;
    if (!r.complete && !(r.persistent && !r.active)) ++n;
  }
  return n;
}

bool RequestTable::has_collective() noexcept {
  for (auto e : handles_)
    if (e.object->collective) return true;
  return false;
}

} // namespace ampi::p2p
