// src/p2p/bsend.cpp — buffered sends: the data is copied into the rank's attached buffer
// (MPI_Buffer_attach) and sent from there; the space is given back when the send completes.
#include "p2p/p2p.hpp"

#include "core/pe.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace ampi::p2p {

namespace {

constexpr std::size_t kAlign = 16;

// First fit in the gaps between used blocks. Each message takes its size plus
// MPI_BSEND_OVERHEAD, which also absorbs the alignment of its data (at most kAlign - 1 bytes).
bool reserve(BsendBuffer &b, std::size_t bytes, std::size_t &offset) {
  static_assert(MPI_BSEND_OVERHEAD >= kAlign);
  const std::size_t need = bytes + MPI_BSEND_OVERHEAD;
  std::size_t at = 0;
  auto it = b.used.begin();
  for (;; ++it) {
    const std::size_t end = it == b.used.end() ? b.size : it->offset;
    if (end >= at && end - at >= need) {
      b.used.insert(it, {at, need});
      offset = at;
      return true;
    }
    if (it == b.used.end()) return false;
    at = it->offset + it->size;
  }
}

void give_back(Request &req) {
  BsendBuffer &b = req.owner->p2p.bsend;
  const auto offset = reinterpret_cast<std::size_t>(req.on_complete_arg);
  auto it = std::find_if(b.used.begin(), b.used.end(),
                         [offset](const BsendBuffer::Block &blk) { return blk.offset == offset; });
  if (it != b.used.end()) b.used.erase(it);
  req.freed = true;                 // nobody waits on it: released right after this hook
  req.owner->pe().wake(*req.owner); // MPI_Buffer_detach may be waiting for the space
}

} // namespace

int start_bsend(const Route &route, const void *buf, std::size_t bytes) {
  Rank &self = Pe::get().current();
  std::size_t offset = 0;
  if (!self.p2p.bsend.base || !reserve(self.p2p.bsend, bytes, offset)) return MPI_ERR_BUFFER;
  const auto start = reinterpret_cast<std::uintptr_t>(self.p2p.bsend.base + offset);
  std::byte *copy = self.p2p.bsend.base + offset + ((kAlign - start % kAlign) % kAlign);
  // The user's data may be device memory; the attached buffer is host memory.
  if (bytes)
    self.pe().devptrs().copy(copy, gpu::MemKind::Host, buf, self.pe().devptrs().kind(buf), bytes);
  Request &req = self.p2p.requests.create(self);
  req.on_complete = give_back;
  req.on_complete_arg = reinterpret_cast<void *>(offset);
  start_send(req, route, copy, bytes, Mode::Standard);
  return MPI_SUCCESS;
}

void drain_bsend(const char *call) {
  Rank &self = Pe::get().current();
  while (!self.p2p.bsend.used.empty())
    self.pe().block(call);
}

} // namespace ampi::p2p
