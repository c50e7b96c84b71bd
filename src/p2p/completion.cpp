// src/p2p/completion.cpp — the scans over request sets and the blocking between them (see
// completion.hpp). Blocking waits for any completion of the rank's requests to wake it, then
// scans again: the sets are small and scanning is cheaper than registering with each request.
#include "p2p/completion.hpp"

#include "core/pe.hpp"
#include "p2p/p2p.hpp"

namespace ampi::p2p {

namespace {

// The first complete entry, or kNoneActive / kNoneComplete.
int scan_any(Request *const *reqs, std::size_t n) {
  bool active = false;
  for (std::size_t i = 0; i < n; ++i) {
    if (!reqs[i]) continue;
    active = true;
    if (reqs[i]->complete) return static_cast<int>(i);
  }
  return active ? kNoneComplete : kNoneActive;
}

int scan_some(Request *const *reqs, std::size_t n, int *indices) {
  bool active = false;
  int k = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!reqs[i]) continue;
    active = true;
    if (reqs[i]->complete) indices[k++] = static_cast<int>(i);
  }
  return active ? k : kNoneActive;
}

bool all_done(Request *const *reqs, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (reqs[i] && !reqs[i]->complete) return false;
  return true;
}

} // namespace

bool test(Request &req) {
  if (!req.complete) req.owner->pe().yield();
  return req.complete;
}

bool test_all(Request *const *reqs, std::size_t n) {
  if (all_done(reqs, n)) return true;
  Pe::get().yield();
  return all_done(reqs, n);
}

void wait_all(Request *const *reqs, std::size_t n, const char *call) {
  for (std::size_t i = 0; i < n; ++i)
    if (reqs[i]) wait(*reqs[i], call);
}

int test_any(Request *const *reqs, std::size_t n) {
  if (const int i = scan_any(reqs, n); i != kNoneComplete) return i;
  Pe::get().yield();
  return scan_any(reqs, n);
}

int wait_any(Request *const *reqs, std::size_t n, const char *call) {
  for (;;) {
    if (const int i = scan_any(reqs, n); i != kNoneComplete) return i;
    Pe::get().block(call);
  }
}

int test_some(Request *const *reqs, std::size_t n, int *indices) {
  if (const int k = scan_some(reqs, n, indices); k != 0) return k;
  Pe::get().yield();
  return scan_some(reqs, n, indices);
}

int wait_some(Request *const *reqs, std::size_t n, int *indices, const char *call) {
  for (;;) {
    if (const int k = scan_some(reqs, n, indices); k != 0) return k;
    Pe::get().block(call);
  }
}

} // namespace ampi::p2p
