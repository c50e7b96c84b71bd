// src/privatize/libc_state.cpp — libc's hidden state, per rank (see libc_state.hpp): finding
// glibc's getopt position, telling the library's own code from the program's, and the
// interposed rand/random/drand48/strtok families.
//
// Only what interposition strictly needs lives outside the per-PE context, and it is constant once
// the first PE has set it up: which code is the library's own, where glibc's getopt position
// lies, and glibc's own functions (dlsym RTLD_NEXT). An interposed function gets no context but
// its arguments, and may be called from any thread.
#include "privatize/libc_state.hpp"

#include "privatize/dynamic.hpp"
#include "privatize/interpose.hpp"
#include "privatize/privatize.hpp"

#include "core/pe.hpp"
#include "ult/os_threads.hpp"
#include "ult/scheduler.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <getopt.h>
#include <link.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <string_view>

#if !defined(__GLIBC__)
#error "privatize/libc_state: built on glibc's reentrant functions (random_r, drand48_r)"
#endif

namespace ampi::privatize {

void SpinLock::lock_slow() noexcept {
  for (int spin = 0;; ++spin) {
    if (!held_.load(std::memory_order_relaxed) && !held_.exchange(true, std::memory_order_acquire))
      return;
    if (spin >= 100) {
      ::sched_yield(); // the holder may have lost its core
    } else {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#elif defined(__aarch64__)
      asm volatile("yield");
#endif
    }
  }
}

namespace {

// ---- the loaded objects ------------------------------------------------------------------------

struct Range {
  std::uintptr_t lo, hi;
};

// One object of the process, as the dynamic loader has it.
struct Object {
  std::string name; // empty for the program
  std::uintptr_t base = 0;
  std::vector<Range> loads;           // its PT_LOAD segments, in memory
  const ElfW(Dyn) *dynamic = nullptr; // its dynamic section, in memory
  bool contains(std::uintptr_t a) const {
    return std::any_of(loads.begin(), loads.end(), [a](Range r) { return a >= r.lo && a < r.hi; });
  }
};

std::vector<Object> loaded_objects() {
  std::vector<Object> all;
  ::dl_iterate_phdr(
      [](dl_phdr_info *info, std::size_t, void *data) {
        Object o;
        o.name = info->dlpi_name ? info->dlpi_name : "";
        o.base = info->dlpi_addr;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr) &p = info->dlpi_phdr[i];
          if (p.p_type == PT_LOAD)
            o.loads.push_back(
                {info->dlpi_addr + p.p_vaddr, info->dlpi_addr + p.p_vaddr + p.p_memsz});
          if (p.p_type == PT_DYNAMIC)
            o.dynamic = reinterpret_cast<const ElfW(Dyn) *>(info->dlpi_addr + p.p_vaddr);
        }
        static_cast<std::vector<Object> *>(data)->push_back(std::move(o));
        return 0;
      },
      &all);
  return all;
}

// Whether the object refers to a symbol named in `names` that it does not define itself (or
// defines only as a copy of a library's: a program built without -fPIC copies optind).
bool imports_any(const Dynamic &d, std::initializer_list<std::string_view> names) {
  return any_import(d, [&](const Import &im) {
    return std::find(names.begin(), names.end(), im.name) != names.end();
  });
}

std::string_view file_name(std::string_view path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// The process's code, as this module sorts it out once, when the first PE sets up (every object
// the library needs is loaded by then).
struct Code {
  // Code of the library's own: libampi.so and what is loaded for it alone (UCX and its
  // transport modules, PMIx, libstdc++ for a C program). Sorted, disjoint.
  std::vector<Range> library;
  std::string library_names; // for AMPI_VERBOSE
  // The program (or a shared library of the program's own) refers to getopt or its variables.
  bool program_uses_getopt = false;

  bool is_library(const void *pc) const noexcept {
    const auto a = reinterpret_cast<std::uintptr_t>(pc);
    auto it = std::upper_bound(library.begin(), library.end(), a,
                               [](std::uintptr_t x, const Range &r) { return x < r.lo; });
    return it != library.begin() && a < std::prev(it)->hi;
  }
};

Code sort_code() {
  std::vector<Object> objects = loaded_objects();
  std::vector<Dynamic> dyn;
  dyn.reserve(objects.size());
  for (const Object &o : objects)
    dyn.push_back(read_dynamic(o.base, o.dynamic));
  const auto self_pc = reinterpret_cast<std::uintptr_t>(&sort_code);
  std::size_t self = objects.size();
  for (std::size_t i = 0; i < objects.size(); ++i)
    if (objects[i].contains(self_pc)) self = i;
  auto find = [&](std::string_view needed) {
    for (std::size_t i = 1; i < objects.size(); ++i) {
      if ((dyn[i].soname && needed == dyn[i].soname) || needed == file_name(objects[i].name))
        return i;
    }
    return objects.size();
  };
  // The program's own objects: the program and what it needs, through anything but libampi.
  std::vector<bool> program(objects.size(), false);
  std::deque<std::size_t> todo{0};
  if (!objects.empty()) program[0] = true;
  while (!todo.empty()) {
    const std::size_t i = todo.front();
    todo.pop_front();
    for (const char *n : dyn[i].needed) {
      const std::size_t j = find(n);
      if (j >= objects.size() || j == self || program[j]) continue;
      program[j] = true;
      todo.push_back(j);
    }
  }
  Code code;
  for (std::size_t i = 0; i < objects.size(); ++i) {
    if (Programs::is_template(objects[i].name)) continue; // the copies' template never runs
    if (program[i]) {
      code.program_uses_getopt =
          code.program_uses_getopt ||
          imports_any(dyn[i], {"getopt", "getopt_long", "getopt_long_only", "__posix_getopt",
                               "optind", "optarg", "opterr", "optopt"});
    } else {
      code.library.insert(code.library.end(), objects[i].loads.begin(), objects[i].loads.end());
      if (!objects[i].name.empty())
        code.library_names += std::string(code.library_names.empty() ? "" : " ") +
                              std::string(file_name(objects[i].name));
    }
  }
  std::sort(code.library.begin(), code.library.end(),
            [](const Range &a, const Range &b) { return a.lo < b.lo; });
  return code;
}

const Code &code() {
  static const Code c = sort_code();
  return c;
}

// ---- getopt's hidden position ------------------------------------------------------------------

// glibc's `struct _getopt_data` (posix/getopt_int.h, glibc 2.26 and later): getopt's position,
// a static variable of libc without a symbol.
struct GetoptData {
  int optind, opterr, optopt;
  char *optarg;
  int initialized;
  char *nextchar;
  int ordering;
  int first_nonopt, last_nonopt;
};

// Finds glibc's getopt position: calls getopt on a made-up argv ("x -ab", options "ab") and looks
// through libc's writable memory for the one struct whose fields say what glibc's must say after
// the first call (`nextchar` at the 'b' of "-ab", optind 1, ...), then checks it again after the
// second call. Everything is put back as it was. nullptr if not found (not glibc, another layout).
GetoptData *find_getopt_data() {
  Dl_info info{};
  if (!::dladdr(reinterpret_cast<void *>(&::getopt), &info) || !info.dli_fbase) return nullptr;
  struct Libc {
    const void *base;
    std::vector<Range> writable;
  } libc{info.dli_fbase, {}};
  ::dl_iterate_phdr(
      [](dl_phdr_info *i, std::size_t, void *data) {
        auto &l = *static_cast<Libc *>(data);
        bool it = false;
        for (int k = 0; k < i->dlpi_phnum; ++k) {
          const ElfW(Phdr) &p = i->dlpi_phdr[k];
          if (p.p_type == PT_LOAD && p.p_offset == 0 &&
              reinterpret_cast<const void *>(i->dlpi_addr + p.p_vaddr) == l.base)
            it = true;
        }
        if (!it) return 0;
        for (int k = 0; k < i->dlpi_phnum; ++k) {
          const ElfW(Phdr) &p = i->dlpi_phdr[k];
          if (p.p_type == PT_LOAD && (p.p_flags & PF_W))
            l.writable.push_back({i->dlpi_addr + p.p_vaddr, i->dlpi_addr + p.p_vaddr + p.p_memsz});
        }
        return 1;
      },
      &libc);
  if (libc.writable.empty()) return nullptr;

  const int saved_optind = optind, saved_opterr = opterr, saved_optopt = optopt;
  char *const saved_optarg = optarg;
  std::vector<std::vector<std::byte>> before;
  for (const Range &r : libc.writable) {
    const auto *p = reinterpret_cast<const std::byte *>(r.lo);
    before.emplace_back(p, p + (r.hi - r.lo));
  }
  char arg0[] = "x", arg1[] = "-ab";
  char *argv[] = {arg0, arg1, nullptr};
  optind = 0; // glibc starts afresh
  opterr = 0;
  std::vector<GetoptData *> found;
  if (::getopt(2, argv, "ab") == 'a') {
    for (const Range &r : libc.writable) {
      const std::uintptr_t lo = (r.lo + alignof(GetoptData) - 1) & ~(alignof(GetoptData) - 1);
      for (std::uintptr_t a = lo; a + sizeof(GetoptData) <= r.hi; a += alignof(GetoptData)) {
        const auto *d = reinterpret_cast<const GetoptData *>(a);
        if (d->nextchar == arg1 + 2 && d->optind == 1 && d->opterr == 0 && !d->optarg &&
            d->initialized == 1 && d->first_nonopt == 1 && d->last_nonopt == 1 &&
            d->ordering >= 0 && d->ordering <= 2)
          found.push_back(reinterpret_cast<GetoptData *>(a));
      }
    }
  }
  GetoptData *data = found.size() == 1 ? found[0] : nullptr;
  if (data && !(::getopt(2, argv, "ab") == 'b' && data->nextchar == arg1 + 3 && data->optind == 2))
    data = nullptr;
  if (data) { // only the struct: nothing else of libc's memory may be written back
    for (std::size_t i = 0; i < libc.writable.size(); ++i) {
      const Range &r = libc.writable[i];
      const auto a = reinterpret_cast<std::uintptr_t>(data);
      if (a >= r.lo && a + sizeof(GetoptData) <= r.hi)
        std::memcpy(data, before[i].data() + (a - r.lo), sizeof(GetoptData));
    }
  }
  optind = saved_optind;
  opterr = saved_opterr;
  optopt = saved_optopt;
  optarg = saved_optarg;
  return data;
}

// ---- glibc's own functions ---------------------------------------------------------------------

struct Glibc {
  long (*random)() = next_definition<long (*)()>("random");
  void (*srandom)(unsigned) = next_definition<void (*)(unsigned)>("srandom");
  char *(*initstate)(unsigned, char *, std::size_t) =
      next_definition<char *(*)(unsigned, char *, std::size_t)>("initstate");
  char *(*setstate)(char *) = next_definition<char *(*)(char *)>("setstate");
  int (*rand)() = next_definition<int (*)()>("rand");
  void (*srand)(unsigned) = next_definition<void (*)(unsigned)>("srand");
  double (*drand48)() = next_definition<double (*)()>("drand48");
  double (*erand48)(unsigned short *) = next_definition<double (*)(unsigned short *)>("erand48");
  long (*lrand48)() = next_definition<long (*)()>("lrand48");
  long (*nrand48)(unsigned short *) = next_definition<long (*)(unsigned short *)>("nrand48");
  long (*mrand48)() = next_definition<long (*)()>("mrand48");
  long (*jrand48)(unsigned short *) = next_definition<long (*)(unsigned short *)>("jrand48");
  void (*srand48)(long) = next_definition<void (*)(long)>("srand48");
  unsigned short *(*seed48)(unsigned short *) =
      next_definition<unsigned short *(*)(unsigned short *)>("seed48");
  void (*lcong48)(unsigned short *) = next_definition<void (*)(unsigned short *)>("lcong48");
  char *(*strtok)(char *,
                  const char *) = next_definition<char *(*)(char *, const char *)>("strtok");
};

const Glibc &next() {
  static const Glibc g;
  return g;
}

} // namespace

// ---- setting up a PE ---------------------------------------------------------------------------

std::vector<InitialImage> setup_libc_state(ult::Scheduler &sched) {
  const Code &c = code();
  std::vector<InitialImage> images;
  const Pe *pe = Pe::get_if(); // notes from the first process only: all run the same program
  const bool tell = pe && pe->config().verbose && pe->config().my_pe == 0;
  static const bool told_code =
      tell && std::fprintf(stderr,
                           "ampi: note: rand, random, drand48 and strtok are per rank; calls "
                           "from the library's own code use the process's state: %s\n",
                           c.library_names.c_str());
  (void)told_code;
  if (!c.program_uses_getopt) {
    static const bool told =
        tell && std::fprintf(stderr, "ampi: note: the program does not use "
                                     "getopt: its state is not swapped between ranks\n");
    (void)told;
    return images;
  }
  // Calibrated once per process, before any rank has parsed (libc's memory does not move).
  static GetoptData *const data = find_getopt_data();
  static const bool told =
      tell && std::fprintf(stderr,
                           data ? "ampi: note: getopt's state is per rank: optind, opterr, optopt, "
                                  "optarg and glibc's position (found at %p)\n"
                                : "ampi: note: glibc's getopt position was not found (%p): only "
                                  "optind, opterr, optopt and optarg are per rank; parse options "
                                  "in one go (a rank that calls getopt between blocking MPI calls "
                                  "may see another rank's position)\n",
                           static_cast<void *>(data));
  (void)told;
  struct Part {
    void *at;
    std::vector<std::byte> initial;
  };
  auto value = [](const auto &v) {
    const auto *b = reinterpret_cast<const std::byte *>(&v);
    return std::vector<std::byte>(b, b + sizeof v);
  };
  // POSIX's initial values (glibc's: getopt.c); glibc's position zeroed, as in its .bss.
  std::vector<Part> parts{{&optind, value(1)},
                          {&opterr, value(1)},
                          {&optopt, value(static_cast<int>('?'))},
                          {&optarg, value(static_cast<char *>(nullptr))}};
  if (data) parts.push_back({data, std::vector<std::byte>(sizeof(GetoptData))});
  // In address order, so that neighbours (optopt, opterr, optind) become one region.
  std::sort(parts.begin(), parts.end(), [](const Part &a, const Part &b) { return a.at < b.at; });
  for (Part &p : parts)
    images.push_back({sched.add_region(p.at, p.initial.size()), std::move(p.initial)});
  return images;
}

} // namespace ampi::privatize

// ---- the interposed functions ------------------------------------------------------------------

namespace {

using ampi::privatize::RankLibc;

// The state a call made from `caller` uses: that of the calling rank (the rank whose task the PE
// runs, or that created the calling thread), or nullptr for glibc's own: outside any rank, and
// from the library's own code (UCX's strtok inside an MPI call must not move the rank's). With the
// lock, a rank's rand() costs about 4 ns more than glibc's (15 instead of 11 ns), strtok 3 ns
// more (20 instead of 17 ns per token): 20M calls in one rank, on this 2-vCPU VM.
RankLibc *rank_state(const void *caller) noexcept {
  ampi::Rank *r = nullptr;
  if (ampi::Pe *pe = ampi::Pe::get_if())
    r = pe->current_if();
  else
    r = ampi::core::creator_rank_any();
  if (!r || ampi::privatize::code().is_library(caller)) return nullptr;
  return &r->privatize.libc;
}

// Runs `f` on the rank's state, under its lock.
template <class F> auto with(RankLibc &s, F f) {
  s.lock.lock();
  struct Unlock {
    RankLibc &s;
    ~Unlock() { s.lock.unlock(); }
  } unlock{s};
  return f(s);
}

// random()'s state, set up as glibc's own is before any call: "as if from initstate(1, table,
// 128)" (glibc's random.c; its static table holds exactly that).
random_data &random_state(RankLibc &s) {
  if (!s.random_ready) {
    ::initstate_r(1, reinterpret_cast<char *>(s.random_table), sizeof s.random_table, &s.random);
    s.random_ready = true;
  }
  return s.random;
}

std::int32_t draw(RankLibc &s) {
  std::int32_t v = 0;
  ::random_r(&random_state(s), &v);
  return v;
}

} // namespace

#define AMPI_CALLER __builtin_return_address(0)

extern "C" {

long random() noexcept {
  if (RankLibc *s = rank_state(AMPI_CALLER)) return with(*s, draw);
  return ampi::privatize::next().random();
}

int rand() noexcept {
  if (RankLibc *s = rank_state(AMPI_CALLER)) return with(*s, draw);
  return ampi::privatize::next().rand();
}

void srandom(unsigned seed) noexcept {
  if (RankLibc *s = rank_state(AMPI_CALLER))
    return with(*s, [seed](RankLibc &st) { ::srandom_r(seed, &random_state(st)); });
  ampi::privatize::next().srandom(seed);
}

void srand(unsigned seed) noexcept {
  if (RankLibc *s = rank_state(AMPI_CALLER))
    return with(*s, [seed](RankLibc &st) { ::srandom_r(seed, &random_state(st)); });
  ampi::privatize::next().srand(seed);
}

// As glibc's: returns the previous state array (the rank's own table at first), or NULL.
char *initstate(unsigned seed, char *state, size_t n) noexcept {
  if (RankLibc *s = rank_state(AMPI_CALLER))
    return with(*s, [&](RankLibc &st) -> char * {
      random_data &d = random_state(st);
      char *old = reinterpret_cast<char *>(&d.state[-1]);
      return ::initstate_r(seed, state, n, &d) == -1 ? nullptr : old;
    });
  return ampi::privatize::next().initstate(seed, state, n);
}

char *setstate(char *state) noexcept {
  if (RankLibc *s = rank_state(AMPI_CALLER))
    return with(*s, [&](RankLibc &st) -> char * {
      random_data &d = random_state(st);
      char *old = reinterpret_cast<char *>(&d.state[-1]);
      return ::setstate_r(state, &d) < 0 ? nullptr : old;
    });
  return ampi::privatize::next().setstate(state);
}

// The drand48 family as glibc writes it (stdlib/drand48.c and friends): the generator's own x for
// drand48/lrand48/mrand48, the caller's xsubi with the rank's a and c (lcong48) for the others.
double drand48() noexcept {
  if (RankLibc *s = rank_state(AMPI_CALLER))
    return with(*s, [](RankLibc &st) {
      double v = 0;
      ::erand48_r(st.drand48.__x, &st.drand48, &v);
      return v;
    });
  return ampi::privatize::next().drand48();
}

double erand48(unsigned short xsubi[3]) noexcept {
  if (RankLibc *s = rank_state(AMPI_CALLER))
    return with(*s, [xsubi](RankLibc &st) {
      double v = 0;
      ::erand48_r(xsubi, &st.drand48, &v);
      return v;
    });
  return ampi::privatize::next().erand48(xsubi);
}

long lrand48() noexcept {
  if (RankLibc *s = rank_state(AMPI_CALLER))
    return with(*s, [](RankLibc &st) {
      long v = 0;
      ::nrand48_r(st.drand48.__x, &st.drand48, &v);
      return v;
    });
  return ampi::privatize::next().lrand48();
}

long nrand48(unsigned short xsubi[3]) noexcept {
  if (RankLibc *s = rank_state(AMPI_CALLER))
    return with(*s, [xsubi](RankLibc &st) {
      long v = 0;
      ::nrand48_r(xsubi, &st.drand48, &v);
      return v;
    });
  return ampi::privatize::next().nrand48(xsubi);
}

long mrand48() noexcept {
  if (RankLibc *s = rank_state(AMPI_CALLER))
    return with(*s, [](RankLibc &st) {
      long v = 0;
      ::jrand48_r(st.drand48.__x, &st.drand48, &v);
      return v;
    });
  return ampi::privatize::next().mrand48();
}

long jrand48(unsigned short xsubi[3]) noexcept {
  if (RankLibc *s = rank_state(AMPI_CALLER))
    return with(*s, [xsubi](RankLibc &st) {
      long v = 0;
      ::jrand48_r(xsubi, &st.drand48, &v);
      return v;
    });
  return ampi::privatize::next().jrand48(xsubi);
}

void srand48(long seed) noexcept {
  if (RankLibc *s = rank_state(AMPI_CALLER))
    return with(*s, [seed](RankLibc &st) { ::srand48_r(seed, &st.drand48); });
  ampi::privatize::next().srand48(seed);
}

// Returns the rank's previous x (in its state, as glibc returns its static one).
unsigned short *seed48(unsigned short seed16v[3]) noexcept {
  if (RankLibc *s = rank_state(AMPI_CALLER))
    return with(*s, [seed16v](RankLibc &st) {
      ::seed48_r(seed16v, &st.drand48);
      return st.drand48.__old_x;
    });
  return ampi::privatize::next().seed48(seed16v);
}

void lcong48(unsigned short param[7]) noexcept {
  if (RankLibc *s = rank_state(AMPI_CALLER))
    return with(*s, [param](RankLibc &st) { ::lcong48_r(param, &st.drand48); });
  ampi::privatize::next().lcong48(param);
}

char *strtok(char *str, const char *delim) noexcept {
  if (RankLibc *s = rank_state(AMPI_CALLER))
    return with(*s, [&](RankLibc &st) { return ::strtok_r(str, delim, &st.strtok_next); });
  return ampi::privatize::next().strtok(str, delim);
}

} // extern "C"
