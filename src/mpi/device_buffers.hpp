// src/mpi/device_buffers.hpp — user buffers in CUDA device memory where the MPI layer itself
// reads or writes them: packing and unpacking non-contiguous datatypes (point-to-point,
// persistent, buffered sends), the attached buffer of MPI_Bsend, and collectives (whose algorithms
// and reductions run on host bytes). Such bytes are staged through host memory with CUDA copies.
// A non-contiguous device buffer is staged as a host image of its whole span: written back, its
// gaps get the values read when the operation started (a program must not change them meanwhile).
// Processes without CUDA pay two loads per check (gpu::cuda_loaded).
#pragma once

#include "datatype/type.hpp"
#include "devptr_cache/cuda_driver.hpp"

#include <cstddef>
#include <memory>

namespace ampi::mpi {

bool on_device_slow(const void *buf);
// Whether `buf` is CUDA device (or managed) memory.
inline bool on_device(const void *buf) {
  return buf && gpu::cuda_loaded() && on_device_slow(buf);
}

// A host image of [buf + lo, buf + lo + span) of a device buffer.
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
// Copies bytes [off, off + len) (relative to `buf`) of the image back to the device buffer.
void stage_out(const DeviceStage &s, void *buf, std::ptrdiff_t off, std::size_t len);

// Copies `n` bytes; either side may be device memory.
void copy_any(void *dst, const void *src, std::size_t n);
// datatype::pack and datatype::unpack where the user's buffer, the packed side, or both may be
// device memory.
std::size_t pack_any(const datatype::Type &t, const void *buf, std::size_t count,
                     std::size_t offset, void *out, std::size_t len);
std::size_t unpack_any(const datatype::Type &t, const void *in, std::size_t len, std::size_t offset,
                       void *buf, std::size_t count);

} // namespace ampi::mpi
