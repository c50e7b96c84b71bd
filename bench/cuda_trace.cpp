// bench/cuda_trace.cpp — a small CUDA profiler for the GPU machines, which have no nsys: an
// injection library that the driver loads into an unchanged program (CUDA_INJECTION64_PATH=
// libcuda_trace.so) and that uses CUPTI to
// - time every driver API call (CUDA_TRACE_API=1): count and total time per function, per
//   process, the time a call waits for the context's locks included (how much of a virtual
//   rank's iteration the driver takes, one PE against several);
// - record the GPU's work (CUDA_TRACE_GPU=1): every kernel, copy and memset with its start, end
//   and stream, written to CUDA_TRACE_DIR/gpu.<pid>.txt ("k|c|s start_ns end_ns stream name"),
//   so that bench/cuda_trace.py can merge the processes of a job (CUPTI's timestamps share one
//   clock) and tell how busy the GPU was and where it waited.
// Summaries go to CUDA_TRACE_DIR/api.<pid>.txt (default directory: the current one) when the
// program exits. The two modes are meant to be used one at a time (each call's callback costs
// about a microsecond, and records of the GPU's work are buffered and flushed from the
// program's threads). Not part of libampi: built only with -DAMPI_BENCH_CUDA=ON.
#include <cupti.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

constexpr std::size_t kCalls = CUPTI_DRIVER_TRACE_CBID_SIZE;

struct CallStats {
  std::atomic<std::uint64_t> count{0};
  std::atomic<std::uint64_t> ns{0};
};

CallStats g_calls[kCalls];
thread_local std::uint64_t t_enter[8]; // nested driver calls (the runtime calls the driver)
thread_local int t_depth = 0;
std::mutex g_out_mu;
FILE *g_gpu_out = nullptr;
bool g_api = false, g_gpu = false;
CUpti_SubscriberHandle g_sub;

std::uint64_t now_ns() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

std::string out_path(const char *what) {
  const char *dir = std::getenv("CUDA_TRACE_DIR");
  return std::string(dir && *dir ? dir : ".") + "/" + what + "." + std::to_string(::getpid()) +
         ".txt";
}

void CUPTIAPI on_call(void *, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void *data) {
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API || id >= kCalls) return;
  const auto *info = static_cast<const CUpti_CallbackData *>(data);
  if (info->callbackSite == CUPTI_API_ENTER) {
    if (t_depth < 8) t_enter[t_depth] = now_ns();
    ++t_depth;
  } else {
    --t_depth;
    if (t_depth < 0) {
      t_depth = 0;
      return;
    }
    if (t_depth < 8) {
      g_calls[id].count.fetch_add(1, std::memory_order_relaxed);
      g_calls[id].ns.fetch_add(now_ns() - t_enter[t_depth], std::memory_order_relaxed);
    }
  }
}

void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
  constexpr size_t kSize = 8 << 20;
  *buffer = static_cast<uint8_t *>(std::aligned_alloc(8, kSize));
  *size = kSize;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t *buffer, size_t, size_t valid) {
  CUpti_Activity *rec = nullptr;
  std::lock_guard lock(g_out_mu);
  while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
    if (!g_gpu_out) break;
    switch (rec->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
      const auto *k = reinterpret_cast<const CUpti_ActivityKernel10 *>(rec);
      std::fprintf(g_gpu_out, "k %llu %llu %u %.40s\n", (unsigned long long)k->start,
                   (unsigned long long)k->end, k->streamId, k->name ? k->name : "?");
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto *c = reinterpret_cast<const CUpti_ActivityMemcpy6 *>(rec);
      std::fprintf(g_gpu_out, "c %llu %llu %u copy%u/%llu\n", (unsigned long long)c->start,
                   (unsigned long long)c->end, c->streamId, c->copyKind,
                   (unsigned long long)c->bytes);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto *s = reinterpret_cast<const CUpti_ActivityMemset4 *>(rec);
      std::fprintf(g_gpu_out, "s %llu %llu %u memset/%llu\n", (unsigned long long)s->start,
                   (unsigned long long)s->end, s->streamId, (unsigned long long)s->bytes);
      break;
    }
    default:
      break;
    }
  }
  std::free(buffer);
}

void at_exit() {
  if (g_gpu) {
    cuptiActivityFlushAll(1);
    std::lock_guard lock(g_out_mu);
    if (g_gpu_out) std::fclose(g_gpu_out);
    g_gpu_out = nullptr;
  }
  if (!g_api) return;
  struct Row {
    std::uint64_t ns, count;
    CUpti_CallbackId id;
  };
  std::vector<Row> rows;
  std::uint64_t total = 0, calls = 0;
  for (std::size_t i = 0; i < kCalls; ++i)
    if (auto c = g_calls[i].count.load()) {
      rows.push_back({g_calls[i].ns.load(), c, static_cast<CUpti_CallbackId>(i)});
      total += rows.back().ns;
      calls += c;
    }
  std::sort(rows.begin(), rows.end(), [](const Row &a, const Row &b) { return a.ns > b.ns; });
  FILE *f = std::fopen(out_path("api").c_str(), "w");
  if (!f) return;
  std::fprintf(f, "# driver API, pid %d: %llu calls, %.3f ms in all\n", ::getpid(),
               (unsigned long long)calls, total / 1e6);
  std::fprintf(f, "%-40s %10s %12s %10s\n", "function", "calls", "total ms", "mean us");
  for (const Row &r : rows) {
    const char *name = nullptr;
    cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, r.id, &name);
    std::fprintf(f, "%-40s %10llu %12.3f %10.3f\n", name ? name : "?", (unsigned long long)r.count,
                 r.ns / 1e6, r.ns / 1e3 / r.count);
  }
  std::fclose(f);
}

bool on(const char *var) {
  const char *v = std::getenv(var);
  return v && *v && std::strcmp(v, "0") != 0;
}

} // namespace

extern "C" int InitializeInjection() {
  g_api = on("CUDA_TRACE_API");
  g_gpu = on("CUDA_TRACE_GPU");
  if (g_api) {
    if (cuptiSubscribe(&g_sub, on_call, nullptr) != CUPTI_SUCCESS) return 0;
    cuptiEnableDomain(1, g_sub, CUPTI_CB_DOMAIN_DRIVER_API);
  }
  if (g_gpu) {
    g_gpu_out = std::fopen(out_path("gpu").c_str(), "w");
    cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
  }
  std::atexit(at_exit);
  return 1;
}
