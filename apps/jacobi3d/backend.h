/* apps/jacobi3d/backend.h — what Jacobi3D's driver (jacobi3d.c) asks of the place the grid lives:
 * the CUDA backend (backend_cuda.cu: kernels on the GPU, one stream per rank) or the host backend
 * (backend_host.c: the same operations as loops, for machines without a GPU and for CI). The
 * driver is the same source for both; the build picks the backend.
 *
 * A block is nx*ny*nz interior cells of doubles plus one ghost layer on each side, stored x
 * fastest: index(i, j, k) = i + (nx + 2) * (j + (ny + 2) * k), 0 <= i <= nx + 1. Faces are
 * numbered 0 -x, 1 +x, 2 -y, 3 +y, 4 -z, 5 +z; a face's halo buffer holds the layer of interior
 * cells next to it (to send) or the ghost layer (received). */
#ifndef JACOBI3D_BACKEND_H
#define JACOBI3D_BACKEND_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct jb_block jb_block;

/* The number of devices (0 for the host backend) and the backend's name. */
int jb_device_count(void);
const char *jb_name(void);

/* A block on device `device` (ignored by the host backend), its two grids initialised from
 * jb_initial_value at global offset (x0, y0, z0) of a GX*GY*GZ domain (ghosts outside the domain
 * get the boundary values, which stay fixed), its six send and six receive face buffers. */
jb_block *jb_create(int device, int nx, int ny, int nz, int x0, int y0, int z0, int GX, int GY,
                    int GZ);
void jb_destroy(jb_block *b);

/* The current grid (ghosts included, index() above; device memory for the CUDA backend). It
 * changes with every jb_update (the grids swap), so the driver asks again each iteration: what
 * --datatypes sends from and receives into, with datatypes of the block's shape. */
double *jb_grid(jb_block *b);
/* The block's CUDA stream (a cudaStream_t), where every operation below is queued; NULL for the
 * host backend. What --enqueue hands to MPIX_Stream_create. */
void *jb_stream(jb_block *b);

/* Face buffers (device memory for the CUDA backend) and their length in doubles. */
double *jb_send_buffer(jb_block *b, int face);
double *jb_recv_buffer(jb_block *b, int face);
size_t jb_face_count(const jb_block *b, int face);

/* Asynchronous on the block's stream until jb_sync: */
void jb_pack(jb_block *b, int face);   /* interior layer -> send buffer */
void jb_unpack(jb_block *b, int face); /* receive buffer -> ghost layer */
void jb_update(jb_block *b);           /* one Jacobi sweep, then the grids swap */
void jb_to_host(jb_block *b, void *host, const void *dev, size_t bytes);
void jb_to_device(jb_block *b, void *dev, const void *host, size_t bytes);
void jb_sync(jb_block *b);
/* Marks slot k (0 <= k < 64) at the current end of the block's stream, and waits until the work
 * queued before slot k's last mark has completed (no-ops for the host backend): how --enqueue
 * bounds how far the host runs ahead. */
void jb_mark(jb_block *b, int k);
void jb_wait_mark(jb_block *b, int k);

/* Host memory for staging (pinned with CUDA). */
void *jb_host_alloc(size_t bytes);
void jb_host_free(void *p);

/* The interior of the current grid, copied to host memory of nx*ny*nz doubles (x fastest). */
void jb_download(jb_block *b, double *host);

/* The initial value of global cell (x, y, z), -1 <= x <= GX (ghosts of the domain included). */
static inline double jb_initial_value(int x, int y, int z) {
  unsigned h =
      (unsigned)(x + 2) * 73856093u ^ (unsigned)(y + 2) * 19349663u ^ (unsigned)(z + 2) * 83492791u;
  return (double)(h % 1000u) / 1000.0;
}

#ifdef __cplusplus
}
#endif
#endif
