// src/devptr_cache/devptr_cache.cpp — the PE's cache of memory kinds by allocation range, and
// copies that may touch device memory (see devptr_cache.hpp).
#include "devptr_cache/devptr_cache.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace ampi::gpu {

namespace {

constexpr std::uintptr_t kPage = 4096;

} // namespace

void cuda_fail(const char *what, CUresult r) {
  std::fprintf(stderr, "ampi: %s failed: %s (CUDA error %d)\n", what, cuda_error_string(r), r);
  std::fflush(stderr);
  std::abort();
}

static_assert(sizeof(Memcpy2D) == 128 && sizeof(Memcpy3D) == 200, "cuda.h's CUDA_MEMCPY2D/3D_v2");

struct DevicePool {
  struct Block {
    CUcontext ctx = nullptr;
    CUdeviceptr ptr = 0;
    std::size_t size = 0;
  };
  std::vector<Block> free;
  std::size_t free_bytes = 0;
  bool closed = false; // its cache is gone: buffers returned now are dropped (their context may be)
  // take_host_word's slabs (from cuMemHostAlloc: host addresses) and free words.
  std::vector<std::pair<CUcontext, void *>> word_slabs;
  std::vector<DevPtrCache::HostWord> free_words;
  // defer_free's memory, by context.
  std::vector<std::pair<CUcontext, CUdeviceptr>> deferred;
};

namespace {
// Free staging kept per PE beyond this is given back (cuMemFree, which synchronizes the device).
constexpr std::size_t kPoolKeep = std::size_t{256} << 20;
// Size classes: powers of two from 64 KiB.
std::size_t size_class(std::size_t n) {
  std::size_t c = 64 * 1024;
  while (c < n)
    c *= 2;
  return c;
}
} // namespace

DeviceBuffer::~DeviceBuffer() {
  if (!ptr_ || !pool_ || pool_->closed) return;
  pool_->free.push_back({ctx_, ptr_, size_});
  pool_->free_bytes += size_;
  if (pool_->free_bytes <= kPoolKeep) return;
  // The oldest free buffers of this context go (those of another context wait for a return there).
  const Driver &d = driver();
  CUcontext cur = nullptr;
  if (d.cuCtxGetCurrent(&cur) != kCudaSuccess) return;
  std::erase_if(pool_->free, [&](const DevicePool::Block &b) {
    if (pool_->free_bytes <= kPoolKeep || b.ctx != cur) return false;
    pool_->free_bytes -= b.size;
    static_cast<void>(d.cuMemFree(b.ptr));
    return true;
  });
}

DevPtrCache::DevPtrCache(const Options &o)
    : copy_streams_per_ctx_(o.copy_streams ? o.copy_streams : 1),
      copy_kernel_bytes_(o.copy_kernel_bytes), copy_kernel_idle_us_(o.copy_kernel_idle_us),
      copy_kernel_blocks_(o.copy_kernel_blocks ? o.copy_kernel_blocks : 1),
      host_processes_(o.host_processes), async_bytes_(o.async_bytes), device_pack_(o.device_pack),
      device_reduce_(o.device_reduce), peer_access_(o.peer_access),
      completion_words_(o.completion_words), copy_priority_(o.copy_priority),
      pool_(std::make_shared<DevicePool>()) {
}

DevPtrCache::~DevPtrCache() {
  // Runs before exit() (the PE is gone before the process's exit handlers and libcuda's own
  // teardown). Objects of contexts the program has destroyed are dropped without a driver call.
  pool_->closed = true;
  if (contexts_.empty()) return;
  while (!services_.empty()) {
    const CUcontext ctx = services_.front()->ctx;
    close_services(ctx, context_alive(ctx));
  }
  const Driver &d = driver();
  for (const Context &c : contexts_) {
    if (!context_alive(c.ctx)) continue;
    for (const DevicePool::Block &b : pool_->free)
      if (b.ctx == c.ctx) static_cast<void>(d.cuMemFree(b.ptr));
    for (auto &[ctx, s] : streams_)
      if (ctx == c.ctx) static_cast<void>(d.cuStreamDestroy(s));
    for (auto &[ctx, s] : copy_streams_)
      if (ctx == c.ctx) static_cast<void>(d.cuStreamDestroy(s));
    for (auto &[ctx, s] : created_streams_)
      if (ctx == c.ctx) static_cast<void>(d.cuStreamDestroy(s));
    for (auto &[ctx, e] : free_events_)
      if (ctx == c.ctx) static_cast<void>(d.cuEventDestroy(e));
    for (auto &[ctx, m] : modules_)
      if (ctx == c.ctx) static_cast<void>(d.cuModuleUnload(m));
    for (auto &[ctx, slab] : pool_->word_slabs)
      if (ctx == c.ctx) static_cast<void>(d.cuMemFreeHost(slab));
    for (auto &[ctx, mem] : pool_->deferred)
      if (ctx == c.ctx) static_cast<void>(d.cuMemFree(mem));
    for (const BlockCounter &b : block_counters_)
      if (b.ctx == c.ctx) static_cast<void>(d.cuMemFree(b.counter));
  }
  // (Events of copies still pending belong to requests the program never completed: they go with
  // their contexts.) Our references last: releasing is safe after a reset too (the driver's
  // documentation).
  for (const Context &c : contexts_)
    if (c.primary) static_cast<void>(d.cuDevicePrimaryCtxRelease(c.device));
}

bool DevPtrCache::context_alive(CUcontext ctx) {
  const Context *c = nullptr;
  for (const Context &x : contexts_)
    if (x.ctx == ctx) c = &x;
  if (!c) return false;
  const Driver &d = driver();
  if (c->primary) {
    // Reset (cudaDeviceReset): inactive until something uses the device again, and then another
    // context, whatever its handle. The live primary context is asked through a reference of
    // its own, never through a handle that may be stale.
    unsigned flags = 0;
    int active = 0;
    if (d.cuDevicePrimaryCtxGetState(c->device, &flags, &active) != kCudaSuccess || !active)
      return false;
    if (!d.cuCtxGetId) return true;
    CUcontext now = nullptr;
    unsigned long long id = 0;
    if (d.cuDevicePrimaryCtxRetain(&now, c->device) != kCudaSuccess) return false;
    const bool same = now == ctx && d.cuCtxGetId(now, &id) == kCudaSuccess && id == c->id;
    static_cast<void>(d.cuDevicePrimaryCtxRelease(c->device));
    return same;
  }
  // A context the program created itself (cuCtxCreate): alive while it answers with its id.
  unsigned long long id = 0;
  return !d.cuCtxGetId || (d.cuCtxGetId(ctx, &id) == kCudaSuccess && id == c->id);
}

void DevPtrCache::record_context(CUcontext ctx) {
  const Driver &d = driver();
  unsigned long long id = 0;
  if (d.cuCtxGetId && d.cuCtxGetId(ctx, &id) != kCudaSuccess) id = 0;
  for (const Context &c : contexts_)
    if (c.ctx == ctx) {
      if (c.id == id) return;
      forget_context(ctx); // destroyed and made again at the same handle
      break;
    }
  Context c{ctx, id, 0, false};
  if (d.cuCtxGetDevice(&c.device) == kCudaSuccess) {
    CUcontext primary = nullptr;
    if (d.cuDevicePrimaryCtxRetain(&primary, c.device) == kCudaSuccess) {
      c.primary = primary == ctx;
      if (!c.primary) static_cast<void>(d.cuDevicePrimaryCtxRelease(c.device));
    }
  }
  contexts_.push_back(c);
}

void DevPtrCache::forget_context(CUcontext ctx) noexcept {
  const auto gone = [ctx](const auto &x) { return x.first == ctx; };
  close_services(ctx, false); // (the kernel, its stream and ring went with the context)
  std::erase_if(streams_, gone);
  std::erase_if(copy_streams_, gone);
  std::erase_if(block_counters_, [ctx](const BlockCounter &b) { return b.ctx == ctx; });
  std::erase_if(created_streams_, gone);
  std::erase_if(free_events_, gone);
  std::erase_if(modules_, gone);
  std::erase_if(pool_->word_slabs, gone); // (their memory went with the context)
  std::erase_if(pool_->deferred, gone);
  std::erase_if(pool_->free_words, [ctx](const HostWord &w) { return w.ctx == ctx; });
  std::erase_if(kernels_, [ctx](const Kernel &k) { return k.ctx == ctx; });
  std::erase_if(pool_->free, [&](const DevicePool::Block &b) {
    if (b.ctx == ctx) pool_->free_bytes -= b.size; // (died with its context)
    return b.ctx == ctx;
  });
  std::erase_if(contexts_, [&](const Context &c) {
    if (c.ctx == ctx && c.primary) static_cast<void>(driver().cuDevicePrimaryCtxRelease(c.device));
    return c.ctx == ctx;
  });
}

MemKind DevPtrCache::lookup(const void *p) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  for (std::size_t n = 0; n <= kEntries; ++n) {
    const std::size_t i = n == 0 ? mru_ : n - 1;
    Entry &e = entries_[i];
    if (a - e.base >= e.end - e.base) continue; // not in [base, end) (empty entries: end == base)
    bool fresh;
    if (e.kind == MemKind::Host) {
      fresh = e.stamp == mapping_generation();
    } else if (trusted_ && e.checked == trust_epoch_) {
      fresh = true; // checked already in this trusted stretch (trust())
    } else {
      std::uint64_t id = 0;
      fresh =
          driver().cuPointerGetAttribute(&id, kAttrBufferId, a) == kCudaSuccess && id == e.stamp;
      e.checked = trust_epoch_;
    }
    if (fresh) {
      ++stats_.hits;
      mru_ = i;
      return e.kind;
    }
    ++stats_.stale;
    if (e.kind != MemKind::Host) { // freed device memory: its addresses stay suspect
      freed_[freed_next_] = {e.base, e.end};
      freed_next_ = (freed_next_ + 1) % freed_.size();
    }
    e = Entry{};
    break;
  }
  return query(a);
}

MemKind DevPtrCache::query(std::uintptr_t a) {
  // Read before asking: a mapping made while we ask makes the answer stale, never the reverse.
  const std::uint64_t generation = mapping_generation();
  unsigned memtype = 0;
  std::uint64_t id = 0;
  unsigned managed = 0;
  std::uintptr_t start = 0;
  std::size_t size = 0;
  CUcontext ctx = nullptr;
  int attrs[] = {kAttrMemoryType, kAttrBufferId,  kAttrIsManaged,
                 kAttrRangeStart, kAttrRangeSize, kAttrContext};
  void *values[] = {&memtype, &id, &managed, &start, &size, &ctx};
  const CUresult r = driver().cuPointerGetAttributes(6, attrs, values, a);
  ++stats_.queries;
  Entry e;
  // (Virtual-memory-management mappings may report buffer id 0: still device memory; a hit then
  // checks that the address still answers to id 0, which a freed range does not.)
  if (r == kCudaSuccess && (managed || memtype == kMemoryTypeDevice)) {
    e.kind = managed ? MemKind::Managed : MemKind::Device;
    e.stamp = id;
    e.checked = trust_epoch_;
    e.ctx = ctx;
    e.base = size ? start : a;
    e.end = size ? start + size : a + 1;
  } else {
    // Not CUDA memory, pinned host memory (cudaMallocHost), or CUDA not initialised yet. An
    // address of freed device memory may become device memory again with no new mapping (the
    // driver keeps the range reserved): such host answers are not cached.
    for (const auto &[lo, hi] : freed_)
      if (a - lo < hi - lo) return MemKind::Host;
    e.kind = MemKind::Host;
    e.stamp = generation;
    e.base = a & ~(kPage - 1);
    e.end = e.base + kPage;
  }
  const std::size_t i = next_;
  next_ = (next_ + 1) % kEntries;
  entries_[i] = e;
  mru_ = i;
  return e.kind;
}

CUstream DevPtrCache::stream_for_current_context(const void *dev_ptr) {
  const Driver &d = driver();
  CUcontext ctx = nullptr;
  if (CUresult r = d.cuCtxGetCurrent(&ctx); r != kCudaSuccess) cuda_fail("cuCtxGetCurrent", r);
  if (!ctx) {
    // This thread has no context yet (the buffer came from another thread, or this process never
    // used CUDA): use the primary context of the buffer's device (device 0 when that is unknown),
    // as the CUDA runtime would. Held for the process's life.
    int ordinal = 0;
    CUdevice dev = 0;
    if (!dev_ptr || d.cuPointerGetAttribute(&ordinal, kAttrDeviceOrdinal,
                                            reinterpret_cast<CUdeviceptr>(dev_ptr)) != kCudaSuccess)
      ordinal = 0;
    CUresult r = d.cuDeviceGet(&dev, ordinal);
    if (r == kCudaSuccess) r = d.cuDevicePrimaryCtxRetain(&ctx, dev);
    if (r == kCudaSuccess) r = d.cuCtxSetCurrent(ctx);
    if (r != kCudaSuccess) cuda_fail("making a CUDA context current", r);
  }
  // A context seen before is checked by id on every use (one cheap call next to a copy of
  // microseconds): the program may have reset the device since.
  record_context(ctx);
  current_ = ctx;
  for (auto &[c, s] : streams_)
    if (c == ctx) return s;
  CUstream s = nullptr;
  // A blocking stream: ordered after the program's work on the legacy default stream (a
  // cudaMemcpy from pageable memory that is still in flight, say).
  if (CUresult r = d.cuStreamCreate(&s, 0); r != kCudaSuccess) cuda_fail("cuStreamCreate", r);
  streams_.emplace_back(ctx, s);
  return s;
}

void DevPtrCache::copy_device(void *dst, MemKind dst_kind, const void *src, MemKind src_kind,
                              std::size_t n) {
  if (n == 0) return;
  const Driver &d = driver();
  CUstream s = stream_for_current_context(is_device(dst_kind) ? dst : src);
  if (is_device(dst_kind) && is_device(src_kind)) peer_copy(dst, src, current_);
  CUresult r =
      d.cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst), reinterpret_cast<CUdeviceptr>(src), n, s);
  if (r != kCudaSuccess) cuda_fail("cuMemcpyAsync", r);
  if ((r = d.cuStreamSynchronize(s)) != kCudaSuccess) cuda_fail("cuStreamSynchronize", r);
}

void DevPtrCache::copy_pieces(void *dst, MemKind dst_kind, const void *src, MemKind src_kind,
                              const Piece *pieces, std::size_t n) {
  if (!is_device(dst_kind) && !is_device(src_kind)) {
    for (std::size_t i = 0; i < n; ++i)
      copy::copy(static_cast<std::byte *>(dst) + pieces[i].offset,
                 static_cast<const std::byte *>(src) + pieces[i].offset, pieces[i].len);
    return;
  }
  if (n == 0) return;
  const Driver &d = driver();
  CUstream s = stream_for_current_context(is_device(dst_kind) ? dst : src);
  for (std::size_t i = 0; i < n; ++i) {
    const auto to = reinterpret_cast<CUdeviceptr>(static_cast<std::byte *>(dst) + pieces[i].offset);
    const auto from =
        reinterpret_cast<CUdeviceptr>(static_cast<const std::byte *>(src) + pieces[i].offset);
    if (CUresult r = d.cuMemcpyAsync(to, from, pieces[i].len, s); r != kCudaSuccess)
      cuda_fail("cuMemcpyAsync", r);
  }
  if (CUresult r = d.cuStreamSynchronize(s); r != kCudaSuccess) cuda_fail("cuStreamSynchronize", r);
}

bool DevPtrCache::can_copy_rects() const noexcept {
  if (!device_pack_ || !cuda_loaded()) return false;
  const Driver &d = driver();
  return d.cuMemcpy2DAsync && d.cuMemcpy3DAsync && d.cuMemAlloc && d.cuMemFree;
}

DeviceBuffer DevPtrCache::device_buffer(std::size_t n, const void *near) {
  if (!can_copy_rects()) return DeviceBuffer{};
  return scratch_buffer(n, near);
}

DeviceBuffer DevPtrCache::scratch_buffer(std::size_t n, const void *near) {
  DeviceBuffer b;
  if (!cuda_loaded() || !driver().cuMemAlloc || !driver().cuMemFree) return b;
  const CUcontext ctx = current_context(near);
  const std::size_t size = size_class(n);
  auto &free = pool_->free;
  for (auto it = free.begin(); it != free.end(); ++it)
    if (it->ctx == ctx && it->size == size) {
      b.ptr_ = it->ptr;
      pool_->free_bytes -= it->size;
      free.erase(it);
      break;
    }
  if (!b.ptr_ && driver().cuMemAlloc(&b.ptr_, size) != kCudaSuccess) return DeviceBuffer{};
  b.pool_ = pool_;
  b.ctx_ = ctx;
  b.size_ = size;
  return b;
}

bool DevPtrCache::copy_rects(void *packed, void *strided, const Rect *rects, std::size_t n,
                             bool pack) {
  const Driver &d = driver();
  CUstream s = stream_for_current_context(strided);
  std::size_t total = 0;
  for (std::size_t i = 0; i < n; ++i)
    total += rects[i].width * rects[i].height * rects[i].depth;
  const Rect whole{0, total, 1, 1, total, 0};
  if (pack ? copy_strided(packed, &whole, 1, strided, rects, n, total, s)
           : copy_strided(strided, rects, n, packed, &whole, 1, total, s)) {
    if (CUresult r = d.cuStreamSynchronize(s); r != kCudaSuccess)
      cuda_fail("cuStreamSynchronize", r);
    return true;
  }
  const auto base = reinterpret_cast<CUdeviceptr>(strided);
  CUdeviceptr at = reinterpret_cast<CUdeviceptr>(packed);
  for (std::size_t i = 0; i < n; ++i) {
    const Rect &r = rects[i];
    const CUdeviceptr mem = base + static_cast<CUdeviceptr>(r.disp);
    const std::size_t bytes = r.width * r.height * r.depth;
    CUresult e = kCudaSuccess;
    if (r.height == 1 && r.depth == 1) {
      e = pack ? d.cuMemcpyAsync(at, mem, bytes, s) : d.cuMemcpyAsync(mem, at, bytes, s);
    } else if (r.depth == 1) {
      Memcpy2D c{};
      c.srcMemoryType = c.dstMemoryType = kMemoryTypeDevice;
      c.srcDevice = pack ? mem : at;
      c.srcPitch = pack ? r.pitch : r.width;
      c.dstDevice = pack ? at : mem;
      c.dstPitch = pack ? r.width : r.pitch;
      c.WidthInBytes = r.width;
      c.Height = r.height;
      e = d.cuMemcpy2DAsync(&c, s);
    } else {
      Memcpy3D c{};
      c.srcMemoryType = c.dstMemoryType = kMemoryTypeDevice;
      const std::size_t rows = r.slab / r.pitch; // the strided side's rows per slab
      c.srcDevice = pack ? mem : at;
      c.srcPitch = pack ? r.pitch : r.width;
      c.srcHeight = pack ? rows : r.height;
      c.dstDevice = pack ? at : mem;
      c.dstPitch = pack ? r.width : r.pitch;
      c.dstHeight = pack ? r.height : rows;
      c.WidthInBytes = r.width;
      c.Height = r.height;
      c.Depth = r.depth;
      e = d.cuMemcpy3DAsync(&c, s);
    }
    if (e != kCudaSuccess) {
      // Refused at the call (a pitch the copy engines do not take): wait for what was issued,
      // then the caller stages through the host.
      if (CUresult r2 = d.cuStreamSynchronize(s); r2 != kCudaSuccess)
        cuda_fail("cuStreamSynchronize", r2);
      return false;
    }
    at += bytes;
  }
  if (CUresult r = d.cuStreamSynchronize(s); r != kCudaSuccess) cuda_fail("cuStreamSynchronize", r);
  return true;
}

} // namespace ampi::gpu

namespace ampi::gpu {

void DevPtrCache::sync_legacy_stream() {
  const auto legacy = reinterpret_cast<CUstream>(std::uintptr_t{1}); // CU_STREAM_LEGACY
  if (CUresult r = driver().cuStreamSynchronize(legacy); r != kCudaSuccess)
    cuda_fail("cuStreamSynchronize (legacy default stream)", r);
}

void DevPtrCache::copy_async(void *dst, MemKind dst_kind, const void *src, MemKind src_kind,
                             std::size_t n, std::function<void()> done, bool by_kernel) {
  const CUcontext ctx = current_context(is_device(dst_kind) ? dst : src);
  if (is_device(dst_kind) && is_device(src_kind)) {
    if (by_kernel && service_copy(ctx, dst, dst_kind, src, src_kind, n, done)) return;
    peer_copy(dst, src, ctx);
  }
  CUstream s = next_copy_stream(ctx);
  if (CUresult r = driver().cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                                          reinterpret_cast<CUdeviceptr>(src), n, s);
      r != kCudaSuccess)
    cuda_fail("cuMemcpyAsync", r);
  track(ctx, s, std::move(done));
}

CUstream DevPtrCache::next_copy_stream(CUcontext ctx) {
  // The context's streams for asynchronous copies, used in turn (made on first use).
  const std::size_t want = next_copy_stream_++ % copy_streams_per_ctx_;
  auto pick = [&] {
    std::size_t have = 0;
    for (auto &[c, cs] : copy_streams_)
      if (c == ctx && have++ == want) return cs;
    return CUstream{};
  };
  CUstream s = pick();
  if (!s) {
    make_copy_streams(ctx);
    s = pick();
  }
  return s;
}

void DevPtrCache::track(CUcontext ctx, CUstream s, std::function<void()> done,
                        std::shared_ptr<std::uint32_t> word) {
  Pending p;
  p.done = std::move(done);
  p.stream = s;
  p.ctx = ctx;
  p.word = std::move(word);
  if (!p.word)
    if (CUresult r = mark_end(ctx, s, p); r != kCudaSuccess)
      cuda_fail("cuEventRecord (the end of an asynchronous copy)", r);
  pending_.push_back(std::move(p));
}

CUresult DevPtrCache::mark_end(CUcontext ctx, CUstream s, Pending &p) {
  const Driver &d = driver();
  // A word first: polling it is one load, where each cuEventQuery took 1.8-2.7 us with 8 PEs of
  // one process (H200, bench/results/2026-11-28-s18-gpu/run3, s19-gpu/run1), and a PE with many
  // waiting ranks polls often. Queuing it costs more than an event (cuStreamWriteValue32 4.4 us,
  // cuEventRecord 0.7, 8 PEs, s19-gpu/run1): our strided kernels write their word themselves
  // (copy_strided_async). The write waits for the stream's work before it, with a fence for its
  // memory (the flag's default).
  if (completion_words_ && d.cuStreamWriteValue32 && d.cuStreamQuery) {
    CUdeviceptr dev = 0;
    if (host_word(ctx, &p.word, &dev) == kCudaSuccess) {
      if (d.cuStreamWriteValue32(s, dev, 1, 0) == kCudaSuccess) {
        // A program's stream (a rank waits for it) gets an event after the write too, asked once
        // the word is set: the word lands before the stream counts its write as done, and the
        // program may ask its stream right after the wait (an MPIX_GPU_Iinvoke request
        // completed while cudaStreamQuery still said not ready: gpu_overlap iinvoke, H200,
        // bench/results/2026-11-28-s20-gpu run6). Not the stream itself: later work on it
        // would hold up this wait. Without the event, the word alone tells.
        if (p.watched) static_cast<void>(record_event(ctx, s, p));
        return kCudaSuccess;
      }
      p.word.reset();
    }
  }
  return record_event(ctx, s, p);
}

CUresult DevPtrCache::record_event(CUcontext ctx, CUstream s, Pending &p) {
  const Driver &d = driver();
  for (auto it = free_events_.begin(); it != free_events_.end(); ++it)
    if (it->first == ctx) {
      p.event = it->second;
      free_events_.erase(it);
      break;
    }
  if (!p.event)
    if (CUresult r = d.cuEventCreate(&p.event, kEventDisableTiming); r != kCudaSuccess) return r;
  if (CUresult r = d.cuEventRecord(p.event, s); r != kCudaSuccess) {
    free_events_.emplace_back(ctx, p.event);
    p.event = nullptr;
    return r;
  }
  return kCudaSuccess;
}

CUresult DevPtrCache::query_end(Pending &p) {
  if (!p.word) return driver().cuEventQuery(p.event);
  if (__atomic_load_n(p.word.get(), __ATOMIC_ACQUIRE) != 0)
    return p.event ? driver().cuEventQuery(p.event) : kCudaSuccess; // (see mark_end)
  // An error in the stream's work leaves the word unset: the stream tells, once in a while (a
  // driver call, which the word is there to spare the polls).
  constexpr unsigned kAskEvery = 4096;
  if (++p.polls % kAskEvery != 0) return kCudaErrorNotReady;
  const CUresult r = driver().cuStreamQuery(p.stream);
  if (r == kCudaSuccess) return kCudaSuccess; // (its write is done too)
  return r;
}

void DevPtrCache::make_copy_streams(CUcontext ctx) {
  std::size_t have = 0;
  for (const auto &[c, cs] : copy_streams_)
    if (c == ctx) ++have;
  if (have >= copy_streams_per_ctx_) return; // (every rank's first stream asks: prepare_streams)
  // At the context's greatest priority (AMPI_GPU_COPY_PRIORITY): a face's copy kernel, launched
  // while another rank's sweep still has blocks waiting for the SMs, gets them first; the ranks
  // waiting for that face start their next sweep sooner. Jacobi3D 256^3, 8 MPS processes on one
  // H200: 0.127-0.133 ms per iteration against 0.139-0.143; 8 ranks over 8 PEs of one process
  // 0.129-0.134 either way (bench/results/2026-11-28-s20-gpu run5).
  const Driver &d = driver();
  int least = 0, greatest = 0;
  const bool prio = copy_priority_ && d.cuStreamCreateWithPriority &&
                    d.cuCtxGetStreamPriorityRange &&
                    d.cuCtxGetStreamPriorityRange(&least, &greatest) == kCudaSuccess;
  for (; have < copy_streams_per_ctx_; ++have) {
    CUstream s = nullptr;
    const CUresult r =
        prio ? d.cuStreamCreateWithPriority(&s, 0, greatest) : d.cuStreamCreate(&s, 0);
    if (r != kCudaSuccess) cuda_fail(prio ? "cuStreamCreateWithPriority" : "cuStreamCreate", r);
    copy_streams_.emplace_back(ctx, s);
  }
}

void DevPtrCache::prepare_streams() {
  if (!cuda_loaded()) return;
  CUcontext ctx = nullptr;
  if (driver().cuCtxGetCurrent(&ctx) != kCudaSuccess || !ctx) return;
  static_cast<void>(stream_for_current_context(nullptr));
  make_copy_streams(ctx);
  // The kernels' module too: loading a module waits for the context's streams, and later one may
  // wait for MPI (MPIX_Wait_enqueue): jacobi3d_cuda --enqueue --datatypes with 8 ranks on one PE
  // hung in the load at the first strided copy (H100, bench/results/2026-11-27-s10-gpu/run1).
  // Not with our first stream of a context: that may come while a program's kernel waits for
  // the host (MPIX_GPU_Iinvoke's test: the load waited for it).
  if (device_pack_ || device_reduce_) static_cast<void>(kernel("ampi_strided_copy_1"));
  if (copy_kernel_bytes_) static_cast<void>(service_for(ctx)); // (after the module)
}

namespace {
constexpr std::size_t kLine = 64, kWords = 64; // a slab of host words
} // namespace

CUresult DevPtrCache::take_host_word(std::shared_ptr<std::uint32_t> *word, CUdeviceptr *device) {
  stream_waits_ = true; // (no copy kernel from now on: copy_service.cpp)
  return host_word(current_context(nullptr), word, device);
}

CUresult DevPtrCache::host_word(CUcontext ctx, std::shared_ptr<std::uint32_t> *word,
                                CUdeviceptr *device) {
  const Driver &d = driver();
  auto &free = pool_->free_words;
  auto it =
      std::find_if(free.begin(), free.end(), [ctx](const HostWord &x) { return x.ctx == ctx; });
  if (it == free.end()) {
    // A slab: 64 words a cache line apart (a word's stream and its neighbours' do not share one).
    void *mem = nullptr;
    CUdeviceptr dev = 0;
    if (CUresult e =
            d.cuMemHostAlloc(&mem, kLine * kWords, kMemHostAllocDeviceMap | kMemHostAllocPortable);
        e != kCudaSuccess)
      return e;
    if (CUresult e = d.cuMemHostGetDevicePointer(&dev, mem, 0); e != kCudaSuccess) {
      static_cast<void>(d.cuMemFreeHost(mem)); // none of ours waits yet: nothing to hang on
      return e;
    }
    pool_->word_slabs.emplace_back(ctx, mem);
    for (std::size_t i = kWords; i-- > 0;)
      free.push_back(
          HostWord{reinterpret_cast<std::uint32_t *>(static_cast<char *>(mem) + i * kLine),
                   dev + static_cast<CUdeviceptr>(i * kLine), ctx});
    it = free.end() - 1;
  }
  const HostWord w = *it;
  free.erase(it);
  __atomic_store_n(w.host, 0u, __ATOMIC_RELEASE);
  *device = w.device;
  // Back into a slab still held: the cache may be gone, or a device reset took the slab's memory
  // with its context.
  *word = std::shared_ptr<std::uint32_t>(w.host, [pool = pool_, w](std::uint32_t *) {
    if (pool->closed) return;
    const auto *at = reinterpret_cast<const char *>(w.host);
    for (const auto &[c, slab] : pool->word_slabs)
      if (c == w.ctx && at >= static_cast<const char *>(slab) &&
          at < static_cast<const char *>(slab) + kLine * kWords) {
        pool->free_words.push_back(w);
        return;
      }
  });
  return kCudaSuccess;
}

void DevPtrCache::defer_free(void *p) {
  pool_->deferred.emplace_back(current_context(p), reinterpret_cast<CUdeviceptr>(p));
}

bool DevPtrCache::watch_stream(CUstream stream, std::function<void(CUresult)> done) {
  if (!cuda_loaded()) return false; // (fills the driver table on first sight of libcuda)
  const CUcontext ctx = current_context(nullptr);
  Pending p;
  p.watched = std::move(done);
  p.stream = stream;
  p.ctx = ctx;
  if (mark_end(ctx, stream, p) != kCudaSuccess) return false;
  pending_.push_back(std::move(p));
  return true;
}

void DevPtrCache::watch_event(CUevent event, std::function<void(CUresult)> done) {
  if (!cuda_loaded()) return done(kCudaErrorNotInitialized);
  Pending p;
  p.event = event;
  p.watched = std::move(done);
  p.ours = false;
  pending_.push_back(std::move(p));
}

CUstream DevPtrCache::create_stream(unsigned flags, CUresult *err) {
  if (!cuda_loaded()) {
    *err = kCudaErrorNotInitialized;
    return nullptr;
  }
  const CUcontext ctx = current_context(nullptr);
  CUstream s = nullptr;
  if (CUresult r = driver().cuStreamCreate(&s, flags); r != kCudaSuccess) {
    *err = r;
    return nullptr;
  }
  created_streams_.emplace_back(ctx, s);
  return s;
}

bool DevPtrCache::poll_copies_slow() {
  bool any = service_waiting_ && poll_services();
  // Streams seen with an unfinished event in this pass: their later events are not asked about.
  // Each MPIX_*_enqueue operation and each yielding CUDA wait watches its stream; 8 ranks of one
  // PE in jacobi3d_cuda --enqueue kept about 100 events pending, every blocked task's pass asked
  // the driver about all of them, and an iteration took 5.8 ms against 0.59 ms over 8 PEs
  // (H100, bench/results/2026-11-27-s9-gpu/run6).
  CUstream unfinished[16];
  std::size_t nunfinished = 0;
  auto seen_unfinished = [&](CUstream s) {
    return std::find(unfinished, unfinished + nunfinished, s) != unfinished + nunfinished;
  };
  for (std::size_t i = 0; i < pending_.size();) {
    const CUstream s = pending_[i].stream;
    if (s && seen_unfinished(s)) {
      ++i;
      continue;
    }
    const CUresult r = query_end(pending_[i]);
    if (r == kCudaErrorNotReady) {
      if (s && nunfinished < std::size(unfinished)) unfinished[nunfinished++] = s;
      ++i;
      continue;
    }
    if (r != kCudaSuccess && !pending_[i].watched)
      cuda_fail("cuEventQuery (an asynchronous copy)", r);
    Pending p = std::move(pending_[i]);
    pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
    if (p.ours && p.event && r == kCudaSuccess) // (after an error the context is unusable)
      free_events_.emplace_back(p.ctx, p.event);
    if (p.watched)
      p.watched(r); // wakes a rank waiting for its GPU work (src/core/cudart.cpp)
    else
      p.done(); // may start more copies
    any = true;
  }
  return any;
}

} // namespace ampi::gpu
