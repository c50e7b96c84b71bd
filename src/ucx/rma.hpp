// src/ucx/rma.hpp — UCX's one-sided operations as the RMA layer (src/rma) uses them: registered
// memory with its packed remote key, unpacked remote keys, put, get, 64-bit atomics and endpoint
// flushes. Every operation returns a UCX request (or null when done at once); `test` finishes one.
#pragma once

#include "ucx/transport.hpp"

#include <ucp/api/ucp.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ampi::ucx {

// Memory registered with the PE's UCP context: `addr` (or, when null, `len` bytes UCX allocates
// so that other processes on the node can map them), and its packed remote key.
class Registration {
public:
  Registration() = default;
  Registration(Transport &tx, void *addr, std::size_t len);
  ~Registration();
  Registration(Registration &&o) noexcept { swap(o); }
  Registration &operator=(Registration &&o) noexcept {
    Registration t(std::move(o));
    swap(t);
    return *this;
  }
  void *address() const noexcept { return addr_; }
  std::size_t length() const noexcept { return len_; }
  const std::vector<std::byte> &rkey() const noexcept { return rkey_; }

private:
  void swap(Registration &o) noexcept;
  ucp_context_h ctx_ = nullptr;
  ucp_mem_h mem_ = nullptr;
  void *addr_ = nullptr;
  std::size_t len_ = 0;
  std::vector<std::byte> rkey_;
};

// A remote key unpacked for one endpoint.
class RemoteKey {
public:
  RemoteKey() = default;
  RemoteKey(ucp_ep_h ep, const std::byte *packed);
  ~RemoteKey();
  RemoteKey(RemoteKey &&o) noexcept : key_(o.key_) { o.key_ = nullptr; }
  RemoteKey &operator=(RemoteKey &&o) noexcept {
    std::swap(key_, o.key_);
    return *this;
  }
  ucp_rkey_h get() const noexcept { return key_; }
  explicit operator bool() const noexcept { return key_ != nullptr; }

private:
  ucp_rkey_h key_ = nullptr;
};

ucs_status_ptr_t put(ucp_ep_h ep, const void *buf, std::size_t len, std::uint64_t raddr,
                     ucp_rkey_h rkey);
ucs_status_ptr_t get(ucp_ep_h ep, void *buf, std::size_t len, std::uint64_t raddr, ucp_rkey_h rkey);
// A 64-bit atomic (see ucp_atomic_op_nbx): `operand` and `reply` must live until it completes;
// for CSWAP `operand` is the expected value and `reply` holds the new value (then the old one).
ucs_status_ptr_t atomic64(ucp_ep_h ep, ucp_atomic_op_t op, const std::uint64_t *operand,
                          std::uint64_t *reply, std::uint64_t raddr, ucp_rkey_h rkey);
// Completes every operation posted on `ep` so far, at the target too.
ucs_status_ptr_t flush(ucp_ep_h ep);
// True when `r` has finished (and frees it); throws when it failed.
bool test(ucs_status_ptr_t r);

} // namespace ampi::ucx
