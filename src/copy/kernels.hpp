// src/copy/kernels.hpp — the candidate copy loops that src/copy chooses among, exposed so that
// bench/copy_bench measures exactly the code the library runs. Each copies n bytes between
// non-overlapping buffers (memcpy's contract). The vector loops need n >= 64 and AVX2 (they are
// compiled for it with a target attribute; call them only where cpu_has_avx2() said so).
#pragma once

#include <cstddef>

namespace ampi::copy::kernels {

// `rep movsb`: what glibc 2.36 uses from 2 KiB (ERMS/FSRM CPUs) up to its non-temporal threshold.
void rep_movsb(void *dst, const void *src, std::size_t n) noexcept;
// 32-byte loads and stores, 4 per step, no alignment; forward.
void avx2_unaligned(void *dst, const void *src, std::size_t n) noexcept;
// Forward, destination aligned to 32 bytes (unaligned head and tail stores).
void avx2_forward(void *dst, const void *src, std::size_t n) noexcept;
// Backward (last byte first), destination aligned to 32 bytes: the loads then never follow a
// store to an address 1-63 bytes above them modulo 4 KiB (4K aliasing of a forward loop when the
// destination lies just past the source).
void avx2_backward(void *dst, const void *src, std::size_t n) noexcept;
// Forward with non-temporal (streaming) stores to a 32-byte aligned destination, then sfence:
// for copies larger than the last-level cache, whose destination would only evict useful lines.
void avx2_stream(void *dst, const void *src, std::size_t n) noexcept;

bool cpu_has_avx2() noexcept;
// Enhanced `rep movsb` (cpuid leaf 7, EBX bit 9).
bool cpu_has_erms() noexcept;

} // namespace ampi::copy::kernels
