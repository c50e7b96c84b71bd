// src/ult/stack.hpp — the stack of one virtual rank: address space reserved with mmap
// (MAP_NORESERVE, so memory is committed only as the rank touches it) above a guard page that turns
// an overflow into a fault we can name. Models Boost.Context's StackAllocator concept.
#pragma once

#include <boost/context/stack_context.hpp>

#include <cstddef>

namespace ampi::ult {

class StackAllocator {
public:
  explicit StackAllocator(std::size_t size) : size_(size) {}
  boost::context::stack_context allocate();
  void deallocate(boost::context::stack_context &sctx) noexcept;

  // Default usable size: 8 MiB of reserved (not committed) address space, like a main thread's.
  static constexpr std::size_t kDefaultSize = std::size_t{8} << 20;
  static std::size_t page_size() noexcept;

private:
  std::size_t size_;
};

} // namespace ampi::ult
