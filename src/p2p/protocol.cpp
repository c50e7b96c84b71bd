// src/p2p/protocol.cpp — the settings behind the protocol table, read in one spot, and the
// AMPI_DEBUG_PROTOCOL trace (see protocol.hpp).
#include "p2p/protocol.hpp"

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ampi::p2p {

Thresholds Thresholds::from_environment(std::size_t self_eager_limit,
                                        std::size_t self_device_direct) {
  // Parsed as they always were (plain decimal numbers; "0"/"1" switches): the settings table
  // (src/settings) takes these reads over.
  Thresholds t;
  t.self_eager_limit = self_eager_limit;
  t.self_device_direct = self_device_direct;
  if (const char *e = std::getenv("AMPI_UCX_EAGER_LIMIT"); e && *e)
    t.net_eager_limit = std::strtoull(e, nullptr, 10);
  if (const char *e = std::getenv("AMPI_GPU_EAGER_LIMIT"); e && *e)
    t.gpu_eager_limit = std::strtoull(e, nullptr, 10);
  if (t.gpu_eager_limit > t.net_eager_limit) t.gpu_eager_limit = t.net_eager_limit;
  if (const char *e = std::getenv("AMPI_GPU_IPC"); e && std::strcmp(e, "0") == 0) t.gpu_ipc = false;
  if (const char *e = std::getenv("AMPI_GPU_IPC_REFUSE"); e && std::strcmp(e, "1") == 0)
    t.gpu_ipc_refuse = true;
  if (const char *e = std::getenv("AMPI_DEBUG_PROTOCOL"); e && *e && std::strcmp(e, "0") != 0)
    t.debug = true;
  return t;
}

void Protocols::trace(Choice c, gpu::MemKind kind, std::size_t bytes, int source, int dest) {
  const unsigned size_class = static_cast<unsigned>(std::bit_width(bytes)); // 0..64
  auto &bits = printed_[static_cast<std::size_t>(c.protocol) * 3 + static_cast<std::size_t>(kind)];
  std::uint64_t &word = bits[size_class / 64];
  const std::uint64_t bit = std::uint64_t{1} << (size_class % 64);
  if (word & bit) return;
  word |= bit;
  std::fprintf(stderr, "ampi: protocol: %zu B %s, rank %d -> rank %d: %s/%s\n", bytes, name(kind),
               source, dest, name(c.backend), name(c.protocol));
}

} // namespace ampi::p2p
