// src/launcher/ampirun.cpp — the job launcher: `ampirun [options] program [args...]`.
//
// A job is V virtual ranks placed over P processes on this host (over several hosts: see "Over
// several hosts" near the end, and remote.hpp). ampirun is the job's PMIx
// server: it embeds libpmix's server library (rendezvous files in a private 0700 directory that
// is removed at the end), registers one namespace with P clients, forks/execs every process with
// the environment from PMIx_server_setup_fork, and serves the clients' requests (connect,
// finalize, fence, abort). The library of each process places the V ranks itself from AMPI_VP
// and AMPI_MAP; --report-bindings prints the same placement. Each process is bound to its own
// core by default (--bind-to, binding.hpp), within the cores that ampirun itself may use.
//
// Threads: libpmix runs its own progress thread, which calls the server module's callbacks. The
// callbacks touch no launcher state: they queue an event under a mutex and wake the main thread
// through a pipe. libpmix's listening thread calls accept(), which ampirun interposes to vet each
// connection first (pmix_gate.hpp); a refusal is queued the same way. The main thread does
// everything else in one poll() loop: signals (through a signalfd), the PMIx events, the
// children's output (with --tag-output) and the kill deadline.
//
// Signals: SIGCHLD and the forwarded signals are blocked in every thread (before libpmix starts
// its thread) and read from a signalfd, so there is no asynchronous handler. A signal that the
// terminal sent to the whole foreground process group (si_code == SI_KERNEL) already reached the
// children, which share our process group, and is not sent again. Signals that were ignored when
// ampirun started (as for a background job or under nohup) stay ignored and are not forwarded.
//
// Ending a job: the first process to fail (in time order: a non-zero exit status, a signal, a
// PMIx_Abort, or an exit without PMIx_Finalize while others still run) decides ampirun's exit
// status; the others get SIGTERM, then SIGKILL after kKillGraceMs. ampirun always reaps every
// child before it exits, and the children die with it (PR_SET_PDEATHSIG) if it is killed.
//
// Shutting the server down: when every client that called PMIx_Init also called PMIx_Finalize,
// ampirun deregisters the namespace and calls PMIx_server_finalize (a watchdog ends ampirun if
// that hangs). When a client went away without PMIx_Finalize, libpmix 4.2 may have damaged its
// own state (a client dying while the others enter a fence leads to a crash or a deadlock in its
// progress thread, about one time in twenty), so ampirun then removes its directory and exits
// without calling libpmix again.
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/random.h>
#include <sys/socket.h>

#include <pmix.h>
#include <pmix_server.h>

#include "binding.hpp"
#include "fd.hpp"
#include "pmix_gate.hpp"
#include "remote.hpp"
#include "settings/settings.hpp"
#include "settings/startup_trace.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

extern char **environ;

#ifndef AMPI_VERSION_STRING
#define AMPI_VERSION_STRING "unknown"
#endif

namespace {

constexpr int kExitUsage = 2;        // bad command line, program missing or not executable
constexpr int kExitExecFailed = 127; // the program could not be executed after the launch began
constexpr int kExitTimeout = 124;    // --timeout expired (as timeout(1) reports it)
constexpr int kExitNoFinalize = 1;   // a process left without PMIx_Finalize while others ran
constexpr int kKillGraceMs = 1000;   // SIGTERM -> SIGKILL delay when ending a failed job
constexpr std::chrono::milliseconds kPmixOpTimeout{30000};   // for PMIx server operations
constexpr std::chrono::milliseconds kShutdownTimeout{10000}; // for the PMIx server's shutdown
constexpr std::size_t kMaxTaggedLine = 64 * 1024;            // longer lines are split when tagging

// Signals that ampirun passes on to its children.
constexpr std::array kForwardedSignals{SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

// A command-line problem: reported as "ampirun: <message>" and exit status 2.
struct UsageError {
  std::string message;
  bool hint = true; // add "Try 'ampirun --help'"
};

// A failure of ampirun itself (a system call, the PMIx server): "ampirun: <message>", status 1.
struct FatalError {
  std::string message;
};

[[noreturn]] void fail_errno(const std::string &what) {
  throw FatalError{what + ": " + std::strerror(errno)};
}

using ampirun::Fd;

struct Pipe {
  Fd read;
  Fd write;
};

Pipe make_pipe(int flags = 0) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | flags) != 0) fail_errno("pipe");
  return {Fd(fds[0]), Fd(fds[1])};
}

void set_nonblocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) fail_errno("fcntl");
}

// Writes all of `data` (drops it when the reader is gone: EPIPE, since SIGPIPE is ignored).
void write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      pollfd p{fd, POLLOUT, 0};
      ::poll(&p, 1, -1);
      continue;
    }
    if (n <= 0) return;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

std::int64_t now_ms() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

// ----------------------------------------------------------------------------------------------
// Command line

enum class MapPolicy { block, round_robin };

const char *map_name(MapPolicy map) {
  return map == MapPolicy::block ? "block" : "rr";
}

struct Options {
  int processes = 1;
  bool processes_given = false;         // -np: else, with other hosts, the slots' total
  std::vector<ampirun::HostSpec> hosts; // --host, --hostfile (merged)
  std::optional<int> vps;               // default: one per PE
  int pes = 1;                          // --pes-per-process (AMPI_PES): PEs (threads) each
  std::optional<std::uint64_t> stack_size;
  std::vector<std::pair<std::string, std::string>> exports; // -x NAME=VALUE
  bool report_bindings = false;
  bool tag_output = false;
  ampirun::BindUnit bind = ampirun::BindUnit::core;
  bool oversubscribe = false;   // no note when processes outnumber cores
  std::optional<int> timeout_s; // --timeout: end the job after this many seconds
  MapPolicy map = MapPolicy::block;
  std::string mps = "warn";      // --mps: auto, on, warn, off
  std::string wdir;              // -wdir: the processes' working directory (empty: ampirun's)
  std::vector<std::string> argv; // the program and its arguments
};

// The name the launcher was started as (ampirun, mpiexec or mpirun: the same program).
std::string launcher_name = "ampirun"; // NOLINT: set once in main, before anything else

void print_usage(std::FILE *out) {
  std::fprintf(out, "Usage: %s [options] program [args...]\n", launcher_name.c_str());
  std::fputs(
      "Run an ampi MPI program: V virtual ranks (user-level threads) over P processes on this\n"
      "host, or over several hosts (--host, --hostfile).\n"
      "\n"
      "Options:\n"
      "  -np N, -n N, --np N     number of processes (default 1)\n"
      "  --vp V, +vp V           number of virtual ranks (default: one per PE; at least N * T)\n"
      "  --pes-per-process T     run T PEs (scheduler threads, each with its own ranks) in each\n"
      "                          process (SMP mode; AMPI_PES); with binding, each process gets T\n"
      "                          cores and each PE thread one of them (default 1)\n"
      "  --stack-size SIZE       stack size of each rank, in bytes; suffixes K, M, G (x1024)\n"
      "  -x NAME[=VALUE]         export NAME (with VALUE) to the job's environment\n"
      "  -env NAME VALUE         the same as -x NAME=VALUE (MPICH's form; also -genv)\n"
      "  -wdir DIR               run the processes in directory DIR (also --wdir, -cwd)\n"
      "  -host LIST, -hostfile FILE\n"
      "                          run over these hosts: LIST is \"a,b:2,...\" (name:slots),\n"
      "                          FILE has lines \"name slots=N\" (also --host, -H, -hosts,\n"
      "                          --hostfile, -machinefile, -f); the processes fill each host's\n"
      "                          slots (default 1) in order, then go round robin; -np defaults\n"
      "                          to the slots' total. ampirun starts itself on every other host\n"
      "                          through ssh (AMPI_RSH sets the command; the same path there),\n"
      "                          passes the job on its standard input, and serves PMIx on each\n"
      "                          host; AMPI_*, UCX_* and -x variables and the directory go\n"
      "                          along. Hosts that are all this one: as without the option\n"
      "  --timeout SECONDS       end the job (exit status 124) if it runs longer than this\n"
      "  --map block|rr          placement of ranks over processes: balanced contiguous blocks\n"
      "                          (default; the first V%N processes get one rank more) or round\n"
      "                          robin (rank r on process r%N)\n"
      "  --bind-to core|socket|hwthread|none\n"
      "                          bind each process to its own core (default), to the socket\n"
      "                          of that core (also: package), to its own hardware thread, or\n"
      "                          not at all; process i goes to the i-th core that ampirun may\n"
      "                          run on (its own affinity: taskset, Slurm, a cgroup); with more\n"
      "                          processes than those cores, none is bound (a note says so);\n"
      "                          threads that ranks create share their process's binding\n"
      "  --report-bindings       print where each rank runs and each process's binding\n"
      "  --tag-output            prefix every line of output with [P], P the process that\n"
      "                          wrote it (the ranks of a process share its stdout and stderr,\n"
      "                          so the prefix names the process, not the rank); also\n"
      "                          --prefix-output\n"
      "  --oversubscribe         more processes than cores is expected: no note that they are\n"
      "                          not bound (ranks never need their own core)\n"
      "  --mps auto|on|warn|off  CUDA MPS for processes sharing a GPU: auto starts a private\n"
      "                          MPS daemon when there are more processes than visible GPUs\n"
      "                          (warns if it cannot), on starts one whenever a GPU is visible,\n"
      "                          warn (default) only warns, off does nothing; a daemon already\n"
      "                          named by CUDA_MPS_PIPE_DIRECTORY is used as it is\n"
      "  -h, --help              show this help and exit\n"
      "  --help-env              list the AMPI_* environment variables: type, default,\n"
      "                          accepted values, current value and meaning (also: ampi_info)\n"
      "  --version               show the version and exit\n"
      "  -c N, --allow-run-as-root, -genvall\n"
      "                          accepted as Open MPI's and MPICH's launchers do (-c is -np;\n"
      "                          the other two change nothing: the job may run as root, and\n"
      "                          the whole environment is passed on)\n"
      "  --                      end of options\n"
      "Option values may also be attached with '=' (--vp=4, -np=2, +vp4).\n"
      "mpiexec and mpirun are other names of ampirun (mpiexec -n N program, as the MPI\n"
      "standard writes it).\n"
      "\n"
      "Each process is a PMIx client of ampirun. Its environment carries AMPI_VP, AMPI_MAP,\n"
      "AMPI_STACK_SIZE (with --stack-size), the PMIx variables, and the local-rank variables of\n"
      "Open MPI, MPICH and MVAPICH and LOCAL_RANK (the process index). Process 0 reads the\n"
      "standard input; the others read /dev/null.\n"
      "ampirun checks the AMPI_* variables that the processes will see (see --help-env) and\n"
      "refuses to start the job, with exit status 1, when one has a value out of range.\n"
      "Exit status: that of the first process to fail (128+N if it was killed by signal N, the\n"
      "MPI_Abort code if it aborted), after the others were ended; 2 for usage errors.\n",
      out);
}

// Walks ampirun's own arguments; value_of() and flag() consume the option at the cursor.
class ArgCursor {
public:
  explicit ArgCursor(std::vector<std::string_view> args) : args_(std::move(args)) {}

  bool done() const { return pos_ >= args_.size(); }
  std::string_view peek() const { return args_[pos_]; }
  void advance() { ++pos_; }
  std::vector<std::string> rest() const {
    return {args_.begin() + static_cast<std::ptrdiff_t>(pos_), args_.end()};
  }

  // When the current argument is one of `names` — "NAME VALUE", "NAME=VALUE" or, with
  // `attached_ok`, "NAMEVALUE" (+vp4) — consumes it and returns the value; else returns nothing.
  std::optional<std::string> value_of(std::initializer_list<std::string_view> names,
                                      bool attached_ok = false) {
    std::string_view arg = peek();
    for (std::string_view name : names) {
      if (arg == name) {
        if (pos_ + 1 >= args_.size())
          throw UsageError{"option '" + std::string(name) + "' requires a value"};
        std::string value(args_[pos_ + 1]);
        pos_ += 2;
        return value;
      }
      if (arg.size() > name.size() && arg.substr(0, name.size()) == name) {
        std::string_view tail = arg.substr(name.size());
        if (tail.front() == '=') {
          ++pos_;
          return std::string(tail.substr(1));
        }
        if (attached_ok) {
          ++pos_;
          return std::string(tail);
        }
      }
    }
    return std::nullopt;
  }

  bool flag(std::initializer_list<std::string_view> names) {
    for (std::string_view name : names)
      if (peek() == name) {
        ++pos_;
        return true;
      }
    return false;
  }

private:
  std::vector<std::string_view> args_;
  std::size_t pos_ = 0;
};

int parse_count(std::string_view option, std::string_view text) {
  long long value = 0;
  const char *first = text.data();
  const char *last = text.data() + text.size();
  auto [end, ec] = std::from_chars(first, last, value);
  const std::string what = std::string(option) + " '" + std::string(text) + "'";
  if (text.empty() || ec == std::errc::invalid_argument || end != last)
    throw UsageError{what + ": not a number (expected a positive integer)"};
  if (ec == std::errc::result_out_of_range || value > INT_MAX)
    throw UsageError{what + ": too large"};
  if (value < 1) throw UsageError{what + ": must be at least 1"};
  return static_cast<int>(value);
}

// A value for the AMPI_* variable `variable` (the settings table's parser and range, so
// that --stack-size accepts exactly what AMPI_STACK_SIZE does).
std::uint64_t parse_size(std::string_view option, std::string_view text,
                         std::string_view variable) {
  const ampi::settings::Declaration *d = ampi::settings::find(variable);
  std::uint64_t value = 0;
  if (auto e = ampi::settings::check(*d, text))
    throw UsageError{std::string(option) + " '" + std::string(text) + "': " + e->reason +
                     " (accepted: " + ampi::settings::accepted(*d) + ")"};
  ampi::settings::parse_size(text, value);
  return value;
}

bool valid_env_name(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front()))) return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

std::string host_name() {
  char name[HOST_NAME_MAX + 1] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "localhost";
  return name;
}

// Whether `host` names this machine: localhost, a loopback address, or its host name (short or
// full).
bool is_this_host(std::string_view host) {
  if (host == "localhost" || host == "::1" || host.starts_with("127.")) return true;
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return false;
  const std::string_view mine(name);
  return host == mine || host == mine.substr(0, mine.find('.')) ||
         mine == host.substr(0, host.find('.'));
}

// Parses argv; exits directly for --help and --version.
Options parse_command_line(int argc, char **argv) {
  Options options;
  ArgCursor args({argv + 1, argv + argc});
  while (!args.done()) {
    std::string_view arg = args.peek();
    if (arg == "--") {
      args.advance();
      break;
    }
    if (arg.empty() || (arg.front() != '-' && arg.front() != '+')) break; // the program
    if (args.flag({"-h", "--help", "-help"})) {
      print_usage(stdout);
      std::exit(EXIT_SUCCESS);
    }
    if (args.flag({"--help-env", "-help-env"})) {
      std::fputs(ampi::settings::describe().c_str(), stdout);
      std::exit(EXIT_SUCCESS);
    }
    if (args.flag({"--version", "-version", "-V"})) {
      std::printf("ampirun (ampi) %s\n", AMPI_VERSION_STRING);
      std::exit(EXIT_SUCCESS);
    }
    if (args.flag({"--allow-run-as-root", "-allow-run-as-root", "-genvall", "--genvall"}))
      continue; // nothing to do: see --help
    if (auto v = args.value_of({"-np", "--np", "-n", "-c"})) {
      options.processes = parse_count(arg.substr(0, arg.find('=')), *v);
      options.processes_given = true;
      continue;
    }
    if (auto v = args.value_of({"--vp", "-vp"})) {
      options.vps = parse_count("--vp", *v);
      continue;
    }
    if (auto v = args.value_of({"--pes-per-process", "-pes-per-process"})) {
      options.pes = parse_count("--pes-per-process", *v);
      continue;
    }
    if (auto v = args.value_of({"+vp"}, /*attached_ok=*/true)) {
      options.vps = parse_count("+vp", *v);
      continue;
    }
    if (auto v = args.value_of({"--timeout", "-timeout"})) {
      options.timeout_s = parse_count("--timeout", *v);
      continue;
    }
    if (auto v = args.value_of({"--stack-size", "-stack-size"})) {
      options.stack_size = parse_size("--stack-size", *v, "AMPI_STACK_SIZE");
      continue;
    }
    if (auto v = args.value_of({"-x"})) {
      const std::size_t eq = v->find('=');
      const std::string name = v->substr(0, eq);
      if (!valid_env_name(name))
        throw UsageError{"-x '" + *v + "': not a valid environment variable name"};
      if (eq != std::string::npos)
        options.exports.emplace_back(name, v->substr(eq + 1));
      else if (std::getenv(name.c_str()) == nullptr)
        std::fprintf(stderr, "ampirun: warning: -x %s: not set in the environment\n", name.c_str());
      // else: the ranks inherit it anyway.
      continue;
    }
    if (arg == "-env" || arg == "-genv" || arg == "--env") {
      const std::string option(arg);
      args.advance();
      if (args.done()) throw UsageError{option + " requires NAME and VALUE"};
      const std::string name(args.peek());
      args.advance();
      if (args.done()) throw UsageError{option + " " + name + " requires a VALUE"};
      if (!valid_env_name(name))
        throw UsageError{option + " '" + name + "': not a valid environment variable name"};
      options.exports.emplace_back(name, std::string(args.peek()));
      args.advance();
      continue;
    }
    if (auto v = args.value_of({"-wdir", "--wdir", "-cwd", "--cwd"})) {
      struct stat st {};
      if (::stat(v->c_str(), &st) != 0)
        throw UsageError{"-wdir '" + *v + "': " + std::strerror(errno), false};
      if (!S_ISDIR(st.st_mode)) throw UsageError{"-wdir '" + *v + "': not a directory", false};
      options.wdir = *v;
      continue;
    }
    if (auto v = args.value_of({"--host", "-host", "-H", "--hosts", "-hosts"})) {
      try {
        for (ampirun::HostSpec &h : ampirun::parse_host_list(*v))
          options.hosts.push_back(std::move(h));
      } catch (const std::invalid_argument &e) {
        throw UsageError{std::string(arg.substr(0, arg.find('='))) + " " + e.what()};
      }
      continue;
    }
    if (auto v = args.value_of({"--hostfile", "-hostfile", "--machinefile", "-machinefile", "-f",
                                "--default-hostfile"})) {
      try {
        for (ampirun::HostSpec &h : ampirun::parse_hostfile(*v))
          options.hosts.push_back(std::move(h));
      } catch (const std::invalid_argument &e) {
        throw UsageError{std::string(arg.substr(0, arg.find('='))) + " " + e.what(), false};
      }
      continue;
    }
    if (auto v = args.value_of({"--map", "-map"})) {
      if (*v == "block")
        options.map = MapPolicy::block;
      else if (*v == "rr" || *v == "round-robin")
        options.map = MapPolicy::round_robin;
      else
        throw UsageError{"--map '" + *v + "': unknown placement (use block or rr)"};
      continue;
    }
    if (args.flag({"--report-bindings", "-report-bindings"})) {
      options.report_bindings = true;
      continue;
    }
    if (args.flag({"--tag-output", "-tag-output", "--prefix-output", "-prefix-output"})) {
      options.tag_output = true;
      continue;
    }
    if (auto v = args.value_of({"--bind-to", "-bind-to"})) {
      const std::optional<ampirun::BindUnit> unit = ampirun::parse_bind_unit(*v);
      if (!unit)
        throw UsageError{"--bind-to '" + *v +
                         "': unknown binding (use core, socket, hwthread or none)"};
      options.bind = *unit;
      continue;
    }
    if (args.flag({"--oversubscribe", "-oversubscribe"})) {
      options.oversubscribe = true;
      continue;
    }
    if (auto v = args.value_of({"--mps", "-mps"})) {
      if (*v != "auto" && *v != "on" && *v != "warn" && *v != "off")
        throw UsageError{"--mps '" + *v + "': use auto, on, warn or off"};
      options.mps = *v;
      continue;
    }
    throw UsageError{"unknown option '" + std::string(arg) + "'"};
  }
  options.argv = args.rest();
  options.hosts = ampirun::merge_hosts(std::move(options.hosts));
  if (!options.processes_given && !options.hosts.empty() &&
      !std::all_of(options.hosts.begin(), options.hosts.end(),
                   [](const ampirun::HostSpec &h) { return is_this_host(h.name); })) {
    // Over other hosts: one process per slot, as Open MPI's mpirun does.
    options.processes = 0;
    for (const ampirun::HostSpec &h : options.hosts)
      options.processes += h.slots;
  }
  if (options.argv.empty()) throw UsageError{"missing program to run"};
  if (options.argv.front().empty()) throw UsageError{"the program name is empty"};

  if (options.pes > 1024) throw UsageError{"--pes-per-process: at most 1024"};
  const int pes = options.processes * options.pes;
  const int vps = options.vps.value_or(pes);
  if (vps < pes)
    throw UsageError{"--vp " + std::to_string(vps) + " is less than the number of " +
                     (options.pes > 1 ? "PEs (" : "processes (") + std::to_string(pes) +
                     "): every " + (options.pes > 1 ? "PE" : "process") +
                     " needs at least one virtual rank"};
  options.vps = vps;
  return options;
}

// ----------------------------------------------------------------------------------------------
// Program lookup, like execvp: a name with a '/' is used as is, others are searched in PATH.

std::string resolve_program(const std::string &program) {
  auto check = [](const std::string &path, std::string &why) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
      why = std::strerror(errno);
      return false;
    }
    if (S_ISDIR(st.st_mode)) {
      why = "is a directory";
      return false;
    }
    if (!S_ISREG(st.st_mode)) {
      why = "is not a regular file";
      return false;
    }
    if (::access(path.c_str(), X_OK) != 0) {
      why = "is not executable";
      return false;
    }
    return true;
  };

  std::string why;
  if (program.find('/') != std::string::npos) {
    if (check(program, why)) return program;
    if (why == std::strerror(ENOENT))
      throw UsageError{"program '" + program + "' not found", false};
    throw UsageError{"program '" + program + "' " + why, false};
  }

  std::string path_list;
  if (const char *path = std::getenv("PATH")) {
    path_list = path;
  } else {
    std::size_t n = ::confstr(_CS_PATH, nullptr, 0);
    std::string buf(n, '\0');
    if (n > 0 && ::confstr(_CS_PATH, buf.data(), n) > 0) path_list = buf.c_str();
  }
  std::string first_unusable, first_why;
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = path_list.find(':', begin);
    std::string dir = path_list.substr(begin, end == std::string::npos ? end : end - begin);
    if (dir.empty()) dir = ".";
    std::string candidate = dir + "/" + program;
    if (check(candidate, why)) return candidate;
    if (first_unusable.empty() && why != std::strerror(ENOENT) && why != std::strerror(ENOTDIR)) {
      first_unusable = candidate;
      first_why = why;
    }
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  if (!first_unusable.empty())
    throw UsageError{
        "program '" + program + "' found as '" + first_unusable + "', which " + first_why, false};
  throw UsageError{"program '" + program + "' not found in PATH", false};
}

// ----------------------------------------------------------------------------------------------
// Job plan: which ranks each process hosts, and each process's environment.

struct ProcessPlan {
  int index = 0;
  std::vector<int> ranks;
  std::vector<std::pair<std::string, std::string>> variables; // set by ampirun
  std::vector<std::string> environment; // NAME=VALUE: ours with `variables` applied
};

std::vector<std::vector<int>> place_ranks(int vps, int processes, MapPolicy map) {
  std::vector<std::vector<int>> placement(static_cast<std::size_t>(processes));
  const int base = vps / processes;
  const int extra = vps % processes;
  for (int rank = 0; rank < vps; ++rank) {
    int process = 0;
    if (map == MapPolicy::round_robin) {
      process = rank % processes;
    } else {
      // The first `extra` processes get base + 1 ranks, the others base.
      const int big = extra * (base + 1);
      process = rank < big ? rank / (base + 1) : extra + (rank - big) / base;
    }
    placement[static_cast<std::size_t>(process)].push_back(rank);
  }
  return placement;
}

// Inherited variables that belong to an enclosing PMIx job (ampirun run by srun --mpi=pmix,
// prterun, or another ampirun): they would point our children, and our own server library, at
// the wrong server. PMIx's MCA parameters are user settings and stay, and so do the variables
// that relocate a PMIx installation (its pinstalldirs "env" component): PMIX_PKGLIBDIR is the
// only way to make PMIx 4.2 load its plugins from elsewhere, since the component path setting
// is searched after the built-in one (a machine with another PMIx at Debian's path otherwise
// loads that one's plugins: "undefined symbol: pmix_output_info").
bool foreign_pmix_variable(std::string_view entry) {
  if (entry.substr(0, 5) != "PMIX_") return false;
  if (entry.substr(0, 9) == "PMIX_MCA_") return false;
  static constexpr std::string_view install_dirs[] = {
      "PMIX_INSTALL_PREFIX", "PMIX_EXEC_PREFIX",   "PMIX_BINDIR",     "PMIX_SBINDIR",
      "PMIX_LIBEXECDIR",     "PMIX_DATAROOTDIR",   "PMIX_DATADIR",    "PMIX_SYSCONFDIR",
      "PMIX_SHAREDSTATEDIR", "PMIX_LOCALSTATEDIR", "PMIX_LIBDIR",     "PMIX_INCLUDEDIR",
      "PMIX_INFODIR",        "PMIX_MANDIR",        "PMIX_PKGDATADIR", "PMIX_PKGLIBDIR",
      "PMIX_PKGINCLUDEDIR"};
  const std::string_view name = entry.substr(0, entry.find('='));
  for (std::string_view keep : install_dirs)
    if (name == keep) return false;
  return true;
}

void scrub_environment() {
  std::vector<std::string> names;
  for (char **e = environ; e && *e; ++e) {
    const std::string_view entry(*e);
    if (foreign_pmix_variable(entry)) names.emplace_back(entry.substr(0, entry.find('=')));
  }
  for (const std::string &name : names)
    ::unsetenv(name.c_str());
}

// The inherited environment with `overrides` applied (later entries win).
std::vector<std::string>
make_environment(const std::vector<std::pair<std::string, std::string>> &overrides) {
  auto overridden = [&](std::string_view entry) {
    const std::string_view name = entry.substr(0, entry.find('='));
    for (const auto &[n, v] : overrides)
      if (n == name) return true;
    return false;
  };
  std::vector<std::string> env;
  for (char **e = environ; e && *e; ++e)
    if (!overridden(*e)) env.emplace_back(*e);
  for (std::size_t i = 0; i < overrides.size(); ++i) {
    bool later = false;
    for (std::size_t j = i + 1; j < overrides.size(); ++j)
      later = later || overrides[j].first == overrides[i].first;
    if (!later) env.push_back(overrides[i].first + "=" + overrides[i].second);
  }
  return env;
}

// Refuses (exit status 1) a job whose AMPI_* variables the library would refuse: one message
// here rather than one from every process.
void check_settings(const std::vector<std::string> &environment) {
  auto lookup = [&](const char *name) -> const char * {
    const std::size_t n = std::strlen(name);
    for (const std::string &entry : environment)
      if (entry.size() > n && entry[n] == '=' && entry.compare(0, n, name) == 0)
        return entry.c_str() + n + 1;
    return nullptr;
  };
  const ampi::settings::Settings::Read read = ampi::settings::Settings::from_environment(lookup);
  if (read.ok()) return;
  std::string message = read.errors.front().message();
  for (std::size_t i = 1; i < read.errors.size(); ++i)
    message += "\nampirun: " + read.errors[i].message();
  throw FatalError{message};
}

// Where the job's processes run: hosts in order, each with a contiguous block of processes
// (process indices are PMIx ranks). One host, this one, unless --host/--hostfile name others.
struct Layout {
  std::vector<std::string> names;
  std::vector<int> first, count; // per host: its first process and how many it runs
  int self = 0;                  // the host this ampirun serves
  int total() const { return first.empty() ? 0 : first.back() + count.back(); }
  bool several() const { return names.size() > 1; }
  int host_of(int process) const {
    for (std::size_t h = 0; h < names.size(); ++h)
      if (process >= first[h] && process < first[h] + count[h]) return static_cast<int>(h);
    return -1;
  }
};

// Hosts that run no process are left out; the entry that is this host is the head's.
Layout make_layout(const Options &options) {
  Layout layout;
  const bool remote = std::any_of(options.hosts.begin(), options.hosts.end(),
                                  [](const ampirun::HostSpec &h) { return !is_this_host(h.name); });
  if (!remote) {
    layout.names = {host_name()};
    layout.first = {0};
    layout.count = {options.processes};
    return layout;
  }
  const std::vector<int> counts = ampirun::place_processes(options.hosts, options.processes);
  layout.self = -1;
  int next = 0;
  for (std::size_t h = 0; h < options.hosts.size(); ++h) {
    if (counts[h] == 0) continue;
    if (layout.self < 0 && is_this_host(options.hosts[h].name))
      layout.self = static_cast<int>(layout.names.size());
    layout.names.push_back(options.hosts[h].name);
    layout.first.push_back(next);
    layout.count.push_back(counts[h]);
    next += counts[h];
  }
  return layout;
}

// Variables of the launching environment that a process on another host gets too (ssh gives
// the daemon a login environment, not ours): the settings and those of UCX and PMIx.
std::vector<std::pair<std::string, std::string>> forwarded_environment() {
  std::vector<std::pair<std::string, std::string>> out;
  for (char **e = environ; e && *e; ++e) {
    const std::string_view entry(*e);
    const std::size_t eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    if (entry.starts_with("AMPI_") || entry.starts_with("UCX_") || entry.starts_with("PMIX_MCA_"))
      out.emplace_back(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
  }
  return out;
}

// The variables ampirun sets for process `p` of the job (the environment's overrides).
// `remote`: for a daemon's process, which gets ours forwarded too.
std::vector<std::pair<std::string, std::string>>
process_variables(const Options &options, const Layout &layout, int p, bool remote) {
  const int host = layout.host_of(p);
  std::vector<std::pair<std::string, std::string>> vars;
  if (remote) vars = forwarded_environment();
  vars.insert(vars.end(), options.exports.begin(), options.exports.end());
  const std::string index = std::to_string(p);
  const std::string count = std::to_string(layout.total());
  const std::string local = std::to_string(p - layout.first[static_cast<std::size_t>(host)]);
  const std::string local_count = std::to_string(layout.count[static_cast<std::size_t>(host)]);
  vars.emplace_back("AMPI_VP", std::to_string(*options.vps));
  vars.emplace_back("AMPI_MAP", map_name(options.map));
  if (options.pes > 1) vars.emplace_back("AMPI_PES", std::to_string(options.pes));
  // A process of the job, not one its program starts (src/core/startup.cpp turns it to 0).
  vars.emplace_back("AMPI_LAUNCHED", "1");
  if (options.stack_size) vars.emplace_back("AMPI_STACK_SIZE", std::to_string(*options.stack_size));
  // Every process of the job is on this host: UCX's TCP transport (if used at all) listens on
  // loopback only, never on a network a job does not need. UCX_NET_DEVICES given by the user
  // (environment or -x) wins. Over several hosts UCX picks the networks itself.
  const bool net_devices_given =
      std::getenv("UCX_NET_DEVICES") != nullptr ||
      std::any_of(options.exports.begin(), options.exports.end(),
                  [](const auto &kv) { return kv.first == "UCX_NET_DEVICES"; });
  if (!net_devices_given && !layout.several()) vars.emplace_back("UCX_NET_DEVICES", "lo");
  // The process's rank and the job's size, as Open MPI's mpirun sets them: the library runs
  // a one-process job without PMIx (src/pmi/pmix_client.cpp).
  vars.emplace_back("OMPI_COMM_WORLD_RANK", index);
  vars.emplace_back("OMPI_COMM_WORLD_SIZE", count);
  // Local (per-host) process rank and count, as other launchers set them.
  vars.emplace_back("OMPI_COMM_WORLD_LOCAL_RANK", local);
  vars.emplace_back("OMPI_COMM_WORLD_LOCAL_SIZE", local_count);
  vars.emplace_back("MPI_LOCALRANKID", local);
  vars.emplace_back("MPI_LOCALNRANKS", local_count);
  vars.emplace_back("LOCAL_RANK", local);
  vars.emplace_back("MV2_COMM_WORLD_LOCAL_RANK", local);
  vars.emplace_back("MV2_COMM_WORLD_LOCAL_SIZE", local_count);
  return vars;
}

// The plans of the processes of host layout.self (`remote`: another host's, for its daemon).
std::vector<ProcessPlan> plan_job(const Options &options, const Layout &layout,
                                  bool remote = false) {
  // Ranks are placed over PEs (T per process, as the library does), then gathered by process.
  const int t = options.pes;
  std::vector<std::vector<int>> placement =
      place_ranks(*options.vps, layout.total() * t, options.map);
  std::vector<ProcessPlan> plans;
  if (layout.self < 0) return plans;
  const auto self = static_cast<std::size_t>(layout.self);
  for (int p = layout.first[self]; p < layout.first[self] + layout.count[self]; ++p) {
    std::vector<int> ranks;
    for (int pe = p * t; pe < (p + 1) * t; ++pe) {
      const auto &of = placement[static_cast<std::size_t>(pe)];
      ranks.insert(ranks.end(), of.begin(), of.end());
    }
    std::sort(ranks.begin(), ranks.end());
    plans.push_back({p, std::move(ranks), process_variables(options, layout, p, remote), {}});
  }
  return plans;
}

// ----------------------------------------------------------------------------------------------
// What ampirun creates on the host (its PMIx directory, about 8 MB; the MPS directory) must go
// however ampirun ends, SIGKILL included, when no destructor runs. The Cleaner forks, before any
// thread starts, a process that outlives ampirun: it leaves our session (signals for the
// terminal's process group do not reach it) and ignores the job's signals, learns the paths to
// remove through a pipe, and removes those still listed once the pipe's write end is closed,
// which happens when ampirun has exited, however. On a normal end ampirun removes the paths
// itself and tells the cleaner to forget them. (The per-rank copies of the program have a
// cleaner of their own in each process: src/privatize.)

// Removes `path` and everything under it (not following symbolic links).
void remove_tree(const std::string &path) {
  ::nftw(
      path.c_str(),
      [](const char *p, const struct stat *, int, struct FTW *) {
        ::remove(p);
        return 0;
      },
      16, FTW_DEPTH | FTW_PHYS);
}

class Cleaner {
public:
  Cleaner() {
    Pipe pipe = make_pipe(); // close-on-exec: the job's programs do not keep it open
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) fail_errno("fork");
    if (pid == 0) serve(pipe.read.get(), pipe.write.get());
    out_ = std::move(pipe.write);
  }
  Cleaner(const Cleaner &) = delete;
  Cleaner &operator=(const Cleaner &) = delete;
  ~Cleaner() = default; // closing our end lets the cleaner go (nothing listed by then)

  void watch(const std::string &path) { tell('+', path); }
  void forget(const std::string &path) { tell('-', path); }

private:
  void tell(char op, const std::string &path) {
    if (path.find('\n') != std::string::npos) return; // never from mkdtemp under a sane TMPDIR
    write_all(out_.get(), op + path + '\n');
  }

  // The cleaner process: single-threaded (forked before libpmix's thread), so it may allocate.
  [[noreturn]] static void serve(int in, int out) {
    ::close(out);
    ::setsid();
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGPIPE})
      std::signal(sig, SIG_IGN);
    if (const int null = ::open("/dev/null", O_RDWR); null >= 0) {
      for (int fd = 0; fd <= 2; ++fd)
        ::dup2(null, fd);
      if (null > 2) ::close(null);
    }
    for (int fd = 3; fd < 1024; ++fd) // the job's output pipes must not stay open for us
      if (fd != in) ::close(fd);
    std::set<std::string> paths;
    std::string pending;
    char buf[4096];
    for (;;) {
      const ssize_t n = ::read(in, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      pending.append(buf, static_cast<std::size_t>(n));
      for (std::size_t nl; (nl = pending.find('\n')) != std::string::npos;
           pending.erase(0, nl + 1)) {
        const std::string path = pending.substr(1, nl - 1);
        if (pending[0] == '+')
          paths.insert(path);
        else
          paths.erase(path);
      }
    }
    for (const std::string &path : paths)
      remove_tree(path);
    ::_exit(0);
  }

  Fd out_;
};

// The private directory for the PMIx server's rendezvous files: mode 0700, removed at the end
// (by the cleaner if ampirun is killed).

class PrivateDir {
public:
  explicit PrivateDir(Cleaner &cleaner) : cleaner_(cleaner) {
    const char *base = std::getenv("TMPDIR");
    std::string tmpl = (base && *base ? std::string(base) : std::string("/tmp"));
    while (tmpl.size() > 1 && tmpl.back() == '/')
      tmpl.pop_back();
    tmpl += "/ampirun." + std::to_string(::getpid()) + ".XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr)
      throw FatalError{"cannot create a private directory '" + tmpl + "': " + std::strerror(errno)};
    path_ = tmpl;
    cleaner_.watch(path_);
    if (::chmod(path_.c_str(), S_IRWXU) != 0) {
      const int err = errno;
      remove();
      throw FatalError{"chmod '" + tmpl + "': " + std::strerror(err)};
    }
  }
  PrivateDir(const PrivateDir &) = delete;
  PrivateDir &operator=(const PrivateDir &) = delete;
  ~PrivateDir() { remove(); }

  const std::string &path() const { return path_; }

  void remove() {
    if (path_.empty()) return;
    remove_tree(path_);
    cleaner_.forget(path_);
    path_.clear();
  }

private:
  Cleaner &cleaner_;
  std::string path_;
};

// ----------------------------------------------------------------------------------------------
// CUDA MPS (gpu): several processes on one GPU time-slice between their CUDA contexts (about
// 150 us a message); under the MPS daemon they share the GPU. MpsDaemon starts a private daemon
// (pipe and log directories in a 0700 temporary directory, exported to the job through
// CUDA_MPS_PIPE_DIRECTORY / CUDA_MPS_LOG_DIRECTORY) and stops it and removes the directory when
// the job is over.

// GPUs the job can see: CUDA_VISIBLE_DEVICES if set, else the /dev/nvidiaN device files.
int visible_gpus() {
  if (const char *v = std::getenv("CUDA_VISIBLE_DEVICES")) {
    std::string_view list(v);
    if (list.empty() || list.front() == '-' || list == "NoDevFiles") return 0;
    return 1 + static_cast<int>(std::count(list.begin(), list.end(), ','));
  }
  int n = 0;
  if (DIR *d = ::opendir("/dev")) {
    while (const dirent *e = ::readdir(d)) {
      std::string_view name(e->d_name);
      if (name.size() > 6 && name.substr(0, 6) == "nvidia" &&
          std::all_of(name.begin() + 6, name.end(), [](char c) { return c >= '0' && c <= '9'; }))
        ++n;
    }
    ::closedir(d);
  }
  return n;
}

std::string find_mps_control() {
  std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  path += ":/usr/local/nvidia/bin:/usr/bin";
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    if (!dir.empty()) {
      std::string f = dir + "/nvidia-cuda-mps-control";
      if (::access(f.c_str(), X_OK) == 0) return f;
    }
    start = end + 1;
  }
  return {};
}

// ampirun itself must not become a CUDA client: a client of the job's MPS daemon keeps it from
// quitting (the server waits for its clients: seen on the GPU machines, where hwloc's I/O
// plugins, loaded by the PMIx server, initialised CUDA in ampirun), and a CUDA context would
// take GPU memory for nothing. The job's environment is planned already: this changes ours only.
void keep_launcher_off_gpus() {
  ::unsetenv("CUDA_MPS_PIPE_DIRECTORY");
  ::unsetenv("CUDA_MPS_LOG_DIRECTORY");
  if (!std::getenv("HWLOC_COMPONENTS"))
    ::setenv("HWLOC_COMPONENTS", "-cuda,-nvml,-opencl,-rsmi,-levelzero,-gl", 1);
}

class MpsDaemon {
public:
  // Decides from --mps and the job's shape; may start the daemon (and then set the variables in
  // our environment, which the processes inherit).
  MpsDaemon(const std::string &mode, int processes, Cleaner &cleaner) : cleaner_(cleaner) {
    if (mode == "off") return;
    const int gpus = visible_gpus();
    if (gpus == 0) return;
    const bool shared = processes > gpus;
    if (mode != "on" && !shared) return;
    if (const char *d = std::getenv("CUDA_MPS_PIPE_DIRECTORY"); d && *d) return; // the user's
    const std::string why = std::to_string(processes) + " processes share " + std::to_string(gpus) +
                            " GPU" + (gpus == 1 ? "" : "s");
    if (mode == "warn") {
      std::fprintf(stderr,
                   "ampirun: warning: %s; without the CUDA MPS daemon the GPU time-slices "
                   "between the processes (use --mps auto to start one for the job)\n",
                   why.c_str());
      return;
    }
    control_ = find_mps_control();
    if (control_.empty()) {
      std::fprintf(stderr,
                   "ampirun: warning: %s, and nvidia-cuda-mps-control is not on the PATH: the GPU "
                   "will time-slice between the processes\n",
                   why.c_str());
      return;
    }
    const char *base = std::getenv("TMPDIR");
    std::string tmpl = (base && *base ? std::string(base) : std::string("/tmp")) + "/ampi-mps." +
                       std::to_string(::getpid()) + ".XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr)
      throw FatalError{"cannot create the MPS directory '" + tmpl + "': " + std::strerror(errno)};
    dir_ = tmpl;
    cleaner_.watch(dir_);
    ::chmod(dir_.c_str(), S_IRWXU);
    const std::string pipe = dir_ + "/pipe", log = dir_ + "/log";
    ::mkdir(pipe.c_str(), S_IRWXU);
    ::mkdir(log.c_str(), S_IRWXU);
    ::setenv("CUDA_MPS_PIPE_DIRECTORY", pipe.c_str(), 1);
    ::setenv("CUDA_MPS_LOG_DIRECTORY", log.c_str(), 1);
    // In the foreground (-f), as our child in a process group of its own: we know its pid, and
    // can end it (and the MPS server it starts) should it not quit when told to.
    daemon_ = spawn({"-f"}, -1, log + "/control.out");
    const std::string control = pipe + "/control";
    for (int i = 0; daemon_ > 0 && i < 200 && ::access(control.c_str(), F_OK) != 0; ++i) {
      if (exited(daemon_))
        daemon_ = -1;
      else
        ::usleep(25000);
    }
    if (daemon_ <= 0 || ::access(control.c_str(), F_OK) != 0) {
      std::fprintf(stderr, "ampirun: warning: %s, and the MPS daemon did not start (see %s)\n",
                   why.c_str(), log.c_str());
      end_group();
      ::unsetenv("CUDA_MPS_PIPE_DIRECTORY");
      ::unsetenv("CUDA_MPS_LOG_DIRECTORY");
      return;
    }
  }
  MpsDaemon(const MpsDaemon &) = delete;
  MpsDaemon &operator=(const MpsDaemon &) = delete;
  ~MpsDaemon() { stop(); }
  // Stops the daemon (if we started one) and removes its directory. Told to quit, the daemon
  // ends its server and itself; if that has not happened within kQuitSeconds, its process group
  // is ended (a job must never hang at its end because of MPS).
  void stop() noexcept {
    if (daemon_ > 0) {
      int in[2] = {-1, -1};
      if (::pipe(in) == 0) {
        const pid_t quit = spawn({}, in[0], "/dev/null");
        ::close(in[0]);
        write_all(in[1], "quit\n");
        ::close(in[1]);
        bool gone = false;
        for (int i = 0; i < kQuitSeconds * 20 && !gone; ++i) {
          gone = exited(daemon_);
          if (!gone) ::usleep(50000);
        }
        if (quit > 0) {
          if (!exited(quit)) ::kill(quit, SIGKILL);
          reap(quit);
        }
        if (!gone)
          std::fprintf(stderr,
                       "ampirun: warning: the job's MPS daemon did not quit within %d s; "
                       "ending it\n",
                       kQuitSeconds);
      }
      end_group();
    }
    if (!dir_.empty()) {
      remove_tree(dir_);
      cleaner_.forget(dir_);
    }
    dir_.clear();
  }

private:
  static constexpr int kQuitSeconds = 10;

  // Starts nvidia-cuda-mps-control with `args`, standard input from `in` (-1: /dev/null) and
  // its output to `out`, with default signal handling; -1 if it could not be started.
  pid_t spawn(std::vector<std::string> args, int in, const std::string &out) {
    const pid_t pid = ::fork();
    if (pid < 0) return -1;
    if (pid == 0) {
      ::setpgid(0, 0);
      // Our signal mask (SIGCHLD and the forwarded signals blocked once the job runs, see the
      // top of this file) and ignored SIGPIPE must not reach the daemon or its client.
      sigset_t none;
      sigemptyset(&none);
      ::sigprocmask(SIG_SETMASK, &none, nullptr);
      std::signal(SIGPIPE, SIG_DFL);
      // Ours are gone once the job is planned (keep_launcher_off_gpus): name the daemon again.
      ::setenv("CUDA_MPS_PIPE_DIRECTORY", (dir_ + "/pipe").c_str(), 1);
      ::setenv("CUDA_MPS_LOG_DIRECTORY", (dir_ + "/log").c_str(), 1);
      const int devnull = ::open("/dev/null", O_RDWR);
      ::dup2(in >= 0 ? in : devnull, STDIN_FILENO);
      // The daemon must not hold the job's output open (whoever reads it would wait for it).
      const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
      ::dup2(o >= 0 ? o : devnull, STDOUT_FILENO);
      ::dup2(o >= 0 ? o : devnull, STDERR_FILENO);
      for (int fd = 3; fd < 1024; ++fd)
        ::close(fd);
      std::vector<char *> argv{control_.data()};
      for (std::string &a : args)
        argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(control_.c_str(), argv.data());
      ::_exit(127);
    }
    ::setpgid(pid, pid); // also here: no race with the child's own call
    return pid;
  }
  // Whether child `pid` has ended (it is reaped then).
  static bool exited(pid_t pid) noexcept {
    int status = 0;
    pid_t r;
    while ((r = ::waitpid(pid, &status, WNOHANG)) < 0 && errno == EINTR) {
    }
    return r == pid || (r < 0 && errno == ECHILD);
  }
  static void reap(pid_t pid) noexcept {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  // Ends whatever is left of the daemon's process group (the daemon, its server) and reaps the
  // daemon.
  void end_group() noexcept {
    if (daemon_ <= 0) return;
    ::kill(-daemon_, SIGTERM);
    for (int i = 0; i < 20 && !exited(daemon_); ++i)
      ::usleep(50000);
    ::kill(-daemon_, SIGKILL);
    if (!exited(daemon_)) reap(daemon_);
    daemon_ = -1;
  }

  Cleaner &cleaner_;
  std::string control_;
  std::string dir_;
  pid_t daemon_ = -1;
};

// ----------------------------------------------------------------------------------------------
// PMIx server. The module's callbacks run on libpmix's progress thread. They touch no launcher
// state: they queue events for the main thread (EventQueue). Completions are called from the
// upcall where libpmix allows it (it then only queues them), except client_finalized's, which a
// thread of ours (CallbackThread) calls, and abort's, which the main thread calls.

struct PmixEvent {
  enum Kind { connected, finalized, aborted, refused, fence } kind = connected;
  int process = -1;
  bool lost = false; // finalized: the connection was lost, PMIx_Finalize was not called
  int status = 0;
  std::string message;               // aborted: the caller's; refused: why
  pmix_op_cbfunc_t cbfunc = nullptr; // aborted: to release the caller once the job is ending
  void *cbdata = nullptr;
  // fence (over several hosts): this host's contribution, and its completion
  std::string data;
  pmix_modex_cbfunc_t modex_cbfunc = nullptr;
};

class EventQueue {
public:
  EventQueue() : wake_(make_pipe(O_NONBLOCK)) {}

  int fd() const { return wake_.read.get(); }

  // Any thread.
  void push(PmixEvent event) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      events_.push_back(std::move(event));
    }
    const char byte = 'e';
    ssize_t ignored = ::write(wake_.write.get(), &byte, 1); // full pipe: a wake-up is pending
    (void)ignored;
  }

  // Main thread.
  std::deque<PmixEvent> take() {
    char buf[256];
    while (::read(wake_.read.get(), buf, sizeof buf) > 0) {
    }
    std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(events_, {});
  }

private:
  Pipe wake_;
  std::mutex mutex_;
  std::deque<PmixEvent> events_;
};

// Runs libpmix's completion callbacks outside of the upcalls, in order.
class CallbackThread {
public:
  CallbackThread() : thread_([this] { loop(); }) {}
  CallbackThread(const CallbackThread &) = delete;
  CallbackThread &operator=(const CallbackThread &) = delete;
  ~CallbackThread() { stop(); }

  // Any thread; dropped once stop() has begun.
  void post(std::function<void()> fn) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    queue_.push_back(std::move(fn));
    cv_.notify_one();
  }

  // Runs what is queued, then ends the thread.
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
      cv_.notify_one();
    }
    if (thread_.joinable()) thread_.join();
  }

private:
  void loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      std::function<void()> fn = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      fn();
      lock.lock();
    }
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::thread thread_; // last: starts once the members above exist
};

// Shared with the upcalls; set before the clients can connect.
EventQueue *g_events = nullptr;
CallbackThread *g_callbacks = nullptr;
std::string g_nspace;                         // read-only once the server runs
std::unique_ptr<std::atomic<pid_t>[]> g_pids; // pid of each process, once forked
int g_processes = 0;
bool g_several_hosts = false; // read-only once the server runs

// Which process a PMIx proc is, or -1 when it is not one of our job.
int process_of(const pmix_proc_t *proc) {
  if (proc == nullptr || g_nspace != proc->nspace) return -1;
  if (proc->rank >= static_cast<pmix_rank_t>(g_processes)) return -1;
  return static_cast<int>(proc->rank);
}

// Whether process `p` still runs (not exited, whether or not the main thread reaped it yet).
bool process_alive(int p) {
  if (p < 0) return false;
  const pid_t pid = g_pids[static_cast<std::size_t>(p)].load();
  if (pid <= 0) return false;
  siginfo_t info{};
  if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0)
    return false; // reaped already
  return info.si_pid == 0;
}

// ----------------------------------------------------------------------------------------------
// Who connects: pmix_gate.hpp. Connections that reach libpmix come from the job's processes.

pmix_status_t on_client_connected(const pmix_proc_t *proc, void *, pmix_op_cbfunc_t cbfunc,
                                  void *cbdata) {
  // Who may connect was decided before libpmix saw the connection (PmixGate). Refusing here
  // would take libpmix 4.2.2's error path, which frees the claimed rank's record (pmix_gate.hpp).
  g_events->push(
      {PmixEvent::connected, process_of(proc), false, 0, {}, nullptr, nullptr, {}, nullptr});
  if (cbfunc) cbfunc(PMIX_SUCCESS, cbdata); // as libpmix's example server does
  return PMIX_SUCCESS;
}

pmix_status_t on_client_finalized(const pmix_proc_t *proc, void *, pmix_op_cbfunc_t cbfunc,
                                  void *cbdata) {
  // libpmix calls this for PMIx_Finalize, and also when a client's connection drops without it.
  // A client in PMIx_Finalize is alive, blocked until we complete; one that dropped has exited
  // (or is exiting: then we take it for finalized, the lenient side). A real finalize is queued
  // before the client can exit, so the main thread sees it before the child's SIGCHLD.
  const int p = process_of(proc);
  g_events->push(
      {PmixEvent::finalized, p, !process_alive(p), 0, {}, nullptr, nullptr, {}, nullptr});
  // Not from here: for a lost connection, libpmix still writes to the client's object after
  // this returns, and the completion may release that object.
  if (cbfunc) g_callbacks->post([cbfunc, cbdata] { cbfunc(PMIX_SUCCESS, cbdata); });
  return PMIX_SUCCESS;
}

pmix_status_t on_abort(const pmix_proc_t *proc, void *, int status, const char msg[], pmix_proc_t[],
                       size_t, pmix_op_cbfunc_t cbfunc, void *cbdata) {
  // The whole job ends, whichever processes were named. The caller stays blocked in PMIx_Abort
  // until the main thread has sent the termination signals and calls cbfunc.
  g_events->push({PmixEvent::aborted,
                  process_of(proc),
                  false,
                  status,
                  msg ? msg : "",
                  cbfunc,
                  cbdata,
                  {},
                  nullptr});
  return PMIX_SUCCESS;
}

void release_fence_data(void *data) {
  std::free(data);
}

pmix_status_t on_fence(const pmix_proc_t[], size_t, const pmix_info_t[], size_t, char *data,
                       size_t ndata, pmix_modex_cbfunc_t cbfunc, void *cbdata) {
  if (g_several_hosts) {
    // The other hosts' data comes through the control connections: the main thread sends ours
    // on and completes the fence with everyone's (libpmix takes the completion from any thread).
    PmixEvent e{PmixEvent::fence, -1, false, 0, {}, nullptr, cbdata, {}, cbfunc};
    if (data != nullptr) e.data.assign(data, ndata);
    std::free(data);
    g_events->push(std::move(e));
    return PMIX_SUCCESS;
  }
  // Every participant is local and libpmix upcalls once they have all arrived, with their data
  // collected: the fence is complete. The data is ours now; libpmix calls release_fence_data
  // when it has stored it.
  // Complete it at once, as libpmix's example server does: libpmix only queues the completion
  // here, and it must run before anything else can touch the collective (a participant's lost
  // connection completes it with an error; a second completion would use it after its release).
  if (cbfunc)
    cbfunc(PMIX_SUCCESS, data, ndata, cbdata, release_fence_data, data);
  else
    std::free(data);
  return PMIX_SUCCESS;
}

pmix_status_t on_direct_modex(const pmix_proc_t *, const pmix_info_t[], size_t, pmix_modex_cbfunc_t,
                              void *) {
  // Every fence collects the data (src/pmi/pmix_client.cpp), so libpmix holds all of it.
  return PMIX_ERR_NOT_SUPPORTED;
}

// Waits for a PMIx server operation's completion callback.
class OpWaiter {
public:
  static void callback(pmix_status_t status, void *cbdata) {
    auto *self = static_cast<OpWaiter *>(cbdata);
    std::lock_guard<std::mutex> lock(self->mutex_);
    self->status_ = status;
    self->done_ = true;
    self->cv_.notify_all(); // under the lock: the waiter may destroy *self once it has it
  }

  // Runs `start(callback, cbdata)` and waits for the callback; returns the operation's status.
  template <class Start>
  static pmix_status_t run(Start start, std::chrono::milliseconds timeout = kPmixOpTimeout) {
    auto *waiter = new OpWaiter;
    pmix_status_t rc = start(&OpWaiter::callback, waiter);
    if (rc == PMIX_OPERATION_SUCCEEDED) {
      delete waiter;
      return PMIX_SUCCESS;
    }
    if (rc != PMIX_SUCCESS) {
      delete waiter;
      return rc;
    }
    std::unique_lock<std::mutex> lock(waiter->mutex_);
    if (!waiter->cv_.wait_for(lock, timeout, [&] { return waiter->done_; }))
      return PMIX_ERR_TIMEOUT; // the callback may still come: leave the waiter to it
    rc = waiter->status_;
    lock.unlock();
    delete waiter;
    return rc;
  }

private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  pmix_status_t status_ = PMIX_SUCCESS;
};

// A pmix_info_t array of fixed capacity, filled in order.
class InfoArray {
public:
  explicit InfoArray(std::size_t capacity) : capacity_(capacity) {
    PMIX_INFO_CREATE(info_, capacity_);
  }
  InfoArray(const InfoArray &) = delete;
  InfoArray &operator=(const InfoArray &) = delete;
  ~InfoArray() {
    for (std::size_t i : lent_)
      info_[i].value.type = PMIX_UNDEF; // not ours to release
    if (info_) PMIX_INFO_FREE(info_, capacity_);
  }

  void add(const char *key, const void *value, pmix_data_type_t type) {
    if (size_ == capacity_) throw FatalError{"internal error: PMIx info array too small"};
    PMIX_INFO_LOAD(&info_[size_++], key, value, type);
  }
  void add_string(const char *key, const std::string &value) {
    add(key, value.c_str(), PMIX_STRING);
  }
  void add_u32(const char *key, std::uint32_t value) { add(key, &value, PMIX_UINT32); }
  void add_u16(const char *key, std::uint16_t value) { add(key, &value, PMIX_UINT16); }
  void add_rank(const char *key, pmix_rank_t value) { add(key, &value, PMIX_PROC_RANK); }
  void add_bool(const char *key, bool value) { add(key, &value, PMIX_BOOL); }
  // A topology lent, not copied (PMIX_INFO_LOAD would copy the tree with hwloc_topology_dup,
  // and the copy would go with this array while libpmix keeps pointing to it): the caller keeps
  // `topo` and its tree alive, and the array's release leaves them alone.
  void add_topology(const char *key, pmix_topology_t *topo) {
    if (size_ == capacity_) throw FatalError{"internal error: PMIx info array too small"};
    pmix_info_t &info = info_[size_];
    PMIX_LOAD_KEY(info.key, key);
    info.value.type = PMIX_TOPO;
    info.value.data.topo = topo;
    lent_.push_back(size_++);
  }
  // Adds `key` holding `inner` (a data array of pmix_info_t), which it takes over.
  void add_array(const char *key, InfoArray &&inner) {
    if (size_ == capacity_) throw FatalError{"internal error: PMIx info array too small"};
    pmix_data_array_t *array = nullptr;
    PMIX_DATA_ARRAY_CREATE(array, 0, PMIX_INFO);
    if (array == nullptr) throw FatalError{"out of memory"};
    std::free(array->array);
    array->array = inner.info_;
    array->size = inner.size_;
    inner.info_ = nullptr;
    pmix_info_t &info = info_[size_++];
    PMIX_LOAD_KEY(info.key, key);
    info.value.type = PMIX_DATA_ARRAY;
    info.value.data.darray = array; // freed with this array
  }

  pmix_info_t *data() { return info_; }
  std::size_t size() const { return size_; }

private:
  pmix_info_t *info_ = nullptr;
  std::size_t capacity_ = 0;
  std::size_t size_ = 0;
  std::vector<std::size_t> lent_; // entries whose values the array does not own
};

std::string pmix_error(pmix_status_t rc) {
  return PMIx_Error_string(rc);
}

// The job's namespace: "ampirun.<pid>.<128-bit secret>". A client must name it to connect, so
// the secret keeps out whoever cannot read the environment of the job's processes (see "Who
// connects" above).
std::string job_namespace() {
  std::array<unsigned char, 16> secret{};
  std::size_t got = 0;
  while (got < secret.size()) {
    const ssize_t n = ::getrandom(secret.data() + got, secret.size() - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail_errno("getrandom");
    got += static_cast<std::size_t>(n);
  }
  std::string name = "ampirun." + std::to_string(::getpid()) + ".";
  static constexpr char kHex[] = "0123456789abcdef";
  for (unsigned char c : secret) {
    name += kHex[c >> 4];
    name += kHex[c & 15];
  }
  return name;
}

// ampirun's embedded PMIx server and the job's namespace in it.
class PmixServer {
public:
  // `topology`: the machine's, already loaded (nullptr: libpmix loads its own).
  // `nspace`: the job's (a daemon gets the head's); empty: a new one.
  PmixServer(const std::string &dir, EventQueue &events, int processes, hwloc_topology_t topology,
             const std::string &nspace, const Layout &layout) {
    const bool several_hosts = layout.several();
    g_events = &events;
    g_callbacks = &callbacks_;
    g_nspace = nspace.empty() ? job_namespace() : nspace;
    g_several_hosts = several_hosts;
    g_processes = processes;
    g_pids = std::make_unique<std::atomic<pid_t>[]>(static_cast<std::size_t>(processes));
    gate_.emplace(g_pids.get(), processes, [](const std::string &why) {
      g_events->push({PmixEvent::refused, -1, false, 0, why, nullptr, nullptr, {}, nullptr});
    });
    module_.client_connected = on_client_connected;
    module_.client_finalized = on_client_finalized;
    module_.abort = on_abort;
    module_.fence_nb = on_fence;
    module_.direct_modex = on_direct_modex;

    InfoArray info(9);
    info.add_string(PMIX_SERVER_TMPDIR, dir);
    // The host's name as the job's node map has it (the name the user gave, which need not be
    // the host's own): libpmix finds its local processes by it.
    if (several_hosts && layout.self >= 0)
      info.add_string(PMIX_HOSTNAME, layout.names[static_cast<std::size_t>(layout.self)]);
    info.add_string(PMIX_SYSTEM_TMPDIR, dir);
    info.add_bool(PMIX_SERVER_TOOL_SUPPORT, false);
    info.add_bool(PMIX_SERVER_SYSTEM_SUPPORT, false);
    info.add_bool(PMIX_SERVER_SESSION_SUPPORT, false);
    // Loopback only (the default, stated), IPv4 only: the one table PeerCheck reads.
    info.add_bool(PMIX_SERVER_REMOTE_CONNECTIONS, false);
    info.add_bool(PMIX_TCP_DISABLE_IPV6, true);
    // Ours, lent: libpmix keeps the pointer (an external topology, which it never destroys),
    // and Bindings outlives the server.
    topology_.source = const_cast<char *>("hwloc");
    topology_.topology = topology;
    if (topology != nullptr) info.add_topology(PMIX_TOPOLOGY2, &topology_);
    if (pmix_status_t rc = PMIx_server_init(&module_, info.data(), info.size()); rc != PMIX_SUCCESS)
      throw FatalError{"cannot start the PMIx server: " + pmix_error(rc)};
    initialized_ = true;
  }
  PmixServer(const PmixServer &) = delete;
  PmixServer &operator=(const PmixServer &) = delete;
  ~PmixServer() { shutdown(); }

  // Registers the job: its processes over the hosts of `layout`, this server's host layout.self.
  void register_job(const Layout &layout) {
    const int processes = g_processes;
    const auto size = static_cast<std::uint32_t>(processes);
    // self < 0: the head of a job that runs nothing on its own host.
    const std::size_t self = layout.self < 0 ? SIZE_MAX : static_cast<std::size_t>(layout.self);
    std::string hosts, ppn, local_peers;
    for (std::size_t h = 0; h < layout.names.size(); ++h) {
      hosts += (h ? "," : "") + layout.names[h];
      if (h) ppn += ';';
      for (int p = layout.first[h]; p < layout.first[h] + layout.count[h]; ++p) {
        ppn += (p > layout.first[h] ? "," : "") + std::to_string(p);
        if (h == self) local_peers += (local_peers.empty() ? "" : ",") + std::to_string(p);
      }
    }
    char *node_map = nullptr;
    char *proc_map = nullptr;
    if (PMIx_generate_regex(hosts.c_str(), &node_map) != PMIX_SUCCESS ||
        PMIx_generate_ppn(ppn.c_str(), &proc_map) != PMIX_SUCCESS) {
      std::free(node_map);
      std::free(proc_map);
      throw FatalError{"cannot describe the job to the PMIx server (node or process map)"};
    }
    const std::string host = self == SIZE_MAX ? host_name() : layout.names[self];
    const auto local = self == SIZE_MAX ? 0U : static_cast<std::uint32_t>(layout.count[self]);
    // The maps are produced by libpmix and may be binary ("blob:..."): pass them as they are.
    InfoArray info(16 + static_cast<std::size_t>(processes));
    info.add(PMIX_NODE_MAP, node_map, PMIX_REGEX);
    info.add(PMIX_PROC_MAP, proc_map, PMIX_REGEX);
    std::free(node_map);
    std::free(proc_map);
    info.add_string(PMIX_JOBID, g_nspace);
    info.add_u32(PMIX_JOB_SIZE, size);
    info.add_u32(PMIX_UNIV_SIZE, size);
    info.add_u32(PMIX_MAX_PROCS, size);
    info.add_u32(PMIX_JOB_NUM_APPS, 1);
    info.add_u32(PMIX_APP_SIZE, size);
    info.add_rank(PMIX_APPLDR, 0);
    info.add_u32(PMIX_NUM_NODES, static_cast<std::uint32_t>(layout.names.size()));
    info.add_u32(PMIX_LOCAL_SIZE, local);
    info.add_u32(PMIX_NODE_SIZE, local);
    if (self != SIZE_MAX) {
      info.add_string(PMIX_LOCAL_PEERS, local_peers);
      info.add_rank(PMIX_LOCALLDR, static_cast<pmix_rank_t>(layout.first[self]));
      info.add_u32(PMIX_NODEID, static_cast<std::uint32_t>(self));
    }
    for (int p = 0; p < processes; ++p) {
      const auto h = static_cast<std::size_t>(layout.host_of(p));
      const auto local_rank = static_cast<std::uint16_t>(p - layout.first[h]);
      InfoArray proc(8);
      proc.add_rank(PMIX_RANK, static_cast<pmix_rank_t>(p)); // first, as PMIX_PROC_DATA requires
      proc.add_rank(PMIX_GLOBAL_RANK, static_cast<pmix_rank_t>(p));
      proc.add_rank(PMIX_APP_RANK, static_cast<pmix_rank_t>(p));
      proc.add_u16(PMIX_LOCAL_RANK, local_rank);
      proc.add_u16(PMIX_NODE_RANK, local_rank);
      proc.add_u32(PMIX_APPNUM, 0);
      proc.add_u32(PMIX_NODEID, static_cast<std::uint32_t>(h));
      proc.add_string(PMIX_HOSTNAME, layout.names[h]);
      info.add_array(PMIX_PROC_DATA, std::move(proc));
    }
    // PMIX_HOSTNAME at job level last: the host of this server.
    info.add_string(PMIX_HOSTNAME, host);
    const pmix_status_t rc = OpWaiter::run([&](pmix_op_cbfunc_t cb, void *cbdata) {
      // nlocalprocs: this host's processes (libpmix waits for them in a fence).
      return PMIx_server_register_nspace(g_nspace.c_str(), static_cast<int>(local), info.data(),
                                         info.size(), cb, cbdata);
    });
    if (rc != PMIX_SUCCESS)
      throw FatalError{"cannot register the job with the PMIx server: " + pmix_error(rc)};
    nspace_registered_ = true;
  }

  // Registers process `p` and returns its environment: `base` plus the PMIx client variables.
  std::vector<std::string> register_client(int p, const std::vector<std::string> &base) {
    pmix_proc_t proc;
    PMIX_PROC_CONSTRUCT(&proc);
    PMIX_LOAD_PROCID(&proc, g_nspace.c_str(), static_cast<pmix_rank_t>(p));
    pmix_status_t rc = OpWaiter::run([&](pmix_op_cbfunc_t cb, void *cbdata) {
      return PMIx_server_register_client(&proc, ::geteuid(), ::getegid(), nullptr, cb, cbdata);
    });
    if (rc != PMIX_SUCCESS)
      throw FatalError{"cannot register process " + std::to_string(p) +
                       " with the PMIx server: " + pmix_error(rc)};

    // PMIx_server_setup_fork edits a malloc'ed, NULL-terminated array in place.
    char **env = static_cast<char **>(std::calloc(base.size() + 1, sizeof(char *)));
    if (env == nullptr) throw FatalError{"out of memory"};
    for (std::size_t i = 0; i < base.size(); ++i)
      env[i] = ::strdup(base[i].c_str());
    rc = PMIx_server_setup_fork(&proc, &env);
    std::vector<std::string> out;
    for (char **e = env; e && *e; ++e) {
      out.emplace_back(*e);
      std::free(*e);
    }
    std::free(env);
    if (rc != PMIX_SUCCESS)
      throw FatalError{"cannot set up the PMIx environment of process " + std::to_string(p) + ": " +
                       pmix_error(rc)};
    gate_->learn_port(out);
    return out;
  }

  // Records the pid of process `p` (before it may connect).
  void forked(int p, pid_t pid) { g_pids[static_cast<std::size_t>(p)].store(pid); }

  void shutdown() {
    if (!initialized_) return;
    initialized_ = false;
    callbacks_.stop(); // completions still pending run now; later ones are dropped
    // Deregistering the namespace deregisters its clients too.
    if (nspace_registered_)
      OpWaiter::run(
          [&](pmix_op_cbfunc_t cb, void *cbdata) {
            PMIx_server_deregister_nspace(g_nspace.c_str(), cb, cbdata);
            return PMIX_SUCCESS;
          },
          std::chrono::seconds(5));
    PMIx_server_finalize();
  }

private:
  pmix_topology_t topology_{}; // lent to libpmix (points into Bindings, which outlives us)
  CallbackThread callbacks_;   // started before libpmix's thread, stopped before its finalize
  std::optional<ampirun::PmixGate> gate_; // used by libpmix's listening thread once it runs
  pmix_server_module_t module_{};
  bool initialized_ = false;
  bool nspace_registered_ = false;
};

// ----------------------------------------------------------------------------------------------
// Signals

std::string signal_name(int sig) {
  static constexpr std::pair<int, const char *> names[] = {
      {SIGHUP, "SIGHUP"},       {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"},   {SIGILL, "SIGILL"},
      {SIGTRAP, "SIGTRAP"},     {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},     {SIGFPE, "SIGFPE"},
      {SIGKILL, "SIGKILL"},     {SIGUSR1, "SIGUSR1"}, {SIGSEGV, "SIGSEGV"},   {SIGUSR2, "SIGUSR2"},
      {SIGPIPE, "SIGPIPE"},     {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"},   {SIGCHLD, "SIGCHLD"},
      {SIGCONT, "SIGCONT"},     {SIGSTOP, "SIGSTOP"}, {SIGTSTP, "SIGTSTP"},   {SIGTTIN, "SIGTTIN"},
      {SIGTTOU, "SIGTTOU"},     {SIGURG, "SIGURG"},   {SIGXCPU, "SIGXCPU"},   {SIGXFSZ, "SIGXFSZ"},
      {SIGVTALRM, "SIGVTALRM"}, {SIGPROF, "SIGPROF"}, {SIGWINCH, "SIGWINCH"}, {SIGSYS, "SIGSYS"},
  };
  for (const auto &[number, name] : names)
    if (number == sig) return name;
#if defined(SIGRTMIN)
  if (sig >= SIGRTMIN && sig <= SIGRTMAX) return "SIGRTMIN+" + std::to_string(sig - SIGRTMIN);
#endif
  return "signal " + std::to_string(sig);
}

struct SignalSetup {
  sigset_t original_mask{};
  sigset_t wait_set{}; // SIGCHLD + the forwarded signals
  struct sigaction original_sigpipe {};
};

// Blocks the signals that the main loop reads; must run before any thread starts.
SignalSetup setup_signals() {
  SignalSetup s;
  // An inherited SIG_IGN for SIGCHLD would make the kernel reap the children for us.
  std::signal(SIGCHLD, SIG_DFL);
  sigemptyset(&s.wait_set);
  sigaddset(&s.wait_set, SIGCHLD);
  for (int sig : kForwardedSignals) {
    struct sigaction current {};
    if (::sigaction(sig, nullptr, &current) == 0 && current.sa_handler == SIG_IGN)
      continue; // ignored by whoever started us: leave it so
    sigaddset(&s.wait_set, sig);
  }
  ::sigprocmask(SIG_BLOCK, &s.wait_set, &s.original_mask);
  // Forwarded output goes to our stdout/stderr, which may be a closed pipe: get EPIPE instead.
  // The children get the original disposition back.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ::sigaction(SIGPIPE, &ignore, &s.original_sigpipe);
  return s;
}

// Descriptors open when ampirun started; the children inherit these (and 0-2) only.
std::vector<int> inherited_descriptors() {
  std::vector<int> fds;
  DIR *dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return fds;
  const int own = ::dirfd(dir);
  while (const dirent *entry = ::readdir(dir)) {
    int fd = -1;
    const char *name = entry->d_name;
    auto [end, ec] = std::from_chars(name, name + std::strlen(name), fd);
    if (ec == std::errc() && *end == '\0' && fd > 2 && fd != own) fds.push_back(fd);
  }
  ::closedir(dir);
  std::sort(fds.begin(), fds.end());
  return fds;
}

// Opens /dev/null on any of 0, 1, 2 that is closed, so that our own descriptors never take
// those numbers.
void ensure_standard_descriptors() {
  for (int fd = 0; fd <= 2; ++fd)
    if (::fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
      const int opened = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
      if (opened >= 0 && opened != fd) {
        ::dup2(opened, fd);
        ::close(opened);
      }
    }
}

// ----------------------------------------------------------------------------------------------
// Children

struct Child {
  int index = 0;
  pid_t pid = -1;
  bool running = false;
  bool connected = false; // called PMIx_Init
  bool finalized = false; // called PMIx_Finalize
  Fd go;                  // write one byte to let the child exec
  Fd exec_error;          // the child writes errno here if exec fails; EOF means exec succeeded
};

struct ExecImage {
  std::string path;
  std::vector<std::string> argv;
  std::vector<std::string> environment;
};

// Where a child's stdout and stderr go: inherited, or pipes that ampirun reads (--tag-output).
struct ChildOutput {
  Pipe out;
  Pipe err;
};

std::vector<char *> c_strings(std::vector<std::string> &strings) {
  std::vector<char *> out;
  out.reserve(strings.size() + 1);
  for (std::string &s : strings)
    out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Marks every descriptor from 3 up close-on-exec, except the inherited ones. Async-signal-safe.
void cloexec_all_but(const std::vector<int> &keep) {
  auto mark = [](unsigned first, unsigned last) {
#if defined(CLOSE_RANGE_CLOEXEC)
    if (::close_range(first, last, CLOSE_RANGE_CLOEXEC) == 0) return;
#endif
    const long max = ::sysconf(_SC_OPEN_MAX);
    const unsigned end = std::min<unsigned>(last, max > 0 && max < 65536 ? max - 1 : 65535);
    for (unsigned fd = first; fd <= end; ++fd)
      ::fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
  };
  unsigned first = 3;
  for (int fd : keep) {
    if (static_cast<unsigned>(fd) > first) mark(first, static_cast<unsigned>(fd) - 1);
    first = static_cast<unsigned>(fd) + 1;
  }
  mark(first, ~0U);
}

struct SpawnContext {
  const SignalSetup &signals;
  const std::vector<int> &inherited_fds;
  mode_t umask;     // the user's: ampirun's own is 077
  const char *wdir; // -wdir, or nullptr
};

// Forks a child that waits for the go byte, then execs the program. Never returns in the child.
Child spawn(int index, ExecImage &image, const SpawnContext &ctx,
            const std::vector<Child> &siblings, ChildOutput *output) {
  std::vector<char *> argv = c_strings(image.argv);
  std::vector<char *> envp = c_strings(image.environment);
  // For ENOEXEC (no #! line), run the file with /bin/sh as execvp does.
  std::vector<std::string> sh_args{"/bin/sh", image.path};
  sh_args.insert(sh_args.end(), image.argv.begin() + 1, image.argv.end());
  std::vector<char *> sh_argv = c_strings(sh_args);

  Pipe go = make_pipe();
  Pipe error = make_pipe();
  const pid_t parent = ::getpid();
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) fail_errno("fork");
  if (pid == 0) {
    // Child: only async-signal-safe calls from here on (libpmix's thread did not come along).
    for (const Child &sibling : siblings)
      ::close(sibling.go.get());
    ::close(go.write.get());
    ::close(error.read.get());
#if defined(__linux__)
    // Do not outlive the launcher.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(kExitExecFailed);
#else
    (void)parent;
#endif
    char byte = 0;
    ssize_t n;
    do
      n = ::read(go.read.get(), &byte, 1);
    while (n < 0 && errno == EINTR);
    if (n != 1) ::_exit(kExitExecFailed); // the launcher went away before starting us
    if (output) {
      ::dup2(output->out.write.get(), STDOUT_FILENO);
      ::dup2(output->err.write.get(), STDERR_FILENO);
    }
    if (index > 0) {
      // Only process 0 reads the standard input, as with other MPI launchers.
      const int null = ::open("/dev/null", O_RDONLY);
      if (null >= 0 && null != STDIN_FILENO) {
        ::dup2(null, STDIN_FILENO);
        ::close(null);
      }
    }
    cloexec_all_but(ctx.inherited_fds); // libpmix's sockets, the other children's pipes
    ::sigaction(SIGPIPE, &ctx.signals.original_sigpipe, nullptr);
    ::sigprocmask(SIG_SETMASK, &ctx.signals.original_mask, nullptr);
    ::umask(ctx.umask);
    if (ctx.wdir && ::chdir(ctx.wdir) != 0) {
      const int err = errno;
      ssize_t ignored = ::write(error.write.get(), &err, sizeof err);
      (void)ignored;
      ::_exit(kExitExecFailed);
    }
    ::execve(image.path.c_str(), argv.data(), envp.data());
    if (errno == ENOEXEC) ::execve(sh_argv[0], sh_argv.data(), envp.data());
    const int err = errno;
    ssize_t ignored = ::write(error.write.get(), &err, sizeof err);
    (void)ignored;
    ::_exit(kExitExecFailed);
  }
  Child child;
  child.index = index;
  child.pid = pid;
  child.running = true;
  child.go = std::move(go.write);
  child.exec_error = std::move(error.read);
  return child;
}

// Lets the child exec; returns 0 once it did, or the errno of the failed exec.
int release(Child &child) {
  const char byte = 'g';
  ssize_t n;
  do
    n = ::write(child.go.get(), &byte, 1);
  while (n < 0 && errno == EINTR);
  child.go.reset();
  int err = 0;
  std::size_t got = 0;
  while (got < sizeof err) {
    n = ::read(child.exec_error.get(), reinterpret_cast<char *>(&err) + got, sizeof err - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  child.exec_error.reset();
  return got == sizeof err ? err : 0;
}

// One output stream of one child, forwarded line by line with a "[process] " prefix.
class TaggedStream {
public:
  TaggedStream(int process, Fd fd, int target)
      : prefix_("[" + std::to_string(process) + "] "), fd_(std::move(fd)), target_(target) {
    set_nonblocking(fd_.get());
  }

  int fd() const { return fd_.get(); }
  bool open() const { return static_cast<bool>(fd_); }

  // Reads what is available (at most `max_reads` chunks, so that a flood of output does not
  // hold up the rest of the loop) and forwards the complete lines; at EOF, the rest too.
  void pump(int max_reads = 16) {
    char buf[65536];
    for (int i = 0; i < max_reads && fd_; ++i) {
      const ssize_t n = ::read(fd_.get(), buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN) break;
      if (n <= 0) { // EOF (or an error: treat it as the end)
        fd_.reset();
        if (!pending_.empty()) pending_ += '\n';
        break;
      }
      pending_.append(buf, static_cast<std::size_t>(n));
      flush_lines();
      if (pending_.size() >= kMaxTaggedLine) pending_ += '\n'; // a very long line: in pieces
    }
    flush_lines();
  }

private:
  void flush_lines() {
    std::string out;
    std::size_t begin = 0;
    for (std::size_t nl; (nl = pending_.find('\n', begin)) != std::string::npos; begin = nl + 1) {
      out += prefix_;
      out.append(pending_, begin, nl + 1 - begin);
    }
    pending_.erase(0, begin);
    if (!out.empty()) write_all(target_, out); // one write per batch: lines stay whole
  }

  std::string prefix_;
  Fd fd_;
  int target_;
  std::string pending_;
};

// A job over several hosts: the head (the ampirun the user started) holds one control connection
// to the daemon of every other host, started through ssh (`agent`); a daemon holds one to the
// head.
struct RemoteHost {
  int host = 0;
  std::string name;
  pid_t agent = -1; // the ssh process (its own process group)
  bool agent_running = false;
  Fd link;
  ampirun::FrameReader reader;
  bool done = false; // its daemon reported the end of its processes, or was lost
};

struct Links {
  enum Role { single, head, daemon } role = single;
  std::vector<RemoteHost> remotes; // head
  Fd to_head;                      // daemon
  ampirun::FrameReader head_reader;
  std::string host; // daemon: this host's name, for its reports
};

void send_frame(int fd, ampirun::Msg type, const ampirun::Packer &payload = {}) {
  if (fd >= 0) write_all(fd, payload.frame(type));
}

class Job {
public:
  Job(std::vector<Child> children, const SignalSetup &signals, EventQueue &events,
      std::vector<TaggedStream> streams, Links links = {})
      : children_(std::move(children)), signals_(signals), events_(events),
        streams_(std::move(streams)), links_(std::move(links)) {
    signal_fd_.reset(::signalfd(-1, &signals_.wait_set, SFD_CLOEXEC | SFD_NONBLOCK));
    if (!signal_fd_) fail_errno("signalfd");
    participants_ = static_cast<int>(links_.remotes.size()) + (children_.empty() ? 0 : 1);
  }

  // Ends the job with status 124 and a report if it is still running after `seconds`.
  void set_timeout(int seconds) {
    timeout_s_ = seconds;
    job_deadline_ = now_ms() + std::int64_t{seconds} * 1000;
  }

  // Waits for every child; returns ampirun's exit status.
  int wait() {
    std::vector<pollfd> fds;
    while (running() > 0) {
      int timeout = -1;
      if (job_deadline_) {
        const std::int64_t left = *job_deadline_ - now_ms();
        if (left <= 0) {
          job_deadline_.reset();
          std::fprintf(stderr,
                       "ampirun: the job ran longer than --timeout %d s; ending it (%d process%s "
                       "still running)\n",
                       timeout_s_, running(), running() == 1 ? "" : "es");
          if (!status_) status_ = kExitTimeout;
          terminate();
          continue;
        }
        timeout = static_cast<int>(left);
      }
      if (kill_deadline_) {
        const std::int64_t left = *kill_deadline_ - now_ms();
        if (left <= 0) {
          send_all(SIGKILL);
          kill_deadline_.reset();
          continue;
        }
        timeout = timeout < 0 ? static_cast<int>(left) : std::min(timeout, static_cast<int>(left));
      }
      fds.clear();
      fds.push_back({signal_fd_.get(), POLLIN, 0});
      fds.push_back({events_.fd(), POLLIN, 0});
      for (const TaggedStream &s : streams_)
        if (s.open()) fds.push_back({s.fd(), POLLIN, 0});
      for (const RemoteHost &r : links_.remotes)
        if (r.link) fds.push_back({r.link.get(), POLLIN, 0});
      if (links_.to_head) fds.push_back({links_.to_head.get(), POLLIN, 0});
      if (::poll(fds.data(), fds.size(), timeout) < 0 && errno != EINTR) fail_errno("poll");
      for (TaggedStream &s : streams_)
        if (s.open()) s.pump();
      process_events();
      read_links();
      read_signals();
    }
    // Everything the children wrote is in the pipes now; a grandchild may keep one open, so
    // take what is there without waiting for the end.
    for (TaggedStream &s : streams_)
      s.pump(1024);
    process_events(); // release any caller still blocked in PMIx_Abort
    return status_.value_or(0);
  }

  // Whether every process that called PMIx_Init also called PMIx_Finalize.
  bool clients_finalized() const {
    for (const Child &c : children_)
      if (c.connected && !c.finalized) return false;
    return true;
  }

  // Ends the job: SIGTERM now, SIGKILL for what is left after the grace period (each daemon
  // does the same with its processes).
  void terminate() {
    if (terminating_) return;
    terminating_ = true;
    send_all(SIGTERM);
    for (RemoteHost &r : links_.remotes)
      if (!r.done) send_frame(r.link.get(), ampirun::Msg::terminate);
    kill_deadline_ = now_ms() + kKillGraceMs;
  }

  // A failure of the launch itself (the program could not be executed): ends the job.
  void fail(int status) {
    failed(status);
    terminate();
  }

private:
  // Processes of this host still running, plus (head) the other hosts not yet done.
  int running() const {
    int n = 0;
    for (const Child &c : children_)
      n += c.running ? 1 : 0;
    for (const RemoteHost &r : links_.remotes)
      n += (!r.done || r.agent_running) ? 1 : 0;
    return n;
  }

  int local_running() const {
    int n = 0;
    for (const Child &c : children_)
      n += c.running ? 1 : 0;
    return n;
  }

  // ---- over several hosts
  // Fences: the n-th fence of every host is the same one (every fence is over the whole job).
  // The head gathers the contributions of the hosts that run processes and sends everyone's
  // data, concatenated (each host's is a packed byte object of libpmix's), to each daemon.
  struct PendingFence {
    pmix_modex_cbfunc_t cbfunc = nullptr;
    void *cbdata = nullptr;
  };
  struct FenceRound {
    std::string data;
    int contributions = 0;
  };

  static void complete_fence(const PendingFence &f, const std::string &data) {
    if (!f.cbfunc) return;
    char *copy = static_cast<char *>(std::malloc(std::max<std::size_t>(data.size(), 1)));
    if (copy == nullptr) {
      f.cbfunc(PMIX_ERR_NOMEM, nullptr, 0, f.cbdata, nullptr, nullptr);
      return;
    }
    std::memcpy(copy, data.data(), data.size());
    f.cbfunc(PMIX_SUCCESS, copy, data.size(), f.cbdata, release_fence_data, copy);
  }

  void local_fence(PmixEvent &e) {
    const std::uint64_t seq = fences_++;
    pending_fences_[seq] = {e.modex_cbfunc, e.cbdata};
    if (links_.role == Links::daemon) {
      ampirun::Packer p;
      p.u64(seq);
      p.raw(e.data);
      send_frame(links_.to_head.get(), ampirun::Msg::fence, p);
    } else {
      contribute(seq, e.data);
    }
  }

  // Head: one host's part of fence `seq`.
  void contribute(std::uint64_t seq, std::string_view data) {
    FenceRound &round = rounds_[seq];
    round.data.append(data);
    if (++round.contributions < participants_) return;
    ampirun::Packer p;
    p.u64(seq);
    p.raw(round.data);
    for (RemoteHost &r : links_.remotes)
      if (!r.done) send_frame(r.link.get(), ampirun::Msg::fence_done, p);
    finish_fence(seq, round.data);
    rounds_.erase(seq);
  }

  void finish_fence(std::uint64_t seq, const std::string &data) {
    auto it = pending_fences_.find(seq);
    if (it == pending_fences_.end()) return;
    // Not once the job is ending: a participant that died has made libpmix complete (and
    // release) the collective already, with an error, and the others are being ended.
    if (!status_ && !terminating_) complete_fence(it->second, data);
    pending_fences_.erase(it);
  }

  // Reads the control connections and acts on their messages.
  void read_links() {
    for (RemoteHost &r : links_.remotes) {
      if (!r.link) continue;
      const bool open = pump(r.link, r.reader); // its last messages first, then its end
      try {
        while (auto m = r.reader.next()) {
          ampirun::Unpacker u(m->second);
          switch (m->first) {
          case ampirun::Msg::fence: {
            const std::uint64_t seq = u.u64();
            contribute(seq, u.rest());
            break;
          }
          case ampirun::Msg::failed:
            failed(u.i32());
            break;
          case ampirun::Msg::done: {
            const int st = u.i32();
            r.done = true;
            if (st != 0) failed(st);
            break;
          }
          default:
            throw std::runtime_error("unexpected message");
          }
        }
      } catch (const std::runtime_error &e) {
        std::fprintf(stderr, "ampirun: bad message from the daemon on host %s: %s\n",
                     r.name.c_str(), e.what());
        r.link.reset();
        r.done = true;
        failed(1);
      }
      if (!open && r.link) {
        r.link.reset();
        if (!r.done) {
          r.done = true;
          if (!status_)
            std::fprintf(stderr, "ampirun: lost the connection to the daemon on host %s\n",
                         r.name.c_str());
          failed(1);
        }
      }
    }
    if (links_.to_head) {
      bool lost = !pump(links_.to_head, links_.head_reader);
      try {
        while (auto m = links_.head_reader.next()) {
          ampirun::Unpacker u(m->second);
          switch (m->first) {
          case ampirun::Msg::fence_done: {
            const std::uint64_t seq = u.u64();
            finish_fence(seq, std::string(u.rest()));
            break;
          }
          case ampirun::Msg::terminate:
            head_ended_ = true; // the head has the job's status; ours is not a new failure
            terminate();
            break;
          case ampirun::Msg::signal:
            send_all(u.i32());
            break;
          default:
            throw std::runtime_error("unexpected message");
          }
        }
      } catch (const std::runtime_error &e) {
        std::fprintf(stderr, "ampirun: daemon on %s: bad message from the head: %s\n",
                     links_.host.c_str(), e.what());
        lost = true;
      }
      if (lost) {
        // The head is gone (killed, or its host lost): nothing of the job may stay here.
        links_.to_head.reset();
        if (local_running() > 0 && !terminating_)
          std::fprintf(stderr,
                       "ampirun: daemon on %s: lost the connection to the head; ending the %d "
                       "process%s here\n",
                       links_.host.c_str(), local_running(), local_running() == 1 ? "" : "es");
        head_ended_ = true;
        if (!status_) status_ = 1;
        terminate();
      }
    }
  }

  // Reads what `link` has; false at its end (EOF or an error).
  static bool pump(Fd &link, ampirun::FrameReader &reader) {
    char buf[65536];
    for (int i = 0; i < 64; ++i) {
      const ssize_t n = ::read(link.get(), buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN) return true;
      if (n <= 0) return false;
      reader.append(buf, static_cast<std::size_t>(n));
    }
    return true;
  }

  void send_all(int sig) {
    for (const Child &c : children_)
      if (c.running) ::kill(c.pid, sig);
  }

  Child *child(int process) {
    for (Child &c : children_)
      if (c.index == process) return &c;
    return nullptr;
  }

  // The first failure decides the job's status; the other processes are then ended. A daemon
  // tells the head, which ends the job on every host.
  void failed(int status) {
    if (status_) return;
    status_ = status;
    if (links_.role == Links::daemon && !head_ended_) {
      ampirun::Packer p;
      p.i32(status);
      send_frame(links_.to_head.get(), ampirun::Msg::failed, p);
    }
    if (links_.role == Links::head && !links_.remotes.empty()) {
      std::fprintf(stderr,
                   "ampirun: ending the job on every host (%d process%s still running here)\n",
                   local_running(), local_running() == 1 ? "" : "es");
      terminate();
    } else if (running() > 0) {
      std::fprintf(stderr, "ampirun: ending the job: terminating the %d process%s still running\n",
                   running(), running() == 1 ? "" : "es");
      terminate();
    }
  }

  void process_events() {
    for (PmixEvent &e : events_.take()) {
      Child *c = child(e.process);
      switch (e.kind) {
      case PmixEvent::connected:
        if (c) c->connected = true;
        break;
      case PmixEvent::finalized:
        if (c && !e.lost) c->finalized = true;
        break;
      case PmixEvent::refused:
        // Once: whoever tries may try many times; the job goes on.
        if (!refusal_reported_) {
          refusal_reported_ = true;
          std::fprintf(stderr,
                       "ampirun: refused a connection to the job's PMIx server: %s (further "
                       "refusals are not reported)\n",
                       e.message.c_str());
        }
        break;
      case PmixEvent::fence:
        local_fence(e);
        break;
      case PmixEvent::aborted: {
        if (!status_) { // the first failure only: with MPI_Abort, often every rank aborts
          std::fprintf(stderr,
                       "ampirun: process %d (pid %ld) called PMIx_Abort with status %d%s%s\n",
                       e.process, c ? static_cast<long>(c->pid) : -1L, e.status,
                       e.message.empty() ? "" : ": ", e.message.c_str());
          // An exit status keeps 8 bits; an abort must not read as success.
          int status = e.status & 0xff;
          if (status == 0 && e.status != 0) status = 1;
          failed(status);
        }
        terminate(); // the caller too, even when it is the last one running
        if (e.cbfunc) e.cbfunc(PMIX_SUCCESS, e.cbdata);
        break;
      }
      }
    }
  }

  void read_signals() {
    signalfd_siginfo info{};
    bool child_event = false;
    while (::read(signal_fd_.get(), &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
      const int sig = static_cast<int>(info.ssi_signo);
      if (sig == SIGCHLD) {
        child_event = true;
        continue;
      }
      if (info.ssi_code != SI_KERNEL)
        send_all(sig); // the terminal's signals already reached the process group
      // Not the other hosts' processes: the daemons pass it on.
      ampirun::Packer p;
      p.i32(sig);
      for (RemoteHost &r : links_.remotes)
        if (!r.done) send_frame(r.link.get(), ampirun::Msg::signal, p);
    }
    if (child_event) reap();
  }

  void reap() {
    process_events(); // PMIx events that a child caused before it exited come first
    for (RemoteHost &r : links_.remotes) {
      if (!r.agent_running) continue;
      int wstatus = 0;
      pid_t pid;
      do
        pid = ::waitpid(r.agent, &wstatus, WNOHANG);
      while (pid < 0 && errno == EINTR);
      if (pid != r.agent) continue;
      r.agent_running = false;
      if (r.done) continue;
      // The daemon's connection may still hold its last messages: read them first.
      read_links();
      if (r.done) continue;
      r.done = true;
      r.link.reset();
      if (!status_)
        std::fprintf(stderr, "ampirun: the daemon on host %s ended (%s %d) before its processes\n",
                     r.name.c_str(), WIFSIGNALED(wstatus) ? "signal" : "status",
                     WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : WEXITSTATUS(wstatus));
      failed(1);
    }
    for (Child &c : children_) {
      if (!c.running) continue;
      int wstatus = 0;
      pid_t pid;
      do
        pid = ::waitpid(c.pid, &wstatus, WNOHANG);
      while (pid < 0 && errno == EINTR);
      if (pid != c.pid) continue;
      c.running = false;
      finished(c, wstatus);
    }
  }

  void finished(const Child &c, int wstatus) {
    const bool many = children_.size() > 1 || links_.role != Links::single;
    if (WIFSIGNALED(wstatus)) {
      const int sig = WTERMSIG(wstatus);
      if (terminating_ && (sig == SIGTERM || sig == SIGKILL)) return; // ended by us
      std::fprintf(stderr, "ampirun: process %d (pid %ld) killed by signal %s (%s)\n", c.index,
                   static_cast<long>(c.pid), signal_name(sig).c_str(), ::strsignal(sig));
      failed(128 + sig);
      return;
    }
    if (!WIFEXITED(wstatus)) return;
    const int status = WEXITSTATUS(wstatus);
    if (terminating_) return; // the job is ending already; the first failure counts
    if (status != 0) {
      if (many)
        std::fprintf(stderr, "ampirun: process %d (pid %ld) exited with status %d\n", c.index,
                     static_cast<long>(c.pid), status);
      failed(status);
      return;
    }
    // libpmix may queue a client's finalize only after the process has exited and been reaped:
    // give that event a moment to arrive before calling the exit a failure.
    for (int i = 0; i < 50 && c.connected && !c.finalized; ++i) {
      ::usleep(10000);
      process_events();
    }
    if (c.connected && !c.finalized) {
      // The others would wait for it in their next collective operation.
      if (running() > 0) {
        std::fprintf(stderr,
                     "ampirun: process %d (pid %ld) exited without calling PMIx_Finalize "
                     "(MPI_Finalize) while other processes still run\n",
                     c.index, static_cast<long>(c.pid));
        failed(kExitNoFinalize);
      } else {
        std::fprintf(stderr,
                     "ampirun: warning: process %d (pid %ld) exited without calling "
                     "PMIx_Finalize (MPI_Finalize)\n",
                     c.index, static_cast<long>(c.pid));
      }
    }
  }

  std::vector<Child> children_;
  const SignalSetup &signals_;
  EventQueue &events_;
  std::vector<TaggedStream> streams_;
  Links links_;
  int participants_ = 0;     // hosts that take part in a fence
  std::uint64_t fences_ = 0; // this host's fences so far
  std::map<std::uint64_t, PendingFence> pending_fences_;
  std::map<std::uint64_t, FenceRound> rounds_; // head
  bool head_ended_ = false;                    // daemon: the head ended the job (or is gone)
  Fd signal_fd_;
  std::optional<int> status_;
  std::optional<std::int64_t> kill_deadline_;
  std::optional<std::int64_t> job_deadline_;
  int timeout_s_ = 0;
  bool terminating_ = false;
  bool refusal_reported_ = false;
};

// "rank 3", "ranks 0-2", "ranks 0,2,4" (ranges as in the PU lists).
std::string rank_list(const std::vector<int> &ranks) {
  std::string out = ranks.size() == 1 ? "rank " : "ranks ";
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1)
      ++j;
    if (i > 0) out += ',';
    out += std::to_string(ranks[i]);
    if (j > i) out += "-" + std::to_string(ranks[j]);
    i = j + 1;
  }
  return out;
}

void report_bindings(const std::vector<ProcessPlan> &plans, const std::vector<Child> &children,
                     const Options &options, const ampirun::Bindings &bindings) {
  std::fprintf(stderr, "ampirun: %d virtual rank%s over %zu process%s (map %s)\n", *options.vps,
               *options.vps == 1 ? "" : "s", plans.size(), plans.size() == 1 ? "" : "es",
               map_name(options.map));
  std::vector<std::pair<int, std::size_t>> rank_to_process;
  for (std::size_t p = 0; p < plans.size(); ++p)
    for (int rank : plans[p].ranks)
      rank_to_process.emplace_back(rank, p);
  std::sort(rank_to_process.begin(), rank_to_process.end());
  for (const auto &[rank, p] : rank_to_process)
    std::fprintf(stderr, "ampirun: rank %d -> process %d (pid %ld)\n", rank, plans[p].index,
                 static_cast<long>(children[p].pid));
  for (std::size_t p = 0; p < plans.size(); ++p)
    std::fprintf(stderr, "ampirun: process %d (pid %ld): %s %s\n", plans[p].index,
                 static_cast<long>(children[p].pid), rank_list(plans[p].ranks).c_str(),
                 bindings.describe(static_cast<int>(p)).c_str());
}

// Ends ampirun with `status` (after removing its directory) if the PMIx server's shutdown hangs;
// every child is reaped by then.
class ShutdownWatchdog {
public:
  ShutdownWatchdog(PrivateDir &dir, int status)
      : thread_([this, &dir, status] {
          std::unique_lock<std::mutex> lock(mutex_);
          if (cv_.wait_for(lock, kShutdownTimeout, [&] { return done_; })) return;
          std::fprintf(stderr, "ampirun: warning: the PMIx server did not shut down; exiting\n");
          dir.remove();
          std::_Exit(status);
        }) {}
  ShutdownWatchdog(const ShutdownWatchdog &) = delete;
  ShutdownWatchdog &operator=(const ShutdownWatchdog &) = delete;
  ~ShutdownWatchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
      cv_.notify_all();
    }
    thread_.join();
  }

private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_; // last: starts once the members above exist
};

// AMPI_DEBUG_STARTUP from ampirun's own environment (a bad value is refused with the others, by
// check_settings): its origin is now, and the job's processes get it through their environment.
ampi::settings::StartupTrace startup_trace() {
  const std::int64_t value = ampi::settings::Settings::from_environment().values.debug_startup;
  return {value == 0 ? 0 : ampi::settings::StartupTrace::now_us(), "ampirun"};
}

// ----------------------------------------------------------------------------------------------
// Over several hosts. The head plans the placement (make_layout), listens on a TCP port for its
// daemons, and starts `ampirun --daemon` on every other host through ssh (AMPI_RSH). Each
// daemon reads the job's description from its standard input (the namespace with its secret
// and the connection token never appear on a command line), connects back to the head (the
// address ssh came from, SSH_CONNECTION), serves PMIx to its host's processes as ampirun does on
// one host, and passes fences, failures and its end to the head over that one connection; the
// head passes terminations and signals back. The processes' output goes through ssh to the
// head's stdout and stderr.

constexpr std::chrono::milliseconds kDaemonStartTimeout{60000}; // ssh, then the daemon's hello
constexpr std::string_view kDaemonMagic = "ampirun-daemon/1";

std::string random_hex(std::size_t bytes) {
  std::vector<unsigned char> secret(bytes);
  std::size_t got = 0;
  while (got < secret.size()) {
    const ssize_t n = ::getrandom(secret.data() + got, secret.size() - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail_errno("getrandom");
    got += static_cast<std::size_t>(n);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : secret) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

const char *bind_name(ampirun::BindUnit unit) {
  switch (unit) {
  case ampirun::BindUnit::core:
    return "core";
  case ampirun::BindUnit::socket:
    return "socket";
  case ampirun::BindUnit::hwthread:
    return "hwthread";
  case ampirun::BindUnit::none:
    return "none";
  }
  return "none";
}

std::string self_executable() {
  char buf[PATH_MAX + 1] = {};
  const ssize_t n = ::readlink("/proc/self/exe", buf, PATH_MAX);
  if (n <= 0) fail_errno("readlink /proc/self/exe");
  return std::string(buf, static_cast<std::size_t>(n));
}

// Starts the ssh agent for one daemon: its own process group (the terminal's ^C is for the head,
// which ends the job on every host itself), standard input a pipe that gets `input`, output the
// head's. Returns its pid.
pid_t start_agent(std::vector<std::string> argv, const std::string &input,
                  const SignalSetup &signals, const std::vector<int> &inherited_fds) {
  std::vector<char *> args = c_strings(argv);
  Pipe in = make_pipe();
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) fail_errno("fork");
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(in.read.get(), STDIN_FILENO);
    cloexec_all_but(inherited_fds);
    ::sigaction(SIGPIPE, &signals.original_sigpipe, nullptr);
    ::sigprocmask(SIG_SETMASK, &signals.original_mask, nullptr);
    ::execvp(args[0], args.data());
    const char msg[] = "ampirun: cannot execute the remote shell command (AMPI_RSH)\n";
    ssize_t ignored = ::write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)ignored;
    ::_exit(kExitExecFailed);
  }
  ::setpgid(pid, pid);
  in.read.reset();
  write_all(in.write.get(), input); // small: the pipe holds it
  return pid;
}

// The job's description for the daemon of host `h`.
std::string daemon_input(const Options &options, const Layout &layout, int h,
                         const std::string &path, const std::string &token, int port) {
  ampirun::Packer p;
  p.str(kDaemonMagic);
  p.str(g_nspace);
  p.str(token);
  p.u32(static_cast<std::uint32_t>(port));
  p.str(host_name());
  p.u32(static_cast<std::uint32_t>(h));
  p.strings(layout.names);
  for (std::size_t i = 0; i < layout.names.size(); ++i) {
    p.u32(static_cast<std::uint32_t>(layout.first[i]));
    p.u32(static_cast<std::uint32_t>(layout.count[i]));
  }
  p.str(path);
  p.strings(options.argv);
  std::string wdir = options.wdir;
  bool wdir_given = !wdir.empty();
  if (!wdir_given) {
    char cwd[PATH_MAX + 1] = {};
    if (::getcwd(cwd, PATH_MAX)) wdir = cwd;
  }
  p.str(wdir);
  p.u8(wdir_given ? 1 : 0);
  p.u32(static_cast<std::uint32_t>(*options.vps));
  p.u32(static_cast<std::uint32_t>(options.pes));
  p.str(map_name(options.map));
  p.str(bind_name(options.bind));
  p.u8(options.oversubscribe ? 1 : 0);
  p.u8(options.tag_output ? 1 : 0);
  p.u8(options.report_bindings ? 1 : 0);
  p.str(options.mps);
  Layout there = layout;
  there.self = h;
  const std::vector<ProcessPlan> plans = plan_job(options, there, /*remote=*/true);
  p.u32(static_cast<std::uint32_t>(plans.size()));
  for (const ProcessPlan &plan : plans) {
    p.u32(static_cast<std::uint32_t>(plan.index));
    std::vector<std::string> ranks, vars;
    for (int r : plan.ranks)
      ranks.push_back(std::to_string(r));
    for (const auto &[name, value] : plan.variables)
      vars.push_back(name + "=" + value);
    p.strings(ranks);
    p.strings(vars);
  }
  return p.frame(ampirun::Msg::hello);
}

// Compares without stopping at the first difference (the time tells nothing of the token).
bool same_secret(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

// Head: a TCP socket on every address, any port, for the daemons' connections.
Fd listen_for_daemons(int &port) {
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) fail_errno("socket");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t len = sizeof addr;
  if (::bind(fd.get(), reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 ||
      ::listen(fd.get(), 128) != 0 ||
      ::getsockname(fd.get(), reinterpret_cast<sockaddr *>(&addr), &len) != 0)
    fail_errno("the daemons' control socket");
  port = ntohs(addr.sin_port);
  return fd;
}

void tune_link(int fd) {
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one); // fences are small and waited on
  set_nonblocking(fd);
}

// Head: starts the daemons of the other hosts and waits for each one's hello (its token and
// host index) on the control socket. Throws FatalError if one cannot be started in time.
Links start_daemons(const Options &options, const Layout &layout, const std::string &path,
                    const SignalSetup &signals, const std::vector<int> &inherited_fds) {
  Links links;
  links.role = Links::head;
  int port = 0;
  Fd listener = listen_for_daemons(port);
  const std::string token = random_hex(16);
  const std::string exe = self_executable();
  const std::string rsh = ampi::settings::Settings::from_environment().values.rsh;
  for (std::size_t h = 0; h < layout.names.size(); ++h) {
    if (static_cast<int>(h) == layout.self) continue;
    RemoteHost r;
    r.host = static_cast<int>(h);
    r.name = layout.names[h];
    r.agent = start_agent(ampirun::daemon_command(rsh, r.name, exe),
                          daemon_input(options, layout, r.host, path, token, port), signals,
                          inherited_fds);
    r.agent_running = true;
    links.remotes.push_back(std::move(r));
  }
  // Until every daemon said hello: new connections, their first message, the agents' ends.
  struct Pending {
    Fd fd;
    ampirun::FrameReader reader;
  };
  std::vector<Pending> pending;
  std::size_t greeted = 0;
  const std::int64_t deadline = now_ms() + kDaemonStartTimeout.count();
  auto lost = [&](const std::string &why) { throw FatalError{why}; };
  while (greeted < links.remotes.size()) {
    for (RemoteHost &r : links.remotes) {
      int wstatus = 0;
      if (r.agent_running && ::waitpid(r.agent, &wstatus, WNOHANG) == r.agent) {
        r.agent_running = false;
        if (!r.link)
          lost("could not start ampirun on host " + r.name + " through '" +
               ampirun::daemon_command(rsh, r.name, exe).front() + "' (it ended with " +
               (WIFSIGNALED(wstatus) ? "signal " + std::to_string(WTERMSIG(wstatus))
                                     : "status " + std::to_string(WEXITSTATUS(wstatus))) +
               "; see its message above; AMPI_RSH sets the command)");
      }
    }
    const std::int64_t left = deadline - now_ms();
    if (left <= 0) {
      std::string missing;
      for (const RemoteHost &r : links.remotes)
        if (!r.link) missing += (missing.empty() ? "" : ", ") + r.name;
      lost("the daemons on " + missing + " did not connect back within " +
           std::to_string(kDaemonStartTimeout.count() / 1000) +
           " s (is this host reachable from there on a TCP port?)");
    }
    std::vector<pollfd> fds{{listener.get(), POLLIN, 0}};
    for (const Pending &p : pending)
      fds.push_back({p.fd.get(), POLLIN, 0});
    ::poll(fds.data(), fds.size(), static_cast<int>(std::min<std::int64_t>(left, 100)));
    if (fds[0].revents & POLLIN) {
      Fd fd(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
      if (fd) {
        tune_link(fd.get());
        pending.push_back({std::move(fd), {}});
      }
    }
    for (std::size_t i = 0; i < pending.size();) {
      Pending &p = pending[i];
      char buf[4096];
      const ssize_t n = ::read(p.fd.get(), buf, sizeof buf);
      bool drop = n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR);
      if (n > 0) p.reader.append(buf, static_cast<std::size_t>(n));
      try {
        if (!drop)
          if (auto m = p.reader.next()) {
            ampirun::Unpacker u(m->second);
            const std::string their_token = m->first == ampirun::Msg::hello ? u.str() : "";
            const std::uint32_t host = m->first == ampirun::Msg::hello ? u.u32() : 0;
            // Not a daemon of ours without the token; each host's daemon once.
            auto r = std::find_if(links.remotes.begin(), links.remotes.end(),
                                  [&](const RemoteHost &x) { return x.host == int(host); });
            if (their_token.size() == token.size() && same_secret(their_token, token) &&
                r != links.remotes.end() && !r->link) {
              r->link = std::move(p.fd);
              r->reader = std::move(p.reader);
              ++greeted;
            }
            drop = true;
          }
      } catch (const std::runtime_error &) {
        drop = true;
      }
      if (drop)
        pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
      else
        ++i;
    }
  }
  return links;
}

// Ends the agents (and so the daemons, whose connections close too) of a job that could not start.
class AgentGuard {
public:
  explicit AgentGuard(Links &links) : links_(links) {}
  AgentGuard(const AgentGuard &) = delete;
  AgentGuard &operator=(const AgentGuard &) = delete;
  ~AgentGuard() {
    if (released_) return;
    for (RemoteHost &r : links_.remotes) {
      r.link.reset();
      if (!r.agent_running) continue;
      ::kill(-r.agent, SIGTERM);
      int wstatus = 0;
      ::waitpid(r.agent, &wstatus, 0);
    }
  }
  void release() { released_ = true; }

private:
  Links &links_;
  bool released_ = false;
};

// What runs on one host, for the head and for a daemon alike: this host's processes, served by
// a PMIx server that knows the whole job. `links` are the control connections (none on one host);
// the head starts its daemons through `start_links` once its PMIx server is ready.
struct HostJob {
  Layout layout;
  std::string nspace; // daemon: the head's; head: empty (a new one)
  std::string path;
  std::vector<ProcessPlan> plans;
  std::function<Links(const SignalSetup &, const std::vector<int> &)> start_links;
  Links links;
  std::string host; // daemon: this host's name
};

int run_host(Options &options, HostJob &job, ampi::settings::StartupTrace &trace) {
  // The job's data in libpmix's plain hash store, not its shared-memory stores (ds12, ds21):
  // those cost a client 40-50 ms more in PMIx_Init (attaching, mapping and locking the
  // segments), ampirun 20-45 ms more to shut down, and 8 MB of files in its directory, for a
  // job whose processes fetch a handful of keys each (2-vCPU VM, loaded, 3 runs each way). An
  // MCA parameter, so that the server and its clients (which inherit it) agree; one given in
  // the environment still chooses.
  ::setenv("PMIX_MCA_gds", "hash", 0);
  // What ampirun and libpmix create (libpmix makes its directories 0750) is its user's only; the
  // job's processes get the user's umask back.
  const mode_t user_umask = ::umask(077);
  // First: forked while ampirun is one thread, and destroyed last, once the rest is removed.
  Cleaner cleaner;
  trace.mark("cleaner forked");
  const int local = static_cast<int>(job.plans.size());
  MpsDaemon mps(options.mps, local, cleaner); // before the environments: it may export variables
  for (ProcessPlan &plan : job.plans)
    plan.environment = make_environment(plan.variables);
  if (!job.plans.empty()) check_settings(job.plans.front().environment);
  keep_launcher_off_gpus();
  // After keep_launcher_off_gpus (hwloc must not load its CUDA plugins here) and before any
  // thread starts; the MPS daemon, started above, is never bound: only the job's processes.
  ampirun::Bindings bindings(options.bind, std::max(local, 1), options.oversubscribe, options.pes);
  trace.mark("job planned, topology loaded (hwloc)");
  const std::vector<int> inherited_fds = inherited_descriptors();

  // Before libpmix starts its thread, so that the thread inherits the blocked signals.
  const SignalSetup signals = setup_signals();
  EventQueue events;
  PrivateDir dir(cleaner);
  PmixServer server(dir.path(), events, job.layout.total(), bindings.topology(), job.nspace,
                    job.layout);
  trace.mark("PMIx server started");
  server.register_job(job.layout);

  std::vector<ExecImage> images;
  for (ProcessPlan &plan : job.plans)
    images.push_back(
        {job.path, options.argv, server.register_client(plan.index, plan.environment)});
  trace.mark("job and clients registered");

  Links links = job.start_links ? job.start_links(signals, inherited_fds) : std::move(job.links);
  AgentGuard agents(links);
  if (links.role == Links::head) trace.mark("daemons started on the other hosts");

  std::vector<ChildOutput> outputs;
  if (options.tag_output)
    for (std::size_t p = 0; p < job.plans.size(); ++p)
      outputs.push_back({make_pipe(), make_pipe()});

  const SpawnContext ctx{signals, inherited_fds, user_umask,
                         options.wdir.empty() ? nullptr : options.wdir.c_str()};
  std::vector<Child> children;
  for (std::size_t p = 0; p < job.plans.size(); ++p) {
    const int index = job.plans[p].index;
    children.push_back(
        spawn(index, images[p], ctx, children, options.tag_output ? &outputs[p] : nullptr));
    server.forked(index, children.back().pid);
    bindings.apply(static_cast<int>(p), children.back().pid);
  }

  std::vector<TaggedStream> streams;
  for (std::size_t p = 0; p < outputs.size(); ++p) {
    outputs[p].out.write.reset(); // the children hold the write ends now
    outputs[p].err.write.reset();
    streams.emplace_back(job.plans[p].index, std::move(outputs[p].out.read), STDOUT_FILENO);
    streams.emplace_back(job.plans[p].index, std::move(outputs[p].err.read), STDERR_FILENO);
  }

  trace.mark("processes forked and bound");
  if (options.report_bindings) report_bindings(job.plans, children, options, bindings);

  int exec_failure = 0;
  for (Child &child : children) {
    if (exec_failure != 0) {
      child.go.reset(); // EOF: the child exits without running the program
      continue;
    }
    if (const int err = release(child); err != 0) {
      std::fprintf(stderr, "ampirun: cannot execute '%s'%s%s: %s\n", job.path.c_str(),
                   job.host.empty() ? "" : " on ", job.host.c_str(), std::strerror(err));
      exec_failure = err;
    }
  }
  trace.mark("processes released (exec)");
  int status = 0;
  bool clean = true;
  const Links::Role role = links.role;
  const int head_link = links.to_head.get();
  agents.release(); // the job ends the daemons from here on
  {
    Job job_run(std::move(children), signals, events, std::move(streams), std::move(links));
    if (options.timeout_s) job_run.set_timeout(*options.timeout_s);
    if (exec_failure != 0) {
      job_run.fail(kExitExecFailed);
      job_run.wait();
      status = kExitExecFailed;
    } else {
      status = job_run.wait();
    }
    clean = job_run.clients_finalized();
    if (role == Links::daemon) {
      ampirun::Packer p;
      p.i32(status);
      send_frame(head_link, ampirun::Msg::done, p);
    }
    trace.mark("processes ended");
  }
  if (!clean) {
    // A client went away without PMIx_Finalize. libpmix 4.2 may have damaged its own state
    // handling that (seen when a client dies while the others enter a fence: a crash or a hang
    // in the shutdown), so leave without shutting the server down; every child is reaped.
    dir.remove();
    mps.stop();
    std::fflush(nullptr);
    std::_Exit(status);
  }
  ShutdownWatchdog watchdog(dir, status);
  server.shutdown();
  trace.mark("PMIx server shut down");
  return status;
}

int run(int argc, char **argv) {
  ampi::settings::StartupTrace trace = startup_trace();
  trace.mark("main");
  ensure_standard_descriptors();
  Options options = parse_command_line(argc, argv);
  if (trace.on())
    options.exports.emplace_back("AMPI_DEBUG_STARTUP", std::to_string(trace.origin()));
  HostJob job;
  job.path = resolve_program(options.argv.front());
  scrub_environment();
  job.layout = make_layout(options);
  job.plans = plan_job(options, job.layout);
  if (job.layout.several()) {
    job.start_links = [&](const SignalSetup &signals, const std::vector<int> &fds) {
      return start_daemons(options, job.layout, job.path, signals, fds);
    };
  }
  return run_host(options, job, trace);
}

// Connects to the head: at the address ssh came from (SSH_CONNECTION), else at its host name.
Fd connect_to_head(const std::string &head_name, int port) {
  std::string address;
  if (const char *c = std::getenv("SSH_CONNECTION")) {
    const std::string_view v(c);
    address = std::string(v.substr(0, v.find(' ')));
  }
  if (address.empty()) address = head_name;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo *found = nullptr;
  const std::string service = std::to_string(port);
  if (const int rc = ::getaddrinfo(address.c_str(), service.c_str(), &hints, &found); rc != 0)
    throw FatalError{"daemon: cannot resolve the head's address '" + address +
                     "': " + ::gai_strerror(rc)};
  std::string why = "no address";
  for (addrinfo *a = found; a; a = a->ai_next) {
    Fd fd(::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol));
    if (!fd) continue;
    if (::connect(fd.get(), a->ai_addr, a->ai_addrlen) == 0) {
      ::freeaddrinfo(found);
      return fd;
    }
    why = std::strerror(errno);
  }
  ::freeaddrinfo(found);
  throw FatalError{"daemon: cannot connect to the head at " + address + " port " + service + ": " +
                   why};
}

// `ampirun --daemon`: one host's part of a job that a head started through ssh.
int run_daemon() {
  ampi::settings::StartupTrace trace; // off: the head traces the start
  ensure_standard_descriptors();
  scrub_environment();
  // The job's description on standard input (one message).
  ampirun::FrameReader reader;
  std::optional<std::pair<ampirun::Msg, std::string>> input;
  while (!input) {
    char buf[65536];
    const ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw FatalError{"daemon: no job description on the standard input"};
    reader.append(buf, static_cast<std::size_t>(n));
    input = reader.next();
  }
  Options options;
  HostJob job;
  std::string token, head_name;
  int port = 0;
  try {
    ampirun::Unpacker u(input->second);
    if (u.str() != kDaemonMagic)
      throw std::runtime_error("not a job description of this version of ampirun");
    job.nspace = u.str();
    token = u.str();
    port = static_cast<int>(u.u32());
    head_name = u.str();
    job.layout.self = static_cast<int>(u.u32());
    job.layout.names = u.strings();
    for (std::size_t i = 0; i < job.layout.names.size(); ++i) {
      job.layout.first.push_back(static_cast<int>(u.u32()));
      job.layout.count.push_back(static_cast<int>(u.u32()));
    }
    job.path = u.str();
    options.argv = u.strings();
    options.wdir = u.str();
    const bool wdir_given = u.u8() != 0;
    options.vps = static_cast<int>(u.u32());
    options.pes = static_cast<int>(u.u32());
    options.map = u.str() == "rr" ? MapPolicy::round_robin : MapPolicy::block;
    options.bind = ampirun::parse_bind_unit(u.str()).value_or(ampirun::BindUnit::none);
    options.oversubscribe = u.u8() != 0;
    options.tag_output = u.u8() != 0;
    options.report_bindings = u.u8() != 0;
    options.mps = u.str();
    const std::uint32_t n = u.u32();
    for (std::uint32_t i = 0; i < n; ++i) {
      ProcessPlan plan;
      plan.index = static_cast<int>(u.u32());
      for (const std::string &r : u.strings())
        plan.ranks.push_back(std::stoi(r));
      for (const std::string &v : u.strings()) {
        const std::size_t eq = v.find('=');
        plan.variables.emplace_back(v.substr(0, eq),
                                    eq == std::string::npos ? "" : v.substr(eq + 1));
      }
      job.plans.push_back(std::move(plan));
    }
    // The head's directory when it exists here; else the home directory (as ssh starts us).
    struct stat st {};
    if (!wdir_given && (::stat(options.wdir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)))
      options.wdir.clear();
  } catch (const std::exception &e) {
    throw FatalError{std::string("daemon: bad job description: ") + e.what()};
  }
  options.processes = static_cast<int>(job.plans.size());
  job.host = job.layout.names[static_cast<std::size_t>(job.layout.self)];
  job.links.role = Links::daemon;
  job.links.host = job.host;
  job.links.to_head = connect_to_head(head_name, port);
  ampirun::Packer hello;
  hello.str(token);
  hello.u32(static_cast<std::uint32_t>(job.layout.self));
  send_frame(job.links.to_head.get(), ampirun::Msg::hello, hello);
  tune_link(job.links.to_head.get());
  return run_host(options, job, trace);
}

} // namespace

int main(int argc, char **argv) {
  if (argc > 0 && argv[0]) {
    const std::string_view self(argv[0]);
    const std::string_view base = self.substr(self.rfind('/') + 1);
    if (base == "mpiexec" || base == "mpirun") launcher_name = base;
  }
  try {
    if (argc == 2 && std::string_view(argv[1]) == "--daemon") return run_daemon();
    return run(argc, argv);
  } catch (const UsageError &e) {
    std::fprintf(stderr, "ampirun: %s\n", e.message.c_str());
    if (e.hint)
      std::fprintf(stderr, "Try '%s --help' for more information.\n", launcher_name.c_str());
    return kExitUsage;
  } catch (const FatalError &e) {
    std::fprintf(stderr, "ampirun: %s\n", e.message.c_str());
    return EXIT_FAILURE;
  }
}
