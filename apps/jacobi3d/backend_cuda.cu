// apps/jacobi3d/backend_cuda.cu — Jacobi3D's CUDA backend: the block's two grids and its twelve
// halo buffers in device memory, the 7-point sweep and the halo pack/unpack as kernels on one
// stream per block (per rank). Every entry point first selects the block's device, since ranks
// of one process (virtual ranks on one OS thread) may use different devices.
#include "backend.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <vector>

#define JB_CUDA(call)                                                                              \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "jacobi3d: %s failed: %s (%s:%d)\n", #call, cudaGetErrorString(e_),     \
                   __FILE__, __LINE__);                                                            \
      std::abort();                                                                                \
    }                                                                                              \
  } while (0)

struct jb_block {
  int device;
  int nx, ny, nz;
  double *u, *v;
  double *send[6], *recv[6];
  cudaStream_t stream;
  cudaEvent_t mark[64]; // jb_mark's slots, made on first use
};

namespace {
void use(const jb_block *b) {
  JB_CUDA(cudaSetDevice(b->device));
}

__device__ __host__ inline size_t at(int nx, int ny, int i, int j, int k) {
  return (size_t)i + (size_t)(nx + 2) * ((size_t)j + (size_t)(ny + 2) * (size_t)k);
}

// Copies between a face layer and its buffer: thread (a, c) handles the cell (a + 1, c + 1) of
// the face's two other dimensions. to_buf: layer -> buffer, else buffer -> layer.
__global__ void face_kernel(double *u, double *buf, int nx, int ny, int nz, int dim, int layer,
                            int to_buf) {
  int a = blockIdx.x * blockDim.x + threadIdx.x;
  int c = blockIdx.y * blockDim.y + threadIdx.y;
  int na = dim == 0 ? ny : nx, nc = dim == 2 ? ny : nz;
  if (a >= na || c >= nc) return;
  size_t cell = dim == 0   ? at(nx, ny, layer, a + 1, c + 1)
                : dim == 1 ? at(nx, ny, a + 1, layer, c + 1)
                           : at(nx, ny, a + 1, c + 1, layer);
  size_t n = (size_t)a + (size_t)na * (size_t)c;
  if (to_buf)
    buf[n] = u[cell];
  else
    u[cell] = buf[n];
}

__global__ void sweep_kernel(const double *__restrict__ u, double *__restrict__ v, int nx, int ny,
                             int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
  int j = blockIdx.y * blockDim.y + threadIdx.y + 1;
  int k = blockIdx.z * blockDim.z + threadIdx.z + 1;
  if (i > nx || j > ny || k > nz) return;
  const size_t sy = (size_t)(nx + 2), sz = sy * (size_t)(ny + 2);
  size_t c = at(nx, ny, i, j, k);
  // The same additions in the same order as the host backend and the serial check.
  v[c] = (u[c] + u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]) / 7.0;
}

int extent(const jb_block *b, int face) {
  int d = face / 2;
  return d == 0 ? b->nx : d == 1 ? b->ny : b->nz;
}

void face(jb_block *b, int f, int layer, double *buf, int to_buf) {
  use(b);
  int d = f / 2;
  int na = d == 0 ? b->ny : b->nx, nc = d == 2 ? b->ny : b->nz;
  dim3 block(32, 8);
  dim3 grid((na + 31) / 32, (nc + 7) / 8);
  face_kernel<<<grid, block, 0, b->stream>>>(b->u, buf, b->nx, b->ny, b->nz, d, layer, to_buf);
  JB_CUDA(cudaGetLastError());
}
} // namespace

extern "C" {

int jb_device_count(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) return 0;
  return n;
}
const char *jb_name(void) {
  return "cuda";
}

jb_block *jb_create(int device, int nx, int ny, int nz, int x0, int y0, int z0, int GX, int GY,
                    int GZ) {
  (void)GX, (void)GY, (void)GZ;
  jb_block *b = static_cast<jb_block *>(std::calloc(1, sizeof(jb_block)));
  if (!b) std::abort();
  b->device = device;
  b->nx = nx, b->ny = ny, b->nz = nz;
  use(b);
  JB_CUDA(cudaStreamCreateWithFlags(&b->stream, cudaStreamNonBlocking));
  size_t cells = (size_t)(nx + 2) * (size_t)(ny + 2) * (size_t)(nz + 2);
  std::vector<double> init(cells);
  for (int k = 0; k <= nz + 1; ++k)
    for (int j = 0; j <= ny + 1; ++j)
      for (int i = 0; i <= nx + 1; ++i)
        init[at(nx, ny, i, j, k)] = jb_initial_value(x0 + i - 1, y0 + j - 1, z0 + k - 1);
  JB_CUDA(cudaMalloc(&b->u, cells * sizeof(double)));
  JB_CUDA(cudaMalloc(&b->v, cells * sizeof(double)));
  JB_CUDA(cudaMemcpy(b->u, init.data(), cells * sizeof(double), cudaMemcpyHostToDevice));
  JB_CUDA(cudaMemcpy(b->v, init.data(), cells * sizeof(double), cudaMemcpyHostToDevice));
  for (int f = 0; f < 6; ++f) {
    JB_CUDA(cudaMalloc(&b->send[f], jb_face_count(b, f) * sizeof(double)));
    JB_CUDA(cudaMalloc(&b->recv[f], jb_face_count(b, f) * sizeof(double)));
  }
  return b;
}

void jb_destroy(jb_block *b) {
  if (!b) return;
  use(b);
  for (int f = 0; f < 6; ++f)
    cudaFree(b->send[f]), cudaFree(b->recv[f]);
  cudaFree(b->u), cudaFree(b->v);
  for (int k = 0; k < 64; ++k)
    if (b->mark[k]) cudaEventDestroy(b->mark[k]);
  cudaStreamDestroy(b->stream);
  std::free(b);
}

double *jb_grid(jb_block *b) {
  return b->u;
}
void *jb_stream(jb_block *b) {
  return b->stream;
}

double *jb_send_buffer(jb_block *b, int f) {
  return b->send[f];
}
double *jb_recv_buffer(jb_block *b, int f) {
  return b->recv[f];
}
size_t jb_face_count(const jb_block *b, int f) {
  int d = f / 2;
  return d == 0 ? (size_t)b->ny * b->nz : d == 1 ? (size_t)b->nx * b->nz : (size_t)b->nx * b->ny;
}

void jb_pack(jb_block *b, int f) {
  face(b, f, f % 2 ? extent(b, f) : 1, b->send[f], 1);
}
void jb_unpack(jb_block *b, int f) {
  face(b, f, f % 2 ? extent(b, f) + 1 : 0, b->recv[f], 0);
}

void jb_update(jb_block *b) {
  use(b);
  dim3 block(32, 4, 2);
  dim3 grid((b->nx + 31) / 32, (b->ny + 3) / 4, (b->nz + 1) / 2);
  sweep_kernel<<<grid, block, 0, b->stream>>>(b->u, b->v, b->nx, b->ny, b->nz);
  JB_CUDA(cudaGetLastError());
  double *t = b->u;
  b->u = b->v;
  b->v = t;
}

void jb_to_host(jb_block *b, void *host, const void *dev, size_t bytes) {
  use(b);
  JB_CUDA(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, b->stream));
}
void jb_to_device(jb_block *b, void *dev, const void *host, size_t bytes) {
  use(b);
  JB_CUDA(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, b->stream));
}
void jb_sync(jb_block *b) {
  use(b);
  JB_CUDA(cudaStreamSynchronize(b->stream));
}
void jb_mark(jb_block *b, int k) {
  use(b);
  if (!b->mark[k]) JB_CUDA(cudaEventCreateWithFlags(&b->mark[k], cudaEventDisableTiming));
  JB_CUDA(cudaEventRecord(b->mark[k], b->stream));
}
void jb_wait_mark(jb_block *b, int k) {
  use(b);
  if (b->mark[k]) JB_CUDA(cudaEventSynchronize(b->mark[k]));
}

void *jb_host_alloc(size_t bytes) {
  void *p = nullptr;
  JB_CUDA(cudaMallocHost(&p, bytes ? bytes : 1));
  return p;
}
void jb_host_free(void *p) {
  cudaFreeHost(p);
}

void jb_download(jb_block *b, double *host) {
  use(b);
  size_t cells = (size_t)(b->nx + 2) * (size_t)(b->ny + 2) * (size_t)(b->nz + 2);
  std::vector<double> all(cells);
  JB_CUDA(cudaStreamSynchronize(b->stream));
  JB_CUDA(cudaMemcpy(all.data(), b->u, cells * sizeof(double), cudaMemcpyDeviceToHost));
  size_t n = 0;
  for (int k = 1; k <= b->nz; ++k)
    for (int j = 1; j <= b->ny; ++j)
      for (int i = 1; i <= b->nx; ++i)
        host[n++] = all[at(b->nx, b->ny, i, j, k)];
}

} // extern "C"
