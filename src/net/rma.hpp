// src/net/rma.hpp — the one-sided part of the network port: what a window needs from the network
// to reach memory in other processes. A back-end (UCX today, src/ucx/rma.*) registers local memory
// (a handle with a packed remote key that other PEs unpack), and moves data and 64-bit atomics to a
// PE's registered memory. Windows see only this interface (src/rma/backend_net.cpp), so the
// network layer can change beneath them.
#pragma once

#include "devptr_cache/devptr_cache.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace ampi::net {

// Local memory registered with the network: other PEs reach it through its packed remote key.
// Unregistered when destroyed.
class RmaRegion {
public:
  virtual ~RmaRegion() = default;
  virtual void *address() const noexcept = 0;
  virtual std::size_t length() const noexcept = 0;
  virtual std::span<const std::byte> packed_key() const noexcept = 0;
};

// A packed remote key unpacked for one PE: names that PE's registered memory. Released when
// destroyed (before the port goes).
class RemoteKey {
public:
  virtual ~RemoteKey() = default;
};

// An operation in flight: null when it finished at once; `Rma::test` finishes it.
using RmaOp = void *;

class Rma {
public:
  virtual ~Rma() = default;

  // Registers `len` bytes at `addr` (of memory kind `kind`) or, when `addr` is null, `len` bytes
  // the network allocates so that other PEs of the host can map them.
  virtual std::unique_ptr<RmaRegion> register_memory(void *addr, std::size_t len,
                                                     gpu::MemKind kind) = 0;
  virtual std::unique_ptr<RemoteKey> unpack_key(int pe, const std::byte *packed) = 0;

  // Data to and from `raddr` in the memory `key` names (the PE it was unpacked for). `buf` must
  // stay until the operation finished locally.
  virtual RmaOp put(const RemoteKey &key, const void *buf, std::size_t len,
                    std::uint64_t raddr) = 0;
  virtual RmaOp get(const RemoteKey &key, void *buf, std::size_t len, std::uint64_t raddr) = 0;
  // A fetching atomic on the `size`-byte word (4 or 8) at `raddr`: FetchAdd adds `*operand`, Swap
  // replaces the word with it, CompareSwap replaces it with `*reply` when it equals `*operand` (the
  // expected value). The old value lands in `*reply`. Both must live until the operation
  // finished; when it has, it is done at the target too. (No and/or/xor: UCX 1.13's emulation of
  // the fetching forms gave wrong 64-bit results across hosts.)
  enum class Atomic { FetchAdd, Swap, CompareSwap };
  virtual RmaOp atomic(const RemoteKey &key, Atomic op, std::size_t size, const void *operand,
                       void *reply, std::uint64_t raddr) = 0;
  RmaOp atomic64(const RemoteKey &key, Atomic op, const std::uint64_t *operand,
                 std::uint64_t *reply, std::uint64_t raddr) {
    return atomic(key, op, 8, operand, reply, raddr);
  }
  // Completes, at the target too, every operation posted to `pe` so far.
  virtual RmaOp flush(int pe) = 0;
  // True when `op` finished (and releases it); throws when it failed.
  virtual bool test(RmaOp op) = 0;
};

} // namespace ampi::net
