// src/mpi/comm.cpp — the MPI communicator functions: size, rank, dup (with
// attribute copying), split, split_type, create, create_group, free (attribute deletion),
// disconnect, compare, names, info hints (intercommunicators: src/mpi/intercomm.cpp, which these
// call for split and create); and the helpers that make and free communicators for
// the other files of the MPI layer (comm_util.hpp).
#include "coll/coll.hpp"
#include "comm/context.hpp"
#include "comm/topology.hpp"
#include "core/rank.hpp"
#include "mpi/comm_util.hpp"
#include "p2p/p2p.hpp"
#include "pmi/host.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

using namespace ampi;
using namespace ampi::mpi;

namespace ampi::mpi {

comm::Comm &install_comm(Rank &self, const comm::Comm &parent,
                         std::shared_ptr<const comm::Group> group, int rank,
                         std::uint32_t context) {
  auto d = std::make_unique<comm::Comm>();
  d->context = context;
  d->rank = rank;
  d->group = std::move(group);
  d->errhandler = parent.errhandler;
  errhandler_retain(self, d->errhandler);
  return self.comm.comms.add(std::move(d));
}

comm::Comm *split_comm(Rank &self, const comm::Comm &c, int color, int key) {
  // One allgather carries every member's color and key; one context id serves every color.
  struct Entry {
    int color, key;
  };
  const Entry mine{color, key};
  std::vector<Entry> all(static_cast<std::size_t>(c.size()));
  coll::allgather(c, &mine, all.data(), sizeof(Entry));
  const std::uint32_t context = comm::agree_context(self, c);
  if (color == MPI_UNDEFINED) return nullptr;
  std::vector<int> members; // parent ranks with my color, ordered by (key, parent rank)
  for (int r = 0; r < c.size(); ++r)
    if (all[static_cast<std::size_t>(r)].color == color) members.push_back(r);
  std::stable_sort(members.begin(), members.end(), [&](int a, int b) {
    return all[static_cast<std::size_t>(a)].key < all[static_cast<std::size_t>(b)].key;
  });
  std::vector<int> world(members.size());
  int rank = 0;
  for (std::size_t i = 0; i < members.size(); ++i) {
    world[i] = c.world_rank(members[i]);
    if (members[i] == c.rank) rank = static_cast<int>(i);
  }
  return &install_comm(self, c, comm::Group::list(std::move(world)), rank, context);
}

int free_comm(Rank &self, comm::Comm &c, const char *fn) {
  const MPI_Comm h = c.handle;
  if (int e = comm::delete_all_attrs(self.comm.objects.keyvals, c.attrs, h); e != MPI_SUCCESS)
    return raise(h, e, fn, "an attribute delete callback returned %d", e);
  errhandler_release(self, c.errhandler);
  self.comm.comms.remove(h);
  return MPI_SUCCESS;
}

void finalize_comm_attrs(Rank &self) {
  if (comm::Comm *c = self.comm.comms.find(MPI_COMM_SELF))
    (void)comm::delete_all_attrs(self.comm.objects.keyvals, c->attrs, MPI_COMM_SELF);
}

} // namespace ampi::mpi

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

namespace {

// MPI_Comm_dup and MPI_Comm_dup_with_info: same group, new context, the topology, the attributes
// through their copy callbacks, and the hints (`info`, or the parent's).
int dup_comm(Rank &self, comm::Comm &c, const comm::Info *info, MPI_Comm *newcomm, const char *fn) {
  const std::uint32_t context = comm::agree_context(self, c, c.inter() ? 4 : 2);
  comm::Comm &d = install_comm(self, c, c.group, c.rank, context);
  if (c.inter()) make_inter(d, c.remote);
  d.topology = c.topology;
  d.info = info ? *info : c.info;
  if (int e = comm::copy_attrs(self.comm.objects.keyvals, c.attrs, c.handle, d.attrs, d.handle);
      e != MPI_SUCCESS) {
    errhandler_release(self, d.errhandler);
    self.comm.comms.remove(d.handle);
    *newcomm = MPI_COMM_NULL;
    return raise(c.handle, e, fn, "an attribute copy callback returned %d", e);
  }
  *newcomm = d.handle;
  return MPI_SUCCESS;
}

} // namespace

extern "C" int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm) {
  static constexpr const char *fn = "MPI_Comm_dup";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  if (!newcomm) return raise(comm, MPI_ERR_ARG, fn, "newcomm=NULL");
  return dup_comm(*self, *c, nullptr, newcomm, fn);
}
AMPI_PMPI_ALIAS(MPI_Comm_dup)

extern "C" int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm) {
  static constexpr const char *fn = "MPI_Comm_dup_with_info";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  if (!newcomm) return raise(comm, MPI_ERR_ARG, fn, "newcomm=NULL");
  const comm::Info *i = find_hints(*self, info, fn, &err_);
  if (!i) return err_;
  const comm::Info copy = *i; // `i` may move when the handle table grows
  return dup_comm(*self, *c, &copy, newcomm, fn);
}
AMPI_PMPI_ALIAS(MPI_Comm_dup_with_info)

extern "C" int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm) {
  static constexpr const char *fn = "MPI_Comm_split";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  if (!newcomm) return raise(comm, MPI_ERR_ARG, fn, "newcomm=NULL");
  if (color < 0 && color != MPI_UNDEFINED)
    return raise(comm, MPI_ERR_ARG, fn, "color=%d must be non-negative or MPI_UNDEFINED", color);
  comm::Comm *d =
      c->inter() ? split_inter(*self, *c, color, key) : split_comm(*self, *c, color, key);
  *newcomm = d ? d->handle : MPI_COMM_NULL;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Comm_split)

extern "C" int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                                    MPI_Comm *newcomm) {
  static constexpr const char *fn = "MPI_Comm_split_type";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  if (c->inter())
    return raise(comm, MPI_ERR_COMM, fn,
                 "%s is an intercommunicator (only intracommunicators here)", comm_label(*c));
  if (!newcomm) return raise(comm, MPI_ERR_ARG, fn, "newcomm=NULL");
  if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_COMM_TYPE_HW_GUIDED &&
      split_type != MPI_COMM_TYPE_HW_UNGUIDED && split_type != MPI_UNDEFINED)
    return raise(comm, MPI_ERR_ARG, fn,
                 "split_type=%d is none of MPI_COMM_TYPE_SHARED, MPI_COMM_TYPE_HW_GUIDED, "
                 "MPI_COMM_TYPE_HW_UNGUIDED and MPI_UNDEFINED",
                 split_type);
  const comm::Info *hints = find_hints(*self, info, fn, &err_);
  if (!hints) return err_;
  // The hardware levels ampi knows, coarsest first: the host (ranks share memory when their
  // processes run on one host: "mpi_shared_memory", the one MPI 4 names) and the PE (the ranks of
  // one scheduler thread, pinned to one core: "core"). Each rank's place at both: its host
  // (host_id()) and its PE's index in the job, 16 bytes per rank.
  struct Place {
    std::uint64_t host;
    std::uint64_t pe;
  };
  const Place mine{host_id(),
                   static_cast<std::uint64_t>(self->pe().config().my_pe)}; // (where it runs now)
  std::vector<Place> places(static_cast<std::size_t>(c->size()));
  coll::allgather(*c, &mine, places.data(), sizeof mine);
  auto colour_by = [&](bool pe_level) {
    for (std::size_t r = 0; r < places.size(); ++r)
      if (places[r].host == mine.host && (!pe_level || places[r].pe == mine.pe))
        return static_cast<int>(r);
    return MPI_UNDEFINED;
  };
  auto distinct = [&](bool pe_level) { // whether the level splits this communicator
    for (const Place &p : places)
      if (p.host != places[0].host || (pe_level && p.pe != places[0].pe)) return true;
    return false;
  };
  int color = MPI_UNDEFINED;
  const char *level = nullptr;
  if (split_type == MPI_COMM_TYPE_SHARED) {
    color = colour_by(false);
  } else if (split_type == MPI_COMM_TYPE_HW_GUIDED) {
    // The level the info key asks for; an unknown value or none gives MPI_COMM_NULL (MPI 4.0
    // section 7.4.2).
    const std::string *v = hints->get("mpi_hw_resource_type");
    if (v && *v == "mpi_shared_memory") level = "mpi_shared_memory";
    if (v && *v == "core") level = "core";
    if (level) color = colour_by(*v == "core");
  } else if (split_type == MPI_COMM_TYPE_HW_UNGUIDED) {
    // The coarsest level whose groups are strictly smaller than the communicator's; none:
    // MPI_COMM_NULL.
    if (distinct(false)) {
      level = "mpi_shared_memory";
      color = colour_by(false);
    } else if (distinct(true)) {
      level = "core";
      color = colour_by(true);
    }
  }
  comm::Comm *d = split_comm(*self, *c, color, key);
  if (d && level) d->info.set("mpi_hw_resource_type", level);
  *newcomm = d ? d->handle : MPI_COMM_NULL;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Comm_split_type)

extern "C" int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm) {
  static constexpr const char *fn = "MPI_Comm_create";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  if (!newcomm) return raise(comm, MPI_ERR_ARG, fn, "newcomm=NULL");
  const comm::Group *g = self->comm.groups.find(group);
  if (!g)
    return raise(comm, MPI_ERR_GROUP, fn, "%s",
                 group == MPI_GROUP_NULL ? "group=MPI_GROUP_NULL" : "group is not a valid group");
  if (c->inter()) return create_inter(*self, *c, *g, newcomm, fn);
  for (int r = 0; r < g->size(); ++r)
    if (c->group->rank_of(g->world_rank(r)) == MPI_UNDEFINED)
      return raise(comm, MPI_ERR_GROUP, fn,
                   "group rank %d (world rank %d) is not a member of the communicator", r,
                   g->world_rank(r));
  const std::uint32_t context = comm::agree_context(*self, *c);
  const int rank = g->rank_of(self->world_rank);
  if (rank == MPI_UNDEFINED) {
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  std::vector<int> world(static_cast<std::size_t>(g->size()));
  for (int r = 0; r < g->size(); ++r)
    world[static_cast<std::size_t>(r)] = g->world_rank(r);
  *newcomm = install_comm(*self, *c, comm::Group::list(std::move(world)), rank, context).handle;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Comm_create)

extern "C" int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm) {
  static constexpr const char *fn = "MPI_Comm_create_group";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  if (c->inter())
    return raise(comm, MPI_ERR_COMM, fn,
                 "%s is an intercommunicator (only intracommunicators here)", comm_label(*c));
  if (!newcomm) return raise(comm, MPI_ERR_ARG, fn, "newcomm=NULL");
  const comm::Group *g = self->comm.groups.find(group);
  if (!g)
    return raise(comm, MPI_ERR_GROUP, fn, "%s",
                 group == MPI_GROUP_NULL ? "group=MPI_GROUP_NULL" : "group is not a valid group");
  if (tag < 0 || tag > kTagUb)
    return raise(comm, MPI_ERR_TAG, fn, "tag=%d is not in 0..MPI_TAG_UB", tag);
  std::vector<int> parent_rank(static_cast<std::size_t>(g->size()));
  for (int r = 0; r < g->size(); ++r) {
    parent_rank[static_cast<std::size_t>(r)] = c->group->rank_of(g->world_rank(r));
    if (parent_rank[static_cast<std::size_t>(r)] == MPI_UNDEFINED)
      return raise(comm, MPI_ERR_GROUP, fn,
                   "group rank %d (world rank %d) is not a member of the communicator", r,
                   g->world_rank(r));
  }
  const int rank = g->rank_of(self->world_rank);
  if (rank == MPI_UNDEFINED) { // only the group's members take part
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  // Only the members take part, so the parent's collectives cannot be used: agree on the context
  // over a side channel of the parent (its context with the top bit set), separated by `tag`, by
  // a gather to group rank 0 and a send back.
  const std::uint32_t channel = c->context | 0x80000000u;
  const std::uint32_t context = comm::agree_context(
      *self,
      [&](std::uint32_t v) {
        if (rank == 0) {
          for (int r = 1; r < g->size(); ++r) {
            std::uint32_t u = 0;
            p2p::recv(channel, parent_rank[static_cast<std::size_t>(r)], tag, &u, sizeof u);
            v = std::max(v, u);
          }
          for (int r = 1; r < g->size(); ++r)
            p2p::send({channel, c->rank, tag, g->world_rank(r)}, &v, sizeof v);
        } else {
          p2p::send({channel, c->rank, tag, g->world_rank(0)}, &v, sizeof v);
          p2p::recv(channel, parent_rank[0], tag, &v, sizeof v);
        }
        return v;
      },
      2, std::uint64_t{channel} << 32 | static_cast<std::uint32_t>(tag));
  std::vector<int> world(static_cast<std::size_t>(g->size()));
  for (int r = 0; r < g->size(); ++r)
    world[static_cast<std::size_t>(r)] = g->world_rank(r);
  *newcomm = install_comm(*self, *c, comm::Group::list(std::move(world)), rank, context).handle;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Comm_create_group)

extern "C" int PMPI_Comm_free(MPI_Comm *comm) {
  static constexpr const char *fn = "MPI_Comm_free";
  auto self = enter(fn);
  if (!comm) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "comm=NULL");
  AMPI_COMM_OR_RETURN(*self, c, *comm, fn)
  if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
    return raise(*comm, MPI_ERR_COMM, fn, "%s cannot be freed", comm_label(*c));
  if (int e = free_comm(*self, *c, fn); e != MPI_SUCCESS) return e;
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Comm_free)

extern "C" int PMPI_Comm_disconnect(MPI_Comm *comm) {
  static constexpr const char *fn = "MPI_Comm_disconnect";
  auto self = enter(fn);
  if (!comm) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "comm=NULL");
  AMPI_COMM_OR_RETURN(*self, c, *comm, fn)
  if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
    return raise(*comm, MPI_ERR_COMM, fn, "%s cannot be disconnected", comm_label(*c));
  // Collective: no member leaves while another may still send to it on this communicator.
  coll::barrier(*c);
  if (int e = free_comm(*self, *c, fn); e != MPI_SUCCESS) return e;
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Comm_disconnect)

extern "C" int PMPI_Comm_get_parent(MPI_Comm *parent) {
  static constexpr const char *fn = "MPI_Comm_get_parent";
  enter(fn);
  if (!parent) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "parent=NULL");
  *parent = MPI_COMM_NULL; // ampi does not spawn: no rank has a parent
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Comm_get_parent)

namespace {

// MPI_CONGRUENT (same members, same order), MPI_SIMILAR (same members) or MPI_UNEQUAL; their
// values grow in that order.
int compare_groups(const comm::Group &a, const comm::Group &b) {
  static_assert(MPI_CONGRUENT < MPI_SIMILAR && MPI_SIMILAR < MPI_UNEQUAL);
  if (a.size() != b.size()) return MPI_UNEQUAL;
  bool same_order = true;
  std::vector<int> wa, wb;
  for (int r = 0; r < a.size(); ++r) {
    wa.push_back(a.world_rank(r));
    wb.push_back(b.world_rank(r));
    same_order = same_order && wa.back() == wb.back();
  }
  if (same_order) return MPI_CONGRUENT;
  std::sort(wa.begin(), wa.end());
  std::sort(wb.begin(), wb.end());
  return wa == wb ? MPI_SIMILAR : MPI_UNEQUAL;
}

} // namespace

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
  if (a->inter() != b->inter()) {
    *result = MPI_UNEQUAL;
    return MPI_SUCCESS;
  }
  // Intercommunicators: both the local and the remote groups are compared.
  const int local = compare_groups(*a->group, *b->group);
  *result = a->inter() ? std::max(local, compare_groups(*a->remote, *b->remote)) : local;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Comm_compare)

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

extern "C" int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
  static constexpr const char *fn = "MPI_Comm_set_info";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  const comm::Info *i = find_hints(*self, info, fn, &err_);
  if (!i) return err_;
  for (const auto &[k, v] : i->entries)
    c->info.set(k, v);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Comm_set_info)

extern "C" int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used) {
  static constexpr const char *fn = "MPI_Comm_get_info";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  if (!info_used) return raise(comm, MPI_ERR_ARG, fn, "info_used=NULL");
  *info_used = self->comm.objects.infos.add(c->info);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Comm_get_info)
