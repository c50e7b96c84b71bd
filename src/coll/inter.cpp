// src/coll/inter.cpp — collectives on intercommunicators (see inter.hpp). The data between the
// groups goes point to point, straight from each sender to each receiver (gather, scatter, the
// all-to-all family), or once between the two group leaders (local rank 0) around a step inside
// each group (barrier, bcast, the reductions): a reduction is reduced inside the sending group
// first, so that the remote group receives one vector, not one per rank.
#include "coll/inter.hpp"

#include "core/pe.hpp"
#include "p2p/p2p.hpp"

#include <memory>
#include <numeric>

namespace ampi::coll::inter {

namespace {

constexpr const char *kWaitName = "an MPI collective on an intercommunicator";

// Sends and receives to and from remote ranks, completed together.
class Batch {
public:
  Batch(const comm::Comm &c, int tag, std::size_t capacity)
      : c_(c), tag_(tag), reqs_(std::make_unique<p2p::Request[]>(capacity ? capacity : 1)) {}
  Batch(const Batch &) = delete;
  Batch &operator=(const Batch &) = delete;
  ~Batch() { waitall(); }
  void isend(int dest, const void *buf, std::size_t bytes) {
    p2p::start_send(next(), {c_.coll_context(), c_.rank, tag_, c_.remote->world_rank(dest)}, buf,
                    bytes, p2p::Mode::Standard);
  }
  void irecv(int source, void *buf, std::size_t bytes) {
    p2p::start_recv(next(), c_.coll_context(), source, tag_, buf, bytes);
  }
  void waitall() {
    for (std::size_t i = 0; i < n_; ++i)
      p2p::wait(reqs_[i], kWaitName);
    n_ = 0;
  }

private:
  p2p::Request &next() {
    p2p::Request &r = reqs_[n_++];
    r.owner = &Pe::get().current();
    return r;
  }
  const comm::Comm &c_;
  int tag_;
  std::unique_ptr<p2p::Request[]> reqs_;
  std::size_t n_ = 0;
};

std::unique_ptr<std::byte[]> scratch(std::size_t bytes) {
  return std::make_unique_for_overwrite<std::byte[]>(bytes ? bytes : 1);
}

// The leaders (local rank 0 of each group) swap `sbytes` for `rbytes`.
void leaders_swap(const comm::Comm &c, int tag, const void *send, std::size_t sbytes, void *recv,
                  std::size_t rbytes) {
  if (c.rank != 0) return;
  Batch b(c, tag, 2);
  b.irecv(0, recv, rbytes);
  b.isend(0, send, sbytes);
}

} // namespace

void barrier(const comm::Comm &c, int tag) {
  // Nobody leaves before every member of both groups has entered: the leader hears from the
  // remote leader only after the whole remote group has entered; its group waits for it.
  coll::barrier(*c.local, tag);
  leaders_swap(c, tag, nullptr, 0, nullptr, 0);
  coll::bcast(*c.local, tag, nullptr, 0, 0);
}

void bcast(const comm::Comm &c, int tag, void *buf, std::size_t bytes, int root) {
  if (root == MPI_PROC_NULL) return;
  if (root == MPI_ROOT) {
    Batch b(c, tag, 1);
    b.isend(0, buf, bytes);
    return;
  }
  if (c.rank == 0) {
    Batch b(c, tag, 1);
    b.irecv(root, buf, bytes);
  }
  coll::bcast(*c.local, tag, buf, bytes, 0);
}

void reduce(const comm::Comm &c, int tag, const void *send, void *recv, std::size_t count,
            const Reducer &op, int root) {
  if (root == MPI_PROC_NULL) return;
  const std::size_t bytes = count * op.extent;
  if (root == MPI_ROOT) {
    Batch b(c, tag, 1);
    b.irecv(0, recv, bytes);
    return;
  }
  auto acc = scratch(c.rank == 0 ? bytes : 0);
  coll::reduce(*c.local, tag, send, acc.get(), count, op, 0);
  if (c.rank == 0) {
    Batch b(c, tag, 1);
    b.isend(root, acc.get(), bytes);
  }
}

void allreduce(const comm::Comm &c, int tag, const void *send, void *recv, std::size_t count,
               const Reducer &op) {
  // Each group's reduction goes to the other group: reduce to the leader, swap, broadcast.
  const std::size_t bytes = count * op.extent;
  auto acc = scratch(c.rank == 0 ? bytes : 0);
  coll::reduce(*c.local, tag, send ? send : recv, acc.get(), count, op, 0);
  leaders_swap(c, tag, acc.get(), bytes, recv, bytes);
  coll::bcast(*c.local, tag, recv, bytes, 0);
}

void gather(const comm::Comm &c, int tag, const void *send, void *recv, std::size_t bytes,
            int root) {
  if (root == MPI_PROC_NULL) return;
  if (root != MPI_ROOT) {
    Batch b(c, tag, 1);
    b.isend(root, send, bytes);
    return;
  }
  const int p = c.peer_size();
  Batch b(c, tag, static_cast<std::size_t>(p));
  for (int i = 0; i < p; ++i)
    b.irecv(i, static_cast<std::byte *>(recv) + static_cast<std::size_t>(i) * bytes, bytes);
}

void scatter(const comm::Comm &c, int tag, const void *send, void *recv, std::size_t bytes,
             int root) {
  if (root == MPI_PROC_NULL) return;
  if (root != MPI_ROOT) {
    Batch b(c, tag, 1);
    b.irecv(root, recv, bytes);
    return;
  }
  const int p = c.peer_size();
  Batch b(c, tag, static_cast<std::size_t>(p));
  for (int i = 0; i < p; ++i)
    b.isend(i, static_cast<const std::byte *>(send) + static_cast<std::size_t>(i) * bytes, bytes);
}

void gatherv(const comm::Comm &c, int tag, const void *send, std::size_t sbytes, const Blocks &recv,
             int root) {
  if (root == MPI_PROC_NULL) return;
  if (root != MPI_ROOT) {
    Batch b(c, tag, 1);
    b.isend(root, send, sbytes);
    return;
  }
  const int p = c.peer_size();
  Batch b(c, tag, static_cast<std::size_t>(p));
  for (int i = 0; i < p; ++i)
    b.irecv(i, recv.at(i), recv.len(i));
}

void scatterv(const comm::Comm &c, int tag, const Blocks &send, void *recv, std::size_t rbytes,
              int root) {
  if (root == MPI_PROC_NULL) return;
  if (root != MPI_ROOT) {
    Batch b(c, tag, 1);
    b.irecv(root, recv, rbytes);
    return;
  }
  const int p = c.peer_size();
  Batch b(c, tag, static_cast<std::size_t>(p));
  for (int i = 0; i < p; ++i)
    b.isend(i, send.at(i), send.len(i));
}

void allgatherv(const comm::Comm &c, int tag, const void *send, std::size_t sbytes,
                const Blocks &recv) {
  const int p = c.peer_size();
  Batch b(c, tag, 2 * static_cast<std::size_t>(p));
  for (int i = 0; i < p; ++i)
    b.irecv(i, recv.at(i), recv.len(i));
  for (int i = 0; i < p; ++i)
    b.isend((c.rank + i) % p, send, sbytes);
}

void alltoallv(const comm::Comm &c, int tag, const Blocks &send, const Blocks &recv) {
  const int p = c.peer_size();
  Batch b(c, tag, 2 * static_cast<std::size_t>(p));
  for (int i = 0; i < p; ++i)
    b.irecv(i, recv.at(i), recv.len(i));
  for (int k = 0; k < p; ++k) {
    const int i = (c.rank + k) % p; // spread the first messages over the remote ranks
    b.isend(i, send.at(i), send.len(i));
  }
}

void reduce_scatter(const comm::Comm &c, int tag, const void *send, void *recv,
                    const std::vector<std::size_t> &counts, const Reducer &op) {
  // This group's vector is reduced to its leader and swapped for the remote group's reduction,
  // which the leader scatters among this group by `counts` (both groups' totals are equal).
  const std::size_t total = std::accumulate(counts.begin(), counts.end(), std::size_t{0});
  const std::size_t bytes = total * op.extent;
  const bool leader = c.rank == 0;
  auto mine = scratch(leader ? bytes : 0), theirs = scratch(leader ? bytes : 0);
  coll::reduce(*c.local, tag, send, mine.get(), total, op, 0);
  leaders_swap(c, tag, mine.get(), bytes, theirs.get(), bytes);
  Blocks b;
  if (leader) {
    b.base = theirs.get();
    std::size_t off = 0;
    for (std::size_t n : counts) {
      b.bytes.push_back(n * op.extent);
      b.off.push_back(static_cast<std::ptrdiff_t>(off));
      off += n * op.extent;
    }
  }
  coll::scatterv(*c.local, tag, b, recv, counts[static_cast<std::size_t>(c.rank)] * op.extent, 0);
}

} // namespace ampi::coll::inter
