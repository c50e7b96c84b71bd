// src/io/view.hpp — a file view (MPI-3.1 13.3): the displacement, the etype and the filetype
// flattened into the runs of bytes one tile of it covers, and the mapping of a position in the
// view's data stream to the file's bytes. Reads and writes, independent or collective, turn their
// request into a list of Segments (file offset, length) with it.
#pragma once

#include "datatype/type.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ampi::io {

// A contiguous piece of the file.
struct Segment {
  std::int64_t off;
  std::int64_t len;
};

// The runs of bytes that one element of a datatype covers, in the order of its type map (its
// packed order), relative to the type's origin; adjacent runs merged.
std::vector<Segment> flatten(const datatype::Type &t);

struct View {
  std::int64_t disp = 0;
  std::int64_t etype_size = 1;            // bytes of one etype (MPI_BYTE's by default)
  std::int64_t tile_size = 1;             // bytes of data in one filetype element
  std::int64_t tile_extent = 1;           // its extent: the stride between tiles
  std::vector<Segment> runs{{0, 1}};      // one tile's runs
  std::vector<std::int64_t> prefix{0, 1}; // prefix[i]: data bytes before runs[i]

  // Sets the filetype's runs (from flatten()); tile_size is their total.
  void set_filetype(std::vector<Segment> r, std::int64_t extent);
  bool contiguous() const noexcept {
    return runs.size() == 1 && runs[0].off == 0 && tile_extent == tile_size;
  }
  // The file offset of data byte `pos` of the view's stream.
  std::int64_t byte_offset(std::int64_t pos) const noexcept;
  // Appends to `out` the file pieces of `len` stream bytes starting at stream byte `pos`, in
  // stream order, adjacent pieces merged.
  void map(std::int64_t pos, std::int64_t len, std::vector<Segment> &out) const;
  // The stream position of the first data byte at or after file offset `off` (for MPI_SEEK_END:
  // the end of the file as a position in the view).
  std::int64_t position_at_or_after(std::int64_t off) const noexcept;
};

// Splits the file range [lo, hi) into `n` domains (one per aggregator), each a multiple of
// `align` bytes long where possible; domain i is [bounds[i], bounds[i+1]).
std::vector<std::int64_t> split_domains(std::int64_t lo, std::int64_t hi, int n,
                                        std::int64_t align);

} // namespace ampi::io
