/* How CUDA IPC handles behave for small (sub-allocated) cuMemAlloc buffers. */
#include "../../tests/gpu/gpu_test.h"
#include <string.h>
#include <unistd.h>
typedef struct { char b[64]; } H;
static CUresult (*IpcGet)(H *, CUdeviceptr);
static CUresult (*IpcOpen)(CUdeviceptr *, H, unsigned);
static CUresult (*IpcClose)(CUdeviceptr);
static CUresult (*PtrAttr)(void *, int, CUdeviceptr);
static CUresult (*AddrRange)(CUdeviceptr *, size_t *, CUdeviceptr);
struct Rec { H h; CUdeviceptr ptr, start; size_t size; unsigned long long id; int fill; };
int main(int argc, char **argv) {
  if (gpu_init()) return 77;
  void *lib = dlopen("libcuda.so.1", RTLD_NOW);
  *(void **)&IpcGet = dlsym(lib, "cuIpcGetMemHandle");
  *(void **)&IpcOpen = dlsym(lib, "cuIpcOpenMemHandle_v2");
  *(void **)&IpcClose = dlsym(lib, "cuIpcCloseMemHandle");
  *(void **)&PtrAttr = dlsym(lib, "cuPointerGetAttribute");
  *(void **)&AddrRange = dlsym(lib, "cuMemGetAddressRange_v2");
  const char *file = argv[2];
  if (strcmp(argv[1], "export") == 0) {
    size_t sizes[] = {4096, 4096, 100, 2u << 20, 4096, 65536};
    struct Rec r[16]; int n = 0; CUdeviceptr d[8];
    for (int i = 0; i < 6; ++i) {
      GPU_CHECK(cu.MemAlloc(&d[i], sizes[i]));
      GPU_CHECK(cu.MemsetD8(d[i], (unsigned char)(i + 1), sizes[i]));
    }
    GPU_CHECK(cu.MemFree(d[1]));
    CUdeviceptr again; GPU_CHECK(cu.MemAlloc(&again, 4096)); GPU_CHECK(cu.MemsetD8(again, 0x77, 4096));
    d[6] = again;
    for (int i = 0; i < 7; ++i) {
      if (i == 1) continue;
      struct Rec *x = &r[n++];
      memset(x, 0, sizeof *x);
      x->ptr = d[i]; x->fill = i == 6 ? 0x77 : i + 1;
      AddrRange(&x->start, &x->size, d[i]);
      PtrAttr(&x->id, 7, d[i]);
      CUresult e = IpcGet(&x->h, x->start);
      printf("export %d ptr %#lx start %#lx size %zu id %llu rc %d handle ", i, (unsigned long)x->ptr, (unsigned long)x->start, x->size, x->id, e);
      for (int k = 0; k < 64; ++k) printf("%02x", (unsigned char)x->h.b[k]);
      printf("\n");
    }
    FILE *f = fopen(file, "wb"); fwrite(&n, sizeof n, 1, f); fwrite(r, sizeof r[0], n, f); fclose(f);
    char done[256]; snprintf(done, sizeof done, "%s.done", file);
    for (int i = 0; i < 300 && access(done, F_OK) != 0; ++i) usleep(100000);
    return 0;
  }
  FILE *f = fopen(file, "rb"); int n; struct Rec r[16];
  if (fread(&n, sizeof n, 1, f) != 1 || fread(r, sizeof r[0], n, f) != (size_t)n) return 1;
  fclose(f);
  for (int i = 0; i < n; ++i) {
    CUdeviceptr m = 0;
    CUresult e = IpcOpen(&m, r[i].h, 1);
    unsigned char first = 0, at = 0;
    if (!e) { cu.MemcpyDtoH(&first, m, 1); }
    printf("import rec %d (fill %#x, start %#lx) rc %d mapped %#lx first byte %#x\n", i, r[i].fill, (unsigned long)r[i].start, e, (unsigned long)m, first);
    (void)at;
  }
  return 0;
}
