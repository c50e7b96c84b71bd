/* src/core/cudart_table.h — the CUDA runtime calls whose blocking waits yield and whose default
 * stream is per rank (src/core/cudart.cpp): their list (one X-macro) and the table of the real
 * functions that each call of ours forwards to. Plain C, without CUDA's headers (handles are
 * void *, errors int, dim3 three unsigned), so that libampi builds without a CUDA toolkit and
 * src/start/cudart_wrap.c (linked into programs with the static CUDA runtime) shares it. */
#ifndef AMPI_CORE_CUDART_TABLE_H
#define AMPI_CORE_CUDART_TABLE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ampi_dim3 {
  unsigned x, y, z;
} ampi_dim3;
/* cudaPitchedPtr, cudaExtent (passed by value) and cudaLaunchConfig_t, as CUDA lays them out. */
typedef struct ampi_pitched_ptr {
  void *ptr;
  size_t pitch, xsize, ysize;
} ampi_pitched_ptr;
typedef struct ampi_extent {
  size_t width, height, depth;
} ampi_extent;
typedef struct ampi_launch_config {
  ampi_dim3 grid, block;
  size_t dynamic_smem;
  void *stream;
  void *attrs;
  unsigned num_attrs;
} ampi_launch_config;
typedef void (*ampi_host_fn)(void *);
typedef void (*ampi_stream_callback)(void *, int, void *);

/* X(name, (parameters), (arguments)): every call a program makes that we take over. */
#define AMPI_CUDART_CALLS(X)                                                                       \
  X(cudaStreamSynchronize, (void *s), (s))                                                         \
  X(cudaStreamQuery, (void *s), (s))                                                               \
  X(cudaEventSynchronize, (void *e), (e))                                                          \
  X(cudaEventRecord, (void *e, void *s), (e, s))                                                   \
  X(cudaEventRecordWithFlags, (void *e, void *s, unsigned f), (e, s, f))                           \
  X(cudaStreamWaitEvent, (void *s, void *e, unsigned f), (s, e, f))                                \
  X(cudaStreamCreate, (void **s), (s))                                                             \
  X(cudaStreamCreateWithFlags, (void **s, unsigned f), (s, f))                                     \
  X(cudaStreamCreateWithPriority, (void **s, unsigned f, int p), (s, f, p))                        \
  X(cudaStreamDestroy, (void *s), (s))                                                             \
  X(cudaMemcpy, (void *d, const void *src, size_t n, int k), (d, src, n, k))                       \
  X(cudaMemcpyAsync, (void *d, const void *src, size_t n, int k, void *s), (d, src, n, k, s))      \
  X(cudaMemcpy2D, (void *d, size_t dp, const void *src, size_t sp, size_t w, size_t h, int k),     \
    (d, dp, src, sp, w, h, k))                                                                     \
  X(cudaMemcpy2DAsync,                                                                             \
    (void *d, size_t dp, const void *src, size_t sp, size_t w, size_t h, int k, void *s),          \
    (d, dp, src, sp, w, h, k, s))                                                                  \
  X(cudaMemcpy3D, (const void *p), (p))                                                            \
  X(cudaMemcpy3DAsync, (const void *p, void *s), (p, s))                                           \
  X(cudaMemcpyPeer, (void *d, int dd, const void *src, int sd, size_t n), (d, dd, src, sd, n))     \
  X(cudaMemcpyPeerAsync, (void *d, int dd, const void *src, int sd, size_t n, void *s),            \
    (d, dd, src, sd, n, s))                                                                        \
  X(cudaMemcpyToSymbol, (const void *sym, const void *src, size_t n, size_t o, int k),             \
    (sym, src, n, o, k))                                                                           \
  X(cudaMemcpyToSymbolAsync,                                                                       \
    (const void *sym, const void *src, size_t n, size_t o, int k, void *s),                        \
    (sym, src, n, o, k, s))                                                                        \
  X(cudaMemcpyFromSymbol, (void *d, const void *sym, size_t n, size_t o, int k),                   \
    (d, sym, n, o, k))                                                                             \
  X(cudaMemcpyFromSymbolAsync, (void *d, const void *sym, size_t n, size_t o, int k, void *s),     \
    (d, sym, n, o, k, s))                                                                          \
  X(cudaMemset, (void *d, int v, size_t n), (d, v, n))                                             \
  X(cudaMemsetAsync, (void *d, int v, size_t n, void *s), (d, v, n, s))                            \
  X(cudaMemset2D, (void *d, size_t p, int v, size_t w, size_t h), (d, p, v, w, h))                 \
  X(cudaMemset2DAsync, (void *d, size_t p, int v, size_t w, size_t h, void *s),                    \
    (d, p, v, w, h, s))                                                                            \
  X(cudaMemset3D, (ampi_pitched_ptr p, int v, ampi_extent e), (p, v, e))                           \
  X(cudaMemset3DAsync, (ampi_pitched_ptr p, int v, ampi_extent e, void *s), (p, v, e, s))          \
  X(cudaLaunchKernel, (const void *f, ampi_dim3 g, ampi_dim3 b, void **a, size_t m, void *s),      \
    (f, g, b, a, m, s))                                                                            \
  X(__cudaLaunchKernel, (void *f, ampi_dim3 g, ampi_dim3 b, void **a, size_t m, void *s),          \
    (f, g, b, a, m, s))                                                                            \
  X(cudaLaunchCooperativeKernel,                                                                   \
    (const void *f, ampi_dim3 g, ampi_dim3 b, void **a, size_t m, void *s), (f, g, b, a, m, s))    \
  X(cudaLaunchKernelExC, (const ampi_launch_config *c, const void *f, void **a), (c, f, a))        \
  X(cudaLaunchHostFunc, (void *s, ampi_host_fn fn, void *d), (s, fn, d))                           \
  X(cudaStreamAddCallback, (void *s, ampi_stream_callback cb, void *d, unsigned f), (s, cb, d, f)) \
  X(cudaGraphLaunch, (void *g, void *s), (g, s))                                                   \
  X(cudaMallocAsync, (void **p, size_t n, void *s), (p, n, s))                                     \
  X(cudaFreeAsync, (void *p, void *s), (p, s))                                                     \
  X(cudaFree, (void *p), (p))

#define AMPI_CUDART_UNPAREN(...) __VA_ARGS__

/* The real functions: the shared runtime's (found by name) or a static runtime's (__real_X of
 * the linker's --wrap); a null entry is a call this runtime does not have. */
typedef struct ampi_cudart {
  int (*cudaDeviceSynchronize)(void);
#define AMPI_CUDART_FIELD(name, params, args) int(*name) params;
  AMPI_CUDART_CALLS(AMPI_CUDART_FIELD)
#undef AMPI_CUDART_FIELD
} ampi_cudart;

/* libampi's version of each call, given the real ones (exported: libampi.map). */
int ampi_cudart_cudaDeviceSynchronize(const ampi_cudart *real);
#define AMPI_CUDART_DECLARE(name, params, args)                                                    \
  int ampi_cudart_##name(const ampi_cudart *real, AMPI_CUDART_UNPAREN params);
AMPI_CUDART_CALLS(AMPI_CUDART_DECLARE)
#undef AMPI_CUDART_DECLARE

#ifdef __cplusplus
}
#endif

#endif
