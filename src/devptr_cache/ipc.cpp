// src/devptr_cache/ipc.cpp — exporting and importing device memory between processes of one host
// with CUDA IPC handles (see ipc.hpp).
#include "devptr_cache/ipc.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace ampi::gpu {

namespace {

bool same_handle(const IpcMemHandle &a, const IpcMemHandle &b) noexcept {
  return std::memcmp(a.reserved, b.reserved, sizeof a.reserved) == 0;
}

} // namespace

IpcCache::~IpcCache() {
  // Before exit(): the driver is there, but the program may have destroyed the contexts the
  // mappings live in (cudaDeviceReset after MPI_Finalize): those went with them.
  for (const Open &o : open_)
    if (mem_.context_alive(o.ctx)) static_cast<void>(driver().cuIpcCloseMemHandle(o.base));
}

bool IpcCache::describe(const void *p, IpcRef *out) {
  if (!cuda_loaded()) return false;
  const Driver &d = driver();
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  std::memset(out, 0, sizeof *out);
  out->address = a;
  out->pid = static_cast<std::int32_t>(::getpid());
  std::uint64_t id = 0;
  if (d.cuPointerGetAttribute(&id, kAttrBufferId, a) != kCudaSuccess) return false;
  Export *e = nullptr;
  for (Export &x : exports_)
    if (a - x.base < x.end - x.base && x.id == id) {
      e = &x;
      break;
    }
  if (!e) {
    unsigned memtype = 0, managed = 0;
    std::uintptr_t start = 0;
    std::size_t size = 0;
    int attrs[] = {kAttrMemoryType, kAttrIsManaged, kAttrRangeStart, kAttrRangeSize};
    void *values[] = {&memtype, &managed, &start, &size};
    if (d.cuPointerGetAttributes(4, attrs, values, a) != kCudaSuccess || size == 0) return false;
    e = &exports_[next_export_];
    next_export_ = (next_export_ + 1) % kExports;
    *e = Export{start, start + size, id, {}, false};
    if (!managed && memtype == kMemoryTypeDevice) {
      ++stats_.exports;
      e->ok = d.cuIpcGetMemHandle(&e->handle, start) == kCudaSuccess;
    }
  }
  if (!e->ok) return false;
  out->handle = e->handle;
  out->buffer_id = e->id;
  out->offset = a - e->base;
  out->exported = 1;
  return true;
}

IpcCache::Open *IpcCache::find_or_open(const IpcRef &r, CUresult *err) {
  ++clock_;
  for (auto it = open_.begin(); it != open_.end(); ++it) {
    if (it->pid != r.pid || !same_handle(it->handle, r.handle)) continue;
    if (it->buffer_id == r.buffer_id) {
      it->used = clock_;
      return &*it;
    }
    // The same place in that process's memory, another allocation: the mapping is stale.
    if (it->pins > 0) { // a window still uses memory its owner has freed
      *err = kCudaErrorInvalidValue;
      return nullptr;
    }
    if (mem_.context_alive(it->ctx)) static_cast<void>(driver().cuIpcCloseMemHandle(it->base));
    open_.erase(it);
    break;
  }
  if (!load_cuda()) {
    *err = kCudaErrorNotInitialized;
    return nullptr;
  }
  const Driver &d = driver();
  const CUcontext ctx = mem_.current_context(nullptr);
  CUdeviceptr base = 0;
  ++stats_.opens;
  CUresult res = d.cuIpcOpenMemHandle(&base, r.handle, kIpcLazyEnablePeerAccess);
  if (res == kCudaErrorAlreadyMapped) {
    // The allocation's block is still mapped here through another handle: a mapping of an
    // allocation the sender has freed since, whose block now holds this one (cudaMalloc places
    // small allocations in shared blocks; seen between two GPUs, H100, driver 580). Unmap what
    // this process holds of the sender and try once more.
    std::erase_if(open_, [&](const Open &o) {
      if (o.pid != r.pid || o.pins > 0) return false;
      if (mem_.context_alive(o.ctx)) static_cast<void>(d.cuIpcCloseMemHandle(o.base));
      return true;
    });
    ++stats_.opens;
    res = d.cuIpcOpenMemHandle(&base, r.handle, kIpcLazyEnablePeerAccess);
  }
  if (res != kCudaSuccess) {
    *err = res;
    return nullptr;
  }
  // Keep at most kOpen unpinned mappings: close the least recently used one.
  if (std::count_if(open_.begin(), open_.end(), [](const Open &o) { return o.pins == 0; }) >=
      static_cast<std::ptrdiff_t>(kOpen)) {
    auto victim = open_.end();
    for (auto it = open_.begin(); it != open_.end(); ++it)
      if (it->pins == 0 && (victim == open_.end() || it->used < victim->used)) victim = it;
    if (mem_.context_alive(victim->ctx)) static_cast<void>(d.cuIpcCloseMemHandle(victim->base));
    open_.erase(victim);
  }
  open_.push_back(Open{r.pid, r.buffer_id, r.handle, base, ctx, clock_, 0});
  return &open_.back();
}

bool IpcCache::same_process(const IpcRef &r) noexcept {
  return r.pid == static_cast<std::int32_t>(::getpid());
}

void *IpcCache::resolve(const IpcRef &r, CUresult *err) {
  if (same_process(r)) return reinterpret_cast<void *>(static_cast<std::uintptr_t>(r.address));
  if (!r.exported) {
    *err = kCudaErrorInvalidValue;
    return nullptr;
  }
  Open *o = find_or_open(r, err);
  return o ? reinterpret_cast<void *>(o->base + r.offset) : nullptr;
}

void *IpcCache::pin(const IpcRef &r, CUresult *err) {
  if (same_process(r)) return reinterpret_cast<void *>(static_cast<std::uintptr_t>(r.address));
  if (!r.exported) {
    *err = kCudaErrorInvalidValue;
    return nullptr;
  }
  Open *o = find_or_open(r, err);
  if (!o) return nullptr;
  ++o->pins;
  return reinterpret_cast<void *>(o->base + r.offset);
}

void IpcCache::unpin(const IpcRef &r) noexcept {
  if (same_process(r)) return;
  for (Open &o : open_)
    if (o.pid == r.pid && o.buffer_id == r.buffer_id && same_handle(o.handle, r.handle) &&
        o.pins > 0) {
      --o.pins;
      return;
    }
}

} // namespace ampi::gpu
