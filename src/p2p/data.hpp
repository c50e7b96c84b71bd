// src/p2p/data.hpp — the data of a point-to-point operation as the MPI layer hands it over: a
// buffer, a count and a datatype (Data), and the sends and receives that take it. Contiguous data
// goes to the byte-level calls of p2p.hpp in place (no copy, inlined into the MPI functions);
// other data is packed and unpacked here through the datatype engine.
//
// Device memory (CUDA) with a non-contiguous datatype is packed and unpacked on the device where
// it can be (p2p/device_pack.hpp: the copy engines copy the datatype's strided blocks between the
// user's buffer and a device staging buffer, which is sent and received as device memory; whole
// messages of plain device memory, AMPI_GPU_DEVICE_PACK=1). Elsewhere (part of a message, managed
// memory, too many blocks, buffered sends, collectives' host images), device memory that p2p
// itself must read or write element by element is staged in one way:
//  - read: the span the elements cover is copied to a host image in one copy (reading the gaps
//    changes nothing);
//  - written: only the contiguous runs of the elements are copied to the device (all runs issued
//    together, one synchronize), never the gaps. The program may use the gaps while a receive is
//    pending, and ranks on other PEs of the process may receive into interleaved parts of one
//    buffer at the same time: writing a whole span back would undo their writes.
// Why not runs for reading as well: a vector of 128 ints (gpu_typed) is 128 runs, i.e. 128 driver
// calls (a few microseconds each) against one copy of 1 KiB (~10 us); a span is read once.
// Why not the span for writing: the old span write-back first had to read the span (two copies
// for every unpack) and was not correct under concurrent writes to the gaps.
#pragma once

#include "datatype/type.hpp"
#include "devptr_cache/cuda_driver.hpp"
#include "devptr_cache/strided_plan.hpp"
#include "p2p/p2p.hpp"

#include <mpi.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <utility>

namespace ampi::p2p {

bool on_device_slow(const void *buf);
// Whether `buf` is CUDA device (or managed) memory. Processes without CUDA pay two loads.
inline bool on_device(const void *buf) {
  return buf && gpu::cuda_loaded() && on_device_slow(buf);
}

// `count` elements of `type` at `buf`.
struct Data {
  void *buf = nullptr;
  std::size_t count = 0;
  const datatype::Type *type = nullptr;
  // The handle of `type` (a derived type is held from the rank's type table while a receive on
  // it is pending, so that MPI_Type_free meanwhile is harmless); MPI_DATATYPE_NULL when the
  // request already holds the type (persistent requests: Request::Extra::dtype).
  MPI_Datatype handle = MPI_DATATYPE_NULL;

  Data() = default;
  Data(const void *b, std::size_t n, const datatype::Type &t,
       MPI_Datatype h = MPI_DATATYPE_NULL) noexcept
      : buf(const_cast<void *>(b)), count(n), type(&t), handle(h) {}

  std::size_t bytes() const noexcept { return count * type->size; }
  bool contiguous() const noexcept { return type->contiguous; }
  // Where the bytes of contiguous data start.
  void *start() const noexcept { return datatype::data_start(*type, buf); }
  // Copies packed bytes [offset, offset + len) into `out` (host or device); returns the bytes
  // copied.
  std::size_t pack(std::size_t offset, void *out, std::size_t len) const;
  // Scatters `len` packed bytes from `in` (host or device), which start at `offset` of the packed
  // form, into the elements; returns the bytes consumed.
  std::size_t unpack(const void *in, std::size_t len, std::size_t offset) const;
};

// Copies `n` bytes; either side may be device memory.
void copy_any(void *dst, const void *src, std::size_t n);
// datatype::pack and datatype::unpack where the user's buffer, the packed side, or both may be
// device memory (MPI_Pack, MPI_Unpack, Data::pack, Data::unpack).
std::size_t pack_any(const datatype::Type &t, const void *buf, std::size_t count,
                     std::size_t offset, void *out, std::size_t len);
std::size_t unpack_any(const datatype::Type &t, const void *in, std::size_t len, std::size_t offset,
                       void *buf, std::size_t count);

// A host image of [buf + lo, buf + lo + span) of a device buffer, for code that works on a
// buffer's memory layout (collectives' algorithms and reductions).
struct DeviceStage {
  std::unique_ptr<std::byte[]> image;
  std::ptrdiff_t lo = 0;
  std::size_t span = 0;
  // The image seen as the user's buffer (element addresses as at `buf`).
  std::byte *as_buffer() const { return image.get() - lo; }
};
// [lo, hi) of the bytes that (t, count) touches, relative to the buffer address.
std::pair<std::ptrdiff_t, std::ptrdiff_t> span_of(const datatype::Type &t, std::size_t count);
// The image of [buf + lo, buf + hi), read from the device when `read`.
DeviceStage stage_span(const void *buf, std::ptrdiff_t lo, std::ptrdiff_t hi, bool read);
inline DeviceStage stage_in(const datatype::Type &t, const void *buf, std::size_t count,
                            bool read) {
  const auto [lo, hi] = span_of(t, count);
  return stage_span(buf, lo, hi, read);
}
// Copies the runs of `count` elements of `t` at buf + disp (their packed bytes [offset,
// offset + len) only) from the host image `as_buffer` (laid out like `buf`) to the device buffer
// `buf`; the gaps are not written.
void store_runs(const datatype::Type &t, std::size_t count, const std::byte *as_buffer, void *buf,
                std::ptrdiff_t disp = 0, std::size_t offset = 0,
                std::size_t len = static_cast<std::size_t>(-1));

// ---- sends and receives of Data ----

// The non-contiguous cases (data.cpp).
void start_send_packed(Request &req, const Route &route, const Data &d, Mode mode);
void start_recv_packed(Request &req, std::uint32_t context, int source, int tag, const Data &d);
// A receive `rreq` (matched, its status set) takes the packed bytes [0, n) of the send `sreq` of
// this process, whose data is its non-contiguous device layout (backend.hpp's send_layout: the
// request holds the type, buffer and count). Where both sides are plain device memory whose
// layouts are short lists of rectangles, the kernels copy from one layout into the other on a
// copy stream: false then, and `done` runs once the data is in place (the receive needs no
// unpacking). Otherwise the sender's elements are packed now into what the receive lands in
// (its buffer, or its staging copy that it unpacks on completion): true.
bool copy_from_layout(Request &rreq, const Request &sreq, std::size_t n,
                      std::function<void()> done);
// A receive `rreq` (matched, its status set) takes the packed bytes [0, n) of the `ns` strided
// rectangles `src` of device memory at `src_base` (another process's layout, mapped with CUDA
// IPC): the kernels copy them straight into the receive's elements (or its contiguous buffer) on
// a copy stream, and `done` runs once they have finished. False, with nothing started, where they
// do not apply (n == 0, a host, managed or host-staged receive, a layout of too many pieces,
// memory the kernels cannot reach).
bool copy_rects_into_async(const void *src_base, const gpu::Rect *src, std::size_t ns,
                           Request &rreq, std::size_t n, std::function<void()> done);
// The data of a send left in its device layout (send_layout), packed now into a staging copy the
// request owns (device memory where device packing applies, else host): for a receiver that
// could not copy from the layout itself. Returns the packed bytes.
const void *pack_layout(Request &sreq);

// Starts a send of `d`. Contiguous data is sent in place; other data is packed straight into a
// posted receive of this PE, or into a staging copy the request owns.
[[gnu::always_inline]] inline void start_send(Request &req, const Route &route, const Data &d,
                                              Mode mode) {
  if (d.contiguous()) [[likely]] {
    start_send(req, route, d.start(), d.bytes(), mode);
    return;
  }
  start_send_packed(req, route, d, mode);
}
// Starts a receive into `d`. Contiguous data is received in place; other data is unpacked
// straight from a waiting message of this process, or lands in a staging copy that is unpacked
// when the request completes.
[[gnu::always_inline]] inline void start_recv(Request &req, std::uint32_t context, int source,
                                              int tag, const Data &d) {
  if (d.contiguous()) [[likely]] {
    start_recv(req, context, source, tag, d.start(), d.bytes());
    return;
  }
  start_recv_packed(req, context, source, tag, d);
}
// MPI_Bsend of `d`: packed into the attached buffer; MPI_ERR_BUFFER when it does not fit.
int start_bsend(const Route &route, const Data &d);

} // namespace ampi::p2p
