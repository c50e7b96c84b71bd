// src/p2p/data.cpp — packing and unpacking Data (host and device memory: on the device by the
// copy engines where device_pack.hpp applies, else staged as data.hpp says) and the
// non-contiguous sends and receives (device data packed into a device staging buffer and sent
// as device memory).
#include "p2p/data.hpp"

#include "p2p/backend.hpp"
#include "p2p/device_pack.hpp"

#include "copy/copy.hpp"
#include "core/pe.hpp"
#include "datatype/layout.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

namespace ampi::p2p {

namespace {

gpu::MemKind kind_of(const void *p) {
  return Pe::get().devptrs().kind(p);
}

} // namespace

bool on_device_slow(const void *buf) {
  return gpu::is_device(kind_of(buf));
}

namespace {

// Plain device memory (cudaMalloc), which the copy engines pack: managed memory is staged.
bool plain_device(const void *p) {
  return on_device(p) && kind_of(p) == gpu::MemKind::Device;
}

// Packs (or unpacks) all of (t, count) at the device buffer `buf` from (into) `packed`, which
// may be host memory (then through a device buffer of ours and one contiguous copy); false when
// the device path does not apply (the caller stages through the host).
bool device_whole(const datatype::Type &t, void *buf, std::size_t count, void *packed, bool pack) {
  if (!plain_device(buf)) return false;
  if (plain_device(packed)) return device_pack(t, buf, count, packed, pack);
  gpu::DevPtrCache &mem = Pe::get().devptrs();
  const std::size_t bytes = t.size * count;
  gpu::DeviceBuffer tmp = mem.device_buffer(bytes, buf);
  if (!tmp) return false;
  const gpu::MemKind pk = mem.kind(packed);
  if (!pack) mem.copy(tmp.get(), gpu::MemKind::Device, packed, pk, bytes);
  if (!device_pack(t, buf, count, tmp.get(), pack)) return false;
  if (pack) mem.copy(packed, pk, tmp.get(), gpu::MemKind::Device, bytes);
  return true;
}

} // namespace

std::pair<std::ptrdiff_t, std::ptrdiff_t> span_of(const datatype::Type &t, std::size_t count) {
  if (count == 0 || t.size == 0) return {0, 0};
  const auto n = static_cast<std::ptrdiff_t>(count) - 1;
  return {t.true_lb + std::min<std::ptrdiff_t>(0, n * t.extent),
          t.true_lb + t.true_extent + std::max<std::ptrdiff_t>(0, n * t.extent)};
}

DeviceStage stage_span(const void *buf, std::ptrdiff_t lo, std::ptrdiff_t hi, bool read) {
  DeviceStage s;
  s.lo = lo;
  s.span = static_cast<std::size_t>(hi - lo);
  s.image = std::make_unique_for_overwrite<std::byte[]>(s.span ? s.span : 1);
  if (read && s.span)
    Pe::get().devptrs().copy(s.image.get(), gpu::MemKind::Host,
                             static_cast<const std::byte *>(buf) + lo, gpu::MemKind::Device,
                             s.span);
  return s;
}

void store_runs(const datatype::Type &t, std::size_t count, const std::byte *as_buffer, void *buf,
                std::ptrdiff_t disp, std::size_t offset, std::size_t len) {
  const std::size_t total = t.size * count;
  if (offset >= total || len == 0) return;
  const std::size_t end = std::min(total, offset + std::min(len, total - offset));
  // The runs of [offset, end), written a bounded batch at a time (adjacent runs merged), so that
  // a type of 10^9 blocks needs no list of them.
  constexpr std::size_t kBatch = 4096;
  std::vector<gpu::DevPtrCache::Piece> pieces;
  auto flush = [&] {
    if (pieces.empty()) return;
    Pe::get().devptrs().copy_pieces(buf, gpu::MemKind::Device, as_buffer, gpu::MemKind::Host,
                                    pieces.data(), pieces.size());
    pieces.clear();
  };
  datatype::for_each_run(t, count, offset, end - offset, [&](std::ptrdiff_t mem, std::size_t n) {
    const std::ptrdiff_t at = disp + mem;
    if (!pieces.empty() &&
        pieces.back().offset + static_cast<std::ptrdiff_t>(pieces.back().len) == at) {
      pieces.back().len += n;
      return;
    }
    if (pieces.size() == kBatch) flush();
    pieces.push_back({at, n});
  });
  flush();
}

void copy_any(void *dst, const void *src, std::size_t n) {
  if (!n) return;
  if (!gpu::cuda_loaded()) {
    copy::copy(dst, src, n);
    return;
  }
  gpu::DevPtrCache &mem = Pe::get().devptrs();
  mem.copy(dst, mem.kind(dst), src, mem.kind(src), n);
}

std::size_t pack_any(const datatype::Type &t, const void *buf, std::size_t count,
                     std::size_t offset, void *out, std::size_t len) {
  const bool src_dev = on_device(buf), out_dev = on_device(out);
  if (!src_dev && !out_dev) return datatype::pack(t, buf, count, offset, out, len);
  const std::size_t total = t.size * count;
  if (src_dev && offset == 0 && len >= total && !t.contiguous &&
      device_whole(t, const_cast<void *>(buf), count, out, true))
    return total;
  DeviceStage src;
  if (src_dev) src = stage_in(t, buf, count, true); // read: one copy of the span
  const void *from = src_dev ? src.as_buffer() : buf;
  if (!out_dev) return datatype::pack(t, from, count, offset, out, len);
  auto tmp = std::make_unique_for_overwrite<std::byte[]>(len ? len : 1);
  const std::size_t k = datatype::pack(t, from, count, offset, tmp.get(), len);
  copy_any(out, tmp.get(), k);
  return k;
}

std::size_t unpack_any(const datatype::Type &t, const void *in, std::size_t len, std::size_t offset,
                       void *buf, std::size_t count) {
  const bool in_dev = on_device(in), dst_dev = on_device(buf);
  if (!in_dev && !dst_dev) return datatype::unpack(t, in, len, offset, buf, count);
  const std::size_t total = t.size * count;
  if (dst_dev && offset == 0 && len == total && !t.contiguous &&
      device_whole(t, buf, count, const_cast<void *>(in), false))
    return total;
  std::unique_ptr<std::byte[]> host_in;
  if (in_dev) {
    host_in = std::make_unique_for_overwrite<std::byte[]>(len ? len : 1);
    copy_any(host_in.get(), in, len);
    in = host_in.get();
  }
  if (!dst_dev) return datatype::unpack(t, in, len, offset, buf, count);
  // Unpacked into a host image (not read: its gaps are never written back), then stored run by
  // run.
  DeviceStage dst = stage_in(t, buf, count, false);
  const std::size_t k = datatype::unpack(t, in, len, offset, dst.as_buffer(), count);
  store_runs(t, count, dst.as_buffer(), buf, 0, offset, k);
  return k;
}

std::size_t Data::pack(std::size_t offset, void *out, std::size_t len) const {
  return pack_any(*type, buf, count, offset, out, len);
}

std::size_t Data::unpack(const void *in, std::size_t len, std::size_t offset) const {
  return unpack_any(*type, in, len, offset, buf, count);
}

namespace {

// A reference that keeps the type of `d` alive while a request needs it.
std::shared_ptr<const datatype::Type> hold_type(Rank &self, const Data &d) {
  if (std::shared_ptr<datatype::Derived> h = self.datatype.types.share(d.handle))
    return std::shared_ptr<const datatype::Type>(h, &h->type);
  return std::shared_ptr<const datatype::Type>(std::shared_ptr<void>(), d.type); // predefined
}

// Unpacks a completed non-contiguous receive from its staging copy.
void unpack_staged(Request &r) {
  if (!r.status_bytes) return;
  const void *from = r.ext().dev_staging ? r.ext().dev_staging.get() : r.ext().staging.get();
  unpack_any(*r.ext().dtype, from, r.status_bytes, 0, r.ext().user_buf, r.ext().user_count);
}

// A device staging buffer of at least t.size * count bytes for a request on device data `near`,
// when the device path applies to (t, count) there; else nullptr (the host staging is used).
void *device_staging(Request &req, const datatype::Type &t, std::size_t count, const void *near) {
  Request::Extra &x = req.ext();
  const std::size_t bytes = t.size * count;
  if (x.dev_staging && x.dev_staging_size >= bytes) return x.dev_staging.get();
  x.dev_staging.reset();
  x.dev_staging_size = 0;
  gpu::DevPtrCache &mem = Pe::get().devptrs();
  std::vector<Rect> rects;
  if (bytes == 0 || !mem.can_copy_rects() || !plain_device(near) || !rects_of(t, count, rects))
    return nullptr;
  gpu::DeviceBuffer b = mem.device_buffer(bytes, near);
  if (!b) return nullptr;
  x.dev_staging_size = b.size();
  auto owner = std::make_shared<gpu::DeviceBuffer>(std::move(b));
  x.dev_staging = std::shared_ptr<void>(owner, owner->get());
  return x.dev_staging.get();
}

void matched(Request &rreq, std::size_t bytes, int source, int tag) {
  rreq.status_error = bytes > rreq.capacity ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
  rreq.status_bytes = std::min(bytes, rreq.capacity);
  rreq.status_source = source;
  rreq.status_tag = tag;
}

// Copies the packed bytes [0, n) of `d` into the receive `rreq`: packed straight into a
// contiguous receive buffer, or through a small bounce buffer into a non-contiguous one (whose
// staging copy is then not needed).
void pack_into(const Data &d, Request &rreq, std::size_t n) {
  if (rreq.on_complete != unpack_staged) {
    d.pack(0, rreq.recv_buf, n);
    return;
  }
  if (rreq.ext().dev_staging) {
    // Packed into the receive's device staging buffer, which it unpacks when it completes.
    d.pack(0, rreq.ext().dev_staging.get(), n);
    return;
  }
  rreq.on_complete = nullptr; // unpacked here
  const Data to(rreq.ext().user_buf, rreq.ext().user_count, *rreq.ext().dtype);
  if (on_device(d.buf) || on_device(to.buf)) [[unlikely]] { // staged once, whole
    auto packed = std::make_unique_for_overwrite<std::byte[]>(n ? n : 1);
    d.pack(0, packed.get(), n);
    to.unpack(packed.get(), n, 0);
    return;
  }
  std::byte bounce[4096];
  for (std::size_t at = 0; at < n;) {
    const std::size_t k =
        datatype::pack(*d.type, d.buf, d.count, at, bounce, std::min(n - at, sizeof bounce));
    datatype::unpack(*to.type, bounce, k, at, to.buf, to.count);
    at += k;
  }
}

// Device data (`d`) into a device receive: the kernels copy its packed bytes [0, n) straight
// into the receive's elements (or its contiguous buffer) on a copy stream, and `done` runs once
// they have finished. False, with nothing started, where they do not apply (n == 0, host or
// managed memory on either side, a layout of too many pieces, no kernels).
bool copy_into_async(const Data &d, Request &rreq, std::size_t n, std::function<void()> done) {
  if (n == 0 || !plain_device(d.buf)) return false;
  std::vector<Rect> src;
  if (!rects_of(*d.type, d.count, src)) return false;
  return copy_rects_into_async(d.buf, src.data(), src.size(), rreq, n, std::move(done));
}

// The data of a send left in its layout (Request::Extra::layout).
Data layout_of(const Request &sreq) {
  const Request::Extra &x = *sreq.extra;
  return Data(x.user_buf, x.user_count, *x.dtype);
}

// `d` packed into a staging copy that `req` owns, for sending: a device buffer packed on the
// device where `device` data allows it, else host memory. Returns the packed bytes.
const void *pack_staged(Request &req, const Data &d, bool device) {
  Request::Extra &x = req.ext();
  if (device) {
    if (void *dev = device_staging(req, *d.type, d.count, d.buf);
        dev && device_pack(*d.type, d.buf, d.count, dev, true))
      return dev;
    x.dev_staging.reset();
  }
  const std::size_t bytes = d.bytes();
  if (!x.staging) x.staging = std::make_unique_for_overwrite<std::byte[]>(bytes ? bytes : 1);
  d.pack(0, x.staging.get(), bytes);
  return x.staging.get();
}

// A same-PE rendezvous whose sender's data stays in its device layout (start_recv copies it).
bool from_layout(const matching::UnexpectedMessage &um) {
  const Request *s = static_cast<const Message &>(um).send_request;
  return s && s->extra && s->extra->layout;
}

} // namespace

// To a rank of this PE whose receive is posted, the data is packed straight into the receive
// (device data: copied by kernels from layout to layout, both requests completing when they
// have finished: 512 KiB faces of a 256^3 grid one way in 15 us, as many bytes contiguous in
// 13-15 us, H100, bench/results/2026-11-27-s10-gpu/run2); otherwise it is packed into a staging
// copy and sent from there.
void start_send_packed(Request &req, const Route &route, const Data &d, Mode mode) {
  if (req.extra) req.extra->layout = false; // (a persistent request's earlier start)
  Rank &self = *req.owner;
  const std::size_t bytes = d.bytes();
  Rank *const dst = self.pe().local(route.dest_world);
  if (dst) {
    if (matching::PostedReceive *posted =
            dst->p2p.matching.take_posted({route.context, route.source, route.tag})) {
      auto &rreq = static_cast<Request &>(*posted);
      matched(rreq, bytes, route.source, route.tag);
      begin_send(req, d.buf, bytes, dst);
      // The sender first: woken first, it goes on first (a ping-pong's sender then posts its
      // receive before the reply comes, which finds it posted rather than packing it).
      if (copy_into_async(d, rreq, rreq.status_bytes, [&rreq, &req] {
            complete(req);
            complete(rreq);
          }))
        return;
      pack_into(d, rreq, rreq.status_bytes);
      complete(rreq);
      complete(req);
      return;
    }
  }
  if (on_device(d.buf)) [[unlikely]] {
    // Device data for another rank of this process: not packed, copied by the receiver from our
    // layout into its own.
    if (send_layout(req, route, d.buf, d.count,
                    req.ext().dtype ? req.ext().dtype : hold_type(self, d)))
      return;
    if (dst && self.pe().devptrs().can_copy_rects() && plain_device(d.buf) &&
        bytes >= self.pe().protocols().limits().self_device_direct) {
      // This PE, no receive posted yet: queued as a rendezvous naming this request (a synchronous
      // send on this PE always is one), whose receive copies from our layout (p2p.cpp).
      Request::Extra &x = req.ext();
      if (!x.dtype) x.dtype = hold_type(self, d);
      x.user_buf = d.buf;
      x.user_count = d.count;
      x.layout = true;
      start_send(req, route, d.buf, bytes, Mode::Synchronous);
      return;
    }
    // Otherwise packed on the device into a device buffer, sent as device memory (the same
    // PE's device copy, CUDA IPC, or UCX's device path).
    start_send(req, route, pack_staged(req, d, true), bytes, mode);
    return;
  }
  start_send(req, route, pack_staged(req, d, false), bytes, mode);
}

// A message of this process already waiting (eager data, or a rendezvous sender's buffer) is
// unpacked straight from where it is; otherwise the receive is posted on a staging copy and
// unpacked when it completes.
void start_recv_packed(Request &req, std::uint32_t context, int source, int tag, const Data &d) {
  Rank &self = *req.owner;
  const std::size_t bytes = d.bytes();
  if (!req.ext().dtype) req.ext().dtype = hold_type(self, d);
  req.ext().user_buf = d.buf;
  req.ext().user_count = d.count;
  req.kind = Kind::Recv;
  req.cancelled = false;
  req.capacity = bytes;
  req.pattern = {context, source, tag};
  if (const auto *um = self.p2p.matching.peek_unexpected(req.pattern);
      um && !static_cast<const Message *>(um)->data_tag && !from_layout(*um)) {
    auto &m = static_cast<Message &>(*self.p2p.matching.take_unexpected(req.pattern));
    Request *sreq = m.send_request;
    matched(req, m.bytes, m.envelope.source, m.envelope.tag);
    if (req.status_bytes) d.unpack(sreq ? sreq->send_buf : m.data, req.status_bytes, 0);
    if (sreq) {
      sreq->unmatched = nullptr;
      complete(*sreq);
    }
    self.pe().messages().put(m);
    req.on_complete = nullptr;
    req.complete = true; // the caller is running: no wake-up needed
    return;
  }
  req.on_complete = unpack_staged;
  if (on_device(d.buf)) [[unlikely]] {
    // Device data: lands packed in a device buffer, unpacked on the device when complete.
    if (void *dev = device_staging(req, *d.type, d.count, d.buf)) {
      start_recv(req, context, source, tag, dev, bytes);
      return;
    }
  }
  if (!req.ext().staging)
    req.ext().staging = std::make_unique_for_overwrite<std::byte[]>(bytes ? bytes : 1);
  start_recv(req, context, source, tag, req.ext().staging.get(), bytes);
}

bool copy_rects_into_async(const void *src_base, const Rect *src, std::size_t ns, Request &rreq,
                           std::size_t n, std::function<void()> done) {
  if (n == 0) return false;
  const bool staged = rreq.on_complete == unpack_staged;
  if (staged && !rreq.ext().dev_staging) return false; // host staging: a host buffer
  void *to = staged ? rreq.ext().user_buf : rreq.recv_buf;
  std::vector<Rect> dst;
  if (!plain_device(to)) return false;
  if (staged ? !rects_of(*rreq.ext().dtype, rreq.ext().user_count, dst)
             : (dst.push_back(Rect{0, n, 1, 1, n, 0}), false))
    return false;
  if (!Pe::get().devptrs().copy_strided_async(to, dst.data(), dst.size(), src_base, src, ns, n,
                                              std::move(done)))
    return false;
  if (staged) rreq.on_complete = nullptr; // lands in place
  return true;
}

const void *pack_layout(Request &sreq) {
  return pack_staged(sreq, layout_of(sreq), true);
}

bool copy_from_layout(Request &rreq, const Request &sreq, std::size_t n,
                      std::function<void()> done) {
  if (n == 0) return true;
  const Data from = layout_of(sreq);
  if (copy_into_async(from, rreq, n, std::move(done))) return false;
  from.pack(0, rreq.recv_buf, n); // into its buffer, or its staging copy (unpacked on completion)
  return true;
}

int start_bsend(const Route &route, const Data &d) {
  if (d.contiguous()) return start_bsend(route, d.start(), d.bytes());
  const std::size_t bytes = d.bytes();
  auto packed = std::make_unique_for_overwrite<std::byte[]>(bytes ? bytes : 1);
  d.pack(0, packed.get(), bytes);
  return start_bsend(route, packed.get(), bytes);
}

} // namespace ampi::p2p
