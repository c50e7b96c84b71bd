// src/core/cudart.cpp — the CUDA runtime as the virtual ranks of one process see it. Every rank
// of a process shares one CUDA context, and the PE is one OS thread: a rank that waited in
// cudaStreamSynchronize held up every other rank of its PE, and every rank's default-stream work
// queued on the one legacy stream, so 4 (8) ranks that each ran a 2 ms kernel and waited took 4x
// (8x) the kernel's time per iteration (issue 18, H100). Here, for a PE that hosts several ranks
// (and AMPI_GPU_RANK_STREAMS=1):
// - a rank's work on stream 0, cudaStreamLegacy or cudaStreamPerThread goes to a non-blocking
//   stream of its own, made on first use: ranks behave like threads of a program built with
//   `--default-stream per-thread`, each with its own default stream;
// - a blocking wait (stream, event, device synchronize; synchronous copies and memsets, issued as
//   their asynchronous forms on the rank's stream) has the stream write a host word and record
//   an event after it, and the rank is suspended until both are done (the PE polls its device
//   copies and runs the other ranks and the network meanwhile); then it returns success, the
//   work having ended without error; a stream that fails (the PE asks the driver when the word is
//   long in coming) makes the real call run and report what it would have reported;
// - cudaDeviceSynchronize waits for the rank's own streams only (its default stream and those it
//   created), not for the other ranks' work.
// A rank alone on its PE still has default streams of its own when its process has several ranks,
// but its waits block in the runtime (unless AMPI_GPU_POLL_ALONE=1); a process of one rank calls
// the runtime unchanged. The program's calls reach us through its GOT
// (shared runtime: shared_replacements, which device_reset.cpp applies) or the linker's --wrap
// (static runtime, which mpicc/mpicxx add: src/start/cudart_wrap.c); both pass the real functions
// in a table.
#include "core/cudart.hpp"

#include "core/cudart_table.h"
#include "core/pe.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

namespace ampi {

namespace {

// CUDA's lazy module loading (the default since CUDA 12.2) loads a kernel's code at its first
// launch, and that load waits for the work already queued on the context's streams. A stream
// that waits for MPI (MPIX_Wait_enqueue: cuStreamWaitValue32 on a word the PE writes) then
// deadlocks the process: the rank that launches a kernel for the first time blocks its PE in
// cuLaunchKernel, and the PE is what would release the waiting stream. Seen on an H100 in every
// jacobi3d_cuda --enqueue run (cuda-gdb: the PE thread in cuLaunchKernel under cudaLaunchKernel,
// another rank's stream in a wait; bench/results/2026-11-26-gpu3/run2): with virtual ranks each
// rank's copy of the program has modules of its own, so a rank's first launch comes after
// another rank's stream is already waiting. Eager loading (every kernel loaded when its module
// is registered) avoids it; a program's own setting stays. Runs when libampi.so is loaded,
// before the program's main and its first CUDA call.
// (The number of hardware queues is set at start-up: startup.cpp, CUDA_DEVICE_MAX_CONNECTIONS.)
[[gnu::constructor]] void eager_cuda_modules() {
  ::setenv("CUDA_MODULE_LOADING", "EAGER", 0);
}

constexpr int kCudaSuccess = 0;
constexpr int kNotReady = 600;     // cudaErrorNotReady
constexpr int kNotSupported = 801; // cudaErrorNotSupported
constexpr int kMemcpyHostToDevice = 1;
constexpr int kMemcpyDeviceToDevice = 3;

bool is_default(const void *s) noexcept {
  const auto v = reinterpret_cast<std::uintptr_t>(s);
  return v <= 2; // 0, cudaStreamLegacy (1), cudaStreamPerThread (2)
}

// The rank whose default stream is its own, or nullptr: the caller is not a rank's thread of a
// process that was started with several ranks (the choice is made once per job, never while a
// rank's work is queued: a rank whose stream work went to its own stream never sees stream 0
// again). Per process, not per PE: in SMP mode one rank per PE still shares the context, and
// default-stream work of one rank (the legacy stream waits for every blocking stream of the
// context) waited for another rank's stream waiting for MPI (jacobi3d_cuda --enqueue, 8 PEs,
// 256^3: hung on an H200).
Rank *own_rank() noexcept {
  Pe *pe = Pe::get_if();
  if (!pe || Pe::in_thread() || !pe->config().gpu_rank_streams) return nullptr;
  if (pe->config().process_ranks < 2) return nullptr;
  return pe->scheduled_if();
}

// Whether a rank alone on its PE, in a process of several ranks, waits for the GPU through its
// PE's poll rather than inside the CUDA runtime (AMPI_GPU_POLL_ALONE): the PE then drives MPI
// progress while the rank waits. Not the default: Jacobi3D 256^3, 8 ranks over 8 PEs of one
// H200 took 0.137-0.141 ms per iteration that way against 0.132-0.136 waiting in the driver
// (bench/results/2026-11-28-s20-gpu run4).
bool polls_alone(const PeConfig &c) noexcept {
  return c.gpu_poll_alone && c.process_ranks >= 2;
}

// The rank whose blocking waits yield, or nullptr: a rank of a PE with several ranks, one that
// has stream-ordered MPI in flight (MPIX_*_enqueue, src/mpi/stream.cpp: its helper tasks must run
// while the rank waits for a stream that waits for them), or with AMPI_GPU_POLL_ALONE any rank of
// a process of several.
Rank *waiting_rank() noexcept {
  Pe *pe = Pe::get_if();
  if (!pe || Pe::in_thread() || !pe->config().gpu_rank_streams) return nullptr;
  Rank *r = pe->scheduled_if();
  if (!r) return nullptr;
  const PeConfig &c = pe->config();
  return c.placement.count_of(c.my_pe) >= 2 || r->cuda.mpix || polls_alone(c) ? r : nullptr;
}

// The rank's own stream, made on first use (nullptr, with the error in *err, if it cannot be).
void *rank_stream(const ampi_cudart *real, Rank &r, int *err) {
  if (r.cuda.stream) [[likely]]
    return r.cuda.stream;
  // The CUDA runtime makes its device's primary context current on its first call: ask it a
  // harmless question first, so that our stream is made in the context the rank's work uses.
  if (int e = real->cudaStreamQuery(nullptr); e != kCudaSuccess && e != kNotReady) {
    *err = e;
    return nullptr;
  }
  gpu::CUresult e = 0;
  r.cuda.stream = r.pe().devptrs().create_stream(gpu::kStreamNonBlocking, &e);
  if (!r.cuda.stream)
    *err = e;
  else
    r.pe().devptrs().prepare_streams(); // ours too, before any stream waits for MPI
  return r.cuda.stream;
}

// `s`, with the default streams replaced by the rank's own (nullptr rank: unchanged).
void *map(const ampi_cudart *real, Rank *r, void *s, int *err) {
  if (!r || !is_default(s)) return s;
  return rank_stream(real, *r, err);
}

// Suspends rank `r` until the work queued on `stream` so far (or `event`) has completed, while
// the PE runs its other ranks; the driver's outcome. Alone on its PE the rank does not wait here
// (the real call that follows blocks, as without us), unless it polls alone.
// *waited (if given) tells whether it waited at all: a success after a wait means the work ended
// without error (the stream wrote its word, or the event completed, after all of it).
int yield_until(Rank &r, void *stream, void *event, bool *waited = nullptr) {
  Pe &pe = r.pe();
  if (waited) *waited = false;
  if (pe.live_ranks() < 2 && !r.cuda.mpix && !polls_alone(pe.config())) return kCudaSuccess;
  bool done = false;
  int result = kCudaSuccess;
  auto wake = [&done, &result, &r](gpu::CUresult res) {
    done = true;
    result = res;
    r.pe().wake(r);
  };
  if (event) {
    pe.devptrs().watch_event(static_cast<gpu::CUevent>(event), wake);
  } else if (!pe.devptrs().watch_stream(static_cast<gpu::CUstream>(stream), wake)) {
    return kCudaSuccess; // a bad stream: the real call says so
  }
  while (!done)
    pe.block("a CUDA synchronization");
  if (waited) *waited = true;
  return result;
}

// Whether rank `r` waited, yielding, until `stream`'s work (or `event`) ended without error: then
// the real synchronize is not called. It would return at once, but the driver's call on a
// finished stream still took 4.5-6.5 us among 8 PEs of one process (it waits for the context's
// lock that other threads' launches hold; H200, bench/results/2026-11-28-s20-gpu run3), on the
// critical path of every exchange that follows a wait (Jacobi3D 256^3, 16 ranks over 8 PEs:
// 0.146-0.155 ms per iteration against 0.157-0.164 with the call, run4; with the event that now
// ends a watched stream's wait, devptr_cache.cpp mark_end, 0.159-0.163, run7).
bool waited_ok(Rank &r, void *stream, void *event) {
  bool waited = false;
  return yield_until(r, stream, event, &waited) == kCudaSuccess && waited;
}

// A synchronous copy or memset of rank `r`: its asynchronous form `issue(stream)` on the rank's
// stream, waited for by yielding; `drain` first waits for the stream's earlier work (a copy to
// pageable host memory blocks the calling thread until it is done, so it must find the stream
// empty).
template <class Issue> int sync_op(const ampi_cudart *real, Rank &r, bool drain, Issue issue) {
  int err = kCudaSuccess;
  void *s = rank_stream(real, r, &err);
  if (!s) return err;
  if (drain) yield_until(r, s, nullptr);
  if (int e = issue(s); e != kCudaSuccess) return e;
  if (waited_ok(r, s, nullptr)) return kCudaSuccess;
  return real->cudaStreamSynchronize(s);
}

// Waits for the work of rank `r`'s own streams (its default one, if it was ever used, and those
// it created), yielding; if one of them did not end cleanly, synchronizes them all and returns the
// first error.
int sync_own_streams(const ampi_cudart *real, Rank &r) {
  std::vector<void *> streams = r.cuda.streams;
  if (r.cuda.stream) streams.push_back(r.cuda.stream);
  bool all_ok = true;
  for (void *s : streams)
    all_ok = waited_ok(r, s, nullptr) && all_ok;
  if (all_ok && !streams.empty()) return kCudaSuccess;
  int first = kCudaSuccess;
  for (void *s : streams)
    if (int e = real->cudaStreamSynchronize ? real->cudaStreamSynchronize(s) : kNotSupported;
        e != kCudaSuccess && first == kCudaSuccess)
      first = e;
  return first;
}

// Before a synchronous call on the legacy stream without streams per rank: a rank that must not
// block its PE (waiting_rank) first waits, yielding, for what that call would wait for.
void legacy_wait() {
  if (Rank *w = waiting_rank()) yield_until(*w, nullptr, nullptr);
}

// Copies that may write pageable host memory (everything but host-to-device and device-to-device).
bool to_host(int kind) noexcept {
  return kind != kMemcpyHostToDevice && kind != kMemcpyDeviceToDevice;
}

// The shared runtime's own functions, found by name once (the program links it, so it is loaded).
const ampi_cudart &shared_runtime() {
  static const ampi_cudart table = [] {
    ampi_cudart t{};
    t.cudaDeviceSynchronize =
        reinterpret_cast<int (*)()>(::dlsym(RTLD_DEFAULT, "cudaDeviceSynchronize"));
#define AMPI_CUDART_LOOKUP(name, params, args)                                                     \
  t.name = reinterpret_cast<decltype(t.name)>(::dlsym(RTLD_DEFAULT, #name));
    AMPI_CUDART_CALLS(AMPI_CUDART_LOOKUP)
#undef AMPI_CUDART_LOOKUP
    return t;
  }();
  return table;
}

// What the program's GOT slots point at (shared runtime).
int shared_cudaDeviceSynchronize() {
  return ampi_cudart_cudaDeviceSynchronize(&shared_runtime());
}
#define AMPI_CUDART_SHARED(name, params, args)                                                     \
  int shared_##name(AMPI_CUDART_UNPAREN params) {                                                  \
    return ampi_cudart_##name(&shared_runtime(), AMPI_CUDART_UNPAREN args);                        \
  }
AMPI_CUDART_CALLS(AMPI_CUDART_SHARED)
#undef AMPI_CUDART_SHARED

} // namespace

std::vector<cudart::Replacement> cudart::shared_replacements() {
  // Only where the shared runtime is loaded (it is, before main, for a program that links it):
  // other programs pay one lookup.
  if (!::dlsym(RTLD_DEFAULT, "cudaStreamSynchronize")) return {};
  std::vector<Replacement> v;
  v.push_back({"cudaDeviceSynchronize", reinterpret_cast<void *>(&shared_cudaDeviceSynchronize)});
#define AMPI_CUDART_ENTRY(name, params, args)                                                      \
  v.push_back({#name, reinterpret_cast<void *>(&shared_##name)});
  AMPI_CUDART_CALLS(AMPI_CUDART_ENTRY)
#undef AMPI_CUDART_ENTRY
  return v;
}

} // namespace ampi

using ampi::is_default;
using ampi::map;
using ampi::own_rank;
using ampi::Rank;
using ampi::sync_own_streams;
using ampi::yield_until;

// The calls themselves (extern "C": also called from a program's static-runtime wrappers). A
// null `real` entry is a call this runtime lacks; the program could not have called it then.
#define AMPI_REAL(name, ...) (real->name ? real->name(__VA_ARGS__) : ampi::kNotSupported)
// A call with a stream argument `s`: the rank's own stream for the default ones.
#define AMPI_MAPPED(name, ...)                                                                     \
  int err = ampi::kCudaSuccess;                                                                    \
  s = map(real, own_rank(), s, &err);                                                              \
  if (!s && err != ampi::kCudaSuccess) return err;                                                 \
  return AMPI_REAL(name, __VA_ARGS__)

extern "C" {

int ampi_cudart_cudaStreamSynchronize(const ampi_cudart *real, void *s) {
  // The default streams are mapped even where the wait does not yield: a rank alone on its PE of
  // a process with several ranks (SMP mode) has its own default stream too, and the legacy
  // stream's synchronize does not wait for it (a non-blocking stream).
  int err = ampi::kCudaSuccess;
  s = map(real, own_rank(), s, &err);
  if (!s && err != ampi::kCudaSuccess) return err;
  if (Rank *w = ampi::waiting_rank(); w && ampi::waited_ok(*w, s, nullptr))
    return ampi::kCudaSuccess;
  return AMPI_REAL(cudaStreamSynchronize, s);
}

int ampi_cudart_cudaEventSynchronize(const ampi_cudart *real, void *e) {
  if (Rank *w = ampi::waiting_rank(); w && e && ampi::waited_ok(*w, nullptr, e))
    return ampi::kCudaSuccess;
  return AMPI_REAL(cudaEventSynchronize, e);
}

int ampi_cudart_cudaDeviceSynchronize(const ampi_cudart *real) {
  Rank *r = own_rank();
  if (!r) {
    // Without streams per rank: first the legacy stream (whose events wait for every blocking
    // stream) and the rank's streams, yielding, then the real call.
    if (Rank *w = ampi::waiting_rank()) {
      yield_until(*w, nullptr, nullptr);
      for (void *s : std::vector<void *>(w->cuda.streams))
        yield_until(*w, s, nullptr);
    }
    return AMPI_REAL(cudaDeviceSynchronize);
  }
  return sync_own_streams(real, *r);
}

int ampi_cudart_cudaStreamQuery(const ampi_cudart *real, void *s) {
  AMPI_MAPPED(cudaStreamQuery, s);
}
int ampi_cudart_cudaEventRecord(const ampi_cudart *real, void *e, void *s) {
  AMPI_MAPPED(cudaEventRecord, e, s);
}
int ampi_cudart_cudaEventRecordWithFlags(const ampi_cudart *real, void *e, void *s, unsigned f) {
  AMPI_MAPPED(cudaEventRecordWithFlags, e, s, f);
}
int ampi_cudart_cudaStreamWaitEvent(const ampi_cudart *real, void *s, void *e, unsigned f) {
  AMPI_MAPPED(cudaStreamWaitEvent, s, e, f);
}

// Streams the rank creates: its cudaDeviceSynchronize waits for them.
static int created(void **s, int e) {
  if (Rank *r = ampi::waiting_rank(); r && e == ampi::kCudaSuccess && s && *s)
    r->cuda.streams.push_back(*s);
  return e;
}
int ampi_cudart_cudaStreamCreate(const ampi_cudart *real, void **s) {
  return created(s, AMPI_REAL(cudaStreamCreate, s));
}
int ampi_cudart_cudaStreamCreateWithFlags(const ampi_cudart *real, void **s, unsigned f) {
  return created(s, AMPI_REAL(cudaStreamCreateWithFlags, s, f));
}
int ampi_cudart_cudaStreamCreateWithPriority(const ampi_cudart *real, void **s, unsigned f, int p) {
  return created(s, AMPI_REAL(cudaStreamCreateWithPriority, s, f, p));
}
int ampi_cudart_cudaStreamDestroy(const ampi_cudart *real, void *s) {
  if (Rank *r = ampi::waiting_rank()) std::erase(r->cuda.streams, s);
  return AMPI_REAL(cudaStreamDestroy, s);
}

int ampi_cudart_cudaMemcpy(const ampi_cudart *real, void *d, const void *src, size_t n, int k) {
  Rank *r = own_rank();
  if (!r) {
    ampi::legacy_wait();
    return AMPI_REAL(cudaMemcpy, d, src, n, k);
  }
  return ampi::sync_op(real, *r, ampi::to_host(k),
                       [&](void *s) { return AMPI_REAL(cudaMemcpyAsync, d, src, n, k, s); });
}
int ampi_cudart_cudaMemcpyAsync(const ampi_cudart *real, void *d, const void *src, size_t n, int k,
                                void *s) {
  AMPI_MAPPED(cudaMemcpyAsync, d, src, n, k, s);
}
int ampi_cudart_cudaMemcpy2D(const ampi_cudart *real, void *d, size_t dp, const void *src,
                             size_t sp, size_t w, size_t h, int k) {
  Rank *r = own_rank();
  if (!r) {
    ampi::legacy_wait();
    return AMPI_REAL(cudaMemcpy2D, d, dp, src, sp, w, h, k);
  }
  return ampi::sync_op(real, *r, ampi::to_host(k), [&](void *s) {
    return AMPI_REAL(cudaMemcpy2DAsync, d, dp, src, sp, w, h, k, s);
  });
}
int ampi_cudart_cudaMemcpy2DAsync(const ampi_cudart *real, void *d, size_t dp, const void *src,
                                  size_t sp, size_t w, size_t h, int k, void *s) {
  AMPI_MAPPED(cudaMemcpy2DAsync, d, dp, src, sp, w, h, k, s);
}
int ampi_cudart_cudaMemcpy3D(const ampi_cudart *real, const void *p) {
  Rank *r = own_rank();
  if (!r) {
    ampi::legacy_wait();
    return AMPI_REAL(cudaMemcpy3D, p);
  }
  return ampi::sync_op(real, *r, true, [&](void *s) { return AMPI_REAL(cudaMemcpy3DAsync, p, s); });
}
int ampi_cudart_cudaMemcpy3DAsync(const ampi_cudart *real, const void *p, void *s) {
  AMPI_MAPPED(cudaMemcpy3DAsync, p, s);
}
int ampi_cudart_cudaMemcpyPeer(const ampi_cudart *real, void *d, int dd, const void *src, int sd,
                               size_t n) {
  Rank *r = own_rank();
  if (!r) {
    ampi::legacy_wait();
    return AMPI_REAL(cudaMemcpyPeer, d, dd, src, sd, n);
  }
  return ampi::sync_op(real, *r, false, [&](void *s) {
    return AMPI_REAL(cudaMemcpyPeerAsync, d, dd, src, sd, n, s);
  });
}
int ampi_cudart_cudaMemcpyPeerAsync(const ampi_cudart *real, void *d, int dd, const void *src,
                                    int sd, size_t n, void *s) {
  AMPI_MAPPED(cudaMemcpyPeerAsync, d, dd, src, sd, n, s);
}
int ampi_cudart_cudaMemcpyToSymbol(const ampi_cudart *real, const void *sym, const void *src,
                                   size_t n, size_t o, int k) {
  Rank *r = own_rank();
  if (!r) {
    ampi::legacy_wait();
    return AMPI_REAL(cudaMemcpyToSymbol, sym, src, n, o, k);
  }
  return ampi::sync_op(real, *r, false, [&](void *s) {
    return AMPI_REAL(cudaMemcpyToSymbolAsync, sym, src, n, o, k, s);
  });
}
int ampi_cudart_cudaMemcpyToSymbolAsync(const ampi_cudart *real, const void *sym, const void *src,
                                        size_t n, size_t o, int k, void *s) {
  AMPI_MAPPED(cudaMemcpyToSymbolAsync, sym, src, n, o, k, s);
}
int ampi_cudart_cudaMemcpyFromSymbol(const ampi_cudart *real, void *d, const void *sym, size_t n,
                                     size_t o, int k) {
  Rank *r = own_rank();
  if (!r) {
    ampi::legacy_wait();
    return AMPI_REAL(cudaMemcpyFromSymbol, d, sym, n, o, k);
  }
  return ampi::sync_op(real, *r, ampi::to_host(k), [&](void *s) {
    return AMPI_REAL(cudaMemcpyFromSymbolAsync, d, sym, n, o, k, s);
  });
}
int ampi_cudart_cudaMemcpyFromSymbolAsync(const ampi_cudart *real, void *d, const void *sym,
                                          size_t n, size_t o, int k, void *s) {
  AMPI_MAPPED(cudaMemcpyFromSymbolAsync, d, sym, n, o, k, s);
}
int ampi_cudart_cudaMemset(const ampi_cudart *real, void *d, int v, size_t n) {
  Rank *r = own_rank();
  if (!r) {
    ampi::legacy_wait();
    return AMPI_REAL(cudaMemset, d, v, n);
  }
  return ampi::sync_op(real, *r, false,
                       [&](void *s) { return AMPI_REAL(cudaMemsetAsync, d, v, n, s); });
}
int ampi_cudart_cudaMemsetAsync(const ampi_cudart *real, void *d, int v, size_t n, void *s) {
  AMPI_MAPPED(cudaMemsetAsync, d, v, n, s);
}
int ampi_cudart_cudaMemset2D(const ampi_cudart *real, void *d, size_t p, int v, size_t w,
                             size_t h) {
  Rank *r = own_rank();
  if (!r) {
    ampi::legacy_wait();
    return AMPI_REAL(cudaMemset2D, d, p, v, w, h);
  }
  return ampi::sync_op(real, *r, false,
                       [&](void *s) { return AMPI_REAL(cudaMemset2DAsync, d, p, v, w, h, s); });
}
int ampi_cudart_cudaMemset2DAsync(const ampi_cudart *real, void *d, size_t p, int v, size_t w,
                                  size_t h, void *s) {
  AMPI_MAPPED(cudaMemset2DAsync, d, p, v, w, h, s);
}
int ampi_cudart_cudaMemset3D(const ampi_cudart *real, ampi_pitched_ptr p, int v, ampi_extent e) {
  Rank *r = own_rank();
  if (!r) {
    ampi::legacy_wait();
    return AMPI_REAL(cudaMemset3D, p, v, e);
  }
  return ampi::sync_op(real, *r, false,
                       [&](void *s) { return AMPI_REAL(cudaMemset3DAsync, p, v, e, s); });
}
int ampi_cudart_cudaMemset3DAsync(const ampi_cudart *real, ampi_pitched_ptr p, int v, ampi_extent e,
                                  void *s) {
  AMPI_MAPPED(cudaMemset3DAsync, p, v, e, s);
}
int ampi_cudart_cudaLaunchKernel(const ampi_cudart *real, const void *f, ampi_dim3 g, ampi_dim3 b,
                                 void **a, size_t m, void *s) {
  AMPI_MAPPED(cudaLaunchKernel, f, g, b, a, m, s);
}
int ampi_cudart___cudaLaunchKernel(const ampi_cudart *real, void *f, ampi_dim3 g, ampi_dim3 b,
                                   void **a, size_t m, void *s) {
  AMPI_MAPPED(__cudaLaunchKernel, f, g, b, a, m, s);
}
int ampi_cudart_cudaLaunchCooperativeKernel(const ampi_cudart *real, const void *f, ampi_dim3 g,
                                            ampi_dim3 b, void **a, size_t m, void *s) {
  AMPI_MAPPED(cudaLaunchCooperativeKernel, f, g, b, a, m, s);
}
int ampi_cudart_cudaLaunchKernelExC(const ampi_cudart *real, const ampi_launch_config *c,
                                    const void *f, void **a) {
  Rank *r = own_rank();
  if (!r || !c || !is_default(c->stream)) return AMPI_REAL(cudaLaunchKernelExC, c, f, a);
  int err = ampi::kCudaSuccess;
  ampi_launch_config mine = *c;
  mine.stream = map(real, r, c->stream, &err);
  if (!mine.stream) return err;
  return AMPI_REAL(cudaLaunchKernelExC, &mine, f, a);
}
int ampi_cudart_cudaLaunchHostFunc(const ampi_cudart *real, void *s, ampi_host_fn fn, void *d) {
  AMPI_MAPPED(cudaLaunchHostFunc, s, fn, d);
}
int ampi_cudart_cudaStreamAddCallback(const ampi_cudart *real, void *s, ampi_stream_callback cb,
                                      void *d, unsigned f) {
  AMPI_MAPPED(cudaStreamAddCallback, s, cb, d, f);
}
int ampi_cudart_cudaGraphLaunch(const ampi_cudart *real, void *g, void *s) {
  AMPI_MAPPED(cudaGraphLaunch, g, s);
}
int ampi_cudart_cudaMallocAsync(const ampi_cudart *real, void **p, size_t n, void *s) {
  AMPI_MAPPED(cudaMallocAsync, p, n, s);
}
int ampi_cudart_cudaFreeAsync(const ampi_cudart *real, void *p, void *s) {
  AMPI_MAPPED(cudaFreeAsync, p, s);
}

// cudaFree waits for every stream of the context. In a process of several ranks that use
// stream-ordered MPI (MPIX_*_enqueue), another rank's stream may wait (cuStreamWaitValue32) for
// MPI that this PE must drive, and the real call then never returns: the program's cudaFree at
// the end of jacobi3d_cuda --enqueue --datatypes over 4 or 8 PEs hung 6 runs of 12 (cuda-gdb, H100,
// bench/results/2026-11-26-s8-gpu/run2). There, a rank's cudaFree waits, yielding, for the rank's
// own streams (as a process's cudaFree under MPS waits for its own work) and the memory goes back
// to CUDA when the PE ends (DevPtrCache::defer_free). Elsewhere it is the real call.
int ampi_cudart_cudaFree(const ampi_cudart *real, void *p) {
  Rank *r = own_rank();
  // (Not device memory: the real call reports the error.)
  if (!p || !r || !r->cuda.mpix || !ampi::gpu::is_device(r->pe().devptrs().kind(p)))
    return AMPI_REAL(cudaFree, p);
  if (int e = sync_own_streams(real, *r); e != ampi::kCudaSuccess) return e;
  r->pe().devptrs().defer_free(p);
  return ampi::kCudaSuccess;
}

} // extern "C"

namespace ampi::cudart {

void *stream_of_rank(void *stream, int *err) {
  *err = kCudaSuccess;
  Rank *r = own_rank();
  if (!r || !is_default(stream)) return stream;
  if (r->cuda.stream) return r->cuda.stream;
  const ampi_cudart &rt = shared_runtime();
  if (!rt.cudaStreamQuery) return stream; // a static runtime that never launched: nothing queued
  return rank_stream(&rt, *r, err);
}

int wait_stream(void *stream) {
  Pe *pe = Pe::get_if();
  Rank *r = pe && !Pe::in_thread() ? pe->scheduled_if() : nullptr;
  if (!r) {
    if (!gpu::cuda_loaded()) return gpu::kCudaErrorNotInitialized;
    return gpu::driver().cuStreamSynchronize(static_cast<gpu::CUstream>(stream));
  }
  return yield_until(*r, stream, nullptr);
}

} // namespace ampi::cudart
