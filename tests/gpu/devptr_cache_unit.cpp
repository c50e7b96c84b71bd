// tests/gpu/devptr_cache_unit.cpp — unit test of src/devptr_cache on its own (no MPI). Without
// libcuda in the process every pointer is host and CUDA is never asked; the mapping generation
// moves with every mmap. Where a GPU is there it also checks device, managed, pinned and pool
// memory, interior-pointer hits, and fresh answers after free and reuse.
#include "devptr_cache/devptr_cache.hpp"

#include <dlfcn.h>
#include <sys/mman.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

using ampi::gpu::DevPtrCache;
using ampi::gpu::MemKind;

static int failures = 0;
#define CHECK(c)                                                                                   \
  do {                                                                                             \
    if (!(c)) {                                                                                    \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);                   \
      ++failures;                                                                                  \
    }                                                                                              \
  } while (0)

int main() {
  // --- host only: no libcuda loaded -----------------------------------------------------------
  const bool had_cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD) != nullptr;
  CHECK(!had_cuda);
  DevPtrCache cache({}); // the settings' defaults
  std::vector<char> heap(1 << 20);
  int on_stack = 0;
  CHECK(cache.kind(heap.data()) == MemKind::Host);
  CHECK(cache.kind(heap.data() + 12345) == MemKind::Host);
  CHECK(cache.kind(&on_stack) == MemKind::Host);
  CHECK(cache.kind(nullptr) == MemKind::Host);
  CHECK(cache.stats().queries == 0);
  // A library loaded after the first look is noticed (and is not libcuda).
  CHECK(dlopen("libm.so.6", RTLD_NOW) != nullptr);
  CHECK(!ampi::gpu::cuda_loaded());
  // The cost stays a few loads: 10 million answers well under a second even on a loaded VM.
  auto t0 = std::chrono::steady_clock::now();
  unsigned dev = 0;
  for (int i = 0; i < 10000000; ++i)
    dev += cache.kind(heap.data() + (i & 4095)) != MemKind::Host;
  const double ns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / 1e7;
  CHECK(dev == 0);
  CHECK(ns < 100.0);
  // Host-to-host copies are plain copies.
  std::vector<char> other(100, 'x');
  cache.copy(heap.data(), MemKind::Host, other.data(), MemKind::Host, other.size());
  CHECK(heap[99] == 'x');
  // Every mmap moves the mapping generation.
  const auto g0 = ampi::gpu::mapping_generation();
  void *m = mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(m != MAP_FAILED);
  CHECK(ampi::gpu::mapping_generation() > g0);
  munmap(m, 4096);
  std::printf("host only: %.2f ns per answer, %llu CUDA queries\n", ns,
              static_cast<unsigned long long>(cache.stats().queries));

  // --- with a GPU ----------------------------------------------------------------------------
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  using Fn = int (*)(...);
  auto sym = [&](const char *n) { return reinterpret_cast<Fn>(dlsym(h, n)); };
  int ndev = 0, devh = 0;
  void *ctx = nullptr;
  if (!h || sym("cuInit")(0) != 0 || sym("cuDeviceGetCount")(&ndev) != 0 || ndev == 0) {
    if (failures) return 1;
    std::printf("ok devptr_cache_unit (host only: no GPU here)\n");
    return 0;
  }
  CHECK(ampi::gpu::cuda_loaded());
  CHECK(sym("cuDeviceGet")(&devh, 0) == 0);
  CHECK(sym("cuDevicePrimaryCtxRetain")(&ctx, devh) == 0);
  CHECK(sym("cuCtxSetCurrent")(ctx) == 0);
  std::uintptr_t d = 0;
  CHECK(sym("cuMemAlloc_v2")(&d, std::size_t{1} << 20) == 0);
  auto *dp = reinterpret_cast<char *>(d);
  CHECK(cache.kind(dp) == MemKind::Device);
  const auto q = cache.stats().queries;
  CHECK(cache.kind(dp + 777) == MemKind::Device); // interior pointer: a hit
  CHECK(cache.kind(dp + (1 << 20) - 1) == MemKind::Device);
  CHECK(cache.stats().queries == q);
  // Host answers are cached too (while no new mapping appears).
  std::vector<char> h2(64);
  CHECK(cache.kind(h2.data()) == MemKind::Host);
  const auto q2 = cache.stats().queries;
  CHECK(cache.kind(h2.data() + 1) == MemKind::Host);
  CHECK(cache.stats().queries == q2);
  // Device to host and back through the cache's copy.
  std::vector<char> src(1 << 20, 'a'), back(1 << 20, 0);
  cache.copy(dp, MemKind::Device, src.data(), MemKind::Host, src.size());
  cache.copy(back.data(), MemKind::Host, dp, MemKind::Device, back.size());
  CHECK(back[0] == 'a' && back[(1 << 20) - 1] == 'a');
  // Freed: never Device from a stale entry; reallocated: a fresh answer.
  CHECK(sym("cuMemFree_v2")(d) == 0);
  CHECK(cache.kind(dp) == MemKind::Host);
  CHECK(cache.stats().stale >= 1);
  std::uintptr_t d2 = 0;
  CHECK(sym("cuMemAlloc_v2")(&d2, std::size_t{1} << 20) == 0);
  CHECK(cache.kind(reinterpret_cast<void *>(d2)) == MemKind::Device);
  std::uintptr_t mg = 0;
  CHECK(sym("cuMemAllocManaged")(&mg, 4096, 1) == 0);
  CHECK(cache.kind(reinterpret_cast<void *>(mg)) == MemKind::Managed);
  void *pinned = nullptr;
  CHECK(sym("cuMemAllocHost_v2")(&pinned, 4096) == 0);
  CHECK(cache.kind(pinned) == MemKind::Host);
  std::uintptr_t pool = 0;
  CHECK(sym("cuMemAllocAsync")(&pool, 4096, nullptr) == 0);
  CHECK(sym("cuStreamSynchronize")(nullptr) == 0);
  CHECK(cache.kind(reinterpret_cast<void *>(pool + 100)) == MemKind::Device);
  CHECK(sym("cuMemFreeAsync")(pool, nullptr) == 0);
  CHECK(sym("cuStreamSynchronize")(nullptr) == 0);
  auto t1 = std::chrono::steady_clock::now();
  for (int i = 0; i < 100000; ++i)
    dev += cache.kind(reinterpret_cast<void *>(d2 + (i & 4095))) == MemKind::Device;
  const double dns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t1).count() / 1e5;
  CHECK(dev == 100000);
  std::printf("device: %.1f ns per cached answer (buffer id checked)\n", dns);
  sym("cuMemFree_v2")(d2);
  sym("cuMemFree_v2")(mg);
  sym("cuMemFreeHost")(pinned);
  if (failures) return 1;
  std::printf("ok devptr_cache_unit (host and GPU)\n");
  return 0;
}
