// src/core/device_reset.cpp — the per-rank cudaDeviceReset (see device_reset.hpp).
#include "core/device_reset.hpp"

#include "core/cudart.hpp"
#include "core/pe.hpp"
#include "privatize/got_patch.hpp"

#include <dlfcn.h>

namespace ampi {

namespace {

using CudaCall = int (*)(); // cudaError_t (*)(void)

int reset_for_rank() {
  // The shared CUDA runtime's own functions (the program links it, so it is loaded).
  static const auto reset = reinterpret_cast<CudaCall>(::dlsym(RTLD_DEFAULT, "cudaDeviceReset"));
  static const auto sync =
      reinterpret_cast<CudaCall>(::dlsym(RTLD_DEFAULT, "cudaDeviceSynchronize"));
  if (const Pe *pe = Pe::get_if(); pe && pe->live_ranks() > 1) return sync ? sync() : 0;
  return reset ? reset() : 0;
}

} // namespace

void redirect_device_reset(const link_map &program) noexcept {
  privatize::patch_got(program, "cudaDeviceReset", reinterpret_cast<void *>(&reset_for_rank));
  // The runtime's waits and default streams likewise (core/cudart.hpp), wherever this one is
  // applied: the program as started, its template and each rank's copy.
  for (const cudart::Replacement &r : cudart::shared_replacements())
    privatize::patch_got(program, r.name, r.fn);
}

} // namespace ampi
