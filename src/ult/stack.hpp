// src/ult/stack.hpp — the stacks of virtual ranks, in one of two layouts, and what they cost the
// kernel's mapping limit (vm.max_map_count, 65,530 by default).
//
// GuardMode::Page: each stack is its own mmap (MAP_NORESERVE: memory is committed only as the
// rank touches it) above a PROT_NONE guard page, so an overflow faults at the instruction that
// makes it and the PE's SIGSEGV handler names the rank. The guard page is a second protection
// within the mapping, so each stack costs two mappings (VMAs): at most about 32,600 ranks per
// process.
//
// GuardMode::Check: stacks are carved from slabs, one mmap of up to kSlabBytes each, with no
// mprotect at all (any protection change splits a VMA, and so does a PROT_NONE gap between two
// stacks of one reservation), so a slab of 120-odd 8 MiB stacks is one mapping, and neighbouring
// slabs merge into one. Below each stack lies a kCheckGap-byte gap of the same mapping that a
// rank never touches; an overflow is found in software instead: the scheduler checks the stack
// pointer of a task that switches away, and when a task ends, whether any page of its gap became
// resident (mincore). An overflow is thus named when the rank switches or ends, not where it
// happens, and one that goes past the gap may first damage the stack below: that is why
// GuardMode::Page stays the choice wherever its mappings fit (the PE picks, AMPI_STACK_GUARD).
// The gap costs address space only (never committed).
#pragma once

#include <boost/context/stack_context.hpp>

#include <cstddef>
#include <stdexcept>
#include <vector>

namespace ampi::ult {

enum class GuardMode : unsigned char { Page, Check };

// Why a stack could not be made (the mapping limit, the address-space limit, a failed mprotect),
// in words that name the limit.
class StackError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// One stack as a task holds it: Boost's context (sp: the top; size: the usable part and the
// guard below it) and how big the guard below the usable part is.
struct Stack {
  boost::context::stack_context ctx{};
  std::size_t guard = 0; // bytes at the low end that are not usable stack (page or gap)
  GuardMode mode = GuardMode::Page;
  char *low() const noexcept { return static_cast<char *>(ctx.sp) - ctx.size; }
  char *usable_low() const noexcept { return low() + guard; }
};

// What the kernel lets this process map, read when a PE sets up its ranks' stacks.
struct ProcessLimits {
  std::size_t max_map_count = 65530; // /proc/sys/vm/max_map_count
  std::size_t maps_in_use = 0;       // lines of /proc/self/maps
  std::size_t address_limit = 0;     // RLIMIT_AS (ulimit -v) in bytes; 0: unlimited
  std::size_t address_in_use = 0;    // the process's virtual size (/proc/self/statm)
  static ProcessLimits read();
};

class StackPool {
public:
  // mprotect's signature: a test passes one that fails, to reach the error path.
  using ProtectFn = int (*)(void *, std::size_t, int);

  // `size`: each stack's usable size (rounded up to pages; Page mode takes its guard page out of
  // it, as AMPI_STACK_SIZE says "guard page included").
  StackPool(std::size_t size, GuardMode mode, ProtectFn protect = nullptr);
  ~StackPool();
  StackPool(const StackPool &) = delete;
  StackPool &operator=(const StackPool &) = delete;

  // Throws StackError naming the limit that stopped it.
  Stack allocate();
  // Gives the stack's memory back to the kernel (Page: unmapped; Check: MADV_DONTNEED, and the
  // slot is reused by the next allocate()).
  void release(Stack &s) noexcept;

  GuardMode mode() const noexcept { return mode_; }
  // Address space one stack takes, guard or gap included.
  std::size_t reserved_per_stack() const noexcept;
  // Mappings (VMAs) n stacks take: 2 each in Page mode; one per slab in Check mode.
  std::size_t mappings_for(std::size_t n) const noexcept;

  // Check mode: whether a page of the gap below `s` has been touched (an overflow that returned).
  static bool gap_touched(const Stack &s) noexcept;

  // Default usable size: 8 MiB of reserved (not committed) address space, like a main thread's.
  static constexpr std::size_t kDefaultSize = std::size_t{8} << 20;
  // Check mode: the never-touched gap below each stack (as the kernel's stack_guard_gap, 256
  // pages), and the size of one slab.
  static constexpr std::size_t kCheckGap = std::size_t{1} << 20;
  static constexpr std::size_t kSlabBytes = std::size_t{1} << 30;
  static std::size_t page_size() noexcept;

private:
  std::size_t slot_bytes() const noexcept;
  void add_slab();

  std::size_t size_;
  GuardMode mode_;
  ProtectFn protect_;
  struct Slab {
    char *base;
    std::size_t bytes;
  };
  std::vector<Slab> slabs_;  // Check mode: unmapped when the pool goes
  std::vector<char *> free_; // Check mode: lowest address of each free slot
};

} // namespace ampi::ult
