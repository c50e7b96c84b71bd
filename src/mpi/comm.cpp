// src/mpi/comm.cpp — the MPI communicator and group functions: size, rank, dup, split, free,
// compare, names, groups and the predefined attributes.
#include "coll/coll.hpp"
#include "comm/context.hpp"
#include "mpi/common.hpp"

#include <algorithm>
#include <cstring>
#include <unistd.h>
#include <vector>

using namespace ampi;
using namespace ampi::mpi;

#define AMPI_COMM_OR_RETURN(self, c, handle, fn)                                                   \
  int err_ = MPI_SUCCESS;                                                                          \
  comm::Comm *c = find_comm(self, handle, fn, &err_);                                              \
  if (!c) return err_;

extern "C" int PMPI_Comm_size(MPI_Comm comm, int *size) {
  static constexpr const char *fn = "MPI_Comm_size";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  if (!size) return raise(comm, MPI_ERR_ARG, fn, "size=NULL");
  *size = c->size();
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Comm_size)

extern "C" int PMPI_Comm_rank(MPI_Comm comm, int *rank) {
  static constexpr const char *fn = "MPI_Comm_rank";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  if (!rank) return raise(comm, MPI_ERR_ARG, fn, "rank=NULL");
  *rank = c->rank;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Comm_rank)

extern "C" int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm) {
  static constexpr const char *fn = "MPI_Comm_dup";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  if (!newcomm) return raise(comm, MPI_ERR_ARG, fn, "newcomm=NULL");
  auto d = std::make_unique<comm::Comm>();
  d->context = comm::agree_context(*self, *c);
  d->rank = c->rank;
  d->group = c->group;
  d->errhandler = c->errhandler;
  errhandler_retain(*self, d->errhandler);
  *newcomm = self->comms.add(std::move(d)).handle;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Comm_dup)

extern "C" int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm) {
  static constexpr const char *fn = "MPI_Comm_split";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  if (!newcomm) return raise(comm, MPI_ERR_ARG, fn, "newcomm=NULL");
  if (color < 0 && color != MPI_UNDEFINED)
    return raise(comm, MPI_ERR_ARG, fn, "color=%d must be non-negative or MPI_UNDEFINED", color);
  // One allgather carries every member's color, key and next free context id.
  struct Entry {
    int color, key;
    std::uint32_t next_context;
  };
  const Entry mine{color, key, self->next_context};
  std::vector<Entry> all(static_cast<std::size_t>(c->size()));
  coll::allgather(*c, &mine, all.data(), sizeof(Entry));
  std::uint32_t context = 0;
  for (const Entry &e : all)
    context = std::max(context, e.next_context);
  self->next_context = context + 2;
  if (color == MPI_UNDEFINED) {
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  std::vector<int> members; // parent ranks with my color, ordered by (key, parent rank)
  for (int r = 0; r < c->size(); ++r)
    if (all[static_cast<std::size_t>(r)].color == color) members.push_back(r);
  std::stable_sort(members.begin(), members.end(), [&](int a, int b) {
    return all[static_cast<std::size_t>(a)].key < all[static_cast<std::size_t>(b)].key;
  });
  auto d = std::make_unique<comm::Comm>();
  d->context = context;
  std::vector<int> world(members.size());
  for (std::size_t i = 0; i < members.size(); ++i) {
    world[i] = c->world_rank(members[i]);
    if (members[i] == c->rank) d->rank = static_cast<int>(i);
  }
  d->group = comm::Group::list(std::move(world));
  d->errhandler = c->errhandler;
  errhandler_retain(*self, d->errhandler);
  *newcomm = self->comms.add(std::move(d)).handle;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Comm_split)

extern "C" int PMPI_Comm_free(MPI_Comm *comm) {
  static constexpr const char *fn = "MPI_Comm_free";
  auto self = enter(fn);
  if (!comm) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "comm=NULL");
  AMPI_COMM_OR_RETURN(*self, c, *comm, fn)
  if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
    return raise(*comm, MPI_ERR_COMM, fn, "%s cannot be freed", comm_label(*c));
  errhandler_release(*self, c->errhandler);
  self->comms.remove(*comm);
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Comm_free)

extern "C" int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result) {
  static constexpr const char *fn = "MPI_Comm_compare";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, a, comm1, fn)
  comm::Comm *b = find_comm(*self, comm2, fn, &err_);
  if (!b) return err_;
  if (!result) return raise(comm1, MPI_ERR_ARG, fn, "result=NULL");
  if (a == b) {
    *result = MPI_IDENT;
    return MPI_SUCCESS;
  }
  if (a->size() != b->size()) {
    *result = MPI_UNEQUAL;
    return MPI_SUCCESS;
  }
  bool same_order = true;
  std::vector<int> wa, wb;
  for (int r = 0; r < a->size(); ++r) {
    wa.push_back(a->world_rank(r));
    wb.push_back(b->world_rank(r));
    same_order = same_order && wa.back() == wb.back();
  }
  if (same_order) {
    *result = MPI_CONGRUENT;
    return MPI_SUCCESS;
  }
  std::sort(wa.begin(), wa.end());
  std::sort(wb.begin(), wb.end());
  *result = wa == wb ? MPI_SIMILAR : MPI_UNEQUAL;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Comm_compare)

extern "C" int PMPI_Comm_test_inter(MPI_Comm comm, int *flag) {
  static constexpr const char *fn = "MPI_Comm_test_inter";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  if (!flag) return raise(comm, MPI_ERR_ARG, fn, "flag=NULL");
  *flag = 0; // ampi has intracommunicators only
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Comm_test_inter)

extern "C" int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name) {
  static constexpr const char *fn = "MPI_Comm_set_name";
  auto self = enter_any(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  if (!comm_name) return raise(comm, MPI_ERR_ARG, fn, "comm_name=NULL");
  c->name.assign(comm_name, strnlen(comm_name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Comm_set_name)

extern "C" int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen) {
  static constexpr const char *fn = "MPI_Comm_get_name";
  auto self = enter_any(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  if (!comm_name || !resultlen)
    return raise(comm, MPI_ERR_ARG, fn, "comm_name or resultlen is NULL");
  std::memcpy(comm_name, c->name.c_str(), c->name.size() + 1);
  *resultlen = static_cast<int>(c->name.size());
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Comm_get_name)

// ---- groups -------------------------------------------------------------------------------

namespace {
const comm::Group *find_group(Rank &self, MPI_Group h, const char *fn, int *err) {
  const comm::Group *g = self.groups.find(h);
  if (!g)
    *err = raise(MPI_COMM_WORLD, MPI_ERR_GROUP, fn, "%s",
                 h == MPI_GROUP_NULL ? "group=MPI_GROUP_NULL" : "group is not a valid group");
  return g;
}
} // namespace

#define AMPI_GROUP_OR_RETURN(self, g, group, fn)                                                   \
  int gerr_ = MPI_SUCCESS;                                                                         \
  const comm::Group *g = find_group(self, group, fn, &gerr_);                                      \
  if (!g) return gerr_;

extern "C" int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group) {
  static constexpr const char *fn = "MPI_Comm_group";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  if (!group) return raise(comm, MPI_ERR_ARG, fn, "group=NULL");
  *group = self->groups.add(c->group);
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
  self->groups.remove(*group); // MPI_GROUP_EMPTY stays
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
  *newgroup = n == 0 ? MPI_GROUP_EMPTY : self->groups.add(comm::Group::list(std::move(world)));
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Group_incl)

// ---- predefined attributes ----------------------------------------------------------------

namespace {
// Values that MPI_Comm_get_attr hands out by address: they must outlive the call.
struct PredefinedAttrs {
  int tag_ub = kTagUb;
  int host = MPI_PROC_NULL;
  int io = MPI_ANY_SOURCE;
  int wtime_is_global = 1; // one clock for all ranks of one machine
  int lastusedcode = MPI_ERR_LASTCODE;
  int appnum = 0;
};
} // namespace

extern "C" int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag) {
  static constexpr const char *fn = "MPI_Comm_get_attr";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  (void)c;
  if (!attribute_val || !flag) return raise(comm, MPI_ERR_ARG, fn, "attribute_val or flag is NULL");
  static const PredefinedAttrs attrs;
  const int *value = nullptr;
  switch (comm_keyval) {
  case MPI_TAG_UB:
    value = &attrs.tag_ub;
    break;
  case MPI_HOST:
    value = &attrs.host;
    break;
  case MPI_IO:
    value = &attrs.io;
    break;
  case MPI_WTIME_IS_GLOBAL:
    value = &attrs.wtime_is_global;
    break;
  case MPI_UNIVERSE_SIZE:
    value = &self->pe.config().placement.world_size;
    break;
  case MPI_LASTUSEDCODE:
    value = &attrs.lastusedcode;
    break;
  case MPI_APPNUM:
    value = &attrs.appnum;
    break;
  default:
    return raise(comm, MPI_ERR_KEYVAL, fn,
                 "comm_keyval=%d is not a predefined attribute (user attributes are not "
                 "supported yet)",
                 comm_keyval);
  }
  *static_cast<const int **>(attribute_val) = value;
  *flag = 1;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Comm_get_attr)

extern "C" int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag) {
  return PMPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}
AMPI_PMPI_ALIAS(MPI_Attr_get)
