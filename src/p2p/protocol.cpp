// src/p2p/protocol.cpp — the AMPI_DEBUG_PROTOCOL trace of the protocol table (see protocol.hpp).
#include "p2p/protocol.hpp"

#include <bit>
#include <cstdio>

namespace ampi::p2p {

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
