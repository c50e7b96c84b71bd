// src/ucx/rma.hpp — UCX's implementation of the network port's one-sided interface
// (src/net/rma.hpp): memory registered with the PE's UCP context, remote keys unpacked for an
// endpoint, put, get, 64-bit atomics and endpoint flushes. Every UCX handle is owned by an object
// that releases it.
#pragma once

#include "net/rma.hpp"
#include "ucx/transport.hpp"

#include <ucp/api/ucp.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace ampi::ucx {

// Memory registered with the PE's UCP context: `addr` (or, when null, `len` bytes UCX allocates
// so that other processes on the node can map them), and its packed remote key.
class Registration final : public net::RmaRegion {
public:
  Registration(Transport &tx, void *addr, std::size_t len, gpu::MemKind kind);
  ~Registration() override;
  Registration(const Registration &) = delete;
  Registration &operator=(const Registration &) = delete;
  void *address() const noexcept override { return addr_; }
  std::size_t length() const noexcept override { return len_; }
  std::span<const std::byte> packed_key() const noexcept override { return rkey_; }

private:
  ucp_context_h ctx_ = nullptr;
  ucp_mem_h mem_ = nullptr;
  void *addr_ = nullptr;
  std::size_t len_ = 0;
  std::vector<std::byte> rkey_;
};

// A remote key unpacked for one endpoint (which the operations on it use).
class RemoteKey final : public net::RemoteKey {
public:
  RemoteKey(ucp_ep_h ep, const std::byte *packed);
  ~RemoteKey() override;
  RemoteKey(const RemoteKey &) = delete;
  RemoteKey &operator=(const RemoteKey &) = delete;
  ucp_ep_h endpoint() const noexcept { return ep_; }
  ucp_rkey_h get() const noexcept { return key_; }

private:
  ucp_ep_h ep_ = nullptr;
  ucp_rkey_h key_ = nullptr;
};

// The port's RMA interface over one Transport (which must outlive it).
class Rma final : public net::Rma {
public:
  explicit Rma(Transport &tx) : tx_(tx) {}
  Transport &transport() const noexcept { return tx_; }

  std::unique_ptr<net::RmaRegion> register_memory(void *addr, std::size_t len,
                                                  gpu::MemKind kind) override;
  std::unique_ptr<net::RemoteKey> unpack_key(int pe, const std::byte *packed) override;
  net::RmaOp put(const net::RemoteKey &key, const void *buf, std::size_t len,
                 std::uint64_t raddr) override;
  net::RmaOp get(const net::RemoteKey &key, void *buf, std::size_t len,
                 std::uint64_t raddr) override;
  net::RmaOp atomic(const net::RemoteKey &key, Atomic op, std::size_t size, const void *operand,
                    void *reply, std::uint64_t raddr) override;
  net::RmaOp flush(int pe) override;
  bool test(net::RmaOp op) override;

private:
  Transport &tx_;
};

} // namespace ampi::ucx
