// src/ucx/rma.cpp — registration, remote keys and one-sided operations over UCP (see rma.hpp).
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

} // namespace

Registration::Registration(Transport &tx, void *addr, std::size_t len) : ctx_(tx.ucp_context()) {
  ucp_mem_map_params_t p{};
  p.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                 UCP_MEM_MAP_PARAM_FIELD_FLAGS;
  p.address = addr;
  p.length = len;
  p.flags = addr ? 0 : UCP_MEM_MAP_ALLOCATE;
  if (ucs_status_t st = ucp_mem_map(ctx_, &p, &mem_); st != UCS_OK) fail("ucp_mem_map", st);
  ucp_mem_attr_t attr{};
  attr.field_mask = UCP_MEM_ATTR_FIELD_ADDRESS | UCP_MEM_ATTR_FIELD_LENGTH;
  if (ucs_status_t st = ucp_mem_query(mem_, &attr); st != UCS_OK) fail("ucp_mem_query", st);
  addr_ = attr.address;
  len_ = len;
  void *packed = nullptr;
  std::size_t size = 0;
  if (ucs_status_t st = ucp_rkey_pack(ctx_, mem_, &packed, &size); st != UCS_OK)
    fail("ucp_rkey_pack", st);
  const auto *b = static_cast<const std::byte *>(packed);
  rkey_.assign(b, b + size);
  ucp_rkey_buffer_release(packed);
}

Registration::~Registration() {
  if (mem_) ucp_mem_unmap(ctx_, mem_);
}

void Registration::swap(Registration &o) noexcept {
  std::swap(ctx_, o.ctx_);
  std::swap(mem_, o.mem_);
  std::swap(addr_, o.addr_);
  std::swap(len_, o.len_);
  std::swap(rkey_, o.rkey_);
}

RemoteKey::RemoteKey(ucp_ep_h ep, const std::byte *packed) {
  if (ucs_status_t st = ucp_ep_rkey_unpack(ep, packed, &key_); st != UCS_OK)
    fail("ucp_ep_rkey_unpack", st);
}

RemoteKey::~RemoteKey() {
  if (key_) ucp_rkey_destroy(key_);
}

ucs_status_ptr_t put(ucp_ep_h ep, const void *buf, std::size_t len, std::uint64_t raddr,
                     ucp_rkey_h rkey) {
  ucp_request_param_t p{};
  return checked("ucp_put_nbx", ucp_put_nbx(ep, buf, len, raddr, rkey, &p));
}

ucs_status_ptr_t get(ucp_ep_h ep, void *buf, std::size_t len, std::uint64_t raddr,
                     ucp_rkey_h rkey) {
  ucp_request_param_t p{};
  return checked("ucp_get_nbx", ucp_get_nbx(ep, buf, len, raddr, rkey, &p));
}

ucs_status_ptr_t atomic64(ucp_ep_h ep, ucp_atomic_op_t op, const std::uint64_t *operand,
                          std::uint64_t *reply, std::uint64_t raddr, ucp_rkey_h rkey) {
  ucp_request_param_t p{};
  p.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE;
  p.datatype = ucp_dt_make_contig(8);
  if (reply) {
    p.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
    p.reply_buffer = reply;
  }
  return checked("ucp_atomic_op_nbx", ucp_atomic_op_nbx(ep, op, operand, 1, raddr, rkey, &p));
}

ucs_status_ptr_t flush(ucp_ep_h ep) {
  ucp_request_param_t p{};
  return checked("ucp_ep_flush_nbx", ucp_ep_flush_nbx(ep, &p));
}

bool test(ucs_status_ptr_t r) {
  if (!r) return true;
  const ucs_status_t st = ucp_request_check_status(r);
  if (st == UCS_INPROGRESS) return false;
  ucp_request_free(r);
  if (st != UCS_OK) fail("one-sided operation", st);
  return true;
}

} // namespace ampi::ucx
