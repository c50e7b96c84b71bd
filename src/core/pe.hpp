// src/core/pe.hpp — the per-PE context: one OS thread, its scheduler and the virtual ranks it
// hosts, and everything that is shared by those ranks (message pool, world group, limits). The
// running code finds it through Pe::get(); there is no other process-wide mutable state.
#pragma once

#include "coll/pe_state.hpp"
#include "core/handover.hpp"
#include "core/rank.hpp"
#include "core/termination.hpp"
#include "devptr_cache/devptr_cache.hpp"
#include "devptr_cache/ipc.hpp"
#include "lb/strategy.hpp"
#include "net/port.hpp"
#include "p2p/pe_state.hpp"
#include "pmi/pe_keys.hpp"
#include "settings/settings.hpp"
#include "settings/startup_trace.hpp"
#include "shm/shm.hpp"
#include "ult/os_threads.hpp"
#include "ult/scheduler.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ampi {

// Where the ranks of a job live: V ranks over the job's PEs (AMPI_PES per process, PE index =
// process * AMPI_PES + thread), in balanced blocks (the first V % npes PEs get one more) or round
// robin.
struct Placement {
  int world_size = 1;
  int npes = 1;
  bool round_robin = false;
  int pe_of(int rank) const noexcept;
  int first_of(int pe) const noexcept; // block placement: the PE's first rank
  int count_of(int pe) const noexcept;
  int rank_at(int pe, int index) const noexcept; // the PE's index-th rank
};

// n / d for every n and d >= 1 below 2^32 by one multiply-high instead of a division (Lemire,
// Kaser and Kurz 2019: M = 2^64 / d rounded up is exact for 32-bit operands), for divisors fixed
// at start-up.
class Divisor {
public:
  Divisor() = default;
  explicit Divisor(std::uint32_t d) noexcept : m_(d > 1 ? ~std::uint64_t{0} / d + 1 : 0), d_(d) {}
  std::uint32_t divide(std::uint32_t n) const noexcept {
    return m_ ? static_cast<std::uint32_t>((static_cast<unsigned __int128>(m_) * n) >> 64) : n;
  }
  std::uint32_t value() const noexcept { return d_; }

private:
  std::uint64_t m_ = 0; // 0: d is 1
  std::uint32_t d_ = 1;
};

// Placement::pe_of with its divisors prepared once: every send to another PE asks it, and its
// two integer divisions were 4% of osu_bw's cycles at 8 B (callgrind).
class PlacementRoutes {
public:
  PlacementRoutes() = default;
  explicit PlacementRoutes(const Placement &p) noexcept;
  int pe_of(int rank) const noexcept {
    const auto r = static_cast<std::uint32_t>(rank);
    if (round_robin_) return static_cast<int>(r - npes_.divide(r) * npes_.value());
    return static_cast<int>(r < big_ ? base1_.divide(r) : extra_ + base_.divide(r - big_));
  }

private:
  Divisor npes_, base_, base1_; // npes, base = world_size / npes, base + 1
  std::uint32_t big_ = 0;       // the ranks in the first `extra_` blocks, of base + 1 each
  std::uint32_t extra_ = 0;     // world_size % npes
  bool round_robin_ = false;
};

struct PeConfig {
  Placement placement;
  int my_pe = 0;
  int pes_per_process = 1; // AMPI_PES: PEs of this process are my_pe / pes_per_process * ... + T-1
  int process_ranks = 1;   // the ranks of this process, all its PEs (they share its CUDA context)
  int host_processes = 1;  // the job's processes on this host (PMIx's local size)
  bool debug_smp = false;  // AMPI_DEBUG_SMP
  std::size_t stack_size = ult::StackPool::kDefaultSize;
  std::string stack_guard = "auto";    // AMPI_STACK_GUARD: auto, page, check
  std::size_t max_map_count = 0;       // AMPI_MAX_MAP_COUNT (testing); 0: the kernel's
  bool copies = false;                 // the ranks run per-rank copies of the program (privatize)
  std::size_t maps_per_copy = 5;       // mappings each copy takes (Programs::mappings_per_copy)
  std::size_t eager_limit = 64 * 1024; // unexpected same-PE sends up to this size are buffered
  bool verbose = false;                // AMPI_VERBOSE: notes on stderr (first PE only)
  bool rma_shm = true;                 // AMPI_RMA_SHM: windows of one host in shared memory
  std::size_t gpu_async_bytes = 16 * 1024;  // AMPI_GPU_ASYNC_BYTES (DevPtrCache)
  bool gpu_rank_streams = true;             // AMPI_GPU_RANK_STREAMS (core/cudart.cpp)
  bool gpu_device_pack = true;              // AMPI_GPU_DEVICE_PACK (DevPtrCache, p2p/data.cpp)
  bool gpu_device_reduce = true;            // AMPI_GPU_DEVICE_REDUCE (DevPtrCache, mpi/coll.cpp)
  bool gpu_peer_access = true;              // AMPI_GPU_PEER_ACCESS (DevPtrCache::reachable)
  std::size_t gpu_copy_kernel = 256 * 1024; // AMPI_GPU_COPY_KERNEL (devptr_cache/copy_service)
  unsigned gpu_copy_kernel_idle_us = 200;   // AMPI_GPU_COPY_KERNEL_IDLE
  unsigned gpu_copy_kernel_blocks = 2;      // AMPI_GPU_COPY_KERNEL_BLOCKS
  bool gpu_completion_words = true;         // AMPI_GPU_COMPLETION_WORDS
  bool gpu_poll_alone = false;              // AMPI_GPU_POLL_ALONE (core/cudart.cpp)
  bool gpu_copy_priority = true;            // AMPI_GPU_COPY_PRIORITY (DevPtrCache)
  // AMPI_UCX_EAGER_LIMIT, AMPI_GPU_EAGER_LIMIT, AMPI_GPU_IPC, AMPI_GPU_IPC_REFUSE,
  // AMPI_SHM*, AMPI_DEBUG_PROTOCOL, with the same-PE limits above: p2p's protocol table.
  p2p::Thresholds protocol;
  shm::Config shm;              // AMPI_SHM_SEGMENT (used when protocol.shm)
  settings::StartupTrace trace; // AMPI_DEBUG_STARTUP: the phases of start-up and teardown
  // MPIX_Migrate: the strategy (AMPI_LB; a call's "ampi_lb" info hint overrides it; other than
  // none, the scheduler measures each rank's busy time, ult::Scheduler::set_timing) and the
  // process's box for handing ranks between its PEs (nullptr: one PE per process, nobody moves).
  lb::Strategy lb_strategy = lb::Strategy::none;
  core::Handover *handover = nullptr;
  // From the settings read at start-up: AMPI_VP (or `default_vp`, or one rank per process),
  // AMPI_MAP, AMPI_STACK_SIZE, AMPI_EAGER_LIMIT and the rest; the PE count and index come from
  // PMIx when it is there.
  static PeConfig from_settings(const settings::Settings &s, int default_vp, int npes, int my_pe);
};

class Pe {
public:
  using MainFn = int (*)(int, char **, char **);

  // `keys`: the job's key exchange shared by the PEs of this process (nullptr: a job of one PE).
  Pe(const PeConfig &config, pmi::ProcessKeys *keys, MainFn user_main,
     std::vector<std::string> args, char **envp);
  ~Pe();
  Pe(const Pe &) = delete;
  Pe &operator=(const Pe &) = delete;

  // Runs every rank to completion; returns the job's exit status (first non-zero rank status).
  int run();

  static Pe &get() noexcept { return *current_; }
  static Pe *get_if() noexcept { return current_; }

  const PeConfig &config() const noexcept { return config_; }
  // AMPI_DEBUG_STARTUP: a line for `phase` (nothing when off).
  void trace(const char *phase) noexcept { config_.trace.mark(phase); }
  int world_size() const noexcept { return config_.placement.world_size; }
  // The PE running a rank now: the placement's until MPIX_Migrate moves ranks (set_routes), so
  // that a job that never migrates keeps the placement's arithmetic on the send path and no
  // table of the whole job per PE.
  int pe_of(int world_rank) const noexcept {
    if (routes_.empty()) [[likely]]
      return placement_routes_.pe_of(world_rank);
    return routes_[static_cast<std::size_t>(world_rank)];
  }
  // The ranks this PE runs now (its home ranks, less those migrated away, plus those migrated in).
  const std::vector<Rank *> &ranks() const noexcept { return hosted_; }
  // The rank running now (inside an MPI call made by user code): the rank of the created thread
  // making the call, or the rank whose user-level thread the PE runs.
  ult::Scheduler &scheduler() noexcept { return scheduler_; }
  Rank &current() noexcept {
    if (Rank *r = thread_rank_) [[unlikely]]
      return *r;
    return *static_cast<Rank *>(scheduler_.current()->owner);
  }
  // The rank whose user-level thread the PE runs (never a created thread's).
  Rank *scheduled_if() noexcept {
    ult::Task *t = scheduler_.current();
    return t ? static_cast<Rank *>(t->owner) : nullptr;
  }
  Rank *current_if() noexcept {
    if (Rank *r = thread_rank_) [[unlikely]]
      return r;
    ult::Task *t = scheduler_.current();
    return t ? static_cast<Rank *>(t->owner) : nullptr;
  }
  // Ranks of this PE that have not ended yet (the running one included).
  int live_ranks() const noexcept { return live_ranks_; }
  // The hosted rank with this world rank, or nullptr if it lives elsewhere.
  Rank *local(int world_rank) noexcept {
    return static_cast<unsigned>(world_rank) < by_world_.size() ? by_world_[world_rank] : nullptr;
  }

  // Scheduling, from inside a rank.
  // Suspends the running rank until it is woken. May return early (spuriously): callers loop on
  // the condition they wait for.
  void block(const char *call);
  void yield() noexcept {
    Rank &r = current();
    r.coll.run_ready(); // steps of its non-blocking collectives that are due (coll/nbc.cpp)
    if (threaded()) [[unlikely]] {
      if (thread_rank_) return yield_thread();
      threads_->let_in(); // a rank polling lets the threads in too
    }
    poll();
    devptrs_.poll_copies(); // device work that ranks wait for (a rank testing a request, say)
    const gpu::CUcontext ctx = gpu::thread_context(); // the rank's GPU (cuda_driver.hpp)
    devptrs_.trust(false);                            // other tasks run (see block)
    scheduler_.yield();
    r.pe().devptrs().trust(r.calls_open > 0 && !r.pe().threaded());
    gpu::restore_thread_context(ctx);
  }
  // Drives the network (no-op in a one-process job: no call at all); true if anything happened.
  bool poll() { return port_->remote() && port_->progress(); }
  // The network port: UCX, or the null port of a one-process job (never null).
  net::Port &port() noexcept { return *port_; }
  // The UCX port itself, for one-sided communication only (src/rma, until it has a port
  // sub-interface of its own); nullptr in a one-process job.
  // p2p: the protocol table, and its end of the network port.
  p2p::Protocols &protocols() noexcept { return p2p_.protocols; }
  p2p::NetHandler &net_handler() noexcept { return p2p_.net_handler; }
  void wake(Rank &r) noexcept {
    scheduler_.make_ready(r.task);
    for (auto &t : r.coll.helper_tasks) // coll: internal tasks of r may wait for the same event
      scheduler_.make_ready(*t);
    if (threaded()) [[unlikely]]
      notify_threads();
  }
  // coll: runs `body` as rank `r` (Pe::current() is r inside it) in an internal task, e.g. a
  // non-blocking collective. It counts as a live task until its body returns. The tasks are
  // pooled per PE and reused (see Helper in pe.cpp): no stack is mapped per call.
  void spawn_helper(Rank &r, std::function<void()> body);
  [[noreturn]] void exit_current(int code) noexcept;

  // Migration (src/mpi/migrate.cpp), on this PE's thread while every rank of the process is
  // inside MPIX_Migrate and no message to a moving rank is in flight. release_rank: `r` (not
  // running, not this PE's current rank) stops being run here; adopt_rank: it is run here from
  // now on, blocked until woken. set_routes: the new rank -> PE map of the whole job.
  void release_rank(Rank &r);
  void adopt_rank(Rank &r);
  void set_routes(std::vector<int> routes) { routes_ = std::move(routes); }
  // The ranks of this PE meet at the migration point here: the PE's leader (its lowest world
  // rank, which never moves) waits until all have arrived, moves ranks, then opens the gate.
  struct MigrationGate {
    int arrived = 0;
    std::uint64_t opened = 0; // the number of the last migration point passed (Rank::migrations)
    Rank *leader = nullptr;   // the leader, while it waits for the others
  };
  MigrationGate &migration_gate() noexcept { return gate_; }

  // MPI_THREAD_SERIALIZED/MULTIPLE (see threads.hpp; src/core/pe_threads.cpp). The PE is threaded
  // (its state guarded by the mutex) once a rank asked for it and a rank created a thread.
  bool threaded() const noexcept { return threaded_.load(std::memory_order_relaxed); }
  // A rank of this PE asked for it (inside its MPI_Init_thread, outside the mutex). When that
  // makes the PE threaded, returns holding the mutex, as an MPI call does from then on.
  void enable_threads() noexcept;
  // A rank of this PE (or a thread of one) creates a thread, in the program's code.
  void thread_created() noexcept;
  ult::Threads &threads() noexcept { return *threads_; }
  // A thread that a rank created enters the library: its rank, with the PE's mutex held, or
  // nullptr (not a rank's thread, or the PE is gone).
  static Rank *enter_thread() noexcept;
  // The end of an MPI call while threaded(), on the PE's thread or a created one.
  void leave_call() noexcept;
  // Inside an MPI call of a thread that a rank created (not a rank's main thread).
  static bool in_thread() noexcept { return thread_rank_ != nullptr; }
  // pthread_join from a rank's main thread (PE thread, program code): waits for the thread's end
  // as a blocked rank, so the PE's other ranks keep running.
  void join_thread(pthread_t t);

  p2p::MessagePool &messages() noexcept { return p2p_.messages; }
  // coll: the collective instances in progress among this PE's ranks (coll/pe_state.hpp).
  coll::PeState &coll() noexcept { return coll_; }
  // gpu: which buffers are device memory, and copies to and from them.
  gpu::DevPtrCache &devptrs() noexcept { return devptrs_; }
  // gpu: device memory shared with other processes of this host (CUDA IPC).
  gpu::IpcCache &ipc() noexcept { return ipc_; }
  // Whether this PE has told the user that CUDA IPC failed (once is enough).
  bool ipc_refusal_reported() const noexcept { return ipc_refusal_reported_; }
  void set_ipc_refusal_reported() noexcept { ipc_refusal_reported_ = true; }
  // Likewise for CMA between processes of this host.
  bool cma_refusal_reported() const noexcept { return cma_refusal_reported_; }
  void set_cma_refusal_reported() noexcept { cma_refusal_reported_ = true; }
  const std::shared_ptr<const comm::Group> &world_group() const noexcept { return world_group_; }

  // Ends the whole job now (MPI_Abort, fatal errors): flushes stdio and exits with `code`.
  [[noreturn]] static void abort_job(int code) noexcept;

private:
  void run_rank(Rank &r);
  bool idle_threaded(int &idle);
  void block_thread(const char *call);
  void notify_threads() noexcept; // out of line: keeps wake() small where it is inlined
  void yield_thread() noexcept;
  [[noreturn]] void report_deadlock();
  void print_blocked_ranks();
  struct Helper;
  [[noreturn]] void helper_loop(Helper &h);

  static constinit thread_local Pe *current_;
  static constinit thread_local Rank
      *thread_rank_; // set while a created thread is inside an MPI call
  PeConfig config_;
  PlacementRoutes placement_routes_{config_.placement}; // pe_of before any migration
  MainFn user_main_;
  std::vector<std::string> args_;
  char **envp_;
  ult::Scheduler scheduler_;
  std::optional<ult::StackPool> stacks_; // before ranks_: their stacks come from it
  // The device pointer cache's options from the settings (pe.cpp).
  static gpu::DevPtrCache::Options gpu_options(const PeConfig &c);
  gpu::DevPtrCache devptrs_{gpu_options(config_)}; // gpu
  gpu::IpcCache ipc_{devptrs_};
  bool ipc_refusal_reported_ = false;
  bool cma_refusal_reported_ = false;
  std::shared_ptr<const comm::Group> world_group_;
  std::vector<std::unique_ptr<Rank>> ranks_;
  std::vector<Rank *> hosted_;   // the ranks run here now (ranks_ own them: see release_rank)
  std::vector<Rank *> by_world_; // hosted ranks by world rank; nullptr for ranks elsewhere
  std::vector<int> routes_;      // each world rank's PE once ranks have moved (pe_of)
  MigrationGate gate_;
  std::optional<pmi::PeKeys> pmix_;           // this PE's view of the process's PMIx client
  p2p::PeState p2p_{*this, config_.protocol}; // p2p's per-PE state (p2p/pe_state.hpp)
  coll::PeState coll_;                        // coll's per-PE state (coll/pe_state.hpp)
  std::unique_ptr<net::Port> port_ = std::make_unique<net::NullPort>(p2p_.net_handler);
  std::optional<core::Termination> termination_; // only when the job has several PEs
  // MPI_THREAD_SERIALIZED/MULTIPLE: on once a rank asked for it and threads exist (never off).
  std::atomic<bool> threaded_{false};
  std::atomic<bool> wants_threads_{false}, has_threads_{false};
  std::shared_ptr<ult::Threads> threads_;
  std::uint64_t seen_activity_ = 0;
  unsigned blocks_ = 0;
  int live_ranks_ = 0;
  // coll: the internal tasks of spawn_helper, all of them, and those waiting for a job.
  std::vector<std::unique_ptr<Helper>> helpers_;
  std::vector<Helper *> idle_helpers_;
};

namespace core {
// The rank that created the calling thread (directly or through other created threads), or
// nullptr for the PE's own thread and threads that no rank created (src/core/pe_threads.cpp).
Rank *creator_rank() noexcept;
// The rank that created the calling thread, if a rank did (whether or not inside the library).
Rank *creator_rank_any() noexcept;
} // namespace core

} // namespace ampi
