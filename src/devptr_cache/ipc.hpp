// src/devptr_cache/ipc.hpp — CUDA IPC: device memory of one process read and written by another
// process of the same host, with no copy through host memory. One IpcCache per PE (no locks).
//  - Exporting (describe): the IPC handle of the allocation that holds a device pointer, and
//    the pointer's offset in it. Handles are cached per allocation and checked by CUDA buffer id
//    on every use, like DevPtrCache's entries, so a freed and reused address is described anew.
//    Memory that CUDA cannot export this way (cudaMallocAsync pools, managed memory, VMM
//    mappings) is reported as such, and callers use another way.
//  - Importing (resolve): the address, in this process, of memory another process described.
//    Opened handles stay mapped and are cached: the last kOpen unpinned ones are kept, older ones
//    closed; pinned ones (a window's memory) stay until unpinned. Memory described by this
//    process itself resolves to its own address.
//    A handle names a place in the exporter's memory (its block, the allocation's offset and
//    size: measured on H100, driver 580), not an allocation: freed and allocated again at the
//    same place, the new allocation has the same handle, while a mapping made before may still
//    show the old memory (and the driver hands out the mapping already open for equal handles).
//    So each description carries the allocation's CUDA buffer id (unique in its process), and a
//    cached mapping is used only for the same process and buffer id; a stale one is closed and
//    the handle opened anew.
#pragma once

#include "devptr_cache/devptr_cache.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ampi::gpu {

// What one process tells another about a device buffer (plain bytes: travels in messages).
struct IpcRef {
  IpcMemHandle handle;     // the allocation's handle (unset when `exported` is 0)
  std::uint64_t offset;    // of the buffer in the allocation
  std::uint64_t address;   // the buffer's address in the describing process
  std::uint64_t buffer_id; // the allocation's CUDA buffer id there
  std::int32_t pid;        // the describing process
  std::int32_t exported;   // 1: handle is valid
};

class IpcCache {
public:
  explicit IpcCache(DevPtrCache &mem) : mem_(mem) {}
  ~IpcCache();
  IpcCache(const IpcCache &) = delete;
  IpcCache &operator=(const IpcCache &) = delete;

  // Describes device buffer `p` (cudaMalloc memory) for another process; false when CUDA cannot
  // export its allocation.
  bool describe(const void *p, IpcRef *out);

  // The address here of the buffer `r` describes; nullptr when it cannot be opened (`*err` says
  // why). The mapping stays valid until kOpen other handles have been resolved since, unless
  // pinned.
  void *resolve(const IpcRef &r, CUresult *err);
  // Whether `r` describes memory of this process (resolve and pin then return its own address).
  static bool same_process(const IpcRef &r) noexcept;
  // Like resolve, and the mapping stays until unpin(r) (for memory used for a long time).
  void *pin(const IpcRef &r, CUresult *err);
  void unpin(const IpcRef &r) noexcept;

  struct Stats {
    std::uint64_t exports = 0; // cuIpcGetMemHandle calls
    std::uint64_t opens = 0;   // cuIpcOpenMemHandle calls
  };
  const Stats &stats() const noexcept { return stats_; }

private:
  struct Export {
    std::uintptr_t base = 0, end = 0; // the allocation; end == 0: empty
    std::uint64_t id = 0;             // its CUDA buffer id
    IpcMemHandle handle{};
    bool ok = false; // false: CUDA cannot export it
  };
  struct Open {
    std::int32_t pid = 0;
    std::uint64_t buffer_id = 0;
    IpcMemHandle handle{};
    CUdeviceptr base = 0;
    CUcontext ctx = nullptr; // mapped in this context (closed only while it lives)
    std::uint64_t used = 0;  // when last resolved (a counter)
    int pins = 0;
  };
  static constexpr std::size_t kExports = 16;
  static constexpr std::size_t kOpen = 64;

  Open *find_or_open(const IpcRef &r, CUresult *err);

  DevPtrCache &mem_;
  Export exports_[kExports];
  std::size_t next_export_ = 0;
  std::vector<Open> open_;
  std::uint64_t clock_ = 0;
  Stats stats_;
};

} // namespace ampi::gpu
