// src/devptr_cache/devptr_cache.hpp — is a buffer device or host memory, and copies between any
// two kinds. One DevPtrCache per PE (no locks). Answers:
//  - no libcuda in the process: every pointer is host, at the cost of two loads (cuda_driver.hpp);
//  - otherwise a small cache of whole allocation ranges (interior pointers hit):
//      device/managed entries hold the allocation's CUDA buffer id, checked on every hit (one
//      cuPointerGetAttribute): after cudaFree and reuse of the address, the id differs or is gone,
//      and the entry is dropped and the pointer asked again;
//      host entries (one page) hold the process's mapping generation (mmap_hook.cpp): any new
//      mapping made through mmap (the CUDA driver maps new device and pool memory that way)
//      makes them stale, so host memory reused as device memory is asked again; addresses of
//      device memory seen freed (the driver keeps their range reserved and may reuse it with no
//      new mapping) get no cached host answer (the last 16 such ranges are remembered).
// cudaMalloc and cudaMallocAsync (pool) memory is Device, cudaMallocManaged memory Managed,
// cudaMallocHost (pinned) and malloc memory Host.
#pragma once

#include "copy/copy.hpp"
#include "devptr_cache/copy_ring.h"
#include "devptr_cache/cuda_driver.hpp"
#include "devptr_cache/strided_plan.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ampi::gpu {

enum class MemKind : std::uint8_t { Host, Device, Managed };

inline bool is_device(MemKind k) noexcept {
  return k != MemKind::Host;
}

// Bumped by every mmap/mmap64 made through the dynamic linker (mmap_hook.cpp).
std::uint64_t mapping_generation() noexcept;

// The free device staging buffers of a PE (DevPtrCache::device_buffer), shared with the buffers
// handed out so that one returned after its cache is gone is dropped harmlessly.
struct DevicePool;

// A device staging buffer (cuMemAlloc'ed, of a size class), back to its PE's pool when destroyed:
// a packed non-contiguous send or receive of device data lands here (p2p/data.cpp). Pooled
// because cuMemAlloc takes tens of microseconds and cuMemFree synchronizes the device.
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  DeviceBuffer(DeviceBuffer &&o) noexcept { swap(o); }
  DeviceBuffer &operator=(DeviceBuffer &&o) noexcept {
    DeviceBuffer(std::move(o)).swap(*this);
    return *this;
  }
  ~DeviceBuffer();
  void *get() const noexcept { return reinterpret_cast<void *>(ptr_); }
  std::size_t size() const noexcept { return size_; }
  explicit operator bool() const noexcept { return ptr_ != 0; }

private:
  friend class DevPtrCache;
  void swap(DeviceBuffer &o) noexcept {
    std::swap(pool_, o.pool_);
    std::swap(ctx_, o.ctx_);
    std::swap(ptr_, o.ptr_);
    std::swap(size_, o.size_);
  }
  std::shared_ptr<DevicePool> pool_;
  CUcontext ctx_ = nullptr;
  CUdeviceptr ptr_ = 0;
  std::size_t size_ = 0;
};

// Reports a CUDA call that failed where nothing can recover (naming the call) and aborts the job.
[[noreturn]] void cuda_fail(const char *what, CUresult r);

class DevPtrCache {
public:
  // Streams per context for asynchronous copies, by default: several copies at once go faster.
  static constexpr std::size_t kCopyStreams = 4;
  // What the PE's settings choose (src/settings/settings.def has each one's reason).
  struct Options {
    std::size_t async_bytes = 16 * 1024;     // AMPI_GPU_ASYNC_BYTES: see async_bytes()
    bool device_pack = true;                 // AMPI_GPU_DEVICE_PACK: see can_copy_rects()
    bool device_reduce = true;               // AMPI_GPU_DEVICE_REDUCE: see can_reduce()
    std::size_t copy_streams = kCopyStreams; // streams per context for copy_async
    bool peer_access = true;                 // AMPI_GPU_PEER_ACCESS: see reachable()
    // AMPI_GPU_COPY_KERNEL, AMPI_GPU_COPY_KERNEL_IDLE, AMPI_GPU_COPY_KERNEL_BLOCKS
    // (copy_service.cpp); 0 bytes: no copy kernel.
    std::size_t copy_kernel_bytes = 0;
    unsigned copy_kernel_idle_us = 200;
    unsigned copy_kernel_blocks = 1;
    int host_processes = 1; // the job's processes on this host (copy_service.cpp)
    // AMPI_GPU_COMPLETION_WORDS: the end of our copies and of watched streams is learnt from a
    // word of host memory that the stream (mark_end()) or our strided kernel itself
    // (copy_strided_async) writes, not from cuEventQuery.
    bool completion_words = true;
    // AMPI_GPU_COPY_PRIORITY: our copy streams at the context's greatest priority.
    bool copy_priority = true;
  };
  explicit DevPtrCache(const Options &o);
  ~DevPtrCache();
  DevPtrCache(const DevPtrCache &) = delete;
  DevPtrCache &operator=(const DevPtrCache &) = delete;

  // Trusted stretches. A hit on a device entry is checked with the driver (its buffer id, one
  // cuPointerGetAttribute), as the program may have freed that memory since; with 8 PEs of one
  // process those checks took 33 calls and 15.6 us per rank and iteration of Jacobi3D's exchange,
  // one after another on the rank's thread (0.47 us each, the driver's locks contended; CUPTI,
  // H200, bench/results/2026-11-28-s18-gpu/run3). trust(true) starts a stretch in which the PE
  // runs library code for one MPI call of one rank (src/mpi/common.hpp's Entered, and Pe::block
  // and Pe::yield when the rank resumes inside its call; never on a threaded PE, whose program
  // threads run alongside); trust(false) ends it, when the call returns or the rank switches out.
  // Within a stretch an entry is checked once: no program code runs on this thread, and the memory
  // of operations in flight, which is what a call looks up again and again (its buffers, then the
  // planning of their copies), may not be freed by any. Either call forgets every check made before
  // it.
  void trust(bool on) noexcept {
    trusted_ = on;
    ++trust_epoch_;
  }

  // What kind of memory `p` points into (nullptr and host-only processes: Host).
  MemKind kind(const void *p) {
    if (!p || !cuda_loaded()) return MemKind::Host;
    return lookup(p);
  }

  // The context whose device memory `p` points into (nullptr: host memory, or not known).
  CUcontext context_of(const void *p) {
    if (!is_device(kind(p))) return nullptr;
    return entries_[mru_].ctx; // (kind() left p's entry the most recent)
  }

  // Copies `n` bytes; either side may be device memory (one cuMemcpyAsync on a stream of ours
  // plus a synchronize), host to host is copy::copy (memcpy without rep movsb's slow relative
  // alignments). Aborts the job on a CUDA error.
  void copy(void *dst, MemKind dst_kind, const void *src, MemKind src_kind, std::size_t n) {
    if (is_device(dst_kind) || is_device(src_kind)) [[unlikely]]
      copy_device(dst, dst_kind, src, src_kind, n);
    else
      copy::copy(dst, src, n);
  }

  // Copies pieces [offset, offset + len) of `src` to the same offsets of `dst` (one side device
  // memory): all issued on our stream, then one synchronize, so that a scatter into device memory
  // (the runs of a non-contiguous datatype, p2p/data.hpp) waits once rather than once per piece.
  struct Piece {
    std::ptrdiff_t offset;
    std::size_t len;
  };
  void copy_pieces(void *dst, MemKind dst_kind, const void *src, MemKind src_kind,
                   const Piece *pieces, std::size_t n);

  // ---- device-side packing of non-contiguous datatypes (p2p/data.cpp) ----
  // A strided block of memory (strided_plan.hpp).
  using Rect = gpu::Rect;
  // Whether copy_rects() can run here: AMPI_GPU_DEVICE_PACK is on and the driver has strided
  // copies and cuMemAlloc.
  bool can_copy_rects() const noexcept;
  // Gathers the rects of `strided` (pack) into consecutive bytes at `packed`, or scatters
  // consecutive bytes at `packed` into them (unpack); both are device memory. The kernels of
  // strided_copy.cu do it where this build has them (a face of 65536 rows of 8 bytes is one
  // launch), else the copy engines: one cuMemcpy2DAsync per 2-D rect (a vector's blocks), one
  // cuMemcpy3DAsync per 3-D one (a subarray's face). All on our stream of the context, then one
  // synchronize (no yield: packing also runs in progress callbacks, and a 512 KiB face takes
  // microseconds). False when the driver refuses a copy (a pitch it does not take): the caller
  // stages through the host then, which rewrites everything (pack and unpack are idempotent).
  bool copy_rects(void *packed, void *strided, const Rect *rects, std::size_t n, bool pack);
  // A device buffer of at least `n` bytes in the current context (made current as
  // ensure_context(near) does), from the PE's pool; empty when the driver cannot allocate.
  DeviceBuffer device_buffer(std::size_t n, const void *near);

  // ---- strided copies by kernels (strided_copy.cpp) ----
  // Segments a copy may take (strided_plan.hpp); more, and the callers pack through a buffer.
  static constexpr std::size_t kMaxStridedSegments = 64;
  // Copies packed bytes [0, n) of the rects `src` (from `src_base`) into packed bytes [0, n) of
  // the rects `dst` (from `dst_base`), both plain device memory of the current context (made
  // current as ensure_context(dst_base) does), with strided_copy.cu's kernels on `stream`;
  // returns without waiting. Either side may be another GPU's memory that the current context's
  // kernels can reach (reachable(): a rank of one process copying from the layout of a rank on
  // another GPU). False, with nothing launched, when they do not apply: a side the kernels
  // cannot reach, no kernels in this build or context, AMPI_GPU_DEVICE_PACK=0, more than
  // kMaxStridedSegments segments, or a launch refused (what was launched before it is waited
  // for).
  bool copy_strided(void *dst_base, const Rect *dst, std::size_t nd, const void *src_base,
                    const Rect *src, std::size_t ns, std::size_t n, CUstream stream);
  // Likewise through the context's copy kernel (service_strided: into this context's memory,
  // rows at least 32 units wide, up to AMPI_GPU_COPY_KERNEL bytes) or on one of our copy streams
  // (as copy_async), calling `done` from poll_copies() once the copy has finished; false (nothing
  // started, `done` never called) where copy_strided is.
  bool copy_strided_async(void *dst_base, const Rect *dst, std::size_t nd, const void *src_base,
                          const Rect *src, std::size_t ns, std::size_t n,
                          std::function<void()> done);

  // Whether kernels of the current context `ctx` may read and write the device memory at `p`:
  // memory of `ctx` itself, or a cudaMalloc allocation of another GPU whose context `ctx` has
  // peer access to. Peer access between two GPUs that allow it is enabled here on first need, as
  // NCCL does for the GPUs of one process (AMPI_GPU_PEER_ACCESS=0: never; a program that calls
  // cudaDeviceEnablePeerAccess for that pair afterwards gets cudaErrorPeerAccessAlreadyEnabled).
  // Pool (cudaMallocAsync) and VMM memory follow their own access settings: never reachable
  // here. Where the driver reports the access (CU_POINTER_ATTRIBUTE_ACCESS_FLAGS), it must say
  // read-write.
  bool reachable(const void *p, CUcontext ctx);
  // Before a copy between device memory of two GPUs in `ctx`: peer access between them (as
  // reachable() enables it), so that the copy engines copy over NVLink rather than through host
  // memory. Jacobi3D with face buffers, 8 ranks of one process over two H200s: 0.21-0.24 ms an
  // iteration without (bench/results/2026-11-27-s12-gpu/run1).
  // The contexts come from the entries the caller's kind() just checked (no driver call: on one
  // GPU this costs a scan of the cache).
  void peer_copy(const void *dst, const void *src, CUcontext ctx) {
    const CUcontext a = cached_context(dst), b = cached_context(src);
    if (a && a != ctx) static_cast<void>(reachable(dst, ctx));
    if (b && b != ctx) static_cast<void>(reachable(src, ctx));
  }

  // ---- device-side reductions (reduce_kernels.cpp) ----
  // Whether reduce() can run here: AMPI_GPU_DEVICE_REDUCE is on, this build embeds the kernels
  // (nvcc was found at build time) and the driver loads modules and launches kernels.
  bool can_reduce() const noexcept;
  // Launches the embedded kernel `name` (reduce_kernels.cu: inout[i] = in[i] op inout[i] on `n`
  // elements) on `stream` in the current context (made current as ensure_context(inout) does),
  // loading the module there on first use; returns without waiting. kCudaErrorNotFound when
  // there is no such kernel (the caller reduces on the host then), else the driver's outcome.
  CUresult reduce(const char *name, const void *in, void *inout, std::size_t n, CUstream stream);
  // A device buffer of at least `n` bytes for a reduction's temporaries (as device_buffer(), with
  // no AMPI_GPU_DEVICE_PACK condition); empty when the driver cannot allocate.
  DeviceBuffer scratch_buffer(std::size_t n, const void *near);

  // Starts a copy that involves device memory on one of a few streams of ours (copies started
  // one after another run concurrently) and returns; poll_copies() calls `done` once it has
  // finished. Aborts the job on a CUDA error. Copies into this context's memory, from it or a peer
  // GPU's, go to the resident copy kernel (copy_service.cpp) where it takes them and `by_kernel`
  // allows it.
  void copy_async(void *dst, MemKind dst_kind, const void *src, MemKind src_kind, std::size_t n,
                  std::function<void()> done, bool by_kernel = true);
  // Calls `done` of the copies that have finished; true if there were any.
  bool poll_copies() {
    if (pending_.empty() && !service_waiting_) [[likely]]
      return false;
    return poll_copies_slow();
  }
  std::size_t copies_in_flight() const noexcept { return pending_.size() + service_waiting_; }

  // Calls `done` with the driver's outcome (kCudaSuccess, or the error the stream's work ended
  // in) once the work queued on `stream` so far has finished: an event of ours recorded on it,
  // polled with the copies above (so the PE keeps polling while it waits). False, with `done`
  // never called, when the event cannot be recorded (a bad stream: the caller's own call reports
  // it).
  bool watch_stream(CUstream stream, std::function<void(CUresult)> done);
  // Likewise once the program's `event` has completed (it stays the program's).
  void watch_event(CUevent event, std::function<void(CUresult)> done);
  // A stream of `flags` in the current context (which must exist), destroyed with ours at the
  // end while its context lives; nullptr and the driver's error in `*err` on failure.
  CUstream create_stream(unsigned flags, CUresult *err);
  // Makes our streams of the current context (the one for synchronous copies, the copy streams)
  // and loads the kernels' module there now rather than at the first use: called when a rank
  // makes its own stream or an MPIX stream, early in the program. Made later, while a stream waits
  // for MPI (MPIX_Wait_enqueue), cuStreamCreate could wait behind it: jacobi3d_cuda --enqueue with
  // 8 PEs of one process hung there (H100, bench/results/2026-11-26-s7-gpu/run5).
  void prepare_streams();

  // A word of mapped, pinned host memory that a CUDA stream can wait on (cuStreamWaitValue32):
  // its host address, the device's view of it, and the context its slab was made in.
  struct HostWord {
    std::uint32_t *host = nullptr;
    CUdeviceptr device = 0;
    CUcontext ctx = nullptr;
  };
  // Takes a word, set to 0, from slabs of 64 made in the current context and kept for the PE's
  // life: cuMemFreeHost synchronizes the whole context, and called while other ranks' streams
  // waited on their words for MPI progress of this PE, it never returned (MPIX_Stream_free in
  // jacobi3d_cuda --enqueue --datatypes over 4 PEs of one process, cuda-gdb on an H100,
  // bench/results/2026-11-26-s8-gpu/run1). `*word` owns it: the word goes back to the slabs when
  // the last copy goes (after the cache, it is dropped). kCudaSuccess or the driver's error.
  CUresult take_host_word(std::shared_ptr<std::uint32_t> *word, CUdeviceptr *device);
  // Device memory of the program's (cudaMalloc) that a rank has freed while its process's
  // streams may wait for MPI: given back with cuMemFree when this cache goes (every rank of the
  // job has finished then), not now (cuMemFree waits for every stream of the context; see
  // core/cudart.cpp's cudaFree).
  void defer_free(void *p);

  // Copies of at least this many bytes that complete a message go asynchronously (several at
  // once go faster; smaller ones are quicker done at once): AMPI_GPU_ASYNC_BYTES, default 16 KiB
  // (measured: bench/results/2026-11-22-h200/ipc-async.log).
  std::size_t async_bytes() const noexcept { return async_bytes_; }
  // Whether a copy of n bytes is worth starting in the background (copy_async) rather than at
  // once: at least async_bytes(), or, device to device, small enough for the resident copy kernel
  // (copy_service.cpp: no driver call, where a copy at once would take one that waits for it).
  bool copy_in_background(std::size_t n, MemKind dst, MemKind src) const noexcept {
    return n >= async_bytes_ || (is_device(dst) && is_device(src) && n <= copy_kernel_bytes_);
  }

  // Waits for the work queued on the legacy default stream of the current context (where
  // cudaMemcpy and kernels launched without a stream go): a cudaMemcpy from pageable memory
  // returns before its data has reached the device, so data that another process reads (CUDA
  // IPC) is final only after this. Copies of our own (copy(), copy_async()) are ordered after it
  // anyway: their streams are blocking ones.
  void sync_legacy_stream();

  // Makes a CUDA context current on this thread if none is: the primary context of the device
  // that holds `dev_ptr` (of device 0 for nullptr or host memory), as the CUDA runtime would.
  void ensure_context(const void *dev_ptr) {
    static_cast<void>(stream_for_current_context(dev_ptr));
  }

  // Whether `ctx`, in which this process made CUDA objects of ours (streams, events, IPC
  // mappings), still is the context they were made in. The program may destroy it under us:
  // cudaDeviceReset() after MPI_Finalize (the OSU benchmarks do), or the teardown of a CUDA
  // runtime linked statically into each rank's copy of the program; handles of a destroyed
  // context must never reach the driver again (a SIGSEGV at exit, seen on H100).
  bool context_alive(CUcontext ctx);
  // The current context (made current as ensure_context does), recorded as one of ours.
  CUcontext current_context(const void *dev_ptr) {
    static_cast<void>(stream_for_current_context(dev_ptr));
    return current_;
  }

  // Counters for tests and tuning.
  struct Stats {
    std::uint64_t hits = 0;    // answered from the cache
    std::uint64_t queries = 0; // asked CUDA (cuPointerGetAttributes)
    std::uint64_t stale = 0;   // entries found stale (freed, reused) and dropped
  };
  const Stats &stats() const noexcept { return stats_; }

private:
  struct Entry {
    std::uintptr_t base = 0, end = 0; // [base, end); end == 0: empty
    std::uint64_t stamp = 0;          // device: CUDA buffer id; host: mapping generation
    std::uint64_t checked = 0;        // device: the trust epoch it was last checked in
    MemKind kind = MemKind::Host;
    CUcontext ctx = nullptr; // device: the context the memory was allocated in
  };
  static constexpr std::size_t kEntries = 32;

  MemKind lookup(const void *p);
  // The context of the cached device entry holding `p`, unchecked (nullptr: none cached).
  CUcontext cached_context(const void *p) const noexcept {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    for (const Entry &e : entries_)
      if (a - e.base < e.end - e.base && e.kind != MemKind::Host) return e.ctx;
    return nullptr;
  }
  void copy_device(void *dst, MemKind dst_kind, const void *src, MemKind src_kind, std::size_t n);
  MemKind query(std::uintptr_t a);
  CUstream stream_for_current_context(const void *dev_ptr);

  std::array<Entry, kEntries> entries_{};
  bool trusted_ = false;          // see trust()
  std::uint64_t trust_epoch_ = 1; // bumped by every trust()
  std::size_t mru_ = 0, next_ = 0;
  // Ranges of device entries found stale (freed): host answers there are not cached.
  std::array<std::pair<std::uintptr_t, std::uintptr_t>, 16> freed_{};
  std::size_t freed_next_ = 0;
  bool poll_copies_slow();

  // A context we made objects in. We hold a reference on a primary context (released last), so
  // that a CUDA runtime releasing its own (a static one in a rank's copy of the program, at that
  // rank's end) leaves our objects valid; cudaDeviceReset destroys it regardless, which `id`
  // tells (a context made again may have the same handle, never the same id).
  struct Context {
    CUcontext ctx = nullptr;
    unsigned long long id = 0; // cuCtxGetId; 0 where the driver has none
    CUdevice device = 0;
    bool primary = false; // we hold a reference on it
  };
  // The record of the current context `ctx`; a record of an earlier context at the same handle
  // is dropped with its objects (they died with it).
  void record_context(CUcontext ctx);
  void forget_context(CUcontext ctx) noexcept;
  std::vector<Context> contexts_;
  CUcontext current_ = nullptr; // the last context stream_for_current_context() found

  std::vector<std::pair<CUcontext, CUstream>> streams_;
  std::vector<std::pair<CUcontext, CUstream>> created_streams_; // create_stream()
  // Asynchronous copies: copy_streams_ streams per context (kCopyStreams unless the PE says
  // otherwise), used in turn; events recycled.
  std::size_t copy_streams_per_ctx_;
  // Makes those of `ctx`'s copy streams that do not exist yet.
  void make_copy_streams(CUcontext ctx);
  struct Pending {
    CUevent event = nullptr;    // nullptr where `word` tells (a watched stream may have both)
    std::function<void()> done; // a copy of ours: called when it has finished
    std::function<void(CUresult)> watched; // watch_stream/watch_event: called with the outcome
    bool ours = true;                      // the event is ours (recycled), not the program's
    // The stream the event was recorded on (nullptr: unknown, a program's event). Events of one
    // stream complete in the order they were recorded, which is their order here: a poll asks
    // the driver only up to a stream's first unfinished one.
    CUstream stream = nullptr;
    // The context an event of ours belongs to, for reuse there only (the thread's current context
    // when it completes may be another: ranks of one process on two GPUs).
    CUcontext ctx = nullptr;
    // AMPI_GPU_COMPLETION_WORDS: the host word the stream sets (non-zero) once the work is done,
    // and the polls that found it unset (now and then the stream is asked: an error never sets
    // it).
    std::shared_ptr<std::uint32_t> word;
    unsigned polls = 0;
  };
  // Marks the end of the work queued on `s` so far for `p`: a host word the stream writes, or
  // failing that an event of ours recorded on it. The driver's error if neither could be queued.
  CUresult mark_end(CUcontext ctx, CUstream s, Pending &p);
  // Records an event of ours (recycled) on `s` into `p.event`; the driver's error if it cannot.
  CUresult record_event(CUcontext ctx, CUstream s, Pending &p);
  // Whether `p`'s work has ended: kCudaSuccess, kCudaErrorNotReady, or the error it ended in.
  CUresult query_end(Pending &p);
  // take_host_word's word for `ctx`, without what waiting on it implies.
  CUresult host_word(CUcontext ctx, std::shared_ptr<std::uint32_t> *word, CUdeviceptr *device);
  std::vector<std::pair<CUcontext, CUstream>> copy_streams_;
  std::size_t next_copy_stream_ = 0;
  // The resident copy kernel of each context (copy_service.cpp): copies into the context's memory
  // up to copy_kernel_bytes_ go through its ring, without a driver call each.
  struct CopyService {
    CUcontext ctx = nullptr;
    ::ampi_copy_ring *ring = nullptr; // page-locked host memory (copy_ring.h)
    CUdeviceptr ring_dev = 0;         // its device mapping
    CUstream stream = nullptr;        // non-blocking: the legacy stream never waits for it
    CUfunction fn = nullptr;
    unsigned blocks = 1;        // the kernel's blocks (copy_ring.h's ampi_copy_grid when > 1)
    CUdeviceptr grid = 0;       // that device memory (0 with one block)
    std::uint64_t head = 0;     // descriptors handed over
    std::uint64_t launched = 0; // the generation of the last launch (the ring's `exited` when
                                // none runs)
    // Descriptor number + 1 and what to call once it is done, in order (not done yet).
    std::deque<std::pair<std::uint64_t, std::function<void()>>> waiting;
  };
  std::vector<std::unique_ptr<CopyService>> services_;
  std::size_t service_waiting_ = 0; // copies handed to a copy kernel and not yet finished
  bool stream_waits_ = false;       // take_host_word() was called: streams may wait for MPI
  std::size_t copy_kernel_bytes_;
  unsigned copy_kernel_idle_us_;
  unsigned copy_kernel_blocks_;
  int host_processes_; // the job's processes on this host (copy_service.cpp)
  // copy_strided's halves (strided_copy.cpp): the plan of a copy between two layouts that kernels
  // of `ctx` reach, its unit in bytes (0: they do not reach both, or it takes more than
  // kMaxStridedSegments segments); and its launch on `stream`, one kernel a segment.
  std::size_t plan_strided(CUcontext ctx, void *dst_base, const Rect *dst, std::size_t nd,
                           const void *src_base, const Rect *src, std::size_t ns, std::size_t n,
                           std::vector<StridedSegment> &plan);
  // With `done` (a host word's device address), the last segment's kernel sets it once it has
  // finished, counting its blocks in `arrived` (block_counter()).
  bool launch_strided(std::size_t unit, std::vector<StridedSegment> &plan, CUstream stream,
                      CUdeviceptr arrived = 0, CUdeviceptr done = 0);
  // The device word in which a strided kernel on copy stream `s` of `ctx` counts its finished
  // blocks (made and zeroed on `s` on first use); 0 where host words are off or it cannot be.
  CUdeviceptr block_counter(CUcontext ctx, CUstream s);
  struct BlockCounter {
    CUcontext ctx;
    CUstream stream;
    CUdeviceptr counter;
  };
  std::vector<BlockCounter> block_counters_;
  // Hands the copy to `ctx`'s copy kernel (started if it is not running); false, with nothing
  // started, where it does not apply (too large, off, no kernel, its ring full).
  bool service_copy(CUcontext ctx, void *dst, MemKind dst_kind, const void *src, MemKind src_kind,
                    std::size_t n, std::function<void()> &done);
  // Likewise a strided copy planned by plan_strided (`unit`, `plan`: n bytes into `dst_base`),
  // one descriptor per segment: its kernel launches cost a driver call each (8.0 us with 8 PEs
  // of one process, 3.9 us with one, CUPTI, H100), and Jacobi3D's --datatypes faces between ranks
  // of one process are such copies.
  bool service_strided(CUcontext ctx, const void *dst_base, std::size_t n, std::size_t unit,
                       const std::vector<StridedSegment> &plan, std::function<void()> &done);
  // `ctx`'s copy kernel where it may take a copy of n bytes (nullptr: too large, off, none here).
  CopyService *service_taking(CUcontext ctx, std::size_t n);
  // The ring's free slots; a descriptor into the next one; `done` to be called once every
  // descriptor posted so far is done, and the kernel started if it is not running.
  static std::size_t free_slots(const CopyService &sv);
  static void post(CopyService &sv, const ::ampi_copy_slot &desc);
  void started(CopyService &sv, std::function<void()> &done);
  bool poll_services();
  // `ctx`'s copy kernel, its ring and stream made on first use.
  CopyService *service_for(CUcontext ctx);
  // Launches the next generation of `sv`'s kernel, starting at the ring's `done`.
  CUresult launch_service(CopyService &sv);
  void close_services(CUcontext ctx, bool alive) noexcept;
  std::vector<Pending> pending_;
  std::vector<std::pair<CUcontext, CUevent>> free_events_;
  std::size_t async_bytes_;
  bool device_pack_;
  bool device_reduce_;
  bool peer_access_;
  bool completion_words_;
  bool copy_priority_;
  // Pairs (this context, the peer's) whose peer access this PE has tried to enable (once each),
  // and whether it is on.
  struct PeerPair {
    CUcontext ctx, peer;
    bool on;
  };
  std::vector<PeerPair> peers_;
  // The embedded kernel `name` in the current context, loading the module there on first use
  // (kernels.cpp); nullptr when this build, the GPU or the driver has none.
  CUfunction kernel(const char *name);
  // A copy stream of `ctx` (made on first use), the next in turn.
  CUstream next_copy_stream(CUcontext ctx);
  // Marks the end of the work just queued on `s` (mark_end) and calls `done` from poll_copies()
  // once it has completed; with `word`, that work sets the word itself and nothing is queued.
  void track(CUcontext ctx, CUstream s, std::function<void()> done,
             std::shared_ptr<std::uint32_t> word = {});
  // The kernels' module per context, and the functions looked up in it (by name).
  struct Kernel {
    CUcontext ctx;
    std::string name;
    CUfunction fn; // nullptr: the module has no such kernel
  };
  std::vector<std::pair<CUcontext, CUmodule>> modules_;
  std::vector<Kernel> kernels_;
  std::shared_ptr<DevicePool> pool_;
  Stats stats_;
};

} // namespace ampi::gpu
