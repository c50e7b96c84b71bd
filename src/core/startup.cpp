// src/core/startup.cpp — the library's entry from the program: ampi_start() (from the program's
// first constructor) and ampi_main() (from its main, the fallback) build the PE and run the
// program's main once per virtual rank — each rank in its own copy of the program when several
// share the process (src/privatize); ampi_exit_rank() turns exit() in a rank into the end of that
// rank (or of the job, if the rank is between MPI_Init and MPI_Finalize).
#include "copy/copy.hpp"
#include "core/device_reset.hpp"
#include "core/pe.hpp"
#include "privatize/got_patch.hpp"
#include "privatize/privatize.hpp"
#include "settings/settings.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

// AMPI's "+vp N" program argument (as charmrun passes it) sets the rank count; it is removed
// from the argv that the program sees.
int take_vp_argument(std::vector<std::string> &args) {
  int vp = 0; // none given
  for (std::size_t i = 1; i + 1 < args.size();) {
    if (args[i] == "+vp") {
      char *end = nullptr;
      long v = std::strtol(args[i + 1].c_str(), &end, 10);
      if (*end || v < 1) {
        std::fprintf(stderr, "ampi: +vp %s: not a rank count\n", args[i + 1].c_str());
        std::exit(2);
      }
      vp = static_cast<int>(v);
      args.erase(args.begin() + static_cast<long>(i), args.begin() + static_cast<long>(i) + 2);
    } else {
      ++i;
    }
  }
  return vp;
}

// The AMPI_* variables, read once, before anything else (PMIx, UCX, the stacks): a value the
// table refuses ends the process here with one line naming it, never later as a crash or a hang.
ampi::settings::Settings read_settings() {
  ampi::settings::Settings::Read read = ampi::settings::Settings::from_environment();
  if (read.ok()) return std::move(read.values);
  for (const ampi::settings::Error &e : read.errors)
    std::fprintf(stderr, "ampi: %s\n", e.message().c_str());
  std::exit(1);
}

// From the program's first constructor (`self`): nullptr when called from main.
struct StartPoint {
  void (*self)(int, char **, char **) = nullptr;
  ampi::privatize::Image *image = nullptr; // the program file, readable
};

// The cores each PE thread of this process runs on (SMP mode): when the process may run on
// exactly `pes` cores (ampirun --bind-to core gives each process AMPI_PES cores; likewise a Slurm
// step with --cpus-per-task), PE t gets the t-th of them (all its hardware threads), or, when it
// may run on exactly `pes` hardware threads (--bind-to hwthread), the t-th of those. Otherwise the
// threads are left to the kernel, as a process of one PE is: the launcher never bound it (the
// library never binds a process on its own), or bound it to a whole socket.
std::vector<cpu_set_t> pe_cpu_sets(int pes) {
  std::vector<cpu_set_t> sets;
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (pes < 2 || ::sched_getaffinity(0, sizeof allowed, &allowed) != 0) return sets;
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  auto read_id = [](int cpu, const char *what) {
    const std::string path =
        "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/" + what;
    long v = -1;
    if (std::FILE *f = std::fopen(path.c_str(), "r")) {
      if (std::fscanf(f, "%ld", &v) != 1) v = -1;
      std::fclose(f);
    }
    return v;
  };
  std::vector<std::pair<long, long>> cores; // (package, core) of each group, in CPU order
  std::vector<std::vector<int>> groups;
  for (int c : cpus) {
    const std::pair<long, long> id{read_id(c, "physical_package_id"), read_id(c, "core_id")};
    auto it = std::find(cores.begin(), cores.end(), id);
    if (id.second < 0 || it == cores.end()) {
      cores.push_back(id);
      groups.push_back({c});
    } else {
      groups[static_cast<std::size_t>(it - cores.begin())].push_back(c);
    }
  }
  if (static_cast<int>(groups.size()) != pes) {
    if (static_cast<int>(cpus.size()) != pes) return sets;
    groups.clear();
    for (int c : cpus)
      groups.push_back({c});
  }
  for (const auto &g : groups) {
    cpu_set_t s;
    CPU_ZERO(&s);
    for (int c : g)
      CPU_SET(c, &s);
    sets.push_back(s);
  }
  return sets;
}

// Runs the PEs of this process to their end: PE 0 of the process on the calling (main) thread,
// the others on threads of their own, and returns the first non-zero exit status of any. The main
// thread runs a PE rather than waiting for the others: with one PE nothing changes at all (no
// thread, the same stack and thread-locals as before SMP mode), and the program's main thread, the
// one that called main() and whose exit ends the process, stays the one that runs ranks, as
// MPI_THREAD_FUNNELED programs of one rank per process expect.
int run_pes(const ampi::PeConfig &config, ampi::pmi::ProcessKeys *keys,
            int (*user_main)(int, char **, char **), const std::vector<std::string> &args,
            char **envp) {
  const int pes = config.pes_per_process;
  const std::vector<cpu_set_t> cpus = pe_cpu_sets(pes);
  std::vector<int> status(static_cast<std::size_t>(pes), 0);
  ampi::core::Handover handover(pes); // MPIX_Migrate hands ranks between the PEs through it
  // The copy routine is chosen once per process, on some CPUs by timing `rep movsb` (0.25 ms on
  // the Zen 5 VM with the cache lookup, src/copy): here, before any rank runs, rather than
  // inside some rank's first large message.
  (void)ampi::copy::strategy();
  auto run_pe = [&](int t) {
    if (!cpus.empty())
      (void)::pthread_setaffinity_np(::pthread_self(), sizeof(cpu_set_t),
                                     &cpus[static_cast<std::size_t>(t)]);
    ampi::PeConfig c = config;
    c.my_pe = config.my_pe + t;
    if (pes > 1) c.handover = &handover;
    if (t != 0) c.trace = {}; // (the trace's lines are the process's, from its main thread)
    try {
      ampi::Pe pe(c, keys, user_main, args, envp);
      status[static_cast<std::size_t>(t)] = pe.run();
    } catch (const std::exception &e) {
      if (pes == 1) throw;
      // The other PEs of the process may wait for this one in a fence: end the job.
      std::fprintf(stderr, "ampi: PE %d: %s\n", c.my_pe, e.what());
      ampi::Pe::abort_job(1);
    }
  };
  {
    std::vector<std::jthread> threads;
    threads.reserve(static_cast<std::size_t>(pes > 1 ? pes - 1 : 0));
    for (int t = 1; t < pes; ++t)
      threads.emplace_back(run_pe, t);
    run_pe(0);
  } // joins the other PEs
  for (int s : status)
    if (s != 0) return s;
  return 0;
}

int run_job(int argc, char **argv, char **envp, int (*user_main)(int, char **, char **),
            StartPoint start) {
  ampi::settings::Settings settings = read_settings();
  ampi::settings::StartupTrace trace(settings.debug_startup, "process");
  trace.mark("library start (the program's first constructor)");
  std::vector<std::string> args(argv, argv + argc);
  const int vp = take_vp_argument(args);
  // Every process of a job sets AMPI_LAUNCHED=0 at once (ampirun starts its processes with 1;
  // srun and other launchers with nothing), so a program that a rank starts with fork and exec
  // (HDF5's t_cache_image runs a serial copy of itself that way, without MPI_Init) inherits 0
  // with the rest of the job's environment (AMPI_VP, the PMIx variables) and is a singleton of
  // one rank rather than a second copy of the launched process: that copy ran main once per
  // virtual rank, four serial writers of one file, and waited for ever to join the job (under
  // srun as under ampirun).
  const char *launched = std::getenv("AMPI_LAUNCHED");
  const bool started_by_rank = launched && std::strcmp(launched, "0") == 0;
  if (!started_by_rank) ::setenv("AMPI_LAUNCHED", "0", 1);
  if (started_by_rank) settings.vp = 0;
  auto join = [started_by_rank]() -> std::optional<ampi::pmi::PmixClient> {
    if (started_by_rank) return std::nullopt;
    try {
      return ampi::pmi::PmixClient::connect();
    } catch (const std::exception &e) {
      std::fprintf(stderr, "ampi: cannot join the job: %s\n", e.what());
      std::exit(1);
    }
  };
  std::optional<ampi::pmi::PmixClient> pmix = join();
  const int process = pmix ? pmix->rank() : 0;
  if (trace.on()) trace.rename("process " + std::to_string(process));
  trace.mark(pmix ? "PMIx client connected" : "no PMIx (a singleton, or a one-process job)");
  // SMP mode: AMPI_PES PEs per process, PE index = process * AMPI_PES + thread.
  const int pes = static_cast<int>(settings.pes);
  const int npes = (pmix ? pmix->size() : 1) * pes;
  const int my_pe = process * pes; // the main thread's PE (the others: + 1 .. pes - 1)
  ampi::PeConfig config = ampi::PeConfig::from_settings(settings, vp, npes, my_pe);
  // The ranks of the whole process (all its PEs): they share its globals without copies.
  int process_ranks = 0;
  for (int t = 0; t < pes; ++t)
    process_ranks += config.placement.count_of(my_pe + t);
  config.process_ranks = process_ranks;
  config.host_processes = pmix ? pmix->local_size() : 1;
  // Ranks that share the process's CUDA context get CUDA's largest number of hardware work queues
  // (CUDA_DEVICE_MAX_CONNECTIONS, default 8), unless the environment sets it. With more streams
  // than queues, streams share a queue, and a stream waiting for MPI in cuStreamWaitValue32
  // (MPIX_Wait_enqueue) holds up every stream behind it in its queue, among them the copy that
  // the MPI operation it waits for needs: jacobi3d_cuda --enqueue with 8 virtual ranks of one
  // process hung in every run with 8 queues and ran with 32 (H200, driver 580,
  // bench/results/2026-11-26-s7-gpu). Not for one rank per process: 8 such processes under MPS
  // with 32 queues each aborted. Set before the program's constructors and main, so before its
  // first CUDA call creates the context.
  if (process_ranks > 1) ::setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 0);
  try {
    // From the first constructor, the program's own constructors have not run: either each
    // rank's copy runs them, or they run here, once, before the ranks start.
    std::optional<ampi::privatize::Programs> programs;
    if (start.self) {
      // AMPI_PRIVATIZE: auto (copies when a process runs several ranks), on (also for one), off.
      const std::string &mode = settings.privatize;
      const bool shared = process_ranks > 1;
      ampi::privatize::Image &image = *start.image;
      // Notes and warnings from the first process only: every process runs the same program.
      const bool tell = my_pe == 0;
      // auto: no copies of a program that has nothing to privatize (own_data.cpp): they would
      // change nothing but the start-up time (~90 us per rank). Said under AMPI_DEBUG_STARTUP.
      bool wanted = mode == "on";
      if (mode == "auto" && shared) {
        std::string own;
        try {
          own = image.own_state();
        } catch (const std::exception &e) {
          own = e.what();
        }
        wanted = !own.empty();
        if (trace.on())
          trace.mark(wanted ? ("per-rank copies: " + own).c_str()
                            : "no per-rank copies: the program has no writable data, constructor, "
                              "destructor, thread_local variable or exit handler of its own");
      }
      if (wanted) {
        std::string problem = image.problem();
        if (problem.empty()) {
          try {
            programs.emplace(image, settings.privatize_dir, settings.privatize_loader);
          } catch (const std::exception &e) {
            problem = e.what();
          }
        }
        if (programs) {
          if (tell)
            for (const std::string &note : image.notes())
              std::fprintf(stderr, "ampi: note: %s: %s\n", image.path().c_str(), note.c_str());
          if (tell && settings.verbose && !programs->dlopen_reason().empty())
            std::fprintf(stderr,
                         "ampi: note: %s: per-rank copies loaded with dlopen (start-up grows "
                         "faster than linearly with the ranks of a process): %s\n",
                         image.path().c_str(), programs->dlopen_reason().c_str());
          image.disable_fini();
          user_main = ampi::privatize::Programs::rank_main;
        } else if (tell) {
          std::fprintf(stderr,
                       "ampi: warning: %s: the ranks of a process share its global variables "
                       "(no per-rank copies): %s\n",
                       image.path().c_str(), problem.c_str());
        }
      }
      if (!programs) image.run_init_after(start.self, argc, argv, envp);
    }
    // The program's calls of the CUDA runtime's cudaDeviceReset reset the device only for the
    // last rank of the process (device_reset.hpp); each rank's copy is redirected when loaded.
    if (const link_map *program = ampi::privatize::program_link_map())
      ampi::redirect_device_reset(*program);
    config.copies = programs.has_value(); // their mappings count against vm.max_map_count
    if (programs) config.maps_per_copy = programs->mappings_per_copy();
    trace.mark(programs ? "per-rank copies of the program prepared" : "program's constructors run");
    config.trace = trace;
    int status = 0;
    {
      // Shared by the PEs of this process (a job of one PE needs none).
      std::optional<ampi::pmi::ProcessKeys> keys;
      if (pmix || pes > 1) keys.emplace(std::move(pmix), pes);
      status = run_pes(config, keys ? &*keys : nullptr, user_main, args, envp);
    }
    trace.mark("PE destroyed");
    programs.reset();
    trace.mark("per-rank copies unloaded; exit");
    return status;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "ampi: %s\n", e.what());
    return 1;
  }
}

} // namespace

extern "C" int ampi_main(int argc, char **argv, char **envp,
                         int (*user_main)(int, char **, char **)) {
  return run_job(argc, argv, envp, user_main, {});
}

// The program's first constructor. In a per-rank copy being loaded: hands over the copy's main.
// In the program as started: runs the whole job, then exits (the program's main is never
// reached from the C start-up code).
extern "C" void ampi_start(int argc, char **argv, char **envp,
                           int (*user_main)(int, char **, char **),
                           void (*self)(int, char **, char **), void *dso) {
  if (ampi::privatize::Programs::take_loading_main(user_main, dso)) return;
  if (ampi::Pe::get_if()) return; // a copy loaded by the program itself: nothing to start
  ampi::privatize::Image image;
  if (!image.readable()) return; // cannot find our constructors: the classic start from main
  std::exit(run_job(argc, argv, envp, user_main, {self, &image}));
}

extern "C" void ampi_exit_rank(int status) {
  ampi::Pe *pe = ampi::Pe::get_if();
  if (!pe) return;
  ampi::Rank *r = pe->current_if();
  if (!r) return;
  if (r->initialized && !r->finalized) {
    std::fflush(stdout);
    std::fprintf(stderr,
                 "ampi: rank %d called exit(%d) between MPI_Init and MPI_Finalize; "
                 "ending the job\n",
                 r->world_rank, status);
    ampi::Pe::abort_job(status != 0 ? status : 1);
  }
  ampi::privatize::Programs::unload_current(*r); // this rank's destructors and atexit handlers
  pe->exit_current(status);
}
