// src/core/crash_report.cpp — the SIGSEGV/SIGBUS handler that names the rank (see
// crash_report.hpp).
//
// Many ranks share a process, so the process's death by SIGSEGV (which ampirun reports) and
// UCX's backtrace do not say which rank faulted. On the PE thread's alternate signal stack (the
// fault may be a rank's stack overflowing: its guard page leaves no room to run a handler on
// it), the handler writes one line with async-signal-safe calls only:
//   ampi: rank 5 (world) of process 0 (pid 1234) crashed: SIGSEGV at 0x10
//   ampi: rank 3 (world) of process 0 (pid 1234) crashed: stack overflow (SIGSEGV at 0x7f..., in
//         the guard page below its 8388608-byte stack); raise the stack size with ampirun
//         --stack-size or AMPI_STACK_SIZE
// then puts back the handler that was there before (UCX's backtrace handler, a sanitizer's, or
// the default action) and returns: the faulting instruction runs again and faults into that
// handler, which ends in the default action (ampirun reports "killed by signal SIGSEGV"). A
// signal sent with kill() is raised again instead.
#include "core/crash_report.hpp"

#include "core/pe.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>

namespace ampi {

namespace {

// A fault this far below a rank's stack (a frame bigger than the guard page jumped over it)
// still counts as an overflow into the guard.
constexpr std::uintptr_t kBelowGuard = 64 * 1024;

// The handlers that were installed before ours, per signal. Signal dispositions belong to the
// process, not to a PE, so this is process state (written once, under std::call_once, before
// our handler can run).
struct Previous {
  struct sigaction segv {};
  struct sigaction bus {};
};
Previous &previous() {
  static Previous p;
  return p;
}

// An async-signal-safe line buffer.
class Line {
public:
  Line &str(const char *s) {
    while (*s && n_ < sizeof buf_)
      buf_[n_++] = *s++;
    return *this;
  }
  Line &dec(std::uintmax_t v) {
    char d[24];
    int i = 0;
    do
      d[i++] = static_cast<char>('0' + v % 10);
    while ((v /= 10) != 0);
    while (i > 0 && n_ < sizeof buf_)
      buf_[n_++] = d[--i];
    return *this;
  }
  Line &hex(std::uintptr_t v) {
    str("0x");
    char d[20];
    int i = 0;
    do
      d[i++] = "0123456789abcdef"[v & 15];
    while ((v >>= 4) != 0);
    while (i > 0 && n_ < sizeof buf_)
      buf_[n_++] = d[--i];
    return *this;
  }
  void write() const {
    std::size_t done = 0;
    while (done < n_) {
      const ssize_t w = ::write(STDERR_FILENO, buf_ + done, n_ - done);
      if (w <= 0) return;
      done += static_cast<std::size_t>(w);
    }
  }

private:
  char buf_[512];
  std::size_t n_ = 0;
};

// Whether `addr` is in the guard page of rank `r`'s stack, or just below it.
bool in_guard(const Rank &r, std::uintptr_t addr) {
  // (GuardMode::Check stacks have no guard page: the scheduler checks their gap instead.)
  if (r.task.stack_mode() != ult::GuardMode::Page) return false;
  const auto low = reinterpret_cast<std::uintptr_t>(r.task.stack_low());
  return addr < low + r.task.stack_guard() && addr + kBelowGuard >= low;
}

void crash_handler(int sig, siginfo_t *info, void *) {
  const auto addr = reinterpret_cast<std::uintptr_t>(info->si_addr);
  const char *name = sig == SIGBUS ? "SIGBUS" : "SIGSEGV";
  Line line;
  line.str("ampi: ");
  Pe *pe = Pe::get_if();
  Rank *rank = pe ? pe->current_if() : nullptr;
  bool overflow = rank && in_guard(*rank, addr);
  if (pe && !rank) // in the scheduler, between ranks: still, a rank's guard page names it
    for (Rank *r : pe->ranks())
      if (in_guard(*r, addr)) {
        rank = r;
        overflow = true;
        break;
      }
  if (rank)
    line.str("rank ").dec(static_cast<std::uintmax_t>(rank->world_rank)).str(" (world) of ");
  if (pe) line.str("process ").dec(static_cast<std::uintmax_t>(pe->config().my_pe)).str(" ");
  line.str("(pid ").dec(static_cast<std::uintmax_t>(::getpid())).str(") crashed: ");
  if (overflow) {
    line.str("stack overflow (")
        .str(name)
        .str(" at ")
        .hex(addr)
        .str(", in the guard page below its ")
        .dec(rank->task.stack_size() - rank->task.stack_guard())
        .str("-byte stack); raise the stack size with ampirun --stack-size or AMPI_STACK_SIZE\n");
  } else {
    line.str(name).str(" at ").hex(addr);
    if (!rank) line.str(pe ? " (outside the ranks)" : " (not in a PE's thread)");
    line.str("\n");
  }
  line.write();
  // The previous handler takes it from here.
  const struct sigaction &before = sig == SIGBUS ? previous().bus : previous().segv;
  ::sigaction(sig, &before, nullptr);
  if (info->si_code <= 0) ::raise(sig); // sent by kill(): it would not come again by itself
}

} // namespace

void install_crash_report() {
  // This thread's alternate stack, unless someone (a sanitizer) gave it one already.
  stack_t current{};
  if (::sigaltstack(nullptr, &current) == 0 && (current.ss_flags & SS_DISABLE)) {
    static thread_local std::byte altstack[64 * 1024];
    stack_t ss{};
    ss.ss_sp = altstack;
    ss.ss_size = sizeof altstack;
    ::sigaltstack(&ss, nullptr);
  }
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_sigaction = crash_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGSEGV, &sa, &previous().segv);
    ::sigaction(SIGBUS, &sa, &previous().bus);
  });
}

} // namespace ampi
