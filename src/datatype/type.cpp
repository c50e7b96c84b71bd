// src/datatype/type.cpp — the Type records of the predefined datatypes, and packing (contiguous
// types: one copy; derived layouts: see layout.cpp once it exists).
#include "datatype/type.hpp"

#include "datatype/datatype.hpp"

#include <algorithm>
#include <array>
#include <cstring>

namespace ampi::datatype {

namespace {

std::array<Type, kBuiltinCount> make_predefined() {
  std::array<Type, kBuiltinCount> types{};
  for (int i = 1; i < kBuiltinCount; ++i) {
    const Builtin &b = kBuiltinTable[i];
    Type &t = types[i];
    t.size = b.size;
    t.extent = static_cast<std::ptrdiff_t>(b.extent);
    t.true_extent = static_cast<std::ptrdiff_t>(b.size);
    t.contiguous = b.size == b.extent;
    t.basic = static_cast<MPI_Datatype>(kBuiltinKind | i);
    t.basic_count = 1;
  }
  return types;
}

const std::array<Type, kBuiltinCount> kPredefined = make_predefined();

} // namespace

const Type *predefined(MPI_Datatype t) noexcept {
  const unsigned i = static_cast<unsigned>(t) ^ static_cast<unsigned>(kBuiltinKind);
  return i >= 1 && i < static_cast<unsigned>(kBuiltinCount) ? &kPredefined[i] : nullptr;
}

std::size_t pack(const Type &t, const void *buf, std::size_t count, std::size_t offset, void *out,
                 std::size_t len) {
  const std::size_t total = t.size * count;
  if (offset >= total) return 0;
  len = std::min(len, total - offset);
  if (t.contiguous) {
    std::memcpy(out, static_cast<const char *>(data_start(t, buf)) + offset, len);
    return len;
  }
  // Predefined pair types whose extent has padding: element by element.
  std::size_t done = 0;
  auto *dst = static_cast<char *>(out);
  const auto *src = static_cast<const char *>(buf);
  while (done < len) {
    const std::size_t pos = offset + done, elem = pos / t.size, in = pos % t.size;
    const std::size_t n = std::min(t.size - in, len - done);
    std::memcpy(dst + done, src + elem * t.extent + t.true_lb + in, n);
    done += n;
  }
  return done;
}

std::size_t unpack(const Type &t, const void *in, std::size_t len, std::size_t offset, void *buf,
                   std::size_t count) {
  const std::size_t total = t.size * count;
  if (offset >= total) return 0;
  len = std::min(len, total - offset);
  if (t.contiguous) {
    std::memcpy(static_cast<char *>(data_start(t, buf)) + offset, in, len);
    return len;
  }
  std::size_t done = 0;
  const auto *src = static_cast<const char *>(in);
  auto *dst = static_cast<char *>(buf);
  while (done < len) {
    const std::size_t pos = offset + done, elem = pos / t.size, off = pos % t.size;
    const std::size_t n = std::min(t.size - off, len - done);
    std::memcpy(dst + elem * t.extent + t.true_lb + off, src + done, n);
    done += n;
  }
  return done;
}

} // namespace ampi::datatype
