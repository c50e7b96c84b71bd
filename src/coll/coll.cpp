// src/coll/coll.cpp — the collective algorithms (see coll.hpp).
#include "coll/coll.hpp"

#include "p2p/p2p.hpp"
#include "ranks/pe.hpp"

#include <cstring>
#include <memory>
#include <vector>

namespace ampi::coll {

namespace {

enum Tag : int { kBarrier = 1, kBcast, kReduce, kAllreduce, kAllgather };

constexpr std::size_t kAllreduceDoublingMax = 64 * 1024; // bytes

p2p::Route route(const comm::Comm &c, int dest, int tag) {
  return {c.coll_context(), c.rank, tag, c.world_rank(dest)};
}

void send(const comm::Comm &c, int dest, int tag, const void *buf, std::size_t bytes) {
  p2p::send(route(c, dest, tag), buf, bytes);
}

void recv(const comm::Comm &c, int source, int tag, void *buf, std::size_t bytes) {
  p2p::recv(c.coll_context(), source, tag, buf, bytes);
}

// Exchanges with one peer without deadlock (the send may wait for the peer's receive).
void sendrecv(const comm::Comm &c, int peer, int tag, const void *sbuf, void *rbuf,
              std::size_t bytes) {
  p2p::Request sreq;
  sreq.owner = &Pe::get().current();
  p2p::start_send(sreq, route(c, peer, tag), sbuf, bytes, p2p::Mode::Standard);
  recv(c, peer, tag, rbuf, bytes);
  p2p::wait(sreq, "MPI_Sendrecv");
}

std::unique_ptr<std::byte[]> scratch(std::size_t bytes) {
  return std::make_unique_for_overwrite<std::byte[]>(bytes ? bytes : 1);
}

} // namespace

void barrier(const comm::Comm &c) {
  const int p = c.size();
  for (int k = 1; k < p; k <<= 1) {
    send(c, (c.rank + k) % p, kBarrier, nullptr, 0);
    recv(c, (c.rank - k + p) % p, kBarrier, nullptr, 0);
  }
}

void bcast(const comm::Comm &c, void *buf, std::size_t bytes, int root) {
  const int p = c.size();
  const int vr = (c.rank - root + p) % p;
  int mask = 1;
  while (mask < p) {
    if (vr & mask) {
      recv(c, (vr - mask + root) % p, kBcast, buf, bytes);
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (vr + mask < p) send(c, (vr + mask + root) % p, kBcast, buf, bytes);
}

void reduce(const comm::Comm &c, const void *send_buf, void *recv_buf, std::size_t count,
            const Reducer &op, int root) {
  const int p = c.size();
  const std::size_t bytes = count * op.extent;
  const void *mine = send_buf ? send_buf : recv_buf;
  if (p == 1) {
    if (mine != recv_buf && bytes) std::memcpy(recv_buf, mine, bytes);
    return;
  }
  // Non-commutative operations need rank order: reduce towards rank 0, then hand to the root.
  const int target = op.commutative ? root : 0;
  const int vr = (c.rank - target + p) % p;
  auto acc = scratch(bytes);
  auto tmp = scratch(bytes);
  if (bytes) std::memcpy(acc.get(), mine, bytes);
  for (int mask = 1; mask < p; mask <<= 1) {
    if (vr & mask) {
      send(c, (vr - mask + target) % p, kReduce, acc.get(), bytes);
      break;
    }
    if (vr + mask < p) {
      recv(c, (vr + mask + target) % p, kReduce, tmp.get(), bytes);
      op(acc.get(), tmp.get(), count); // tmp = mine (lower ranks) op theirs
      std::swap(acc, tmp);
    }
  }
  if (target == root) {
    if (c.rank == root && bytes) std::memcpy(recv_buf, acc.get(), bytes);
  } else if (c.rank == target) {
    send(c, root, kReduce, acc.get(), bytes);
  } else if (c.rank == root) {
    recv(c, target, kReduce, recv_buf, bytes);
  }
}

void allreduce(const comm::Comm &c, const void *send_buf, void *recv_buf, std::size_t count,
               const Reducer &op) {
  const int p = c.size();
  const std::size_t bytes = count * op.extent;
  if (send_buf && send_buf != recv_buf && bytes) std::memcpy(recv_buf, send_buf, bytes);
  if (p == 1) return;
  // Large vectors: recursive doubling would move and combine the whole vector log(p) times on
  // every rank; a binomial reduce then a broadcast moves it about twice.
  if (bytes > kAllreduceDoublingMax) {
    reduce(c, nullptr, recv_buf, count, op, 0);
    bcast(c, recv_buf, bytes, 0);
    return;
  }
  auto tmp = scratch(bytes);
  std::byte *acc = static_cast<std::byte *>(recv_buf);
  int pof2 = 1;
  while (pof2 * 2 <= p)
    pof2 *= 2;
  const int rem = p - pof2;
  const int r = c.rank;
  int newrank;
  // Fold the first 2*rem ranks pairwise so that a power of two takes part in the doubling.
  if (r < 2 * rem) {
    if (r % 2 == 0) {
      send(c, r + 1, kAllreduce, acc, bytes);
      newrank = -1;
    } else {
      recv(c, r - 1, kAllreduce, tmp.get(), bytes);
      op(tmp.get(), acc, count); // lower rank's data first
      newrank = r / 2;
    }
  } else {
    newrank = r - rem;
  }
  if (newrank >= 0) {
    for (int mask = 1; mask < pof2; mask <<= 1) {
      const int newdst = newrank ^ mask;
      const int dst = newdst < rem ? newdst * 2 + 1 : newdst + rem;
      sendrecv(c, dst, kAllreduce, acc, tmp.get(), bytes);
      if (dst < r) {
        op(tmp.get(), acc, count);
      } else {
        op(acc, tmp.get(), count);
        if (bytes) std::memcpy(acc, tmp.get(), bytes);
      }
    }
  }
  if (r < 2 * rem) {
    if (r % 2)
      send(c, r - 1, kAllreduce, acc, bytes);
    else
      recv(c, r + 1, kAllreduce, acc, bytes);
  }
}

void allgather(const comm::Comm &c, const void *send_buf, void *recv_buf, std::size_t bytes) {
  const int p = c.size();
  auto *out = static_cast<std::byte *>(recv_buf);
  if (bytes) std::memmove(out + static_cast<std::size_t>(c.rank) * bytes, send_buf, bytes);
  // Binomial gather to rank 0 (each subtree's blocks are contiguous), then broadcast.
  int have = 1;
  for (int mask = 1; mask < p; mask <<= 1) {
    if (c.rank & mask) {
      send(c, c.rank - mask, kAllgather, out + static_cast<std::size_t>(c.rank) * bytes,
           static_cast<std::size_t>(have) * bytes);
      break;
    }
    const int src = c.rank + mask;
    if (src < p) {
      const int n = std::min(mask, p - src);
      recv(c, src, kAllgather, out + static_cast<std::size_t>(src) * bytes,
           static_cast<std::size_t>(n) * bytes);
      have += n;
    }
  }
  bcast(c, out, static_cast<std::size_t>(p) * bytes, 0);
}

} // namespace ampi::coll
