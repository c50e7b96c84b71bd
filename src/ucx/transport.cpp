// src/ucx/transport.cpp — the UCX port: UCP context, worker, endpoints, active messages and data
// between PEs (see transport.hpp for the tag layout).
#include "ucx/transport.hpp"
#include "ucx/rma.hpp"

#include "pmi/host.hpp"

#include <unistd.h>

#include <algorithm>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

namespace ampi::ucx {

namespace {

constexpr const char *kAddressKey = "ampi.ucx.worker";

[[noreturn]] void fail(const char *what, ucs_status_t st) {
  throw std::runtime_error(std::string("UCX: ") + what + ": " + ucs_status_string(st));
}

// What UCX may create on the host for us must be the job's user's only (issue 19). UCX's POSIX
// segments are 0600 (and unlinked at once: UCX_POSIX_USE_PROC_LINK=y), but its System V ones
// are 0660 (UCT_MM_SYSV_PERM, no setting in UCX 1.13 nor 1.16) and its TCP transport listens on
// every interface, loopback included, and takes any connection. So, unless the user chose the
// transports (UCX_TLS), sysv is left out (posix is the same shared-memory transport), and so is
// tcp when every process of the job is on this host (shared memory reaches them all). A job over
// several hosts without another network needs tcp: its listeners stay open to the host's users
// (UCX has no setting that restricts them).
void keep_transports_private(ucp_config_t *config, bool one_host) {
  if (const char *tls = std::getenv("UCX_TLS"); tls && *tls) return;
  const char *tls = one_host ? "^sysv,tcp" : "^sysv";
  if (ucs_status_t st = ucp_config_modify(config, "TLS", tls); st != UCS_OK)
    fail("ucp_config_modify(TLS)", st);
}

// A send whose buffer we own (eager messages, envelopes): freed when UCX is done with it.
struct OwnedSend {
  std::unique_ptr<std::byte[]> buffer;
  std::size_t *outstanding;
};

void owned_send_done(void *request, ucs_status_t status, void *user) {
  auto *s = static_cast<OwnedSend *>(user);
  if (status != UCS_OK)
    std::fprintf(stderr, "ampi: UCX send failed: %s\n", ucs_status_string(status));
  --*s->outstanding;
  delete s; // NOLINT: owned by the UCX callback, allocated in post_owned
  ucp_request_free(request);
}

ucs_memory_type_t ucx_memory_type(gpu::MemKind k) {
  switch (k) {
  case gpu::MemKind::Device:
    return UCS_MEMORY_TYPE_CUDA;
  case gpu::MemKind::Managed:
    return UCS_MEMORY_TYPE_CUDA_MANAGED;
  case gpu::MemKind::Host:
    break;
  }
  return UCS_MEMORY_TYPE_HOST;
}

struct UserOp {
  net::Handler *handler;
  void *user;
  std::size_t *outstanding;
};

void user_send_done(void *request, ucs_status_t status, void *user) {
  auto *op = static_cast<UserOp *>(user);
  --*op->outstanding;
  op->handler->send_done(op->user, status == UCS_OK);
  delete op; // NOLINT: see post
  ucp_request_free(request);
}

void user_recv_done(void *request, ucs_status_t status, const ucp_tag_recv_info_t *info,
                    void *user) {
  auto *op = static_cast<UserOp *>(user);
  --*op->outstanding; // device receives count for arm_net, all for net_busy
  op->handler->recv_done(op->user, info ? info->length : 0, status == UCS_ERR_MESSAGE_TRUNCATED);
  delete op; // NOLINT: see recv_data
  ucp_request_free(request);
}

} // namespace

Transport::Transport(pmi::PeKeys &pmix, int my_pe, int npes, net::Handler &handler,
                     gpu::DevPtrCache &mem, const net::PortConfig &port_config)
    : net::Port(my_pe, npes, handler), pmix_(pmix), mem_(mem),
      eps_(static_cast<std::size_t>(npes)) {
  hosts_.assign(static_cast<std::size_t>(npes), 0);
  my_host_ = host_id();
  ucp_config_t *config = nullptr;
  if (ucs_status_t st = ucp_config_read(nullptr, nullptr, &config); st != UCS_OK)
    fail("ucp_config_read", st);
  pes_ = pmix.process().pes_per_process();
  keep_transports_private(config, pmix.one_host());
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED;
  // RMA and AMO: one-sided communication (src/ucx/rma.cpp).
  params.features = UCP_FEATURE_TAG | UCP_FEATURE_WAKEUP | UCP_FEATURE_RMA | UCP_FEATURE_AMO32 |
                    UCP_FEATURE_AMO64;
  params.mt_workers_shared = 0;
  ucs_status_t st = ucp_init(&params, config, &context_);
  ucp_config_release(config);
  if (st != UCS_OK) fail("ucp_init", st);
  ucp_worker_params_t wp{};
  wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  wp.thread_mode = UCS_THREAD_MODE_SINGLE;
  if ((st = ucp_worker_create(context_, &wp, &worker_)) != UCS_OK) fail("ucp_worker_create", st);
  if ((st = ucp_worker_get_efd(worker_, &efd_)) != UCS_OK) fail("ucp_worker_get_efd", st);
  slots_.resize(kAmSlots);
  for (AmSlot &slot : slots_) {
    slot.buffer.resize(
        kKindBytes + std::max(sizeof(net::Eager) + port_config.max_eager_bytes, net::kMaxPayload));
    post_am_slot(slot);
  }
  ucp_address_t *addr = nullptr;
  std::size_t len = 0;
  if ((st = ucp_worker_get_address(worker_, &addr, &len)) != UCS_OK)
    fail("ucp_worker_get_address", st);
  // Published as: our host's id (8 bytes), then the worker address.
  const auto *p = reinterpret_cast<const std::byte *>(addr);
  std::vector<std::byte> blob(sizeof my_host_ + len);
  std::memcpy(blob.data(), &my_host_, sizeof my_host_);
  std::memcpy(blob.data() + sizeof my_host_, p, len);
  pmix_.put(kAddressKey, blob);
  ucp_worker_release_address(worker_, addr);
  pmix_.fence();
}

Transport::~Transport() {
  disconnect();
  for (AmSlot &slot : slots_) {
    if (slot.request) {
      ucp_request_cancel(worker_, slot.request);
      while (slot.request)
        ucp_worker_progress(worker_);
    }
  }
  if (worker_) ucp_worker_destroy(worker_);
  if (context_) ucp_cleanup(context_);
}

net::Rma *Transport::rma() noexcept {
  if (!rma_) rma_ = std::make_unique<Rma>(*this); // only jobs with windows over the network
  return rma_.get();
}

void Transport::disconnect() {
  if (!worker_) return;
  while (outstanding_ > 0)
    ucp_worker_progress(worker_);
  for (ucp_ep_h &ep : eps_) {
    if (!ep) continue;
    ucp_request_param_t p{};
    p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    p.flags = UCP_EP_CLOSE_FLAG_FORCE;
    ucs_status_ptr_t r = ucp_ep_close_nbx(ep, &p);
    if (r && !UCS_PTR_IS_ERR(r)) {
      while (ucp_request_check_status(r) == UCS_INPROGRESS)
        ucp_worker_progress(worker_);
      ucp_request_free(r);
    }
    ep = nullptr;
  }
}

ucp_ep_h Transport::endpoint(int pe) {
  ucp_ep_h &ep = eps_[static_cast<std::size_t>(pe)];
  if (ep) return ep;
  std::vector<std::byte> blob = pmix_.get(pe, kAddressKey);
  if (blob.size() <= sizeof(std::uint64_t))
    throw std::runtime_error("UCX: PE " + std::to_string(pe) + " published no worker address");
  std::memcpy(&hosts_[static_cast<std::size_t>(pe)], blob.data(), sizeof(std::uint64_t));
  ucp_ep_params_t ep_params{};
  ep_params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
  ep_params.address = reinterpret_cast<const ucp_address_t *>(blob.data() + sizeof(std::uint64_t));
  if (ucs_status_t st = ucp_ep_create(worker_, &ep_params, &ep); st != UCS_OK)
    fail("ucp_ep_create", st);
  return ep;
}

bool Transport::same_host(int pe) {
  endpoint(pe); // learns its host
  return hosts_[static_cast<std::size_t>(pe)] == my_host_;
}

void Transport::send_am(int pe, net::AmKind kind, const void *payload, std::size_t payload_bytes,
                        const void *data, std::size_t bytes) {
  count_if_same_process(pe);
  const std::size_t head = kKindBytes + payload_bytes;
  const std::size_t total = head + bytes;
  const std::uint64_t word = static_cast<std::uint8_t>(kind);
  ucp_ep_h ep = endpoint(pe);
  if (total <= kStagingBytes) {
    // Small: assemble in the staging buffer and ask UCX to finish now (no allocation, no
    // callback). Only when it cannot (no resources) does the message get a buffer of its own.
    std::memcpy(staging_.data(), &word, kKindBytes);
    std::memcpy(staging_.data() + kKindBytes, payload, payload_bytes);
    if (bytes) std::memcpy(staging_.data() + head, data, bytes);
    ucp_request_param_t p{};
    p.op_attr_mask = UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL;
    ucs_status_ptr_t r = ucp_tag_send_nbx(ep, staging_.data(), total, kActiveMessage, &p);
    if (r == nullptr) return;
    if (UCS_PTR_STATUS(r) != UCS_ERR_NO_RESOURCE)
      fail("ucp_tag_send_nbx (active message)", UCS_PTR_STATUS(r));
  }
  auto owned = std::make_unique<OwnedSend>();
  owned->outstanding = &outstanding_;
  owned->buffer = std::make_unique_for_overwrite<std::byte[]>(total);
  std::memcpy(owned->buffer.get(), &word, kKindBytes);
  std::memcpy(owned->buffer.get() + kKindBytes, payload, payload_bytes);
  if (bytes) std::memcpy(owned->buffer.get() + head, data, bytes);
  ucp_request_param_t p{};
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  p.cb.send = owned_send_done;
  p.user_data = owned.get();
  std::byte *buf = owned->buffer.get();
  ucs_status_ptr_t r = ucp_tag_send_nbx(ep, buf, total, kActiveMessage, &p);
  if (r == nullptr) return; // done at once; `owned` frees the buffer
  if (UCS_PTR_IS_ERR(r)) fail("ucp_tag_send_nbx (active message)", UCS_PTR_STATUS(r));
  ++outstanding_;
  static_cast<void>(owned.release()); // the callback deletes it
}

std::uint64_t Transport::post_data(int pe, const void *data, std::size_t bytes, net::MemKind kind,
                                   bool synchronous, void *user) {
  if (next_seq_ >= (std::uint64_t{1} << 40)) {
    std::fprintf(stderr, "ampi: PE %d ran out of UCX data tags (2^40 messages)\n", my_pe());
    std::abort();
  }
  count_if_same_process(pe);
  const std::uint64_t tag = kData | (static_cast<std::uint64_t>(my_pe()) << 40) | next_seq_++;
  auto op = std::make_unique<UserOp>(UserOp{&handler_, user, &outstanding_});
  ucp_request_param_t p{};
  p.op_attr_mask =
      UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_MEMORY_TYPE;
  p.cb.send = user_send_done;
  p.user_data = op.get();
  p.memory_type = ucx_memory_type(kind);
  ucp_ep_h ep = endpoint(pe);
  ucs_status_ptr_t r = synchronous ? ucp_tag_send_sync_nbx(ep, data, bytes, tag, &p)
                                   : ucp_tag_send_nbx(ep, data, bytes, tag, &p);
  if (r == nullptr) {
    handler_.send_done(user, true);
  } else if (UCS_PTR_IS_ERR(r)) {
    fail("ucp_tag_send_nbx (data)", UCS_PTR_STATUS(r));
  } else {
    ++outstanding_;
    static_cast<void>(op.release());
  }
  return tag;
}

void Transport::recv_data(std::uint64_t data_tag, void *buf, std::size_t capacity,
                          net::MemKind kind, void *user) {
  const bool device = gpu::is_device(kind);
  auto op =
      std::make_unique<UserOp>(UserOp{&handler_, user, device ? &device_recvs_ : &host_recvs_});
  ucp_request_param_t p{};
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                   UCP_OP_ATTR_FIELD_RECV_INFO | UCP_OP_ATTR_FIELD_MEMORY_TYPE;
  p.memory_type = ucx_memory_type(kind);
  p.cb.recv = user_recv_done;
  p.user_data = op.get();
  ucp_tag_recv_info_t info{};
  p.recv_info.tag_info = &info;
  ucs_status_ptr_t r = ucp_tag_recv_nbx(worker_, buf, capacity, data_tag, ~std::uint64_t{0}, &p);
  if (r == nullptr) {
    handler_.recv_done(user, info.length, false);
    return;
  }
  if (UCS_PTR_IS_ERR(r)) {
    if (UCS_PTR_STATUS(r) == UCS_ERR_MESSAGE_TRUNCATED) {
      handler_.recv_done(user, capacity, true);
      return;
    }
    fail("ucp_tag_recv_nbx (data)", UCS_PTR_STATUS(r));
  }
  ++(device ? device_recvs_ : host_recvs_);
  static_cast<void>(op.release());
}

void Transport::am_slot_done(void *request, ucs_status_t status, const ucp_tag_recv_info_t *info,
                             void *user) {
  auto *slot = static_cast<AmSlot *>(user);
  if (status != UCS_OK && status != UCS_ERR_CANCELED)
    std::fprintf(stderr, "ampi: UCX envelope receive failed: %s\n", ucs_status_string(status));
  slot->length = info ? info->length : 0;
  slot->done = status == UCS_OK;
  slot->request = nullptr;
  ucp_request_free(request);
}

void Transport::post_am_slot(AmSlot &slot) {
  slot.done = false;
  ucp_tag_recv_info_t info{};
  ucp_request_param_t p{};
  p.op_attr_mask =
      UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_RECV_INFO;
  p.cb.recv = am_slot_done;
  p.user_data = &slot;
  p.recv_info.tag_info = &info;
  ucs_status_ptr_t r = ucp_tag_recv_nbx(worker_, slot.buffer.data(), slot.buffer.size(),
                                        kActiveMessage, kKindMask, &p);
  if (r == nullptr) {
    slot.length = info.length;
    slot.done = true;
  } else if (UCS_PTR_IS_ERR(r)) {
    fail("ucp_tag_recv_nbx (active message)", UCS_PTR_STATUS(r));
  } else {
    slot.request = r;
  }
}

bool Transport::progress_net() {
  bool any = ucp_worker_progress(worker_) != 0;
  any |= mem_.poll_copies(); // device data of IPC messages being copied in
  // UCX matches the posted envelope receives in posting order, so delivering from the head of
  // the ring keeps every sender's envelopes in the order they were sent.
  for (;;) {
    AmSlot &slot = slots_[head_];
    if (!slot.done) break;
    any = true;
    // Delivered before the slot is posted again: the handler reads the payload in place.
    deliver(static_cast<net::AmKind>(slot.buffer[0]), slot.buffer.data() + kKindBytes);
    post_am_slot(slot);
    head_ = (head_ + 1) % slots_.size();
  }
  return any;
}

bool Transport::arm_net() {
  // A send still in flight may need our progress to leave (e.g. the rest of a TCP stream), and
  // UCX signals only arrivals on the event fd: keep driving until our sends are out.
  // Likewise for receives into device memory: UCX's CUDA transports finish them by polling CUDA
  // events, which never signal the event fd.
  // And for our own asynchronous device copies (CUDA IPC receives): polled, never signalled.
  if (outstanding_ > 0 || device_recvs_ > 0 || mem_.copies_in_flight() > 0) return false;
  return ucp_worker_arm(worker_) != UCS_ERR_BUSY; // busy: events are pending, go and progress
}

} // namespace ampi::ucx
