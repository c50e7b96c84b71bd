// src/p2p/device_pack.hpp — packing and unpacking non-contiguous datatypes in device memory on the
// device: a datatype's compact layout (datatype/layout.hpp: nested repeats count x stride x
// child) becomes a short list of strided rectangles (gpu::DevPtrCache::Rect), each one copy of
// the copy engines (cuMemcpy2DAsync for a vector's blocks, cuMemcpy3DAsync for a subarray's face),
// instead of a host image of the whole span read, packed on the host and written back run by run
// (data.hpp). Used by p2p/data.cpp wherever both the user's buffer and the packed bytes are
// device memory (a device staging buffer of the request, or the peer's device buffer); the host
// staging stays the fallback for the rest (managed memory, part of a message, more rectangles
// than kMaxRects, a pitch the driver refuses, AMPI_GPU_DEVICE_PACK=0).
#pragma once

#include "datatype/type.hpp"
#include "devptr_cache/devptr_cache.hpp"

#include <cstddef>
#include <vector>

namespace ampi::p2p {

using Rect = gpu::DevPtrCache::Rect;

// Beyond this many copies a message is staged through the host: each copy is one driver call of
// a few microseconds, so an indexed type of thousands of scattered blocks is faster packed on the
// host from one span copy.
inline constexpr std::size_t kMaxRects = 256;

// The rectangles that hold the packed bytes of `count` elements of `t`, in packed order
// (adjacent runs merged, equal rows at a fixed pitch folded into 2-D, equal 2-D blocks at a
// fixed multiple of the pitch into 3-D), displacements from the buffer's address; false when
// they do not fit in kMaxRects or need a pitch the copy engines cannot take (negative,
// overlapping). Pure host code (tests/p2p checks it against datatype::for_each_run).
bool rects_of(const datatype::Type &t, std::size_t count, std::vector<Rect> &out);

// Packs all of `count` elements of `t` at `buf` (device memory) into `out` (device memory) on
// the device, or unpacks (`pack` false) all of them from `out` into `buf`; false, with the data
// to be moved another way, when this does not apply (see above).
bool device_pack(const datatype::Type &t, void *buf, std::size_t count, void *out, bool pack);

} // namespace ampi::p2p
