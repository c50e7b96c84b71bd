// src/coll/pe_state.hpp — what collectives keep per PE, shared by the PE's ranks: the collective
// instances in progress among the ranks of this PE (src/coll/pe_coll.cpp). The ranks of one PE are
// user-level threads of one OS thread, so they meet here through plain pointers, without atomics
// or messages: each deposits its buffers in its slot and blocks; the PE's leader (its lowest rank
// of the communicator) combines, does the part across PEs and pushes the result into every slot.
// core's Pe holds one (pe.coll()), as Rank holds coll's per-rank state (coll/rank_state.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace ampi {
class Rank;
}
namespace ampi::p2p {
struct Request;
}

namespace ampi::coll {

class Progress;

// One collective instance among the ranks of this PE. Several may be in flight on one
// communicator (each non-blocking collective has its own tag), so it is
// identified by the communicator (its context id and first member: the sub-communicators of one
// MPI_Comm_split share a context id but not members), the tag and, for blocking collectives
// (which all use one tag), how many this rank has run on that communicator before.
struct InstanceKey {
  std::uint32_t context = 0;
  int first_world = 0;
  int tag = 0;
  std::uint32_t seq = 0;
  bool operator==(const InstanceKey &) const = default;
};

struct Instance {
  struct Slot {
    const void *in = nullptr;    // the rank's input (nullptr: MPI_IN_PLACE, it is in `out`)
    void *out = nullptr;         // the rank's output buffer (or its bcast buffer)
    Rank *rank = nullptr;        // to wake it (nullptr: not arrived yet)
    p2p::Request *req = nullptr; // non-blocking (coll/nbc.cpp): completed by whoever delivers
  };
  Instance(const InstanceKey &k, int n) : key(k), slots(static_cast<std::size_t>(n)) {}

  InstanceKey key;
  std::vector<Slot> slots; // by index among the PE's ranks of the communicator
  int arrived = 0;
  int left = 0;
  bool done = false; // the leader has pushed the results
  // Non-blocking, across PEs: the leader's schedule, waiting for the last local rank to arrive.
  Progress *leader_nbc = nullptr;
};

struct PeState {
  // The instance for `key`, created on first arrival with `n` slots (from the spares when one is
  // left: a blocking collective then allocates nothing). A finished one that its members have not
  // all left yet is not joined again: a helper task may run two collectives with one tag back to
  // back (an intercommunicator collective's steps, a context agreement's rounds), and its rank
  // must not land in the previous one.
  Instance &join(const InstanceKey &key, int n) {
    for (auto &i : instances)
      if (i->key == key && !i->done) return *i;
    if (spares.empty()) return *instances.emplace_back(std::make_unique<Instance>(key, n));
    std::unique_ptr<Instance> i = std::move(spares.back());
    spares.pop_back();
    i->key = key;
    i->slots.assign(static_cast<std::size_t>(n), {});
    i->arrived = i->left = 0;
    i->done = false;
    i->leader_nbc = nullptr;
    return *instances.emplace_back(std::move(i));
  }
  // A rank is done with `inst`; the last one of the PE retires it to the spares.
  void leave(Instance &inst) {
    if (++inst.left < static_cast<int>(inst.slots.size())) return;
    auto it = std::find_if(instances.begin(), instances.end(),
                           [&](const auto &p) { return p.get() == &inst; });
    if (spares.size() < kSpares) spares.push_back(std::move(*it));
    instances.erase(it);
  }

  // Retires `inst` at once (non-blocking instances: nobody waits in them), to the spares when
  // there is room (a non-blocking collective then allocates no instance either).
  void remove(Instance &inst) {
    auto it = std::find_if(instances.begin(), instances.end(),
                           [&](const auto &p) { return p.get() == &inst; });
    if (spares.size() < kSpares) spares.push_back(std::move(*it));
    instances.erase(it);
  }

  // Few are in flight at once (one per communicator for blocking collectives): a short list.
  std::vector<std::unique_ptr<Instance>> instances;
  // Retired instances kept for reuse (a few: non-blocking ones may have many in flight at once).
  static constexpr std::size_t kSpares = 4;
  std::vector<std::unique_ptr<Instance>> spares;
};

} // namespace ampi::coll
