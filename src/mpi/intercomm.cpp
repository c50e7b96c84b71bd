// src/mpi/intercomm.cpp — intercommunicators (MPI-3.1 section 6.6): MPI_Intercomm_create and
// _merge, MPI_Comm_test_inter, remote size and group, the intercommunicator forms of
// MPI_Comm_split and MPI_Comm_create (MPI-2.2); and MPI_Comm_idup(_with_info), whose context id
// is agreed in an internal task of the rank while the program goes on.
//
// An intercommunicator is a comm::Comm with a remote group: point-to-point ranks address the
// remote group (the sender's rank in its own group is the receiver's source), collectives run
// src/coll/inter.cpp. It takes four context ids: its own two and two for its local group as an
// intracommunicator (Comm::local), on which the collectives' steps inside one group run.
#include "coll/coll.hpp"
#include "comm/context.hpp"
#include "core/pe.hpp"
#include "core/rank.hpp"
#include "mpi/comm_util.hpp"
#include "p2p/p2p.hpp"

#include <algorithm>
#include <vector>

using namespace ampi;
using namespace ampi::mpi;

namespace ampi::mpi {

void make_inter(comm::Comm &d, std::shared_ptr<const comm::Group> remote) {
  d.remote = std::move(remote);
  auto local = std::make_shared<comm::Comm>();
  local->context = d.context + 2;
  local->rank = d.rank;
  local->group = d.group;
  local->handle = d.handle;
  local->errhandler = d.errhandler;
  d.local = std::move(local);
}

comm::Comm &install_inter(Rank &self, const comm::Comm &parent,
                          std::shared_ptr<const comm::Group> group, int rank,
                          std::shared_ptr<const comm::Group> remote, std::uint32_t context) {
  comm::Comm &d = install_comm(self, parent, std::move(group), rank, context);
  make_inter(d, std::move(remote));
  return d;
}

} // namespace ampi::mpi

namespace {

constexpr std::uint32_t kInterIds = 4; // context, context + 1, and the local group's two

std::vector<int> members(const comm::Group &g) {
  std::vector<int> w(static_cast<std::size_t>(g.size()));
  for (int r = 0; r < g.size(); ++r)
    w[static_cast<std::size_t>(r)] = g.world_rank(r);
  return w;
}

// The leaders' exchange in MPI_Intercomm_create, over a side channel of the peer communicator
// (its context with the top bit set, as MPI_Comm_create_group's) under the user's tag: receive
// posted first, so that two leaders sending large messages to each other cannot deadlock.
struct PeerChannel {
  std::uint32_t context;
  int my_rank, peer_rank, peer_world, tag;
  void swap(const void *send, std::size_t sbytes, void *recv, std::size_t rbytes) const {
    p2p::Request r;
    r.owner = &Pe::get().current();
    p2p::start_recv(r, context, peer_rank, tag, recv, rbytes);
    p2p::send({context, my_rank, tag, peer_world}, send, sbytes);
    p2p::wait(r, "MPI_Intercomm_create");
  }
};

const coll::Reducer &max_u32() {
  static const coll::Reducer max{datatype::reduction(MPI_MAX, MPI_UINT32_T), sizeof(std::uint32_t)};
  return max;
}

comm::Comm *find_inter(Rank &self, MPI_Comm h, const char *fn, int *err) {
  comm::Comm *c = find_comm(self, h, fn, err);
  if (c && !c->inter()) {
    *err = raise(h, MPI_ERR_COMM, fn, "%s is an intracommunicator, not an intercommunicator",
                 comm_label(*c));
    return nullptr;
  }
  return c;
}

} // namespace

extern "C" int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                                     int remote_leader, int tag, MPI_Comm *newintercomm) {
  static constexpr const char *fn = "MPI_Intercomm_create";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, lc, local_comm, fn)
  if (lc->inter()) return raise(local_comm, MPI_ERR_COMM, fn, "local_comm is an intercommunicator");
  if (!newintercomm) return raise(local_comm, MPI_ERR_ARG, fn, "newintercomm=NULL");
  if (local_leader < 0 || local_leader >= lc->size())
    return raise(local_comm, MPI_ERR_RANK, fn,
                 "local_leader=%d is not a rank of local_comm (size %d)", local_leader, lc->size());
  if (tag < 0 || tag > kTagUb)
    return raise(local_comm, MPI_ERR_TAG, fn, "tag=%d is not in 0..MPI_TAG_UB", tag);
  const bool leader = lc->rank == local_leader;
  PeerChannel peer{};
  if (leader) {
    comm::Comm *pc = find_comm(*self, peer_comm, fn, &err_);
    if (!pc) return err_;
    if (remote_leader < 0 || remote_leader >= pc->peer_size())
      return raise(peer_comm, MPI_ERR_RANK, fn,
                   "remote_leader=%d is not a rank of peer_comm (size %d)", remote_leader,
                   pc->peer_size());
    if (!pc->inter() && remote_leader == pc->rank)
      return raise(peer_comm, MPI_ERR_RANK, fn,
                   "remote_leader=%d is the local leader itself (the groups must be disjoint)",
                   remote_leader);
    peer = {pc->context | 0x80000000u, pc->rank, remote_leader, pc->peer_world(remote_leader), tag};
  }
  // The leaders swap their groups (world ranks), and tell their own groups the remote one.
  const std::vector<int> mine = members(*lc->group);
  int remote_size = 0;
  if (leader) {
    const int n = lc->size();
    peer.swap(&n, sizeof n, &remote_size, sizeof remote_size);
  }
  coll::bcast(*lc, &remote_size, sizeof remote_size, local_leader);
  std::vector<int> remote(static_cast<std::size_t>(remote_size));
  if (leader)
    peer.swap(mine.data(), mine.size() * sizeof(int), remote.data(), remote.size() * sizeof(int));
  coll::bcast(*lc, remote.data(), remote.size() * sizeof(int), local_leader);
  for (int w : remote)
    if (lc->group->rank_of(w) != MPI_UNDEFINED)
      return raise(local_comm, MPI_ERR_COMM, fn,
                   "world rank %d is in both groups (the local and remote groups must be disjoint)",
                   w);
  // The context: the largest proposal of either group (a max inside each group, swapped by the
  // leaders, broadcast).
  const std::uint32_t context = comm::agree_context(
      *self,
      [&](std::uint32_t v) {
        std::uint32_t m = v;
        coll::reduce(*lc, &v, &m, 1, max_u32(), local_leader);
        if (leader) {
          std::uint32_t theirs = 0;
          peer.swap(&m, sizeof m, &theirs, sizeof theirs);
          m = std::max(m, theirs);
        }
        coll::bcast(*lc, &m, sizeof m, local_leader);
        return m;
      },
      kInterIds);
  *newintercomm =
      install_inter(*self, *lc, lc->group, lc->rank, comm::Group::list(std::move(remote)), context)
          .handle;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Intercomm_create)

extern "C" int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm) {
  static constexpr const char *fn = "MPI_Intercomm_merge";
  auto self = enter(fn);
  int err = MPI_SUCCESS;
  comm::Comm *c = find_inter(*self, intercomm, fn, &err);
  if (!c) return err;
  if (!newintracomm) return raise(intercomm, MPI_ERR_ARG, fn, "newintracomm=NULL");
  // The remote group's `high` (all members of a group pass the same): the intercommunicator's
  // allreduce gives each group the other group's maximum.
  const std::uint32_t mine = high ? 1 : 0;
  std::uint32_t theirs = 0;
  coll::allreduce(*c, coll::kBlockingTag, &mine, &theirs, 1, max_u32());
  // The low group first; equal `high`: the group of the lower world rank first.
  const bool first =
      mine != theirs ? mine < theirs : c->group->world_rank(0) < c->remote->world_rank(0);
  const std::uint32_t context = comm::agree_context(*self, *c);
  std::vector<int> all = members(first ? *c->group : *c->remote);
  const std::vector<int> second = members(first ? *c->remote : *c->group);
  all.insert(all.end(), second.begin(), second.end());
  const int rank = c->rank + (first ? 0 : c->remote->size());
  *newintracomm = install_comm(*self, *c, comm::Group::list(std::move(all)), rank, context).handle;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Intercomm_merge)

extern "C" int PMPI_Comm_test_inter(MPI_Comm comm, int *flag) {
  static constexpr const char *fn = "MPI_Comm_test_inter";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  if (!flag) return raise(comm, MPI_ERR_ARG, fn, "flag=NULL");
  *flag = c->inter() ? 1 : 0;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Comm_test_inter)

extern "C" int PMPI_Comm_remote_size(MPI_Comm comm, int *size) {
  static constexpr const char *fn = "MPI_Comm_remote_size";
  auto self = enter(fn);
  int err = MPI_SUCCESS;
  comm::Comm *c = find_inter(*self, comm, fn, &err);
  if (!c) return err;
  if (!size) return raise(comm, MPI_ERR_ARG, fn, "size=NULL");
  *size = c->remote->size();
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Comm_remote_size)

extern "C" int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group) {
  static constexpr const char *fn = "MPI_Comm_remote_group";
  auto self = enter(fn);
  int err = MPI_SUCCESS;
  comm::Comm *c = find_inter(*self, comm, fn, &err);
  if (!c) return err;
  if (!group) return raise(comm, MPI_ERR_ARG, fn, "group=NULL");
  *group = self->comm.groups.add(c->remote);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Comm_remote_group)

namespace ampi::mpi {

comm::Comm *split_inter(Rank &self, const comm::Comm &c, int color, int key) {
  struct Entry {
    int color, key;
  };
  const Entry me{color, key};
  std::vector<Entry> local(static_cast<std::size_t>(c.size())),
      remote(static_cast<std::size_t>(c.peer_size()));
  coll::allgather(*c.local, &me, local.data(), sizeof(Entry));
  coll::allgather(c, coll::kBlockingTag, &me, remote.data(), sizeof(Entry));
  const std::uint32_t context = comm::agree_context(self, c, kInterIds);
  if (color == MPI_UNDEFINED) return nullptr;
  // The members of one group with my color, by (key, rank): their world ranks, and my place.
  auto pick = [&](const std::vector<Entry> &all, const comm::Group &g, int *my_rank) {
    std::vector<int> ranks;
    for (int r = 0; r < g.size(); ++r)
      if (all[static_cast<std::size_t>(r)].color == color) ranks.push_back(r);
    std::stable_sort(ranks.begin(), ranks.end(), [&](int a, int b) {
      return all[static_cast<std::size_t>(a)].key < all[static_cast<std::size_t>(b)].key;
    });
    std::vector<int> world(ranks.size());
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      world[i] = g.world_rank(ranks[i]);
      if (my_rank && ranks[i] == c.rank) *my_rank = static_cast<int>(i);
    }
    return world;
  };
  int rank = 0;
  std::vector<int> mine = pick(local, *c.group, &rank), theirs = pick(remote, *c.remote, nullptr);
  if (theirs.empty()) return nullptr; // no remote member of my color: no intercommunicator
  return &install_inter(self, c, comm::Group::list(std::move(mine)), rank,
                        comm::Group::list(std::move(theirs)), context);
}

int create_inter(Rank &self, const comm::Comm &c, const comm::Group &g, MPI_Comm *newcomm,
                 const char *fn) {
  for (int r = 0; r < g.size(); ++r)
    if (c.group->rank_of(g.world_rank(r)) == MPI_UNDEFINED)
      return raise(c.handle, MPI_ERR_GROUP, fn,
                   "group rank %d (world rank %d) is not a member of the local group", r,
                   g.world_rank(r));
  // Every rank tells the remote group its place in its own group's argument.
  const int mine = g.rank_of(self.world_rank);
  std::vector<int> places(static_cast<std::size_t>(c.peer_size()));
  coll::allgather(c, coll::kBlockingTag, &mine, places.data(), sizeof(int));
  const std::uint32_t context = comm::agree_context(self, c, kInterIds);
  std::vector<std::pair<int, int>> remote; // (place, world rank)
  for (int r = 0; r < c.peer_size(); ++r)
    if (places[static_cast<std::size_t>(r)] != MPI_UNDEFINED)
      remote.emplace_back(places[static_cast<std::size_t>(r)], c.remote->world_rank(r));
  *newcomm = MPI_COMM_NULL;
  if (mine == MPI_UNDEFINED || remote.empty()) return MPI_SUCCESS;
  std::sort(remote.begin(), remote.end());
  std::vector<int> rw;
  for (const auto &[place, w] : remote)
    rw.push_back(w);
  *newcomm = install_inter(self, c, comm::Group::list(members(g)), mine,
                           comm::Group::list(std::move(rw)), context)
                 .handle;
  return MPI_SUCCESS;
}

} // namespace ampi::mpi

// ---- MPI_Comm_idup -------------------------------------------------------------------------

namespace {

// The new handle exists at once, with the parent's group, attributes (copied now, through their
// copy callbacks), topology and hints; its context id is agreed in an internal task of the rank
// (under a tag of the parent's non-blocking collectives, so that several idups and other
// non-blocking collectives in flight on one parent never mix) and set when the request
// completes. The program may use the new communicator only after that (MPI-3.1 section 6.4.2).
int idup(Rank &self, comm::Comm &c, const comm::Info *info, MPI_Comm *newcomm, MPI_Request *request,
         const char *fn) {
  comm::Comm &d = install_comm(self, c, c.group, c.rank, 0);
  d.topology = c.topology;
  d.info = info ? *info : c.info;
  d.remote = c.remote; // its local intracommunicator comes with the context
  if (int e = comm::copy_attrs(self.comm.objects.keyvals, c.attrs, c.handle, d.attrs, d.handle);
      e != MPI_SUCCESS) {
    errhandler_release(self, d.errhandler);
    self.comm.comms.remove(d.handle);
    *newcomm = MPI_COMM_NULL;
    return raise(c.handle, e, fn, "an attribute copy callback returned %d", e);
  }
  const MPI_Comm h = d.handle;
  *newcomm = h;
  const int tag = coll::next_tag(c);
  p2p::Request &r = self.p2p.requests.create(self);
  r.kind = p2p::Kind::Send; // its status carries nothing but MPI_ERROR
  r.comm = c.handle;
  r.collective = true;
  *request = r.handle;
  // The task keeps what the agreement uses of the parent (the program may free it meanwhile).
  comm::Comm parent;
  parent.context = c.context;
  parent.rank = c.rank;
  parent.group = c.group;
  parent.handle = c.handle;
  parent.remote = c.remote;
  parent.local = c.local;
  Rank *me = &self;
  self.pe().spawn_helper(self, [parent = std::move(parent), tag, &r, h, me] {
    const std::uint32_t context =
        comm::agree_context(*me, parent, parent.inter() ? kInterIds : 2, tag);
    if (comm::Comm *nc = me->comm.comms.find(h)) {
      nc->context = context;
      if (nc->remote) make_inter(*nc, nc->remote);
    }
    p2p::complete(r);
  });
  return MPI_SUCCESS;
}

} // namespace

extern "C" int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request) {
  static constexpr const char *fn = "MPI_Comm_idup";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  if (!newcomm) return raise(comm, MPI_ERR_ARG, fn, "newcomm=NULL");
  if (!request) return raise(comm, MPI_ERR_ARG, fn, "request=NULL");
  return idup(*self, *c, nullptr, newcomm, request, fn);
}
AMPI_PMPI_ALIAS(MPI_Comm_idup)

extern "C" int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
                                        MPI_Request *request) {
  static constexpr const char *fn = "MPI_Comm_idup_with_info";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  if (!newcomm) return raise(comm, MPI_ERR_ARG, fn, "newcomm=NULL");
  if (!request) return raise(comm, MPI_ERR_ARG, fn, "request=NULL");
  const comm::Info *i = find_hints(*self, info, fn, &err_);
  if (!i) return err_;
  const comm::Info copy = *i; // `i` may move when the handle table grows
  return idup(*self, *c, &copy, newcomm, request, fn);
}
AMPI_PMPI_ALIAS(MPI_Comm_idup_with_info)
