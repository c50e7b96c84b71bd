// bench/gpu_exchange_kernel.cu — the busy kernel of bench/gpu_exchange.c: one block per SM's
// worth of work for about `us` microseconds (clock64 at the GPU's clock), so that the GPU is
// occupied while the halo exchange runs.
#include <cuda_runtime.h>

namespace {
__global__ void busy(long long cycles) {
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
}
} // namespace

extern "C" void gpu_exchange_busy(cudaStream_t s, double us) {
  static long long per_us = 0;
  if (!per_us) {
    int khz = 0;
    cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
    per_us = khz > 0 ? khz / 1000 : 1500;
  }
  busy<<<16, 128, 0, s>>>(static_cast<long long>(us * per_us));
}
