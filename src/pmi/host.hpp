// src/pmi/host.hpp — which host a PE runs on, as a 64-bit hash (FNV-1a) of the host's name:
// PEs and ranks compare these to tell the same host (shared memory, CUDA IPC, MPI_COMM_TYPE_SHARED)
// while exchanging only 8 bytes each.
#pragma once

#include <cstdint>

namespace ampi {

std::uint64_t host_id() noexcept;

} // namespace ampi
