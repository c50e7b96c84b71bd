/* src/start/cudart_wrap.c — libampi_cudart_wrap.a: a program linked with the static CUDA runtime
 * (nvcc's default) calls its own copy of the runtime directly, so libampi cannot redirect those
 * calls at run time as it does for the shared runtime. mpicc/mpicxx link such a program with
 * -Wl,--wrap=<call> for each call of core/cudart_table.h and this archive: the program's calls
 * reach __wrap_<call> here, which hands libampi the program's own (per-rank copy's) runtime
 * functions, __real_<call>, in a table (src/core/cudart.cpp does the rest). The references are
 * weak, so that a runtime without one of the calls (__cudaLaunchKernel is new in CUDA 13) links
 * too, except one: a weak reference does not take a member out of an archive, and a program whose
 * every CUDA call is wrapped (host code that only copies) would otherwise lose the runtime. */
#include "core/cudart_table.h"

extern int __real_cudaDeviceSynchronize(void);
#define AMPI_WRAP_REAL(name, params, args) extern int __real_##name params __attribute__((weak));
AMPI_CUDART_CALLS(AMPI_WRAP_REAL)
#undef AMPI_WRAP_REAL

static const ampi_cudart ampi_real = {__real_cudaDeviceSynchronize,
#define AMPI_WRAP_ENTRY(name, params, args) __real_##name,
                                      AMPI_CUDART_CALLS(AMPI_WRAP_ENTRY)
#undef AMPI_WRAP_ENTRY
};

int __wrap_cudaDeviceSynchronize(void);
int __wrap_cudaDeviceSynchronize(void) {
  return ampi_cudart_cudaDeviceSynchronize(&ampi_real);
}
#define AMPI_WRAP_DEFINE(name, params, args)                                                       \
  int __wrap_##name params;                                                                        \
  int __wrap_##name params {                                                                       \
    return ampi_cudart_##name(&ampi_real, AMPI_CUDART_UNPAREN args);                               \
  }
AMPI_CUDART_CALLS(AMPI_WRAP_DEFINE)
#undef AMPI_WRAP_DEFINE
