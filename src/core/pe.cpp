// src/core/pe.cpp — the PE: creating the ranks, the scheduling loop and the deadlock report (see
// pe.hpp); the crash report is crash_report.cpp's.
#include "core/pe.hpp"
#include "core/crash_report.hpp"

#include "pmi/host.hpp"
#include "privatize/privatize.hpp"
#include "ucx/port_factory.hpp"

#include <linux/sockios.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ampi {

thread_local Pe *Pe::current_ = nullptr;

namespace {

// GuardMode::Check stacks: the scheduler found a rank's stack pointer below its stack, or a page
// of the gap below it touched (ult/stack.hpp).
void report_checked_overflow(ult::Task &t) {
  const Rank *r = static_cast<const Rank *>(t.owner);
  std::fprintf(stderr,
               "ampi: rank %d overflowed its stack (%zu bytes; found by AMPI_STACK_GUARD=check "
               "when it switched or ended); raise it with ampirun --stack-size or "
               "AMPI_STACK_SIZE\n",
               r ? r->world_rank : -1, t.stack_size() - t.stack_guard());
  std::fflush(stderr);
  std::abort();
}

std::string plural(std::size_t n, const char *what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

// Picks the stacks' guard mode for `count` ranks and checks, before any stack is made, that their
// mappings and address space fit the kernel's limits; throws StackError naming the limit and the
// ways out otherwise. Page guards cost 2 mappings per rank, Check-mode slabs about one per 120
// ranks; a per-rank copy of the program about c.maps_per_copy more (see below).
ult::GuardMode choose_stack_guard(const PeConfig &c, std::size_t count) {
  // Mappings of one rank's copy of the program (src/privatize): its loaded segments, the RELRO
  // split, a zero-filled part past the file's. Measured: 5 for a C and a C++ hello, mapped or
  // dlopened (bench/results/limits/maps_probe.c at --vp 10 and 210: 192 and 1,190 mappings).
  const std::size_t kMapsPerCopy = c.maps_per_copy;
  // Left for what comes after the stacks: UCX's and the program's own mappings, malloc's arenas.
  constexpr std::size_t kHeadroom = 1000;
  ult::ProcessLimits lim = ult::ProcessLimits::read();
  if (c.max_map_count) lim.max_map_count = c.max_map_count;
  const std::size_t room = lim.max_map_count > lim.maps_in_use + kHeadroom
                               ? lim.max_map_count - lim.maps_in_use - kHeadroom
                               : 0;
  const std::size_t copies = c.copies ? count * kMapsPerCopy : 0;
  ult::GuardMode mode = c.stack_guard == "check" ? ult::GuardMode::Check : ult::GuardMode::Page;
  if (c.stack_guard == "auto") {
    const ult::StackPool paged(c.stack_size, ult::GuardMode::Page);
    if (paged.mappings_for(count) + copies > room) mode = ult::GuardMode::Check;
  }
  const ult::StackPool pool(c.stack_size, mode); // (allocates nothing yet)
  const std::size_t needed = pool.mappings_for(count) + copies;
  if (needed > room) {
    std::string why = plural(count, "rank") + " in this process need about " +
                      std::to_string(needed + kHeadroom) + " memory mappings (";
    why += mode == ult::GuardMode::Page
               ? "2 per rank stack with its guard page"
               : "the rank stacks' " + std::to_string(pool.mappings_for(count));
    if (c.copies)
      why += ", " + std::to_string(kMapsPerCopy) + " per rank for its copy of the program";
    why += ", " + std::to_string(kHeadroom) + " for the rest), but the kernel allows " +
           std::to_string(lim.max_map_count) + " (vm.max_map_count" +
           (c.max_map_count ? ", as AMPI_MAX_MAP_COUNT says" : "") + ") and " +
           std::to_string(lim.maps_in_use) +
           " are in use: run fewer ranks per process (more processes: ampirun -n), or raise the "
           "limit (sysctl -w vm.max_map_count=" +
           std::to_string(lim.maps_in_use + needed + 2 * kHeadroom) + ")";
    if (mode == ult::GuardMode::Page)
      why += ", or let the stacks share mappings (AMPI_STACK_GUARD=check or auto)";
    if (c.copies) why += ", or run without per-rank copies (AMPI_PRIVATIZE=off)";
    throw ult::StackError(why);
  }
  const std::size_t reserve = count * pool.reserved_per_stack();
  if (lim.address_limit && lim.address_in_use + reserve > lim.address_limit) {
    const std::size_t left =
        lim.address_limit > lim.address_in_use ? lim.address_limit - lim.address_in_use : 0;
    const std::size_t per_rank = count ? left / count : 0;
    throw ult::StackError(
        plural(count, "rank") + " in this process need " + std::to_string(reserve >> 20) +
        " MiB of address space for their stacks (" +
        std::to_string(pool.reserved_per_stack() >> 10) +
        " KiB each, reserved, not committed), but the process may map " +
        std::to_string(lim.address_limit >> 20) + " MiB (ulimit -v) and " +
        std::to_string(lim.address_in_use >> 20) +
        " MiB are in use: run fewer ranks per process (more processes: ampirun -n), lower the "
        "stack size (ampirun --stack-size, AMPI_STACK_SIZE; at most " +
        std::to_string(per_rank >> 10) + " KiB would fit), or raise ulimit -v");
  }
  return mode;
}

} // namespace

int Placement::count_of(int pe) const noexcept {
  return world_size / npes + (pe < world_size % npes ? 1 : 0);
}

int Placement::first_of(int pe) const noexcept {
  const int base = world_size / npes, extra = world_size % npes;
  return pe * base + (pe < extra ? pe : extra);
}

int Placement::pe_of(int rank) const noexcept {
  if (round_robin) return rank % npes;
  const int base = world_size / npes, extra = world_size % npes;
  const int big = extra * (base + 1); // ranks in the blocks that have one more
  return rank < big ? rank / (base + 1) : extra + (rank - big) / base;
}

PlacementRoutes::PlacementRoutes(const Placement &p) noexcept
    : npes_(static_cast<std::uint32_t>(p.npes)),
      base_(static_cast<std::uint32_t>(p.world_size / p.npes)),
      base1_(static_cast<std::uint32_t>(p.world_size / p.npes + 1)),
      big_(static_cast<std::uint32_t>(p.world_size % p.npes * (p.world_size / p.npes + 1))),
      extra_(static_cast<std::uint32_t>(p.world_size % p.npes)), round_robin_(p.round_robin) {
}

int Placement::rank_at(int pe, int index) const noexcept {
  return round_robin ? pe + index * npes : first_of(pe) + index;
}

PeConfig PeConfig::from_settings(const settings::Settings &s, int default_vp, int npes, int my_pe) {
  PeConfig c;
  c.placement.npes = npes;
  c.my_pe = my_pe;
  c.pes_per_process = static_cast<int>(s.pes);
  c.debug_smp = s.debug_smp;
  lb::parse(s.lb, c.lb_strategy); // the table accepts only the names lb::parse knows
  c.placement.world_size = s.vp > 0 ? static_cast<int>(s.vp) : default_vp > 0 ? default_vp : npes;
  if (c.placement.world_size < npes) {
    std::fprintf(stderr, "ampi: %d ranks cannot fill %d PEs (AMPI_VP too small)\n",
                 c.placement.world_size, npes);
    std::exit(2);
  }
  c.placement.round_robin = s.map == "rr";
  c.stack_size = s.stack_size;
  c.stack_guard = s.stack_guard;
  c.max_map_count = static_cast<std::size_t>(s.max_map_count);
  c.eager_limit = s.eager_limit;
  c.verbose = s.verbose;
  c.rma_shm = s.rma_shm;
  c.gpu_async_bytes = s.gpu_async_bytes;
  c.gpu_rank_streams = s.gpu_rank_streams;
  c.gpu_device_pack = s.gpu_device_pack;
  c.gpu_device_reduce = s.gpu_device_reduce;
  c.gpu_peer_access = s.gpu_peer_access;
  c.gpu_copy_kernel = s.gpu_copy_kernel;
  c.gpu_copy_kernel_idle_us = static_cast<unsigned>(s.gpu_copy_kernel_idle);
  c.gpu_copy_kernel_blocks = static_cast<unsigned>(s.gpu_copy_kernel_blocks);
  c.gpu_completion_words = s.gpu_completion_words;
  c.gpu_poll_alone = s.gpu_poll_alone;
  c.gpu_copy_priority = s.gpu_copy_priority;
  c.protocol.self_eager_limit = c.eager_limit;
  c.protocol.self_device_direct = c.gpu_async_bytes;
  c.protocol.net_eager_limit = s.ucx_eager_limit;
  c.protocol.gpu_eager_limit = std::min(s.gpu_eager_limit, s.ucx_eager_limit);
  c.protocol.gpu_ipc = s.gpu_ipc;
  // SMP mode: PEs of one process always exchange messages through memory (the same-host rings
  // and plain copies), never through the network port, whatever AMPI_SHM says.
  c.protocol.shm = s.shm || c.pes_per_process > 1;
  c.protocol.shm_eager_limit = s.shm_eager_limit;
  c.protocol.shm_cma = s.shm_cma;
  c.protocol.shm_cma_min = s.shm_cma_min;
  c.protocol.shm_cma_refuse = s.shm_cma_refuse;
  c.protocol.shm_cma_split = s.shm_cma_split;
  c.shm.segment_budget = s.shm_segment;
  c.shm.prefetch_lines = s.shm_prefetch == "auto" ? -1 : std::stoi(s.shm_prefetch);
  // Staged device messages travel like eager ones: through the ring, whose smallest records
  // (64 KiB rings) hold 24 KiB with room to spare.
  if (s.shm)
    c.protocol.gpu_eager_limit = std::min(
        c.protocol.gpu_eager_limit,
        std::max(std::min(c.protocol.shm_eager_limit, std::size_t{24 * 1024}), std::size_t{8192}));
  c.protocol.gpu_ipc_refuse = s.gpu_ipc_refuse;
  c.protocol.debug = s.debug_protocol;
  return c;
}

// An internal task that runs jobs for the PE's ranks (non-blocking and persistent collectives),
// one after another, and waits in the PE's pool between them. It never finishes, so its stack is
// mapped once: a task made per job (mmap + mprotect of an 8 MiB stack, its first pages faulted
// in, munmap, which shoots down TLBs, when the next one was made) made MPI_Iallreduce + MPI_Wait
// of 8 B between 2 ranks of one PE cost 31-37 us (quiet machine; up to 580 us loaded) against
// 0.5 us for MPI_Allreduce (osu_iallreduce / osu_allreduce -m 8:8).
struct Pe::Helper {
  ult::Task task;
  std::function<void()> job;        // empty while in the pool
  Rank *rank = nullptr;             // the rank the job runs for
  gpu::CUcontext context = nullptr; // that rank's CUDA context when it handed the job over
  Helper(Pe &pe, ult::StackPool &stacks) : task(stacks, [this, &pe] { pe.helper_loop(*this); }) {}
  Helper(const Helper &) = delete;
  Helper &operator=(const Helper &) = delete;
};

gpu::DevPtrCache::Options Pe::gpu_options(const PeConfig &c) {
  gpu::DevPtrCache::Options o;
  o.async_bytes = c.gpu_async_bytes;
  o.device_pack = c.gpu_device_pack;
  o.device_reduce = c.gpu_device_reduce;
  // SMP mode: one copy stream per PE, not four. Every stream counts against the context's 32
  // hardware queues, and a queue shared with a stream waiting for MPI (MPIX_Wait_enqueue) stalls
  // (startup.cpp, CUDA_DEVICE_MAX_CONNECTIONS).
  o.copy_streams = c.pes_per_process > 1 ? 1 : gpu::DevPtrCache::kCopyStreams;
  o.peer_access = c.gpu_peer_access;
  o.copy_kernel_bytes = c.gpu_copy_kernel;
  o.copy_kernel_idle_us = c.gpu_copy_kernel_idle_us;
  o.copy_kernel_blocks = c.gpu_copy_kernel_blocks;
  o.host_processes = c.host_processes;
  o.completion_words = c.gpu_completion_words;
  o.copy_priority = c.gpu_copy_priority;
  return o;
}

Pe::Pe(const PeConfig &config, pmi::ProcessKeys *keys, MainFn user_main,
       std::vector<std::string> args, char **envp)
    : config_(config), user_main_(user_main), args_(std::move(args)), envp_(envp) {
  if (keys) pmix_.emplace(*keys, config_.my_pe);
  current_ = this;
  threads_ = std::make_shared<ult::Threads>(this);
  const Placement &pl = config_.placement;
  world_group_ = comm::Group::range(0, pl.world_size);
  by_world_.assign(static_cast<std::size_t>(pl.world_size), nullptr);
  const int count = pl.count_of(config_.my_pe);
  trace("PE: settings and world group");
  stacks_.emplace(config_.stack_size, choose_stack_guard(config_, static_cast<std::size_t>(count)));
  scheduler_.set_overflow_report(report_checked_overflow);
  // Busy time per rank costs a clock read per switch: only when a strategy may use it.
  scheduler_.set_timing(config_.lb_strategy != lb::Strategy::none);
  ranks_.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    const int w = pl.rank_at(config_.my_pe, i);
    std::unique_ptr<Rank> rank;
    try {
      rank = std::make_unique<Rank>(*this, w, *stacks_, [this](Rank &self) { run_rank(self); });
    } catch (const ult::StackError &e) {
      throw ult::StackError("rank " + std::to_string(w) + ": " + e.what());
    }
    Rank *r = rank.get();
    by_world_[static_cast<std::size_t>(w)] = r;
    hosted_.push_back(r);

    auto world = std::make_unique<comm::Comm>();
    world->context = 0;
    world->rank = w;
    world->group = world_group_;
    world->name = "MPI_COMM_WORLD";
    r->comm.comms.add(std::move(world));
    auto self = std::make_unique<comm::Comm>();
    self->context = 2;
    self->rank = 0;
    self->group = comm::Group::list({w});
    self->name = "MPI_COMM_SELF";
    r->comm.comms.add(std::move(self));
    ranks_.push_back(std::move(rank));
  }
  trace("rank stacks and tasks made");
  if (pmix_ && pl.npes > 1) {
    port_ = ucx::open_port(*pmix_, config_.my_pe, pl.npes, p2p_.net_handler, devptrs_,
                           net::PortConfig{p2p_.protocols.limits().net_eager_limit});
    if (config_.protocol.shm) { // every process takes part (the setting is the job's)
      pmi::PeKeys &pmix = *pmix_;
      const int npes = pl.npes;
      const shm::Exchange exchange{[&pmix, npes](const std::vector<std::byte> &mine) {
                                     pmix.put("ampi.shm", mine);
                                     pmix.fence();
                                     std::vector<std::vector<std::byte>> all(
                                         static_cast<std::size_t>(npes));
                                     for (int p = 0; p < npes; ++p)
                                       all[static_cast<std::size_t>(p)] = pmix.get(p, "ampi.shm");
                                     return all;
                                   },
                                   [&pmix] { pmix.fence(); }};
      port_->attach_local(shm::Node::open(config_.my_pe, npes, host_id(), config_.shm, exchange));
      // The rings' records hold eager messages up to the ring's half, less the envelope: with
      // many processes on the host (64 KiB rings) the largest eager sizes go single-copy.
      if (const shm::Node *local = port_->local())
        p2p_.protocols.fit_shm_eager(local->max_record() - sizeof(net::Eager));
    }
    trace("network port open");
    termination_.emplace(*port_, [this] {
      print_blocked_ranks();
      if (config_.my_pe == 0) { // let the other processes print theirs before the job ends
        for (int i = 0; i < 50; ++i) {
          port_->progress();
          ::usleep(10000);
        }
      }
      abort_job(1);
    });
  }
  // What each rank has its own image of (thread-locals, getopt's state): set up once the
  // library's objects are all loaded (UCX's modules by the port), before any rank runs.
  privatize::setup_rank_images(scheduler_, ranks_);
  for (auto &r : ranks_)
    scheduler_.spawn(r->task);
  live_ranks_ = count;
  install_crash_report();
  trace("ranks created");
}

Pe::~Pe() {
  { // threads that outlive the job find no PE
    threads_->lock();
    threads_->host_ = nullptr;
    threads_->unlock();
  }
  // rma: windows the program did not free hold UCX registrations and keys; drop them while UCX
  // is still there: those of the ranks run here (made with this PE's port), before the fence
  // below, after which a rank's home PE may destroy it (a rank that migrated here).
  for (Rank *r : hosted_)
    r->rma.windows.clear();
  if (port_->remote()) {
    if (config_.debug_smp)
      std::fprintf(stderr,
                   "ampi: PE %d: %llu active messages or data to PEs of its process went through "
                   "the network port\n",
                   config_.my_pe, static_cast<unsigned long long>(port_->same_process_sends()));
    pmix_->fence(); // nobody still needs to reach us
    // Finalize PMIx before the (slower) UCX teardown, so that the launcher hears of it while
    // this process is still alive: a finalize it sees only after the exit looks like a crash.
    // (With several PEs in the process, the last of them to get here does it.)
    termination_.reset();
    pmix_->process().finalize();
    pmix_.reset();
    port_.reset();
  }
  current_ = nullptr;
}

void Pe::run_rank(Rank &r) {
  // Each rank gets its own argv (programs and getopt may permute or modify it). It is kept in the
  // Rank, not in this frame: a rank that calls exit() never comes back here (its stack is dropped
  // without unwinding), so locals owning memory would leak.
  r.args = args_;
  r.argv.clear();
  r.argv.reserve(r.args.size() + 1);
  for (auto &a : r.args)
    r.argv.push_back(a.data());
  r.argv.push_back(nullptr);
  // While the PE is threaded, the program's code runs without the PE's mutex (threads.hpp).
  if (threaded()) threads_->unlock();
  r.exit_code = user_main_(static_cast<int>(r.args.size()), r.argv.data(), envp_);
  if (threaded()) threads_->lock();
  if (r.initialized && !r.finalized) {
    std::fflush(stdout);
    std::fprintf(stderr,
                 "ampi: rank %d returned from main without calling MPI_Finalize; ending the job\n",
                 r.world_rank);
    abort_job(r.exit_code != 0 ? r.exit_code : 1);
  }
}

int Pe::run() {
  int status = 0;
  int idle = 0;
  // With other PEs, the loop ends only when all of them agree that every rank has finished.
  const bool remote = port_->remote();
  while (live_ranks_ > 0 || remote) {
    if (threaded()) [[unlikely]]
      threads_->loop_idle_ = false; // threads poll the network themselves while ranks run
    ult::Task *last = scheduler_.run_one();
    if (!last) {
      if (threaded()) [[unlikely]] { // threads of the ranks may still wake them
        if (idle_threaded(idle)) break;
        continue;
      }
      if (!remote) {
        if (devptrs_.copies_in_flight() > 0) { // device copies of ours complete requests
          devptrs_.poll_copies();
          continue;
        }
        report_deadlock(); // nothing in this process can wake a rank, and nothing is outside it
      }
      // Idle: drive the network; after a short spin, sleep until it has something for us.
      // (The full progress here, not spin(): the 2000 spins before sleeping keep the
      // length they were measured with.)
      const bool progressed = port_->progress();
      if (termination_->idle(live_ranks_ == 0, !progressed && !scheduler_.has_ready())) break;
      if (progressed) {
        idle = 0;
      } else if (++idle > 2000) {
        port_->wait(50);
        idle = 0;
      }
      continue;
    }
    idle = 0;
    // A task that just ended (finished tasks are never queued again, so each is seen here once):
    // count it and keep the first failure.
    if (last->finished()) {
      --live_ranks_;
      Rank *r = static_cast<Rank *>(last->owner);
      if (status == 0 && r->exit_code != 0) status = r->exit_code;
    }
  }
  if (threaded()) threads_->unlock(); // the loop held it since the first threaded switch
  std::fflush(nullptr);
  trace("every rank finished");
  return status;
}

void Pe::block(const char *call) {
  if (thread_rank_) [[unlikely]] // a created thread: wait without the PE's thread
    return block_thread(call);
  Rank &r = current();
  // A non-blocking collective of this rank has a step due (coll/nbc.cpp): take it and return,
  // the caller re-checks what it waits for (it may be that collective's request).
  if (r.coll.run_ready()) return;
  // Ranks that keep each other busy must not starve the network. If that progress did anything,
  // return instead of blocking: the caller re-checks what it waits for (it may be done now).
  const bool remote = port_->remote();
  if (remote && (++blocks_ & 63) == 0 && port_->progress()) return;
  // Alone on the PE: poll the network right here, on the rank's stack, instead of switching to
  // the scheduler loop and back for every message (the loop sleeps on the event fd later).
  if (remote && !scheduler_.has_ready()) {
    if (port_->spin()) return;
  } else if (!remote && devptrs_.copies_in_flight() > 0) {
    if (devptrs_.poll_copies()) return; // (with other PEs, the port's progress polls them)
  }
  r.blocked_in = call;
  const gpu::CUcontext ctx = gpu::thread_context(); // the rank's GPU (cuda_driver.hpp)
  devptrs_.trust(false); // other tasks run: the program's code, which may free memory
  scheduler_.block();
  // (The rank's PE, which a migration may have changed: this frame may resume on its thread.)
  r.pe().devptrs().trust(r.calls_open > 0 && !r.pe().threaded());
  gpu::restore_thread_context(ctx);
  r.blocked_in = nullptr;
}

void Pe::spawn_helper(Rank &r, std::function<void()> body) {
  Helper *h;
  bool fresh = false;
  if (!idle_helpers_.empty()) {
    h = idle_helpers_.back(); // the most recent: its stack is warm in the caches
    idle_helpers_.pop_back();
  } else {
    helpers_.push_back(std::make_unique<Helper>(*this, *stacks_));
    h = helpers_.back().get();
    fresh = true;
  }
  h->job = std::move(body);
  h->rank = &r;
  // The rank's GPU for the job's device work (reductions), when the rank itself hands it over.
  h->context = current_if() == &r ? gpu::thread_context() : nullptr;
  h->task.owner = &r;
  h->task.images = r.task.images; // the rank's thread_local variables and libc state, if its own
  h->task.charge_to = &r.task;    // its busy time is the rank's (load balancing)
  r.coll.helper_tasks.push_back(&h->task);
  ++live_ranks_;
  if (fresh)
    scheduler_.spawn(h->task);
  else
    scheduler_.make_ready(h->task);
}

void Pe::helper_loop(Helper &h) {
  for (;;) {
    while (!h.job) { // woken spuriously, or not yet given a job
      devptrs_.trust(false);
      scheduler_.block();
    }
    gpu::restore_thread_context(h.context);
    h.job();
    h.job = nullptr; // what the job held goes now, not at the next one
    std::erase(h.rank->coll.helper_tasks, &h.task);
    h.rank = nullptr;
    --live_ranks_; // (the loop counts only tasks that finish; this one goes back to the pool)
    idle_helpers_.push_back(&h);
  }
}

// The Rank stays owned by its home PE (ranks_), whose stack pool its stack came from: a PE ends
// only once every rank of the job has (Pe::run), so the owner outlives the rank's last use.
void Pe::release_rank(Rank &r) {
  scheduler_.detach(r.task);
  std::erase(hosted_, &r);
  by_world_[static_cast<std::size_t>(r.world_rank)] = nullptr;
  --live_ranks_;
}

void Pe::adopt_rank(Rank &r) {
  r.set_pe(*this);
  scheduler_.adopt(r.task);
  hosted_.push_back(&r);
  by_world_[static_cast<std::size_t>(r.world_rank)] = &r;
  ++live_ranks_;
}

void Pe::exit_current(int code) noexcept {
  if (threaded()) threads_->lock(); // back into the library from the program's code
  current().exit_code = code;
  scheduler_.finish_current();
}

namespace {

// Waits (at most about 200 ms) until what this process wrote to stderr has been read, where
// stderr is a pipe or a socket, then 100 ms more for the reader to pass it on: under srun,
// PMIx_Abort ends the step at once and slurmstepd dropped the error message still in the pipe
// (bad_args_fatal across the simulated hosts lost its "ampi: rank 3: MPI_Allreduce: ..." line in 1
// of 6 runs, 2 of 2 in one CI run).
void drain_stderr() noexcept {
  struct stat st {};
  if (::fstat(STDERR_FILENO, &st) != 0) return;
  const bool fifo = S_ISFIFO(st.st_mode), sock = S_ISSOCK(st.st_mode);
  if (!fifo && !sock) return;
  for (int i = 0; i < 200; ++i) {
    int queued = 0;
    if (::ioctl(STDERR_FILENO, fifo ? FIONREAD : SIOCOUTQ, &queued) != 0 || queued <= 0) break;
    const timespec ms{0, 1000 * 1000};
    ::nanosleep(&ms, nullptr);
  }
  // The reader (Slurm's step daemon) has taken the bytes but may not have passed them on to srun
  // yet, and the abort that follows makes srun end the step: the fatal error's message was lost in
  // 3 of about 40 srun runs of tests/multihost on the loaded VM. A moment for it to forward them.
  const timespec grace{0, 100 * 1000 * 1000};
  ::nanosleep(&grace, nullptr);
}

} // namespace

void Pe::abort_job(int code) noexcept {
  std::fflush(nullptr);
  drain_stderr();
  // Tell the launcher first: ampirun would end the job on the exit alone, but under Slurm an
  // exit leaves the other hosts' processes and their step daemons waiting in a PMIx collective
  // until Slurm's PMIx timeout (srun hung 80-100 s in tests/multihost); PMIx_Abort makes srun end
  // the whole job with this status at once. PMIx_Abort may not return (the launcher kills us).
  if (Pe *pe = get_if(); pe && pe->pmix_) pe->pmix_->process().abort(code, "ampi: the job ends");
  std::_Exit(code);
}

void Pe::print_blocked_ranks() {
  std::fflush(stdout);
  for (Rank *r : hosted_) {
    if (r->task.finished()) {
      std::fprintf(stderr, "  rank %d: finished (exit status %d)\n", r->world_rank, r->exit_code);
      continue;
    }
    std::fprintf(stderr, "  rank %d: blocked in %s", r->world_rank,
                 r->blocked_in ? r->blocked_in : "(unknown call)");
    const bool joining = r->blocked_in && std::strcmp(r->blocked_in, "pthread_join") == 0;
    if (!joining && (r->blocked_source != MPI_ANY_SOURCE || r->blocked_tag != MPI_ANY_TAG)) {
      std::fprintf(stderr, " (peer=%d, tag=%d, context=%" PRIu32 ")", r->blocked_source,
                   r->blocked_tag, r->blocked_context);
    }
    std::fprintf(stderr, ", %zu posted receive(s), %zu unexpected message(s)\n",
                 r->p2p.matching.posted_count(), r->p2p.matching.unexpected_count());
  }
  if (threaded()) {
    for (const auto &w : threads_->waiting_)
      std::fprintf(stderr, "  a thread of rank %d: blocked in %s (peer=%d, tag=%d)\n", w.owner_id,
                   w.call, w.source, w.tag);
  }
  std::fflush(stderr);
}

void Pe::report_deadlock() {
  std::fflush(stdout);
  std::fprintf(
      stderr,
      "ampi: deadlock: every rank of this process is blocked and no message is in flight\n");
  print_blocked_ranks();
  abort_job(1);
}

} // namespace ampi
