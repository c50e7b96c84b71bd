// src/ucx/rma.cpp — registration, remote keys and one-sided operations over UCP: the UCX
// implementation of net::Rma (see rma.hpp).
#include "ucx/rma.hpp"

#include <stdexcept>
#include <string>
#include <utility>

namespace ampi::ucx {

namespace {

[[noreturn]] void fail(const char *what, ucs_status_t st) {
  throw std::runtime_error(std::string("UCX: ") + what + ": " + ucs_status_string(st));
}

ucs_status_ptr_t checked(const char *what, ucs_status_ptr_t r) {
  if (UCS_PTR_IS_ERR(r)) fail(what, UCS_PTR_STATUS(r));
  return r;
}

// Keys handed to us are ours: every net::RemoteKey this port gives out is a ucx::RemoteKey.
const RemoteKey &ours(const net::RemoteKey &k) {
  return static_cast<const RemoteKey &>(k);
}

} // namespace

Registration::Registration(Transport &tx, void *addr, std::size_t len, gpu::MemKind kind)
    : ctx_(tx.ucp_context()) {
  ucp_mem_map_params_t p{};
  p.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                 UCP_MEM_MAP_PARAM_FIELD_FLAGS;
  p.address = addr;
  p.length = len;
  p.flags = addr ? 0 : UCP_MEM_MAP_ALLOCATE;
  if (gpu::is_device(kind)) { // host memory: UCX detects its type, as before
    p.field_mask |= UCP_MEM_MAP_PARAM_FIELD_MEMORY_TYPE;
    p.memory_type = UCS_MEMORY_TYPE_CUDA;
  }
  if (ucs_status_t st = ucp_mem_map(ctx_, &p, &mem_); st != UCS_OK) fail("ucp_mem_map", st);
  ucp_mem_attr_t attr{};
  attr.field_mask = UCP_MEM_ATTR_FIELD_ADDRESS | UCP_MEM_ATTR_FIELD_LENGTH;
  if (ucs_status_t st = ucp_mem_query(mem_, &attr); st != UCS_OK) {
    ucp_mem_unmap(ctx_, mem_);
    fail("ucp_mem_query", st);
  }
  addr_ = attr.address;
  len_ = len;
  void *packed = nullptr;
  std::size_t size = 0;
  if (ucs_status_t st = ucp_rkey_pack(ctx_, mem_, &packed, &size); st != UCS_OK) {
    ucp_mem_unmap(ctx_, mem_);
    fail("ucp_rkey_pack", st);
  }
  const auto *b = static_cast<const std::byte *>(packed);
  rkey_.assign(b, b + size);
  ucp_rkey_buffer_release(packed);
}

Registration::~Registration() {
  if (mem_) ucp_mem_unmap(ctx_, mem_);
}

RemoteKey::RemoteKey(ucp_ep_h ep, const std::byte *packed) : ep_(ep) {
  if (ucs_status_t st = ucp_ep_rkey_unpack(ep, packed, &key_); st != UCS_OK)
    fail("ucp_ep_rkey_unpack", st);
}

RemoteKey::~RemoteKey() {
  if (key_) ucp_rkey_destroy(key_);
}

std::unique_ptr<net::RmaRegion> Rma::register_memory(void *addr, std::size_t len,
                                                     gpu::MemKind kind) {
  return std::make_unique<Registration>(tx_, addr, len, kind);
}

std::unique_ptr<net::RemoteKey> Rma::unpack_key(int pe, const std::byte *packed) {
  return std::make_unique<RemoteKey>(tx_.ucp_endpoint(pe), packed);
}

net::RmaOp Rma::put(const net::RemoteKey &key, const void *buf, std::size_t len,
                    std::uint64_t raddr) {
  const RemoteKey &k = ours(key);
  ucp_request_param_t p{};
  return checked("ucp_put_nbx", ucp_put_nbx(k.endpoint(), buf, len, raddr, k.get(), &p));
}

net::RmaOp Rma::get(const net::RemoteKey &key, void *buf, std::size_t len, std::uint64_t raddr) {
  const RemoteKey &k = ours(key);
  ucp_request_param_t p{};
  return checked("ucp_get_nbx", ucp_get_nbx(k.endpoint(), buf, len, raddr, k.get(), &p));
}

net::RmaOp Rma::atomic(const net::RemoteKey &key, Atomic op, std::size_t size, const void *operand,
                       void *reply, std::uint64_t raddr) {
  const RemoteKey &k = ours(key);
  ucp_request_param_t p{};
  p.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_REPLY_BUFFER;
  p.datatype = ucp_dt_make_contig(size);
  p.reply_buffer = reply;
  const ucp_atomic_op_t uop = op == Atomic::CompareSwap ? UCP_ATOMIC_OP_CSWAP
                              : op == Atomic::Swap      ? UCP_ATOMIC_OP_SWAP
                                                        : UCP_ATOMIC_OP_ADD;
  return checked("ucp_atomic_op_nbx",
                 ucp_atomic_op_nbx(k.endpoint(), uop, operand, 1, raddr, k.get(), &p));
}

net::RmaOp Rma::flush(int pe) {
  ucp_request_param_t p{};
  return checked("ucp_ep_flush_nbx", ucp_ep_flush_nbx(tx_.ucp_endpoint(pe), &p));
}

bool Rma::test(net::RmaOp r) {
  if (!r) return true;
  const ucs_status_t st = ucp_request_check_status(r);
  if (st == UCS_INPROGRESS) return false;
  ucp_request_free(r);
  if (st != UCS_OK) fail("one-sided operation", st);
  return true;
}

} // namespace ampi::ucx
