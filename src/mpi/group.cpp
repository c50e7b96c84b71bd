// src/mpi/group.cpp — the MPI group functions: a communicator's group, size and rank, rank
// translation, comparison, the subset constructors (incl, excl, range_incl, range_excl), the set
// operations (union, intersection, difference) and free. Errors go to MPI_COMM_WORLD's handler.
#include "core/rank.hpp"
#include "mpi/comm_util.hpp"

#include <algorithm>
#include <unordered_set>
#include <vector>

using namespace ampi;
using namespace ampi::mpi;

namespace ampi::mpi {

const comm::Group *find_group(Rank &self, MPI_Group h, const char *fn, int *err) {
  const comm::Group *g = self.comm.groups.find(h);
  if (!g)
    *err = raise(MPI_COMM_WORLD, MPI_ERR_GROUP, fn, "%s",
                 h == MPI_GROUP_NULL ? "group=MPI_GROUP_NULL" : "group is not a valid group");
  return g;
}

} // namespace ampi::mpi

namespace {

std::vector<int> members(const comm::Group &g) {
  std::vector<int> w(static_cast<std::size_t>(g.size()));
  for (int r = 0; r < g.size(); ++r)
    w[static_cast<std::size_t>(r)] = g.world_rank(r);
  return w;
}

std::unordered_set<int> member_set(const comm::Group &g) {
  std::unordered_set<int> s;
  s.reserve(static_cast<std::size_t>(g.size()));
  for (int r = 0; r < g.size(); ++r)
    s.insert(g.world_rank(r));
  return s;
}

MPI_Group new_group(Rank &self, std::vector<int> world) {
  return world.empty() ? MPI_GROUP_EMPTY
                       : self.comm.groups.add(comm::Group::list(std::move(world)));
}

// The ranks that the (first, last, stride) triplets name, each checked to be in the group and
// named once; false after raising.
bool expand_ranges(const comm::Group &g, int n, const int ranges[][3], std::vector<int> &out,
                   const char *fn, int *err) {
  std::vector<bool> seen(static_cast<std::size_t>(g.size()));
  for (int i = 0; i < n; ++i) {
    const int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
    if (stride == 0 || (first < last && stride < 0) || (first > last && stride > 0)) {
      *err = raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn,
                   "ranges[%d]={%d,%d,%d}: the stride cannot reach last from first", i, first, last,
                   stride);
      return false;
    }
    for (long r = first; stride > 0 ? r <= last : r >= last; r += stride) {
      if (r < 0 || r >= g.size() || seen[static_cast<std::size_t>(r)]) {
        *err = raise(MPI_COMM_WORLD, MPI_ERR_RANK, fn,
                     "ranges[%d]={%d,%d,%d} names rank %ld, out of range (group size %d) or "
                     "named twice",
                     i, first, last, stride, r, g.size());
        return false;
      }
      seen[static_cast<std::size_t>(r)] = true;
      out.push_back(static_cast<int>(r));
    }
  }
  return true;
}

} // namespace

extern "C" int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group) {
  static constexpr const char *fn = "MPI_Comm_group";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  if (!group) return raise(comm, MPI_ERR_ARG, fn, "group=NULL");
  *group = self->comm.groups.add(c->group);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Comm_group)

extern "C" int PMPI_Group_size(MPI_Group group, int *size) {
  static constexpr const char *fn = "MPI_Group_size";
  auto self = enter(fn);
  AMPI_GROUP_OR_RETURN(*self, g, group, fn)
  if (!size) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "size=NULL");
  *size = g->size();
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Group_size)

extern "C" int PMPI_Group_rank(MPI_Group group, int *rank) {
  static constexpr const char *fn = "MPI_Group_rank";
  auto self = enter(fn);
  AMPI_GROUP_OR_RETURN(*self, g, group, fn)
  if (!rank) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "rank=NULL");
  *rank = g->rank_of(self->world_rank);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Group_rank)

extern "C" int PMPI_Group_free(MPI_Group *group) {
  static constexpr const char *fn = "MPI_Group_free";
  auto self = enter(fn);
  if (!group) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "group=NULL");
  AMPI_GROUP_OR_RETURN(*self, g, *group, fn)
  (void)g;
  self->comm.groups.remove(*group); // MPI_GROUP_EMPTY stays
  *group = MPI_GROUP_NULL;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Group_free)

extern "C" int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[],
                                          MPI_Group group2, int ranks2[]) {
  static constexpr const char *fn = "MPI_Group_translate_ranks";
  auto self = enter(fn);
  AMPI_GROUP_OR_RETURN(*self, g1, group1, fn)
  const comm::Group *g2 = find_group(*self, group2, fn, &gerr_);
  if (!g2) return gerr_;
  if (n < 0 || (n > 0 && (!ranks1 || !ranks2)))
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "n=%d or a ranks array is NULL", n);
  for (int i = 0; i < n; ++i) // all checked before any is written
    if (ranks1[i] != MPI_PROC_NULL && (ranks1[i] < 0 || ranks1[i] >= g1->size()))
      return raise(MPI_COMM_WORLD, MPI_ERR_RANK, fn, "ranks1[%d]=%d is not in group1 (size %d)", i,
                   ranks1[i], g1->size());
  for (int i = 0; i < n; ++i)
    ranks2[i] = ranks1[i] == MPI_PROC_NULL ? MPI_PROC_NULL : g2->rank_of(g1->world_rank(ranks1[i]));
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Group_translate_ranks)

extern "C" int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result) {
  static constexpr const char *fn = "MPI_Group_compare";
  auto self = enter(fn);
  AMPI_GROUP_OR_RETURN(*self, g1, group1, fn)
  const comm::Group *g2 = find_group(*self, group2, fn, &gerr_);
  if (!g2) return gerr_;
  if (!result) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "result=NULL");
  std::vector<int> a = members(*g1), b = members(*g2);
  if (a == b) {
    *result = MPI_IDENT;
    return MPI_SUCCESS;
  }
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  *result = a == b ? MPI_SIMILAR : MPI_UNEQUAL;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Group_compare)

extern "C" int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup) {
  static constexpr const char *fn = "MPI_Group_incl";
  auto self = enter(fn);
  AMPI_GROUP_OR_RETURN(*self, g, group, fn)
  if (n < 0 || n > g->size() || (n > 0 && !ranks) || !newgroup)
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "n=%d (group size %d), ranks or newgroup NULL", n,
                 g->size());
  std::vector<int> world(static_cast<std::size_t>(n));
  std::vector<bool> seen(static_cast<std::size_t>(g->size()));
  for (int i = 0; i < n; ++i) {
    if (ranks[i] < 0 || ranks[i] >= g->size() || seen[static_cast<std::size_t>(ranks[i])])
      return raise(MPI_COMM_WORLD, MPI_ERR_RANK, fn,
                   "ranks[%d]=%d is out of range or repeated (group size %d)", i, ranks[i],
                   g->size());
    seen[static_cast<std::size_t>(ranks[i])] = true;
    world[static_cast<std::size_t>(i)] = g->world_rank(ranks[i]);
  }
  *newgroup = new_group(*self, std::move(world));
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Group_incl)

extern "C" int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup) {
  static constexpr const char *fn = "MPI_Group_excl";
  auto self = enter(fn);
  AMPI_GROUP_OR_RETURN(*self, g, group, fn)
  if (n < 0 || n > g->size() || (n > 0 && !ranks) || !newgroup)
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "n=%d (group size %d), ranks or newgroup NULL", n,
                 g->size());
  std::vector<bool> excluded(static_cast<std::size_t>(g->size()));
  for (int i = 0; i < n; ++i) {
    if (ranks[i] < 0 || ranks[i] >= g->size() || excluded[static_cast<std::size_t>(ranks[i])])
      return raise(MPI_COMM_WORLD, MPI_ERR_RANK, fn,
                   "ranks[%d]=%d is out of range or repeated (group size %d)", i, ranks[i],
                   g->size());
    excluded[static_cast<std::size_t>(ranks[i])] = true;
  }
  std::vector<int> world;
  for (int r = 0; r < g->size(); ++r)
    if (!excluded[static_cast<std::size_t>(r)]) world.push_back(g->world_rank(r));
  *newgroup = new_group(*self, std::move(world));
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Group_excl)

extern "C" int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup) {
  static constexpr const char *fn = "MPI_Group_range_incl";
  auto self = enter(fn);
  AMPI_GROUP_OR_RETURN(*self, g, group, fn)
  if (n < 0 || (n > 0 && !ranges) || !newgroup)
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "n=%d, ranges or newgroup NULL", n);
  std::vector<int> ranks;
  if (!expand_ranges(*g, n, ranges, ranks, fn, &gerr_)) return gerr_;
  std::vector<int> world;
  for (int r : ranks)
    world.push_back(g->world_rank(r));
  *newgroup = new_group(*self, std::move(world));
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Group_range_incl)

extern "C" int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup) {
  static constexpr const char *fn = "MPI_Group_range_excl";
  auto self = enter(fn);
  AMPI_GROUP_OR_RETURN(*self, g, group, fn)
  if (n < 0 || (n > 0 && !ranges) || !newgroup)
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "n=%d, ranges or newgroup NULL", n);
  std::vector<int> ranks;
  if (!expand_ranges(*g, n, ranges, ranks, fn, &gerr_)) return gerr_;
  std::vector<bool> excluded(static_cast<std::size_t>(g->size()));
  for (int r : ranks)
    excluded[static_cast<std::size_t>(r)] = true;
  std::vector<int> world;
  for (int r = 0; r < g->size(); ++r)
    if (!excluded[static_cast<std::size_t>(r)]) world.push_back(g->world_rank(r));
  *newgroup = new_group(*self, std::move(world));
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Group_range_excl)

namespace {

enum class SetOp { Union, Intersection, Difference };

int set_op(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup, SetOp op, const char *fn) {
  auto self = enter(fn);
  AMPI_GROUP_OR_RETURN(*self, g1, group1, fn)
  const comm::Group *g2 = find_group(*self, group2, fn, &gerr_);
  if (!g2) return gerr_;
  if (!newgroup) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "newgroup=NULL");
  const std::unordered_set<int> in2 = member_set(*g2);
  std::vector<int> world;
  for (int r = 0; r < g1->size(); ++r) {
    const bool both = in2.contains(g1->world_rank(r));
    if (op == SetOp::Union || (op == SetOp::Intersection) == both)
      world.push_back(g1->world_rank(r));
  }
  if (op == SetOp::Union) { // then group2's members that group1 lacks, in group2's order
    const std::unordered_set<int> in1 = member_set(*g1);
    for (int r = 0; r < g2->size(); ++r)
      if (!in1.contains(g2->world_rank(r))) world.push_back(g2->world_rank(r));
  }
  *newgroup = new_group(*self, std::move(world));
  return MPI_SUCCESS;
}

} // namespace

extern "C" int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup) {
  return set_op(group1, group2, newgroup, SetOp::Union, "MPI_Group_union");
}
AMPI_PMPI_ALIAS(MPI_Group_union)

extern "C" int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup) {
  return set_op(group1, group2, newgroup, SetOp::Intersection, "MPI_Group_intersection");
}
AMPI_PMPI_ALIAS(MPI_Group_intersection)

extern "C" int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup) {
  return set_op(group1, group2, newgroup, SetOp::Difference, "MPI_Group_difference");
}
AMPI_PMPI_ALIAS(MPI_Group_difference)
