// src/devptr_cache/device_kernels.cu — the one translation unit that nvcc compiles into the
// fatbin embedded in libampi.so (src/CMakeLists.txt): the reduction kernels, the strided copies
// and the resident copy kernel. One module per context holds them all (kernels.cpp loads it).
#include "copy_service.cu"
#include "reduce_kernels.cu"
#include "strided_copy.cu"
