// src/mpi/migrate.cpp — MPIX_Migrate (AMPI_Migrate): the collective point of MPI_COMM_WORLD where
// the load-balancing strategy (src/lb) may move ranks between the PEs of their own process, and
// MPIX_Get_pe (AMPI_My_pe).
//
// The protocol, every rank of the job inside the call:
//  1. an allgather (on a private duplicate of MPI_COMM_WORLD) of each rank's PE and whether it
//     can move; every PE then computes the same plans (lb::plan is deterministic), one per
//     process over that process's PEs. Each PE's leader, its lowest world rank, never moves, so no
//     PE is ever left without a rank to drive its part.
//  2. the ranks of a PE meet at its gate; the last to arrive wakes the leader. The leaders flush:
//     each sends a marker to every other leader and waits for theirs. Messages between two PEs
//     keep their order (the same-host rings; UCX's tagged messages), and every rank of a PE was
//     at the gate before its leader's markers went, so once a leader has all markers, every
//     message sent to a rank of its PE before the migration point has been handled there (matched
//     to a posted receive, or queued as unexpected in the rank's own matching state).
//  3. the PEs of each process hand ranks over (core/handover.hpp): out of the old PE's scheduler
//     and tables, into the new one's, blocked; every PE sets the job's new rank -> PE map and drops
//     its ranks' cached communicator layouts (coll/pe_coll.cpp).
//  4. the leaders exchange markers again (a barrier of leaders, who never move), so no rank
//     returns, and sends under the new map, before every PE of the job has its moved ranks; then
//     each leader opens its gate and the ranks go on, on their new PE.
// A rank moves only when nothing of it is half done elsewhere: no request in progress but
// receives still posted (they move with its matching state), no unexpected message whose data
// is still in a sender's buffer or in the network port, no window, threaded PE, CUDA stream or
// thread_local destructor: such ranks stay where they are. A non-blocking collective in progress
// or a persistent one anywhere keeps every rank in place (its schedule holds the layout).
#include "mpi/comm_util.hpp"
#include "mpi/common.hpp"

#include "coll/pe_coll.hpp"
#include "core/handover.hpp"
#include "core/loads.hpp"
#include "lb/strategy.hpp"
#include "p2p/request.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace ampi::mpi {
namespace {

constexpr int kTagFlush = 1; // step 2's markers
constexpr int kTagDone = 2;  // step 4's

// What each rank tells the others in step 1.
enum Flags : int { kMovable = 1, kThreaded = 2, kVeto = 4 };

// A non-blocking collective in progress (or a persistent one) anywhere keeps every rank in place:
// its schedule holds its communicator's layout over PEs, and its ranks meet per PE.
bool holds_collective(Rank &r) {
  return !r.coll.helper_tasks.empty() || r.p2p.requests.has_collective();
}

bool can_move(Rank &r) {
  if (!r.rma.windows.empty()) return false;
  if (r.cuda.stream || !r.cuda.streams.empty() || r.cuda.mpix) return false;
  if (!r.privatize.tls_destructors.empty()) return false; // their addresses are the old PE's
  // Requests in progress: only receives still posted (in the rank's matching state) may move.
  if (r.p2p.requests.in_progress() != r.p2p.matching.posted_count()) return false;
  if (r.p2p.matched.size() != 0) return false; // MPI_Mprobe'd messages
  bool data_here = true;
  r.p2p.matching.for_each_unexpected([&](const matching::UnexpectedMessage &u) {
    const auto &m = static_cast<const p2p::Message &>(u);
    // Eager data is in the message; a CMA note names a sender that stays (its send is in
    // progress) and is read from wherever the receiver runs. Anything else waits in the old PE's
    // port or names a same-PE sender.
    if (m.send_request || (m.data_tag != 0 && m.data_tag != p2p::Message::kCma)) data_here = false;
  });
  return data_here;
}

// Markers from this leader to every other leader and back, on the private communicator.
int exchange_markers(const std::vector<int> &leaders, int me, int tag, MPI_Comm mc) {
  char sink = 0; // (no data: a marker)
  std::vector<MPI_Request> reqs;
  reqs.reserve(2 * leaders.size());
  for (int l : leaders) {
    if (l == me) continue;
    reqs.push_back(MPI_REQUEST_NULL);
    if (int e = PMPI_Irecv(&sink, 0, MPI_BYTE, l, tag, mc, &reqs.back())) return e;
    reqs.push_back(MPI_REQUEST_NULL);
    if (int e = PMPI_Isend(&sink, 0, MPI_BYTE, l, tag, mc, &reqs.back())) return e;
  }
  return PMPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
}

// A non-leader waits at its gate until the leader of the PE it runs on then opens it. Not
// inlined, and the PE read afresh each time: the rank may resume on another PE's thread, and a
// frame must keep nothing of the old one (a `Pe &`, a thread_local's address).
[[gnu::noinline]] void wait_at_gate(Rank &me) {
  while (me.pe().migration_gate().opened < me.migrations)
    me.pe().block("MPIX_Migrate");
}

// Steps 2-4 on the PE's leader (which never moves: its PE and thread stay the same).
int lead(Rank &me, const std::vector<int> &from, const std::vector<int> &to,
         const std::vector<int> &leaders, int local_count) {
  Pe &pe = me.pe();
  Pe::MigrationGate &g = pe.migration_gate();
  g.leader = &me;
  while (g.arrived < local_count)
    pe.block("MPIX_Migrate");
  g.leader = nullptr;
  const MPI_Comm mc = me.migrate_comm;
  if (int e = exchange_markers(leaders, me.world_rank, kTagFlush, mc)) return e;

  core::Handover &ho = *pe.config().handover;
  const int per = pe.config().pes_per_process;
  const int my_pe = pe.config().my_pe;
  auto poll = [&pe] { pe.poll(); };
  ho.arrive_and_wait(poll); // every PE of the process has flushed
  const std::vector<Rank *> hosted = pe.ranks();
  for (Rank *r : hosted) {
    const int dest = to[static_cast<std::size_t>(r->world_rank)];
    if (dest == my_pe) continue;
    pe.release_rank(*r);
    ho.put(dest % per, r);
  }
  ho.arrive_and_wait(poll);
  for (Rank *r : ho.take(my_pe % per))
    pe.adopt_rank(*r);
  pe.set_routes(to);
  for (Rank *r : pe.ranks()) // their communicators' layouts over PEs are stale
    r->comm.comms.for_each([](comm::Comm &c) { c.pe_layout.reset(); });
  ho.arrive_and_wait(poll);

  if (int e = exchange_markers(leaders, me.world_rank, kTagDone, mc)) return e;
  if (pe.config().verbose && me.world_rank == 0) {
    int moved = 0;
    for (std::size_t w = 0; w < to.size(); ++w)
      moved += to[w] != from[w];
    std::fprintf(stderr, "ampi: MPIX_Migrate: %d of %zu ranks moved to another PE\n", moved,
                 to.size());
  }
  g.arrived = 0;
  g.opened = me.migrations;
  for (Rank *r : pe.ranks())
    if (r != &me) pe.wake(*r);
  return MPI_SUCCESS;
}

int migrate(Rank &me, lb::Strategy strategy) {
  ++me.migrations;
  Pe &pe = me.pe();
  // One PE per process (nothing can move), or nothing to do: a synchronisation point.
  if (strategy == lb::Strategy::none || !pe.config().handover) return PMPI_Barrier(MPI_COMM_WORLD);
  if (me.migrate_comm == MPI_COMM_NULL)
    if (int e = PMPI_Comm_dup(MPI_COMM_WORLD, &me.migrate_comm)) return e;
  const MPI_Comm mc = me.migrate_comm;
  const int n = pe.world_size();
  const int npes = pe.config().placement.npes;
  const int per = pe.config().pes_per_process;
  const int my_pe = pe.config().my_pe;

  // Step 1.
  const int mine[2] = {my_pe, (can_move(me) ? kMovable : 0) | (pe.threaded() ? kThreaded : 0) |
                                  (holds_collective(me) ? kVeto : 0)};
  std::vector<int> all(2 * static_cast<std::size_t>(n));
  if (int e = PMPI_Allgather(mine, 2, MPI_INT, all.data(), 2, MPI_INT, mc)) return e;
  // Each rank's busy time since the last point (ult's scheduler measures it when AMPI_LB is not
  // none; a call's hint alone finds zeros, and greedy and refine then move nobody).
  const double my_busy = busy_seconds(pe, me, true);
  std::vector<double> busy(static_cast<std::size_t>(n));
  if (int e = PMPI_Allgather(&my_busy, 1, MPI_DOUBLE, busy.data(), 1, MPI_DOUBLE, mc)) return e;
  std::vector<int> from(static_cast<std::size_t>(n));
  std::vector<int> leader_of(static_cast<std::size_t>(npes), -1);
  std::vector<bool> threaded(static_cast<std::size_t>(npes), false);
  bool veto = false;
  for (int w = 0; w < n; ++w) {
    const int p = all[2 * static_cast<std::size_t>(w)];
    from[static_cast<std::size_t>(w)] = p;
    if (leader_of[static_cast<std::size_t>(p)] < 0) leader_of[static_cast<std::size_t>(p)] = w;
    if (all[2 * static_cast<std::size_t>(w) + 1] & kThreaded)
      threaded[static_cast<std::size_t>(p)] = true;
    veto = veto || (all[2 * static_cast<std::size_t>(w) + 1] & kVeto) != 0;
  }
  if (veto) return MPI_SUCCESS; // (the allgather was the synchronisation)
  // The plan of each process for its own ranks over its own PEs (numbered 0..per-1 for the
  // strategy): a rank moves only within its process (another process would need its memory at
  // the same addresses there). Every PE computes every process's plan: the whole job's new map.
  std::vector<int> to = from;
  bool any = false;
  for (int q = 0; q < npes / per; ++q) {
    std::vector<int> members;
    std::vector<lb::RankLoad> loads;
    for (int w = 0; w < n; ++w) {
      const int p = from[static_cast<std::size_t>(w)];
      if (p / per != q) continue;
      members.push_back(w);
      loads.push_back({p - q * per, busy[static_cast<std::size_t>(w)],
                       (all[2 * static_cast<std::size_t>(w) + 1] & kMovable) != 0 &&
                           leader_of[static_cast<std::size_t>(p)] != w &&
                           !threaded[static_cast<std::size_t>(p)]});
    }
    const std::vector<int> plan = lb::plan(strategy, loads, per);
    if (pe.config().verbose && me.world_rank == 0)
      std::fprintf(stderr, "ampi: MPIX_Migrate: process %d: %s\n", q,
                   lb::describe(strategy, loads, plan, per).c_str());
    for (std::size_t i = 0; i < members.size(); ++i) {
      const int dest = q * per + plan[i];
      if (threaded[static_cast<std::size_t>(dest)]) continue; // never onto a threaded PE
      to[static_cast<std::size_t>(members[i])] = dest;
      any = any || dest != from[static_cast<std::size_t>(members[i])];
    }
  }
  if (!any) return MPI_SUCCESS; // the allgather was the synchronisation

  std::vector<int> leaders;
  for (int l : leader_of)
    if (l >= 0) leaders.push_back(l);
  int local_count = 0;
  for (int p : from)
    local_count += p == my_pe;

  // Step 2 and on.
  Pe::MigrationGate &g = pe.migration_gate();
  ++g.arrived;
  if (leader_of[static_cast<std::size_t>(my_pe)] == me.world_rank)
    return lead(me, from, to, leaders, local_count);
  if (g.arrived == local_count && g.leader) pe.wake(*g.leader);
  wait_at_gate(me);
  return MPI_SUCCESS;
}

} // namespace
} // namespace ampi::mpi

using namespace ampi;
using namespace ampi::mpi;

extern "C" int PMPIX_Migrate(MPI_Info hints) {
  static constexpr const char *fn = "MPIX_Migrate";
  auto self = enter(fn);
  int err = MPI_SUCCESS;
  const comm::Info *info = find_hints(*self, hints, fn, &err);
  if (!info) return err;
  lb::Strategy strategy = self->pe().config().lb_strategy;
  if (const std::string *v = info->get("ampi_lb"); v && !lb::parse(*v, strategy))
    return raise(
        MPI_COMM_WORLD, MPI_ERR_INFO_VALUE, fn,
        "hints: ampi_lb=\"%s\" is no load-balancing strategy (none, greedy, refine, rotate)",
        v->c_str());
  Rank &me = *self;
  return migrate(me, strategy);
}
AMPI_PMPI_ALIAS(MPIX_Migrate)

extern "C" int PMPIX_Get_pe(int *pe) {
  static constexpr const char *fn = "MPIX_Get_pe";
  auto self = enter(fn);
  if (!pe) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "pe is NULL");
  *pe = self->pe().config().my_pe;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPIX_Get_pe)

// Charm++ AMPI's names.
extern "C" int AMPI_Migrate(MPI_Info hints) {
  return PMPIX_Migrate(hints);
}

extern "C" int AMPI_My_pe(void) {
  int pe = -1;
  PMPIX_Get_pe(&pe);
  return pe;
}
