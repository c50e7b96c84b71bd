// src/p2p/completion.hpp — waiting for and testing requests of the running rank: one request
// (MPI_Test), all of a set, any of them, some of them. Sets are arrays of request pointers in
// which null entries (MPI_REQUEST_NULL or inactive persistent requests, as the MPI layer resolved
// them) are skipped. A test that finds nothing complete lets the PE's other ranks run once (they
// may be what it polls for) and looks again; a wait blocks the rank until a completion wakes it.
#pragma once

#include "p2p/request.hpp"

#include <cstddef>

namespace ampi::p2p {

// test_any / wait_any / wait_some / test_some: every entry is null.
inline constexpr int kNoneActive = -1;
// test_any: none is complete yet.
inline constexpr int kNoneComplete = -2;

// Whether `req` is complete.
bool test(Request &req);
// Whether every request of the set is complete.
bool test_all(Request *const *reqs, std::size_t n);
// Blocks until every request of the set is complete.
void wait_all(Request *const *reqs, std::size_t n, const char *call);
// The index of a complete request of the set (the first one), or kNoneActive / kNoneComplete.
int test_any(Request *const *reqs, std::size_t n);
// The same, blocking until one is complete (never kNoneComplete).
int wait_any(Request *const *reqs, std::size_t n, const char *call);
// Writes the indices of the complete requests to `indices` and returns how many there are (0
// allowed), or kNoneActive.
int test_some(Request *const *reqs, std::size_t n, int *indices);
// The same, blocking until at least one is complete.
int wait_some(Request *const *reqs, std::size_t n, int *indices, const char *call);

} // namespace ampi::p2p
