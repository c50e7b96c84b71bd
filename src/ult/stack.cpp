// src/ult/stack.cpp — rank stacks: one mapping with a guard page each, or carved from slabs with
// a software-checked gap (see stack.hpp).
#include "ult/stack.hpp"

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

namespace ampi::ult {

namespace {

// A task that finishes never returns from its first frame (Task::entry jumps to the scheduler),
// so AddressSanitizer's poison of that frame's redzones, and of any frame abandoned by a switch,
// stays in the shadow of its stack after the stack is unmapped or its slot freed. Whatever is
// mapped there next by a path ASan does not intercept (ld.so's mmap for dlopen, UCX's own
// mmap) then reads as a stack overflow. That is the likely cause of a CI failure of
// `conf_p2p.np2.vp9` under ASan: "stack-buffer-overflow, READ of size 43" after its ranks had
// finished, on the PE's own stack reading 192 bytes below a page boundary (where a rank stack's
// first frame sits); tests/ult's GivenBackStackCarriesNoPoison reproduces the mechanism. The
// shadow is cleared whenever stack memory is given back. No-op without ASan.
void forget_poison(void *p, std::size_t bytes) noexcept {
#if defined(__SANITIZE_ADDRESS__)
  __asan_unpoison_memory_region(p, bytes);
#else
  (void)p;
  (void)bytes;
#endif
}

std::string mib(std::size_t bytes) {
  return std::to_string(bytes >> 20) + " MiB";
}

// The words for a failed mmap: ENOMEM is the address-space limit (ulimit -v) or the mapping
// limit (vm.max_map_count); the caller's start-up check names which in advance, this is the
// fallback when something else took the room meanwhile.
[[noreturn]] void mmap_failed(std::size_t bytes, int err) {
  std::string why = "cannot map " + mib(bytes) + " for a rank stack: " + std::strerror(err);
  if (err == ENOMEM)
    why += " (the process's address space, ulimit -v, or its number of mappings, "
           "sysctl vm.max_map_count, is exhausted: run fewer ranks per process or lower "
           "AMPI_STACK_SIZE)";
  throw StackError(why);
}

} // namespace

ProcessLimits ProcessLimits::read() {
  ProcessLimits l;
  if (std::FILE *f = std::fopen("/proc/sys/vm/max_map_count", "r")) {
    unsigned long long v = 0;
    if (std::fscanf(f, "%llu", &v) == 1) l.max_map_count = static_cast<std::size_t>(v);
    std::fclose(f);
  }
  if (std::FILE *f = std::fopen("/proc/self/maps", "r")) {
    char buf[1 << 16];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
      l.maps_in_use += static_cast<std::size_t>(std::count(buf, buf + n, '\n'));
    std::fclose(f);
  }
  if (rlimit r{}; ::getrlimit(RLIMIT_AS, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
    l.address_limit = static_cast<std::size_t>(r.rlim_cur);
  if (std::FILE *f = std::fopen("/proc/self/statm", "r")) {
    unsigned long long pages = 0;
    if (std::fscanf(f, "%llu", &pages) == 1)
      l.address_in_use = static_cast<std::size_t>(pages) * StackPool::page_size();
    std::fclose(f);
  }
  return l;
}

std::size_t StackPool::page_size() noexcept {
  static const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return page;
}

StackPool::StackPool(std::size_t size, GuardMode mode, ProtectFn protect)
    : size_((size + page_size() - 1) / page_size() * page_size()), mode_(mode),
      protect_(protect ? protect : &::mprotect) {
  if (mode_ == GuardMode::Page && size_ < 2 * page_size()) size_ = 2 * page_size();
}

StackPool::~StackPool() {
  for (const Slab &s : slabs_) {
    forget_poison(s.base, s.bytes);
    ::munmap(s.base, s.bytes);
  }
}

std::size_t StackPool::slot_bytes() const noexcept {
  return mode_ == GuardMode::Page ? size_ : size_ + kCheckGap;
}

std::size_t StackPool::reserved_per_stack() const noexcept {
  return slot_bytes();
}

std::size_t StackPool::mappings_for(std::size_t n) const noexcept {
  if (mode_ == GuardMode::Page) return 2 * n;
  const std::size_t per_slab = std::max<std::size_t>(1, kSlabBytes / slot_bytes());
  return (n + per_slab - 1) / per_slab;
}

void StackPool::add_slab() {
  const std::size_t slot = slot_bytes();
  const std::size_t n = std::max<std::size_t>(1, kSlabBytes / slot);
  const std::size_t bytes = n * slot;
  void *base = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (base == MAP_FAILED) mmap_failed(bytes, errno);
  // Transparent huge pages would commit 2 MiB where a rank touches a few KiB of its stack top (a
  // slab is big and aligned enough for them; a separate 8 MiB mapping rarely got them). Same
  // flags on every slab: neighbouring slabs still merge into one mapping.
  (void)::madvise(base, bytes, MADV_NOHUGEPAGE);
  slabs_.push_back({static_cast<char *>(base), bytes});
  // Handed out lowest first (free_ is used from its back).
  for (std::size_t i = n; i-- > 0;)
    free_.push_back(static_cast<char *>(base) + i * slot);
}

Stack StackPool::allocate() {
  Stack s;
  s.mode = mode_;
  const std::size_t page = page_size();
  if (mode_ == GuardMode::Page) {
    void *base = ::mmap(nullptr, size_, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (base == MAP_FAILED) mmap_failed(size_, errno);
    // Unchecked, a failed mprotect (ENOMEM when the split would pass vm.max_map_count) left a
    // stack without a guard: an overflow then silently ran into whatever lay below.
    if (protect_(base, page, PROT_NONE) != 0) {
      const int err = errno;
      ::munmap(base, size_);
      throw StackError(std::string("cannot set up a rank stack's guard page (mprotect: ") +
                       std::strerror(err) +
                       (err == ENOMEM ? "; the process's number of mappings, sysctl "
                                        "vm.max_map_count, is exhausted: run fewer ranks per "
                                        "process, or AMPI_STACK_GUARD=check)"
                                      : ")"));
    }
    s.ctx.size = size_;
    s.ctx.sp = static_cast<char *>(base) + size_; // stacks grow down
    s.guard = page;
    return s;
  }
  if (free_.empty()) add_slab();
  char *low = free_.back();
  free_.pop_back();
  s.ctx.size = slot_bytes();
  s.ctx.sp = low + slot_bytes();
  s.guard = kCheckGap;
  return s;
}

void StackPool::release(Stack &s) noexcept {
  if (!s.ctx.sp) return;
  forget_poison(s.low(), s.ctx.size);
  if (s.mode == GuardMode::Page) {
    ::munmap(s.low(), s.ctx.size);
  } else {
    (void)::madvise(s.low(), s.ctx.size, MADV_DONTNEED); // the memory back, the slot kept
    free_.push_back(s.low());
  }
  s.ctx.sp = nullptr;
}

bool StackPool::gap_touched(const Stack &s) noexcept {
  if (s.mode != GuardMode::Check) return false;
  const std::size_t pages = s.guard / page_size();
  std::vector<unsigned char> resident(pages);
  if (::mincore(s.low(), s.guard, resident.data()) != 0) return false;
  return std::any_of(resident.begin(), resident.end(), [](unsigned char c) { return c & 1; });
}

} // namespace ampi::ult
