// src/devptr_cache/mmap_hook.cpp — counts the memory mappings made in the process, so that the
// pointer cache's host answers go stale when new memory appears (the CUDA driver maps device,
// managed and pool memory with mmap through the dynamic linker). libampi.so exports mmap and
// mmap64 (libampi.map); they count and then make the system call themselves, exactly as libc's
// would. The counter is process-wide by nature: a mapping is the process's.
#include "devptr_cache/devptr_cache.hpp"

#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include <atomic>

namespace ampi::gpu {
namespace {
std::atomic<std::uint64_t> generation{1};
} // namespace

std::uint64_t mapping_generation() noexcept {
  return generation.load(std::memory_order_acquire);
}

} // namespace ampi::gpu

namespace {
void *map(void *addr, std::size_t len, int prot, int flags, int fd, off_t off) noexcept {
  ampi::gpu::generation.fetch_add(1, std::memory_order_acq_rel);
  return reinterpret_cast<void *>(syscall(SYS_mmap, addr, len, prot, flags, fd, off));
}
} // namespace

extern "C" {
void *mmap(void *addr, std::size_t len, int prot, int flags, int fd, off_t off) noexcept {
  return map(addr, len, prot, flags, fd, off);
}
void *mmap64(void *addr, std::size_t len, int prot, int flags, int fd, off_t off) noexcept {
  return map(addr, len, prot, flags, fd, off);
}
}
