// src/copy/copy.hpp — ampi::copy::copy(): memcpy for in-process message data without the CPU's
// traps. glibc 2.36 copies 2 KiB-~512 KiB with `rep movsb`, which on AMD Zen 3 runs at ~3 GB/s
// instead of ~50 GB/s when the destination lies 1-31 bytes past the source modulo 4 KiB (two
// malloc'ed buffers often do; bench/results/copy/). Small copies stay glibc's inline memcpy; from
// kMinChosen bytes a routine chosen once per process by CPU features and L3 size (copy.cpp) runs.
// Layer 0: knows nothing of MPI. Same contract as memcpy: the buffers must not overlap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ampi::copy {

// Below this, glibc's memcpy uses vector moves (no `rep movsb`) and is as fast as anything here.
inline constexpr std::size_t kMinChosen = 2048;

// The chosen routine itself (any n; copy() calls it from kMinChosen bytes).
void copy_large(void *dst, const void *src, std::size_t n) noexcept;

// Copies n <= 16 bytes inline, by two overlapping loads and stores of the largest power of two
// that fits: glibc's memcpy behind a call cost an 8-byte message ~12 instructions at the
// receiver (callgrind, osu_bw).
inline void copy_small(void *dst, const void *src, std::size_t n) noexcept {
  auto *d = static_cast<unsigned char *>(dst);
  const auto *s = static_cast<const unsigned char *>(src);
  if (n >= 8) {
    std::uint64_t a, b;
    std::memcpy(&a, s, 8);
    std::memcpy(&b, s + n - 8, 8);
    std::memcpy(d, &a, 8);
    std::memcpy(d + n - 8, &b, 8);
  } else if (n >= 4) {
    std::uint32_t a, b;
    std::memcpy(&a, s, 4);
    std::memcpy(&b, s + n - 4, 4);
    std::memcpy(d, &a, 4);
    std::memcpy(d + n - 4, &b, 4);
  } else if (n) {
    const unsigned char a = s[0], b = s[n / 2], c = s[n - 1];
    d[0] = a;
    d[n / 2] = b;
    d[n - 1] = c;
  }
}

// Copies n bytes from src to dst (non-overlapping), fast for every relative alignment.
inline void copy(void *dst, const void *src, std::size_t n) noexcept {
  if (n <= 16)
    copy_small(dst, src, n);
  else if (n < kMinChosen) [[likely]]
    std::memcpy(dst, src, n);
  else
    copy_large(dst, src, n);
}

// What copy() chose at start-up, in words (ampi_info, AMPI_DEBUG output, the bench).
const char *strategy() noexcept;
// From this many bytes copy() uses non-temporal stores (SIZE_MAX: never).
std::size_t stream_threshold() noexcept;

} // namespace ampi::copy
