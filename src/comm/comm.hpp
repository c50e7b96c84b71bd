// src/comm/comm.hpp — groups and communicators as one rank sees them: the ordered member list
// (world ranks), this rank's place in it, the context ids that keep its traffic apart from other
// communicators', its error handler and name; plus the per-rank tables behind MPI_Comm and
// MPI_Group handles.
#pragma once

#include "comm/objects.hpp"
#include "handles/handle.hpp"

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ampi::comm {

// An ordered set of world ranks. A run of consecutive world ranks (the world group, most splits
// and grids) is stored as a range, not a list, so that thousands of ranks sharing a process do not
// each hold a copy of it; other lists keep a sorted index for rank_of.
class Group {
public:
  static std::shared_ptr<const Group> range(int first, int size);
  // A list that happens to be a run of consecutive world ranks is stored as a range.
  static std::shared_ptr<const Group> list(std::vector<int> world_ranks);

  int size() const noexcept { return size_; }
  int world_rank(int r) const noexcept { return members_.empty() ? first_ + r : members_[r]; }
  // This group's rank of `world`, or MPI_UNDEFINED.
  int rank_of(int world) const noexcept;

private:
  int first_ = 0;
  int size_ = 0;
  std::vector<int> members_;
  std::vector<std::pair<int, int>> index_; // (world rank, group rank), sorted
};

struct Topology; // src/comm/topology.hpp
} // namespace ampi::comm

namespace ampi::coll {
struct PeLayout; // src/coll/pe_coll.hpp
} // namespace ampi::coll

namespace ampi::comm {

struct Comm {
  std::uint32_t context = 0; // point-to-point traffic; context + 1 carries collectives
  int rank = 0;
  std::shared_ptr<const Group> group;
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  std::string name;
  MPI_Comm handle = MPI_COMM_NULL;
  std::shared_ptr<const Topology> topology; // null: no virtual topology
  // coll: non-blocking collectives started on it so far, the source of their tags.
  mutable std::uint32_t coll_seq = 0;
  // coll: where its ranks run (which share this rank's PE, one leader per PE), computed on the
  // first collective that asks (src/coll/pe_coll.cpp).
  mutable std::shared_ptr<const coll::PeLayout> pe_layout;
  AttrStore attrs; // user attributes (MPI_Comm_set_attr)
  Info info;       // hints set by MPI_Comm_set_info / MPI_Comm_dup_with_info
  // Intercommunicators only (null on intracommunicators): the remote group, which point-to-point
  // ranks and most collective counts address; and the local group as an intracommunicator of its
  // own (context + 2), on which the intercommunicator collectives run their steps inside one group
  // (src/coll/inter.cpp), so that they never mix with the traffic between the groups.
  std::shared_ptr<const Group> remote;
  std::shared_ptr<const Comm> local;

  int size() const noexcept { return group->size(); }
  int world_rank(int r) const noexcept { return group->world_rank(r); }
  bool inter() const noexcept { return remote != nullptr; }
  // The group that point-to-point ranks address: the remote group of an intercommunicator.
  int peer_size() const noexcept { return remote ? remote->size() : size(); }
  int peer_world(int r) const noexcept {
    return remote ? remote->world_rank(r) : group->world_rank(r);
  }
  std::uint32_t coll_context() const noexcept { return context + 1; }
};

// A rank's communicators (handles::kind::comm); the first two it adds are MPI_COMM_WORLD and
// MPI_COMM_SELF.
class CommTable {
public:
  Comm *find(MPI_Comm h) const noexcept { return table_.get(h); }
  // Takes `c` and gives it its handle.
  Comm &add(std::unique_ptr<Comm> c) {
    Comm &ref = *c;
    ref.handle = table_.insert(std::move(c));
    return ref;
  }
  void remove(MPI_Comm h) noexcept { table_.erase(h); }
  std::size_t live() const noexcept { return table_.size(); }
  template <class F> void for_each(F &&f) {
    for (auto e : table_)
      f(*e.object);
  }

private:
  handles::HandleTable<std::unique_ptr<Comm>, handles::kind::comm> table_;
};

// A rank's groups (handles::kind::group); MPI_GROUP_EMPTY is always there.
class GroupTable {
public:
  GroupTable();
  const Group *find(MPI_Group h) const noexcept { return table_.get(h); }
  MPI_Group add(std::shared_ptr<const Group> g) { return table_.insert(std::move(g)); }
  void remove(MPI_Group h) noexcept {
    if (h != MPI_GROUP_EMPTY) table_.erase(h);
  }

private:
  handles::HandleTable<std::shared_ptr<const Group>, handles::kind::group> table_;
};

} // namespace ampi::comm
