// src/pmi/host.cpp — the host's id (see host.hpp).
#include "pmi/host.hpp"

#include <unistd.h>

namespace ampi {

std::uint64_t host_id() noexcept {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return 0;
  std::uint64_t h = 14695981039346656037ull; // FNV-1a offset basis
  for (const char *p = name; *p; ++p)
    h = (h ^ static_cast<unsigned char>(*p)) * 1099511628211ull;
  return h;
}

} // namespace ampi
