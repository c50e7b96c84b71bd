// src/copy/kernels.cpp — the copy loops of kernels.hpp. Compiled for the baseline x86-64 target;
// the AVX2 loops carry target("avx2") so that the library still loads on CPUs without it (the
// choice in copy.cpp never calls them there).
#include "copy/kernels.hpp"

#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace ampi::copy::kernels {

#if defined(__x86_64__)

void rep_movsb(void *dst, const void *src, std::size_t n) noexcept {
  asm volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}

bool cpu_has_avx2() noexcept {
  return __builtin_cpu_supports("avx2");
}

bool cpu_has_erms() noexcept {
  unsigned a, b, c, d;
  return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 9));
}

namespace {

using V = __m256i;
[[gnu::target("avx2"), gnu::always_inline]] inline V load(const std::byte *p) {
  return _mm256_loadu_si256(reinterpret_cast<const V *>(p));
}
[[gnu::target("avx2"), gnu::always_inline]] inline void store_u(std::byte *p, V v) {
  _mm256_storeu_si256(reinterpret_cast<V *>(p), v);
}
[[gnu::target("avx2"), gnu::always_inline]] inline void store_a(std::byte *p, V v) {
  _mm256_store_si256(reinterpret_cast<V *>(p), v);
}
[[gnu::target("avx2"), gnu::always_inline]] inline void store_nt(std::byte *p, V v) {
  _mm256_stream_si256(reinterpret_cast<V *>(p), v);
}

// Forward loop over [d, d + n) from s, 128 bytes a step, the last step's remainder (< 128)
// 32 bytes at a time, leaving at most 32 bytes that the caller's tail store covers. `Store` is
// the aligned or streaming store (d must be 32-byte aligned) or the unaligned one.
template <void (*Store)(std::byte *, V)>
[[gnu::target("avx2"), gnu::always_inline]] inline void
forward_body(std::byte *d, const std::byte *s, std::size_t n) {
  while (n > 128) {
    const V a = load(s), b = load(s + 32), c = load(s + 64), e = load(s + 96);
    Store(d, a);
    Store(d + 32, b);
    Store(d + 64, c);
    Store(d + 96, e);
    s += 128;
    d += 128;
    n -= 128;
  }
  while (n > 32) {
    Store(d, load(s));
    s += 32;
    d += 32;
    n -= 32;
  }
}

// A copy of n >= 64 bytes: the first and the last 32 bytes are loaded first and stored last
// (unaligned, overlapping the body as needed), the body is stored from the first 32-byte
// boundary of the destination.
template <void (*Store)(std::byte *, V), bool Align>
[[gnu::target("avx2"), gnu::always_inline]] inline void forward(void *dst, const void *src,
                                                                std::size_t n) {
  auto *d = static_cast<std::byte *>(dst);
  const auto *s = static_cast<const std::byte *>(src);
  const V head = load(s), tail = load(s + n - 32);
  const std::size_t skip = Align ? 32 - (reinterpret_cast<std::uintptr_t>(d) & 31) : 32;
  forward_body<Store>(d + skip, s + skip, n - skip);
  store_u(d + n - 32, tail);
  store_u(d, head);
}

} // namespace

[[gnu::target("avx2")]] void avx2_unaligned(void *dst, const void *src, std::size_t n) noexcept {
  forward<store_u, false>(dst, src, n);
}

[[gnu::target("avx2")]] void avx2_forward(void *dst, const void *src, std::size_t n) noexcept {
  forward<store_a, true>(dst, src, n);
}

[[gnu::target("avx2")]] void avx2_stream(void *dst, const void *src, std::size_t n) noexcept {
  forward<store_nt, true>(dst, src, n);
  _mm_sfence();
}

[[gnu::target("avx2")]] void avx2_backward(void *dst, const void *src, std::size_t n) noexcept {
  auto *d = static_cast<std::byte *>(dst);
  const auto *s = static_cast<const std::byte *>(src);
  const V head = load(s), tail = load(s + n - 32);
  // The body ends at the last 32-byte boundary of the destination at or below d + n - 32... the
  // tail store covers the bytes above it; the head store covers what lies below d + 32.
  std::size_t end = n - (reinterpret_cast<std::uintptr_t>(d + n) & 31); // d + end is aligned
  if (end == n) end -= 32; // the tail store covers [n - 32, n)
  while (end >= 32 + 128) {
    const V a = load(s + end - 32), b = load(s + end - 64), c = load(s + end - 96),
            e = load(s + end - 128);
    store_a(d + end - 32, a);
    store_a(d + end - 64, b);
    store_a(d + end - 96, c);
    store_a(d + end - 128, e);
    end -= 128;
  }
  while (end > 32) {
    store_a(d + end - 32, load(s + end - 32));
    end -= 32;
  }
  store_u(d, head);
  store_u(d + n - 32, tail);
}

#else // not x86-64: plain memcpy everywhere

void rep_movsb(void *dst, const void *src, std::size_t n) noexcept {
  std::memcpy(dst, src, n);
}
void avx2_unaligned(void *dst, const void *src, std::size_t n) noexcept {
  std::memcpy(dst, src, n);
}
void avx2_forward(void *dst, const void *src, std::size_t n) noexcept {
  std::memcpy(dst, src, n);
}
void avx2_backward(void *dst, const void *src, std::size_t n) noexcept {
  std::memcpy(dst, src, n);
}
void avx2_stream(void *dst, const void *src, std::size_t n) noexcept {
  std::memcpy(dst, src, n);
}
bool cpu_has_avx2() noexcept {
  return false;
}
bool cpu_has_erms() noexcept {
  return false;
}

#endif

} // namespace ampi::copy::kernels
