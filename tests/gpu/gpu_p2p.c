/* tests/gpu/gpu_p2p.c — point-to-point with CUDA memory: device->device, device->host and
 * host->device (plus managed, pinned-host and pool memory and interior pointers) between rank
 * pairs (r, r + size/2), for sizes from 0 B to 64 MiB, receive posted first and message arriving
 * first, with wildcard receives, checked byte for byte (and the byte after the message checked
 * untouched). Exits 77 (skipped) before MPI_Init where there is no GPU. */
#include "gpu_test.h"

#include <mpi.h>

#include <string.h>

enum { HOST, DEVICE, MANAGED, PINNED, POOL, NKINDS };
static const char *kind_name[] = {"host", "device", "managed", "pinned", "pool"};
#define MAXB ((size_t)64 << 20)
#define SLACK 64 /* interior offsets and the guard byte */

static unsigned char pattern(size_t i, unsigned seed) {
  return (unsigned char)(i * 131u + seed * 7u + (i >> 9) + 1u);
}

static void *alloc_kind(int kind, size_t n) {
  CUdeviceptr d = 0;
  void *h = NULL;
  switch (kind) {
  case HOST:
    h = malloc(n);
    if (!h) abort();
    return h;
  case DEVICE:
    GPU_CHECK(cu.MemAlloc(&d, n));
    return (void *)d;
  case MANAGED:
    GPU_CHECK(cu.MemAllocManaged(&d, n, 1));
    return (void *)d;
  case PINNED:
    GPU_CHECK(cu.MemAllocHost(&h, n));
    return h;
  case POOL:
    GPU_CHECK(cu.MemAllocAsync(&d, n, NULL));
    GPU_CHECK(cu.StreamSynchronize(NULL));
    return (void *)d;
  }
  return NULL;
}

static void free_kind(int kind, void *p) {
  switch (kind) {
  case HOST:
    free(p);
    break;
  case DEVICE:
  case MANAGED:
    GPU_CHECK(cu.MemFree((CUdeviceptr)p));
    break;
  case PINNED:
    GPU_CHECK(cu.MemFreeHost(p));
    break;
  case POOL:
    GPU_CHECK(cu.MemFreeAsync((CUdeviceptr)p, NULL));
    GPU_CHECK(cu.StreamSynchronize(NULL));
    break;
  }
}

static int on_host(int kind) {
  return kind == HOST || kind == PINNED;
}

static void put(int kind, void *dst, const void *src, size_t n) {
  if (!n) return;
  if (on_host(kind))
    memcpy(dst, src, n);
  else
    GPU_CHECK(cu.MemcpyHtoD((CUdeviceptr)dst, src, n));
  GPU_CHECK(cu.CtxSynchronize()); /* a copy from pageable memory may still be in flight */
}
static void get(int kind, void *dst, const void *src, size_t n) {
  if (!n) return;
  if (on_host(kind))
    memcpy(dst, src, n);
  else
    GPU_CHECK(cu.MemcpyDtoH(dst, (CUdeviceptr)src, n));
}

int main(int argc, char **argv) {
  if (gpu_init() != 0) {
    printf("SKIPPED gpu_p2p: no GPU\n");
    return 77;
  }
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size % 2) {
    if (rank == 0) fprintf(stderr, "gpu_p2p needs an even number of ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const int half = size / 2, sender = rank < half, peer = sender ? rank + half : rank - half;
  static const size_t sizes[] = {0, 1, 8, 1000, 8192, 65536, 65537, 1 << 20, 4 << 20, 64 << 20};
  const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
  /* (source kind, destination kind) pairs; the last ones only for some sizes. */
  static const int pairs[][2] = {{DEVICE, DEVICE}, {DEVICE, HOST},    {HOST, DEVICE},
                                 {HOST, HOST},     {MANAGED, DEVICE}, {PINNED, DEVICE},
                                 {POOL, DEVICE},   {DEVICE, MANAGED}, {DEVICE, POOL}};
  const int npairs = (int)(sizeof pairs / sizeof pairs[0]);
  void *buf[NKINDS];
  for (int k = 0; k < NKINDS; ++k)
    buf[k] = alloc_kind(k, MAXB + SLACK);
  unsigned char *ref = malloc(MAXB + SLACK), *chk = malloc(MAXB + SLACK);
  if (!ref || !chk) abort();
  int failures = 0, checks = 0;
  unsigned seed = 0;
  for (int s = 0; s < nsizes; ++s) {
    const size_t n = sizes[s];
    for (int pi = 0; pi < npairs; ++pi) {
      if (pi >= 4 && n != 8 && n != 65537 && n != (4 << 20)) continue;
      for (int order = 0; order < 2; ++order) {
        ++seed;
        const int kind = sender ? pairs[pi][0] : pairs[pi][1];
        /* Interior pointers: an odd offset into the allocation on every other round. */
        const size_t off = (seed % 2) ? 3 : 0;
        unsigned char *p = (unsigned char *)buf[kind] + off;
        const int tag = (int)(seed % 1000);
        const int wild = seed % 3 == 0;
        if (sender) {
          for (size_t i = 0; i < n; ++i)
            ref[i] = pattern(i, seed);
          put(kind, p, ref, n);
          if (order == 0) { /* receive posted first */
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Send(p, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD);
          } else { /* message first */
            MPI_Request r;
            MPI_Isend(p, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r);
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
          }
        } else {
          memset(chk, 0xEE, n + 1);
          put(kind, p, chk, n + 1); /* poison, one byte past the message too */
          MPI_Status st;
          const int src = wild ? MPI_ANY_SOURCE : peer, tg = wild ? MPI_ANY_TAG : tag;
          if (order == 0) {
            MPI_Request r;
            MPI_Irecv(p, (int)n, MPI_BYTE, src, tg, MPI_COMM_WORLD, &r);
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Wait(&r, &st);
          } else {
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Recv(p, (int)n, MPI_BYTE, src, tg, MPI_COMM_WORLD, &st);
          }
          int count = -1;
          MPI_Get_count(&st, MPI_BYTE, &count);
          get(kind, chk, p, n + 1);
          size_t bad = n + 1;
          for (size_t i = 0; i < n && bad > n; ++i)
            if (chk[i] != pattern(i, seed)) bad = i;
          ++checks;
          if (bad <= n || chk[n] != 0xEE || count != (int)n || st.MPI_SOURCE != peer ||
              st.MPI_TAG != tag) {
            ++failures;
            fprintf(stderr,
                    "rank %d: %s->%s %zu B order %d: first bad byte %zu (n=%zu), guard %#x, "
                    "count %d, source %d, tag %d\n",
                    rank, kind_name[pairs[pi][0]], kind_name[pairs[pi][1]], n, order,
                    bad <= n ? bad : (size_t)-1, n, chk[n], count, st.MPI_SOURCE, st.MPI_TAG);
          }
        }
      }
    }
  }
  int total = 0, all_checks = 0;
  MPI_Reduce(&failures, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&checks, &all_checks, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  for (int k = 0; k < NKINDS; ++k)
    free_kind(k, buf[k]);
  free(ref);
  free(chk);
  if (rank == 0) {
    if (total == 0)
      printf("ok gpu_p2p (%d ranks, %d transfers checked)\n", size, all_checks);
    else
      printf("FAILED gpu_p2p: %d of %d transfers wrong\n", total, all_checks);
  }
  MPI_Finalize();
  /* Where a multi-process run stops after the "ok" line, this tells finalize from exit. */
  fprintf(stderr, "rank %d: finalized\n", rank);
  return total == 0 ? 0 : 1;
}
