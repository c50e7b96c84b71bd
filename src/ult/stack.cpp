// src/ult/stack.cpp — mmap-backed rank stacks with a guard page (see stack.hpp).
#include "ult/stack.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <new>

namespace ampi::ult {

std::size_t StackAllocator::page_size() noexcept {
  static const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return page;
}

boost::context::stack_context StackAllocator::allocate() {
  const std::size_t page = page_size();
  const std::size_t usable = (size_ + page - 1) / page * page;
  const std::size_t total = usable + page; // one guard page at the low end
  void *base = ::mmap(nullptr, total, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (base == MAP_FAILED) throw std::bad_alloc();
  ::mprotect(base, page, PROT_NONE);
  boost::context::stack_context sctx;
  sctx.size = total;
  sctx.sp = static_cast<char *>(base) + total; // stacks grow down
  return sctx;
}

void StackAllocator::deallocate(boost::context::stack_context &sctx) noexcept {
  void *base = static_cast<char *>(sctx.sp) - sctx.size;
  ::munmap(base, sctx.size);
}

} // namespace ampi::ult
