// src/launcher/ampirun.cpp — the job launcher: `ampirun [options] program [args...]`.
//
// A job is V virtual ranks placed over P processes. In this version P is 1 (one process hosts all
// ranks); the code is already shaped for P children: it plans a placement, builds one environment
// per process, forks/execs every child, forwards signals to all of them and reaps them in one
// waitpid loop, ending the job when one fails. Multi-process and multi-host launch (PMIx) come
// later.
//
// Signals: SIGCHLD and the forwarded signals are blocked and taken synchronously with
// sigwaitinfo(), so there is no asynchronous handler. A signal that the terminal sent to the whole
// foreground process group (si_code == SI_KERNEL) already reached the children, which share our
// process group, and is not sent again. Signals that were ignored when ampirun started (as for a
// background job or under nohup) stay ignored and are not forwarded.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <climits>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

extern char **environ;

#ifndef AMPI_VERSION_STRING
#define AMPI_VERSION_STRING "unknown"
#endif

namespace {

constexpr int kExitUsage = 2;         // bad command line, program missing or not executable
constexpr int kExitExecFailed = 127;  // the program could not be executed after the launch began
constexpr int kKillGraceSeconds = 10; // SIGTERM -> SIGKILL delay when ending a failed job

// Signals that ampirun passes on to its children.
constexpr std::array kForwardedSignals{SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

// A command-line problem: reported as "ampirun: <message>" and exit status 2.
struct UsageError {
  std::string message;
  bool hint = true; // add "Try 'ampirun --help'"
};

// Owns a file descriptor.
class Fd {
public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd &) = delete;
  Fd &operator=(const Fd &) = delete;
  Fd(Fd &&other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd &operator=(Fd &&other) noexcept {
    if (this != &other) reset(std::exchange(other.fd_, -1));
    return *this;
  }
  ~Fd() { reset(); }

  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

private:
  int fd_ = -1;
};

struct Pipe {
  Fd read;
  Fd write;
};

Pipe make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    std::fprintf(stderr, "ampirun: pipe: %s\n", std::strerror(errno));
    std::exit(EXIT_FAILURE);
  }
  return {Fd(fds[0]), Fd(fds[1])};
}

// ----------------------------------------------------------------------------------------------
// Command line

enum class MapPolicy { block, round_robin };

struct Options {
  int processes = 1;
  std::optional<int> vps; // default: one per process
  std::optional<std::uint64_t> stack_size;
  std::vector<std::pair<std::string, std::string>> exports; // -x NAME=VALUE
  bool report_bindings = false;
  MapPolicy map = MapPolicy::block;
  std::vector<std::string> argv; // the program and its arguments
};

void print_usage(std::FILE *out) {
  std::fputs(
      "Usage: ampirun [options] program [args...]\n"
      "Run an ampi MPI program: V virtual ranks (user-level threads) over P processes.\n"
      "\n"
      "Options:\n"
      "  -np N, -n N, --np N     number of processes (default 1; only 1 is available so far)\n"
      "  --vp V, +vp V           number of virtual ranks (default: one per process)\n"
      "  --stack-size SIZE       stack size of each rank, in bytes; suffixes K, M, G (x1024)\n"
      "  -x NAME[=VALUE]         export NAME (with VALUE) to the job's environment\n"
      "  --map block|rr          placement of ranks over processes: blocks (default) or\n"
      "                          round robin\n"
      "  --report-bindings       print where each rank runs\n"
      "  --oversubscribe         accepted for compatibility (ranks never need their own core)\n"
      "  -h, --help              show this help and exit\n"
      "  --version               show the version and exit\n"
      "  --                      end of options\n"
      "Option values may also be attached with '=' (--vp=4, -np=1, +vp4).\n"
      "\n"
      "The job's environment carries AMPI_VP, AMPI_STACK_SIZE (with --stack-size) and, per\n"
      "process, the local-rank variables of Open MPI, MPICH and MVAPICH.\n"
      "Exit status: the program's; 128+N if it was killed by signal N; 2 for usage errors.\n",
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

std::uint64_t parse_size(std::string_view option, std::string_view text) {
  std::uint64_t value = 0;
  const char *first = text.data();
  const char *last = text.data() + text.size();
  auto [end, ec] = std::from_chars(first, last, value);
  const std::string what = std::string(option) + " '" + std::string(text) + "'";
  if (text.empty() || ec == std::errc::invalid_argument)
    throw UsageError{what + ": not a size (expected bytes, optionally with K, M or G)"};
  if (ec == std::errc::result_out_of_range) throw UsageError{what + ": too large"};
  std::string suffix(end, last);
  for (char &c : suffix)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  unsigned shift = 0;
  if (suffix.empty() || suffix == "b")
    shift = 0;
  else if (suffix == "k" || suffix == "kb" || suffix == "kib")
    shift = 10;
  else if (suffix == "m" || suffix == "mb" || suffix == "mib")
    shift = 20;
  else if (suffix == "g" || suffix == "gb" || suffix == "gib")
    shift = 30;
  else
    throw UsageError{what + ": unknown size suffix (use K, M or G)"};
  if (value == 0) throw UsageError{what + ": must be more than 0"};
  if (value > (UINT64_MAX >> shift)) throw UsageError{what + ": too large"};
  return value << shift;
}

bool valid_env_name(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front()))) return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

[[noreturn]] void refuse_multi_host(std::string_view option) {
  throw UsageError{std::string(option) +
                       ": multi-host launch is not available yet; ampirun runs every rank on "
                       "this host (use --vp to choose the number of ranks)",
                   false};
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
    if (args.flag({"--version", "-version", "-V"})) {
      std::printf("ampirun (ampi) %s\n", AMPI_VERSION_STRING);
      std::exit(EXIT_SUCCESS);
    }
    if (auto v = args.value_of({"-np", "--np", "-n"})) {
      options.processes = parse_count(arg.substr(0, arg.find('=')), *v);
      continue;
    }
    if (auto v = args.value_of({"--vp", "-vp"})) {
      options.vps = parse_count("--vp", *v);
      continue;
    }
    if (auto v = args.value_of({"+vp"}, /*attached_ok=*/true)) {
      options.vps = parse_count("+vp", *v);
      continue;
    }
    if (auto v = args.value_of({"--stack-size", "-stack-size"})) {
      options.stack_size = parse_size("--stack-size", *v);
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
    if (args.flag({"--oversubscribe", "-oversubscribe"})) continue;
    for (std::string_view name : {"--host", "-host", "-H", "--hostfile", "-hostfile",
                                  "--machinefile", "-machinefile", "--default-hostfile"})
      if (arg == name || (arg.size() > name.size() && arg.substr(0, name.size()) == name &&
                          arg[name.size()] == '='))
        refuse_multi_host(name);
    throw UsageError{"unknown option '" + std::string(arg) + "'"};
  }
  options.argv = args.rest();
  if (options.argv.empty()) throw UsageError{"missing program to run"};
  if (options.argv.front().empty()) throw UsageError{"the program name is empty"};

  const int vps = options.vps.value_or(options.processes);
  if (vps < options.processes)
    throw UsageError{"--vp " + std::to_string(vps) + " is less than the number of processes (" +
                     std::to_string(options.processes) +
                     "): every process needs at least one virtual rank"};
  options.vps = vps;
  if (options.processes > 1)
    throw UsageError{"-np " + std::to_string(options.processes) +
                         ": multi-process launch is not available yet; run all ranks in one "
                         "process with -np 1 --vp " +
                         std::to_string(vps),
                     false};
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
  std::vector<std::string> environment; // NAME=VALUE
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

std::vector<ProcessPlan> plan_job(const Options &options) {
  const int vps = *options.vps;
  const int processes = options.processes;
  std::vector<std::vector<int>> placement = place_ranks(vps, processes, options.map);
  std::vector<ProcessPlan> plans;
  for (int p = 0; p < processes; ++p) {
    std::vector<std::pair<std::string, std::string>> vars = options.exports;
    const std::string index = std::to_string(p);
    const std::string count = std::to_string(processes);
    vars.emplace_back("AMPI_VP", std::to_string(vps));
    if (options.stack_size)
      vars.emplace_back("AMPI_STACK_SIZE", std::to_string(*options.stack_size));
    // Local (per-node) process rank and count, as other launchers set them; one node for now.
    vars.emplace_back("OMPI_COMM_WORLD_LOCAL_RANK", index);
    vars.emplace_back("OMPI_COMM_WORLD_LOCAL_SIZE", count);
    vars.emplace_back("MPI_LOCALRANKID", index);
    vars.emplace_back("MPI_LOCALNRANKS", count);
    vars.emplace_back("LOCAL_RANK", index);
    vars.emplace_back("MV2_COMM_WORLD_LOCAL_RANK", index);
    vars.emplace_back("MV2_COMM_WORLD_LOCAL_SIZE", count);
    plans.push_back({p, std::move(placement[static_cast<std::size_t>(p)]), make_environment(vars)});
  }
  return plans;
}

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
};

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
  return s;
}

// ----------------------------------------------------------------------------------------------
// Children

struct Child {
  int index = 0;
  pid_t pid = -1;
  bool running = false;
  Fd go;         // write one byte to let the child exec
  Fd exec_error; // the child writes errno here if exec fails; EOF means exec succeeded
};

struct ExecImage {
  std::string path;
  std::vector<std::string> argv;
  std::vector<std::string> environment;
};

std::vector<char *> c_strings(std::vector<std::string> &strings) {
  std::vector<char *> out;
  out.reserve(strings.size() + 1);
  for (std::string &s : strings)
    out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Forks a child that waits for the go byte, then execs the program. Never returns in the child.
Child spawn(int index, ExecImage &image, const SignalSetup &signals,
            const std::vector<Child> &siblings) {
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
  if (pid < 0) {
    std::fprintf(stderr, "ampirun: fork: %s\n", std::strerror(errno));
    std::exit(EXIT_FAILURE);
  }
  if (pid == 0) {
    // Child: only async-signal-safe calls from here on.
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
    ::sigprocmask(SIG_SETMASK, &signals.original_mask, nullptr);
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

class Job {
public:
  Job(std::vector<Child> children, const SignalSetup &signals)
      : children_(std::move(children)), signals_(signals) {}

  // Waits for every child; returns ampirun's exit status.
  int wait() {
    while (running() > 0) {
      siginfo_t info{};
      int sig;
      if (kill_deadline_) {
        const std::time_t now = std::time(nullptr);
        if (now >= *kill_deadline_) {
          send_all(SIGKILL);
          kill_deadline_.reset();
          continue;
        }
        timespec timeout{*kill_deadline_ - now, 0};
        sig = ::sigtimedwait(&signals_.wait_set, &info, &timeout);
      } else {
        sig = ::sigwaitinfo(&signals_.wait_set, &info);
      }
      if (sig < 0) continue; // EINTR, or the kill deadline passed (EAGAIN)
      if (sig == SIGCHLD)
        reap();
      else if (info.si_code != SI_KERNEL)
        send_all(sig); // the terminal's signals already reached the process group
    }
    return status_.value_or(0);
  }

  // Ends the job: SIGTERM now, SIGKILL for what is left after the grace period.
  void terminate() {
    if (terminating_) return;
    terminating_ = true;
    send_all(SIGTERM);
    kill_deadline_ = std::time(nullptr) + kKillGraceSeconds;
  }

private:
  int running() const {
    int n = 0;
    for (const Child &c : children_)
      n += c.running ? 1 : 0;
    return n;
  }

  void send_all(int sig) {
    for (const Child &c : children_)
      if (c.running) ::kill(c.pid, sig);
  }

  void reap() {
    int wstatus = 0;
    pid_t pid;
    while ((pid = ::waitpid(-1, &wstatus, WNOHANG)) > 0) {
      for (Child &c : children_) {
        if (c.pid != pid || !c.running) continue;
        c.running = false;
        finished(c, wstatus);
      }
    }
  }

  void finished(const Child &c, int wstatus) {
    int status = 0;
    if (WIFSIGNALED(wstatus)) {
      const int sig = WTERMSIG(wstatus);
      std::fprintf(stderr, "ampirun: process %d (pid %ld) killed by signal %s (%s)\n", c.index,
                   static_cast<long>(c.pid), signal_name(sig).c_str(), ::strsignal(sig));
      status = 128 + sig;
    } else if (WIFEXITED(wstatus)) {
      status = WEXITSTATUS(wstatus);
    }
    if (status == 0 || status_) return;
    status_ = status; // the first failure decides the job's status
    if (running() > 0) {
      std::fprintf(stderr, "ampirun: process %d (pid %ld) failed (status %d); ending the job\n",
                   c.index, static_cast<long>(c.pid), status);
      terminate();
    }
  }

  std::vector<Child> children_;
  const SignalSetup &signals_;
  std::optional<int> status_;
  std::optional<std::time_t> kill_deadline_;
  bool terminating_ = false;
};

void report_bindings(const std::vector<ProcessPlan> &plans, const std::vector<Child> &children,
                     const Options &options) {
  std::fprintf(stderr, "ampirun: %d virtual rank%s over %zu process%s (map %s)\n", *options.vps,
               *options.vps == 1 ? "" : "s", plans.size(), plans.size() == 1 ? "" : "es",
               options.map == MapPolicy::block ? "block" : "rr");
  std::vector<std::pair<int, std::size_t>> rank_to_process;
  for (std::size_t p = 0; p < plans.size(); ++p)
    for (int rank : plans[p].ranks)
      rank_to_process.emplace_back(rank, p);
  std::sort(rank_to_process.begin(), rank_to_process.end());
  for (const auto &[rank, p] : rank_to_process)
    std::fprintf(stderr, "ampirun: rank %d -> process %zu (pid %ld)\n", rank, p,
                 static_cast<long>(children[p].pid));
}

int run(int argc, char **argv) {
  Options options = parse_command_line(argc, argv);
  const std::string path = resolve_program(options.argv.front());
  std::vector<ProcessPlan> plans = plan_job(options);

  const SignalSetup signals = setup_signals();
  std::vector<ExecImage> images;
  for (ProcessPlan &plan : plans)
    images.push_back({path, options.argv, plan.environment});

  std::vector<Child> children;
  for (std::size_t p = 0; p < plans.size(); ++p)
    children.push_back(spawn(static_cast<int>(p), images[p], signals, children));

  if (options.report_bindings) report_bindings(plans, children, options);

  int exec_failure = 0;
  for (Child &child : children) {
    if (exec_failure != 0) {
      child.go.reset(); // EOF: the child exits without running the program
      continue;
    }
    if (const int err = release(child); err != 0) {
      std::fprintf(stderr, "ampirun: cannot execute '%s': %s\n", path.c_str(), std::strerror(err));
      exec_failure = err;
    }
  }
  Job job(std::move(children), signals);
  if (exec_failure != 0) {
    job.terminate();
    job.wait();
    return kExitExecFailed;
  }
  return job.wait();
}

} // namespace

int main(int argc, char **argv) {
  try {
    return run(argc, argv);
  } catch (const UsageError &e) {
    std::fprintf(stderr, "ampirun: %s\n", e.message.c_str());
    if (e.hint) std::fprintf(stderr, "Try 'ampirun --help' for more information.\n");
    return kExitUsage;
  }
}
