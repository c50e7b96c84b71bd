/* apps/jacobi3d/backend_host.c — Jacobi3D's host backend: the grid, the halo buffers and the
 * "kernels" (pack, unpack, the 7-point sweep) as plain loops in host memory. Used by the host-only
 * build (CI, machines without a GPU); the same driver runs on the GPU with backend_cuda.cu. */
#include "backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct jb_block {
  int nx, ny, nz;
  double *u, *v; /* current and next grid, ghosts included */
  double *send[6], *recv[6];
};

int jb_device_count(void) {
  return 0;
}
const char *jb_name(void) {
  return "host";
}

static size_t idx(const jb_block *b, int i, int j, int k) {
  return (size_t)i + (size_t)(b->nx + 2) * ((size_t)j + (size_t)(b->ny + 2) * (size_t)k);
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "jacobi3d: out of memory (%zu bytes)\n", n);
    abort();
  }
  return p;
}

jb_block *jb_create(int device, int nx, int ny, int nz, int x0, int y0, int z0, int GX, int GY,
                    int GZ) {
  (void)device, (void)GX, (void)GY, (void)GZ;
  jb_block *b = xmalloc(sizeof *b);
  b->nx = nx, b->ny = ny, b->nz = nz;
  size_t cells = (size_t)(nx + 2) * (size_t)(ny + 2) * (size_t)(nz + 2);
  b->u = xmalloc(cells * sizeof(double));
  b->v = xmalloc(cells * sizeof(double));
  for (int k = 0; k <= nz + 1; ++k)
    for (int j = 0; j <= ny + 1; ++j)
      for (int i = 0; i <= nx + 1; ++i)
        b->u[idx(b, i, j, k)] = jb_initial_value(x0 + i - 1, y0 + j - 1, z0 + k - 1);
  memcpy(b->v, b->u, cells * sizeof(double));
  for (int f = 0; f < 6; ++f) {
    b->send[f] = xmalloc(jb_face_count(b, f) * sizeof(double));
    b->recv[f] = xmalloc(jb_face_count(b, f) * sizeof(double));
  }
  return b;
}

void jb_destroy(jb_block *b) {
  if (!b) return;
  for (int f = 0; f < 6; ++f)
    free(b->send[f]), free(b->recv[f]);
  free(b->u), free(b->v), free(b);
}

double *jb_grid(jb_block *b) {
  return b->u;
}
void *jb_stream(jb_block *b) {
  (void)b;
  return NULL;
}

double *jb_send_buffer(jb_block *b, int face) {
  return b->send[face];
}
double *jb_recv_buffer(jb_block *b, int face) {
  return b->recv[face];
}
size_t jb_face_count(const jb_block *b, int face) {
  int d = face / 2;
  return d == 0 ? (size_t)b->ny * b->nz : d == 1 ? (size_t)b->nx * b->nz : (size_t)b->nx * b->ny;
}

/* Copies between a face layer (interior `layer` = 1 or n, ghost 0 or n + 1) and a buffer. */
static void face_copy(jb_block *b, int face, int layer, double *buf, int to_buf) {
  int d = face / 2;
  size_t n = 0;
  if (d == 0) {
    for (int k = 1; k <= b->nz; ++k)
      for (int j = 1; j <= b->ny; ++j, ++n)
        if (to_buf)
          buf[n] = b->u[idx(b, layer, j, k)];
        else
          b->u[idx(b, layer, j, k)] = buf[n];
  } else if (d == 1) {
    for (int k = 1; k <= b->nz; ++k)
      for (int i = 1; i <= b->nx; ++i, ++n)
        if (to_buf)
          buf[n] = b->u[idx(b, i, layer, k)];
        else
          b->u[idx(b, i, layer, k)] = buf[n];
  } else {
    for (int j = 1; j <= b->ny; ++j)
      for (int i = 1; i <= b->nx; ++i, ++n)
        if (to_buf)
          buf[n] = b->u[idx(b, i, j, layer)];
        else
          b->u[idx(b, i, j, layer)] = buf[n];
  }
}
static int extent(const jb_block *b, int face) {
  int d = face / 2;
  return d == 0 ? b->nx : d == 1 ? b->ny : b->nz;
}

void jb_pack(jb_block *b, int face) {
  face_copy(b, face, face % 2 ? extent(b, face) : 1, b->send[face], 1);
}
void jb_unpack(jb_block *b, int face) {
  face_copy(b, face, face % 2 ? extent(b, face) + 1 : 0, b->recv[face], 0);
}

void jb_update(jb_block *b) {
  const size_t sx = 1, sy = (size_t)(b->nx + 2), sz = sy * (size_t)(b->ny + 2);
  for (int k = 1; k <= b->nz; ++k)
    for (int j = 1; j <= b->ny; ++j)
      for (int i = 1; i <= b->nx; ++i) {
        size_t c = idx(b, i, j, k);
        const double *u = b->u;
        b->v[c] =
            (u[c] + u[c - sx] + u[c + sx] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]) / 7.0;
      }
  double *t = b->u;
  b->u = b->v;
  b->v = t;
}

void jb_to_host(jb_block *b, void *host, const void *dev, size_t bytes) {
  (void)b;
  memcpy(host, dev, bytes);
}
void jb_to_device(jb_block *b, void *dev, const void *host, size_t bytes) {
  (void)b;
  memcpy(dev, host, bytes);
}
void jb_sync(jb_block *b) {
  (void)b;
}
void jb_mark(jb_block *b, int k) {
  (void)b, (void)k;
}
void jb_wait_mark(jb_block *b, int k) {
  (void)b, (void)k;
}

void *jb_host_alloc(size_t bytes) {
  return xmalloc(bytes);
}
void jb_host_free(void *p) {
  free(p);
}

void jb_download(jb_block *b, double *host) {
  size_t n = 0;
  for (int k = 1; k <= b->nz; ++k)
    for (int j = 1; j <= b->ny; ++j)
      for (int i = 1; i <= b->nx; ++i)
        host[n++] = b->u[idx(b, i, j, k)];
}
