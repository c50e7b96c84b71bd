// src/coll/coll.cpp — the collective algorithms (see coll.hpp; barrier, bcast, reduce, allreduce,
// gather and allgather first try the PE-aware path of pe_coll.cpp) and the application of reduction
// operations to packed data.
#include "coll/coll.hpp"

#include "coll/inter.hpp"
#include "coll/pe_coll.hpp"
#include "copy/copy.hpp"
#include "core/cudart.hpp"
#include "core/pe.hpp"
#include "p2p/data.hpp"
#include "p2p/p2p.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

namespace ampi::coll {

namespace {

constexpr const char *kWaitName = "an MPI collective";
constexpr std::size_t kAllreduceDoublingMax = 64 * 1024; // bytes: larger vectors go round a ring
constexpr std::size_t kBcastBinomialMax = 12 * 1024;     // larger: scatter + ring allgather
constexpr std::size_t kGatherBinomialMax = 8 * 1024;     // block bytes: larger go straight
constexpr std::size_t kAllgatherBruckMax = 64 * 1024;    // total bytes: larger go round a ring
constexpr std::size_t kReduceBinomialMax = 64 * 1024;    // larger commutative: ring + gather
constexpr std::size_t kAlltoallBruckMax = 256;           // block bytes: Bruck's log(p) steps

p2p::Route route(const comm::Comm &c, int dest, int tag) {
  return {c.coll_context(), c.rank, tag, c.world_rank(dest)};
}

void send(const comm::Comm &c, int dest, int tag, const void *buf, std::size_t bytes) {
  p2p::Request req;
  req.owner = &Pe::get().current();
  p2p::start_send(req, route(c, dest, tag), buf, bytes, p2p::Mode::Standard);
  p2p::wait(req, kWaitName);
}

void recv(const comm::Comm &c, int source, int tag, void *buf, std::size_t bytes) {
  p2p::Request req;
  req.owner = &Pe::get().current();
  p2p::start_recv(req, c.coll_context(), source, tag, buf, bytes);
  p2p::wait(req, kWaitName);
}

// Sends to one peer while receiving from another, without deadlock.
void sendrecv(const comm::Comm &c, int dst, int src, int tag, const void *sbuf, std::size_t sbytes,
              void *rbuf, std::size_t rbytes) {
  p2p::Request rreq, sreq;
  rreq.owner = sreq.owner = &Pe::get().current();
  p2p::start_recv(rreq, c.coll_context(), src, tag, rbuf, rbytes);
  p2p::start_send(sreq, route(c, dst, tag), sbuf, sbytes, p2p::Mode::Standard);
  p2p::wait(rreq, kWaitName);
  p2p::wait(sreq, kWaitName);
}

// A batch of non-blocking sends and receives, all completed by waitall().
class Batch {
public:
  explicit Batch(std::size_t capacity)
      : reqs_(std::make_unique<p2p::Request[]>(capacity ? capacity : 1)) {}
  void isend(const comm::Comm &c, int dest, int tag, const void *buf, std::size_t bytes) {
    p2p::Request &r = next();
    p2p::start_send(r, route(c, dest, tag), buf, bytes, p2p::Mode::Standard);
  }
  void irecv(const comm::Comm &c, int source, int tag, void *buf, std::size_t bytes) {
    p2p::Request &r = next();
    p2p::start_recv(r, c.coll_context(), source, tag, buf, bytes);
  }
  void waitall() {
    for (std::size_t i = 0; i < n_; ++i)
      p2p::wait(reqs_[i], kWaitName);
    n_ = 0;
  }
  ~Batch() { waitall(); }

private:
  p2p::Request &next() {
    p2p::Request &r = reqs_[n_++];
    r.owner = &Pe::get().current();
    return r;
  }
  std::unique_ptr<p2p::Request[]> reqs_;
  std::size_t n_ = 0;
};

// p blocks of `bytes` one after another (the blocks of an intercommunicator's remote ranks).
Blocks even(void *base, int p, std::size_t bytes) {
  Blocks b;
  b.base = static_cast<std::byte *>(base);
  b.bytes.assign(static_cast<std::size_t>(p), bytes);
  for (int i = 0; i < p; ++i)
    b.off.push_back(static_cast<std::ptrdiff_t>(static_cast<std::size_t>(i) * bytes));
  return b;
}

std::unique_ptr<std::byte[]> scratch(std::size_t bytes) {
  return std::make_unique_for_overwrite<std::byte[]>(bytes ? bytes : 1);
}

// In-process copies of collective data go through copy::copy (no rep movsb trap); memmove only
// where the ranges overlap.
void move_bytes(void *dst, const void *src, std::size_t bytes) {
  if (!bytes || dst == src) return;
  const auto d = reinterpret_cast<std::uintptr_t>(dst), s = reinterpret_cast<std::uintptr_t>(src);
  if (d + bytes <= s || s + bytes <= d)
    copy::copy(dst, src, bytes);
  else
    std::memmove(dst, src, bytes);
}

// A temporary of a reduction: host memory, or (device reductions, Reducer::device) a device
// buffer of the PE's pool, so that the data never leaves the device.
class Scratch {
public:
  explicit Scratch(std::size_t bytes) : host_(scratch(bytes)), p_(host_.get()) {}
  Scratch(const Reducer &op, std::size_t bytes) {
    if (op.device.empty()) [[likely]] {
      host_ = scratch(bytes);
      p_ = host_.get();
      return;
    }
    dev_ = Pe::get().devptrs().scratch_buffer(bytes ? bytes : 1, nullptr);
    if (!dev_) {
      std::fprintf(stderr, "ampi: cannot allocate %zu bytes of device memory for a reduction\n",
                   bytes);
      std::abort();
    }
    p_ = static_cast<std::byte *>(dev_.get());
  }
  std::byte *get() const noexcept { return p_; }

private:
  std::unique_ptr<std::byte[]> host_;
  gpu::DeviceBuffer dev_;
  std::byte *p_ = nullptr;
};

Scratch scratch(const Reducer &op, std::size_t bytes) {
  return Scratch(op, bytes);
}

// move_bytes for a reduction's data: device copies (synchronous) for device reductions.
void move_bytes(const Reducer &op, void *dst, const void *src, std::size_t bytes) {
  if (op.device.empty()) [[likely]] {
    move_bytes(dst, src, bytes);
    return;
  }
  if (bytes && dst != src) p2p::copy_any(dst, src, bytes);
}

// Reducer::operator() of a predefined operation where an operand is device memory: the kernel
// on the rank's stream (its own stream where ranks have their own, core/cudart.hpp) and a wait
// that lets the PE's other ranks run, when both operands are device memory and the operation
// has a kernel; else (a GPU that cannot load the embedded kernels, older than sm_90; operands of
// mixed kinds, as when the ranks of one PE meeting in coll/pe_coll.cpp chose differently) the
// host kernel on host copies.
void reduce_on_device(const Reducer &op, const void *in, void *inout, std::size_t count) {
  const std::size_t n = count * op.basic_per_elem;
  if (!op.device.empty() && p2p::on_device(in) && p2p::on_device(inout)) {
    int err = 0;
    void *stream = cudart::stream_of_rank(nullptr, &err);
    gpu::CUresult r = err;
    if (r == gpu::kCudaSuccess)
      r = Pe::get().devptrs().reduce(op.device.c_str(), in, inout, n,
                                     static_cast<gpu::CUstream>(stream));
    // wait_stream lets the PE's other ranks run meanwhile; a rank alone on its PE returns from
    // it at once, so the synchronize (immediate once the kernel is done) is the wait then.
    if (r == gpu::kCudaSuccess) r = cudart::wait_stream(stream);
    if (r == gpu::kCudaSuccess)
      r = gpu::driver().cuStreamSynchronize(static_cast<gpu::CUstream>(stream));
    if (r == gpu::kCudaSuccess) return;
    if (r != gpu::kCudaErrorNotFound) {
      std::fprintf(stderr, "ampi: device reduction %s failed: %s\n", op.device.c_str(),
                   gpu::cuda_error_string(r));
      std::abort();
    }
  }
  const std::size_t bytes = count * op.extent;
  auto a = scratch(bytes), b = scratch(bytes);
  p2p::copy_any(a.get(), in, bytes);
  p2p::copy_any(b.get(), inout, bytes);
  op.fn(a.get(), b.get(), n);
  p2p::copy_any(inout, b.get(), bytes);
}

std::byte *at(void *p, std::size_t off) {
  return static_cast<std::byte *>(p) + off;
}
const std::byte *at(const void *p, std::size_t off) {
  return static_cast<const std::byte *>(p) + off;
}

// Element ranges of a vector split over ranks: block i is [start[i], start[i] + count[i]).
struct Split {
  std::vector<std::size_t> count, start;
  explicit Split(std::vector<std::size_t> counts) : count(std::move(counts)), start(count.size()) {
    std::size_t s = 0;
    for (std::size_t i = 0; i < count.size(); ++i) {
      start[i] = s;
      s += count[i];
    }
  }
  static Split even(std::size_t total, int p) {
    std::vector<std::size_t> c(static_cast<std::size_t>(p));
    for (int i = 0; i < p; ++i)
      c[static_cast<std::size_t>(i)] =
          total / static_cast<std::size_t>(p) + (static_cast<std::size_t>(i) < total % p ? 1 : 0);
    return Split(std::move(c));
  }
  std::size_t max() const {
    return count.empty() ? 0 : *std::max_element(count.begin(), count.end());
  }
};

// Ring reduce-scatter (commutative operations): afterwards rank r's block of `acc` holds the
// reduction of everybody's block r. Each step moves one block to the right neighbour.
void ring_reduce_scatter(const comm::Comm &c, int tag, std::byte *acc, const Split &s,
                         const Reducer &op) {
  const int p = c.size(), r = c.rank;
  const std::size_t e = op.extent;
  auto tmp = scratch(op, s.max() * e);
  const int right = (r + 1) % p, left = (r - 1 + p) % p;
  for (int step = 0; step < p - 1; ++step) {
    const auto sb = static_cast<std::size_t>((r - step - 1 + 2 * p) % p);
    const auto rb = static_cast<std::size_t>((r - step - 2 + 2 * p) % p);
    sendrecv(c, right, left, tag, acc + s.start[sb] * e, s.count[sb] * e, tmp.get(),
             s.count[rb] * e);
    op(tmp.get(), acc + s.start[rb] * e, s.count[rb]);
  }
}

// Ring allgather of the blocks of `buf`, each rank starting with its own.
void ring_allgather(const comm::Comm &c, int tag, const Blocks &b) {
  const int p = c.size(), r = c.rank;
  const int right = (r + 1) % p, left = (r - 1 + p) % p;
  for (int step = 0; step < p - 1; ++step) {
    const int sb = (r - step + p) % p, rb = (r - step - 1 + p) % p;
    sendrecv(c, right, left, tag, b.at(sb), b.len(sb), b.at(rb), b.len(rb));
  }
}

Blocks split_blocks(std::byte *base, const Split &s, std::size_t e) {
  Blocks b;
  b.base = base;
  for (std::size_t i = 0; i < s.count.size(); ++i) {
    b.bytes.push_back(s.count[i] * e);
    b.off.push_back(static_cast<std::ptrdiff_t>(s.start[i] * e));
  }
  return b;
}

void binomial_reduce(const comm::Comm &c, int tag, std::byte *acc, std::size_t count,
                     const Reducer &op, int target);

} // namespace

// ---- reduction operations on packed data ----

void Reducer::operator()(const void *in, void *inout, std::size_t count) const {
  if (!count) return;
  if (!device.empty() ||
      (fn && gpu::cuda_loaded() && (p2p::on_device(in) || p2p::on_device(inout)))) [[unlikely]] {
    reduce_on_device(*this, in, inout, count);
    return;
  }
  if (user) {
    const datatype::Type &t = *type;
    MPI_Datatype h = handle;
    if (t.contiguous) {
      // Packed data is the user's layout shifted by true_lb.
      auto *i = const_cast<std::byte *>(static_cast<const std::byte *>(in)) - t.true_lb;
      auto *io = static_cast<std::byte *>(inout) - t.true_lb;
      while (count) {
        int n = static_cast<int>(std::min<std::size_t>(count, INT_MAX));
        user(i, io, &n, &h);
        count -= static_cast<std::size_t>(n);
        i += static_cast<std::size_t>(n) * t.size;
        io += static_cast<std::size_t>(n) * t.size;
      }
      return;
    }
    // Non-contiguous: lay both operands out as the user's datatype describes, then pack back.
    const std::size_t span =
        static_cast<std::size_t>(t.true_extent) +
        (count - 1) * static_cast<std::size_t>(std::max<std::ptrdiff_t>(t.extent, 0));
    auto a = scratch(span), b = scratch(span);
    std::byte *ua = a.get() - t.true_lb, *ub = b.get() - t.true_lb;
    const std::size_t bytes = count * t.size;
    datatype::unpack(t, in, bytes, 0, ua, count);
    datatype::unpack(t, inout, bytes, 0, ub, count);
    int n = static_cast<int>(count);
    user(ua, ub, &n, &h);
    datatype::pack(t, ub, count, 0, inout, bytes);
    return;
  }
  const std::size_t n = count * basic_per_elem;
  const std::size_t bsize = basic_size ? basic_size : extent / basic_per_elem;
  const std::size_t stride = basic_stride ? basic_stride : bsize;
  if (stride == bsize) {
    fn(in, inout, n);
    return;
  }
  // Padded pair types: widen a chunk into the C layout the kernel expects, and back.
  constexpr std::size_t kChunk = 64;
  alignas(16) std::byte a[kChunk * 32], b[kChunk * 32];
  for (std::size_t done = 0; done < n;) {
    const std::size_t k = std::min(kChunk, n - done);
    const datatype::Type &bt = *datatype::predefined(basic);
    datatype::unpack(bt, at(in, done * bsize), k * bsize, 0, a, k);
    datatype::unpack(bt, at(inout, done * bsize), k * bsize, 0, b, k);
    fn(a, b, k);
    datatype::pack(bt, b, k, 0, at(inout, done * bsize), k * bsize);
    done += k;
  }
}

int next_tag(const comm::Comm &c, int n) {
  const std::uint32_t t = c.coll_seq;
  c.coll_seq += static_cast<std::uint32_t>(n);
  return static_cast<int>(t & ((1u << 29) - 1));
}

// ---- barrier and broadcast ----

void barrier(const comm::Comm &c, int tag) {
  if (c.inter()) return inter::barrier(c, tag);
  if (pe::barrier(c, tag)) return;
  const int p = c.size();
  for (int k = 1; k < p; k <<= 1)
    sendrecv(c, (c.rank + k) % p, (c.rank - k + p) % p, tag, nullptr, 0, nullptr, 0);
}

namespace {

void binomial_bcast(const comm::Comm &c, int tag, void *buf, std::size_t bytes, int root) {
  const int p = c.size();
  const int vr = (c.rank - root + p) % p;
  int mask = 1;
  while (mask < p) {
    if (vr & mask) {
      recv(c, (vr - mask + root) % p, tag, buf, bytes);
      break;
    }
    mask <<= 1;
  }
  Batch b(32);
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (vr + mask < p) b.isend(c, (vr + mask + root) % p, tag, buf, bytes);
  b.waitall();
}

// Van de Geijn: binomial scatter of p chunks, then a ring allgather of them.
void scatter_allgather_bcast(const comm::Comm &c, int tag, void *buf, std::size_t bytes, int root) {
  const int p = c.size();
  const int vr = (c.rank - root + p) % p;
  const std::size_t chunk = (bytes + static_cast<std::size_t>(p) - 1) / static_cast<std::size_t>(p);
  auto range = [&](int v, int n) { // bytes of chunks [v, v + n), clipped
    const std::size_t lo = std::min(bytes, static_cast<std::size_t>(v) * chunk);
    const std::size_t hi = std::min(bytes, static_cast<std::size_t>(v + n) * chunk);
    return std::pair{lo, hi - lo};
  };
  auto *data = static_cast<std::byte *>(buf);
  int mask = 1;
  while (mask < p) {
    if (vr & mask) {
      auto [lo, len] = range(vr, std::min(mask, p - vr));
      recv(c, (vr - mask + root) % p, tag, data + lo, len);
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    const int child = vr + mask;
    if (child < p) {
      auto [lo, len] = range(child, std::min(mask, p - child));
      send(c, (child + root) % p, tag, data + lo, len);
    }
  }
  // Ring allgather in virtual ranks.
  const int right = (vr + 1) % p, left = (vr - 1 + p) % p;
  for (int step = 0; step < p - 1; ++step) {
    const int sb = (vr - step + p) % p, rb = (vr - step - 1 + p) % p;
    auto [slo, slen] = range(sb, 1);
    auto [rlo, rlen] = range(rb, 1);
    sendrecv(c, (right + root) % p, (left + root) % p, tag, data + slo, slen, data + rlo, rlen);
  }
}

} // namespace

void bcast(const comm::Comm &c, int tag, void *buf, std::size_t bytes, int root) {
  if (c.inter()) return inter::bcast(c, tag, buf, bytes, root);
  const int p = c.size();
  if (p == 1) return;
  if (pe::bcast(c, tag, buf, bytes, root)) return;
  if (bytes <= kBcastBinomialMax || p < 4)
    binomial_bcast(c, tag, buf, bytes, root);
  else
    scatter_allgather_bcast(c, tag, buf, bytes, root);
}

// ---- reductions ----

namespace {

// Reduces everybody's `acc` into target's `acc`, in rank order when `target` is 0.
void binomial_reduce(const comm::Comm &c, int tag, std::byte *acc, std::size_t count,
                     const Reducer &op, int target) {
  const int p = c.size();
  const std::size_t bytes = count * op.extent;
  const int vr = (c.rank - target + p) % p;
  auto tmp = scratch(op, bytes);
  for (int mask = 1; mask < p; mask <<= 1) {
    if (vr & mask) {
      send(c, (vr - mask + target) % p, tag, acc, bytes);
      return;
    }
    if (vr + mask < p) {
      recv(c, (vr + mask + target) % p, tag, tmp.get(), bytes);
      op(acc, tmp.get(), count); // tmp = mine (lower ranks) op theirs
      move_bytes(op, acc, tmp.get(), bytes);
    }
  }
}

} // namespace

void reduce(const comm::Comm &c, int tag, const void *send_buf, void *recv_buf, std::size_t count,
            const Reducer &op, int root) {
  if (c.inter()) return inter::reduce(c, tag, send_buf, recv_buf, count, op, root);
  const int p = c.size();
  const std::size_t bytes = count * op.extent;
  const void *mine = send_buf ? send_buf : recv_buf;
  if (p == 1) {
    move_bytes(op, recv_buf, mine, bytes);
    return;
  }
  if (pe::reduce(c, tag, send_buf, recv_buf, count, op, root)) return;
  auto acc = scratch(op, bytes);
  move_bytes(op, acc.get(), mine, bytes);
  if (op.commutative && bytes > kReduceBinomialMax && count >= static_cast<std::size_t>(p)) {
    // Rabenseifner-style: ring reduce-scatter, then the blocks straight to the root.
    const Split s = Split::even(count, p);
    ring_reduce_scatter(c, tag, acc.get(), s, op);
    const std::size_t e = op.extent;
    if (c.rank == root) {
      Batch b(static_cast<std::size_t>(p));
      for (int i = 0; i < p; ++i) {
        const auto k = static_cast<std::size_t>(i);
        if (i == root)
          move_bytes(op, at(recv_buf, s.start[k] * e), acc.get() + s.start[k] * e, s.count[k] * e);
        else
          b.irecv(c, i, tag, at(recv_buf, s.start[k] * e), s.count[k] * e);
      }
      b.waitall();
    } else {
      const auto k = static_cast<std::size_t>(c.rank);
      send(c, root, tag, acc.get() + s.start[k] * e, s.count[k] * e);
    }
    return;
  }
  // Non-commutative operations need rank order: reduce towards rank 0, then hand to the root.
  const int target = op.commutative ? root : 0;
  binomial_reduce(c, tag, acc.get(), count, op, target);
  if (target == root) {
    if (c.rank == root) move_bytes(op, recv_buf, acc.get(), bytes);
  } else if (c.rank == target) {
    send(c, root, tag, acc.get(), bytes);
  } else if (c.rank == root) {
    recv(c, target, tag, recv_buf, bytes);
  }
}

void allreduce(const comm::Comm &c, int tag, const void *send_buf, void *recv_buf,
               std::size_t count, const Reducer &op) {
  if (c.inter()) return inter::allreduce(c, tag, send_buf, recv_buf, count, op);
  const int p = c.size();
  const std::size_t bytes = count * op.extent;
  if (pe::allreduce(c, tag, send_buf, recv_buf, count, op)) return;
  if (send_buf) move_bytes(op, recv_buf, send_buf, bytes);
  if (p == 1 || count == 0) return;
  auto *acc = static_cast<std::byte *>(recv_buf);
  if (bytes > kAllreduceDoublingMax) {
    if (op.commutative && count >= static_cast<std::size_t>(p)) {
      // Ring: reduce-scatter then allgather; each rank moves about 2 * bytes in all.
      const Split s = Split::even(count, p);
      ring_reduce_scatter(c, tag, acc, s, op);
      ring_allgather(c, tag, split_blocks(acc, s, op.extent));
    } else {
      binomial_reduce(c, tag, acc, count, op, 0);
      bcast(c, tag, acc, bytes, 0);
    }
    return;
  }
  auto tmp = scratch(op, bytes);
  int pof2 = 1;
  while (pof2 * 2 <= p)
    pof2 *= 2;
  const int rem = p - pof2;
  const int r = c.rank;
  int newrank;
  // Fold the first 2*rem ranks pairwise so that a power of two takes part in the doubling.
  if (r < 2 * rem) {
    if (r % 2 == 0) {
      send(c, r + 1, tag, acc, bytes);
      newrank = -1;
    } else {
      recv(c, r - 1, tag, tmp.get(), bytes);
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
      sendrecv(c, dst, dst, tag, acc, bytes, tmp.get(), bytes);
      if (dst < r) {
        op(tmp.get(), acc, count);
      } else {
        op(acc, tmp.get(), count);
        move_bytes(op, acc, tmp.get(), bytes);
      }
    }
  }
  if (r < 2 * rem) {
    if (r % 2)
      send(c, r - 1, tag, acc, bytes);
    else
      recv(c, r + 1, tag, acc, bytes);
  }
}

void reduce_scatter(const comm::Comm &c, int tag, const void *send_buf, void *recv_buf,
                    const std::vector<std::size_t> &counts, const Reducer &op) {
  if (c.inter()) return inter::reduce_scatter(c, tag, send_buf, recv_buf, counts, op);
  const int p = c.size();
  const Split s{counts};
  const std::size_t total = s.start.back() + s.count.back();
  const std::size_t e = op.extent;
  const auto me = static_cast<std::size_t>(c.rank);
  auto acc = scratch(op, total * e);
  move_bytes(op, acc.get(), send_buf, total * e);
  if (p > 1) {
    if (op.commutative) {
      ring_reduce_scatter(c, tag, acc.get(), s, op);
    } else {
      binomial_reduce(c, tag, acc.get(), total, op, 0);
      Blocks b = split_blocks(acc.get(), s, e);
      scatterv(c, tag, b, acc.get() + s.start[me] * e, s.count[me] * e, 0);
    }
  }
  move_bytes(op, recv_buf, acc.get() + s.start[me] * e, s.count[me] * e);
}

void scan(const comm::Comm &c, int tag, const void *send_buf, void *recv_buf, std::size_t count,
          const Reducer &op) {
  const int p = c.size(), r = c.rank;
  const std::size_t bytes = count * op.extent;
  if (send_buf) move_bytes(op, recv_buf, send_buf, bytes);
  if (p == 1 || count == 0) return;
  auto partial = scratch(op, bytes), tmp = scratch(op, bytes);
  move_bytes(op, partial.get(), recv_buf, bytes);
  for (int mask = 1; mask < p; mask <<= 1) {
    const int dst = r ^ mask;
    if (dst >= p) continue;
    sendrecv(c, dst, dst, tag, partial.get(), bytes, tmp.get(), bytes);
    if (r > dst) {
      op(tmp.get(), partial.get(), count);
      op(tmp.get(), recv_buf, count);
    } else {
      op(partial.get(), tmp.get(), count); // tmp = partial op theirs
      std::swap(partial, tmp);
    }
  }
}

void exscan(const comm::Comm &c, int tag, const void *send_buf, void *recv_buf, std::size_t count,
            const Reducer &op) {
  const int p = c.size(), r = c.rank;
  const std::size_t bytes = count * op.extent;
  if (p == 1 || count == 0) return;
  auto partial = scratch(op, bytes), tmp = scratch(op, bytes);
  move_bytes(op, partial.get(), send_buf ? send_buf : recv_buf, bytes);
  bool have = false;
  for (int mask = 1; mask < p; mask <<= 1) {
    const int dst = r ^ mask;
    if (dst >= p) continue;
    sendrecv(c, dst, dst, tag, partial.get(), bytes, tmp.get(), bytes);
    if (r > dst) {
      op(tmp.get(), partial.get(), count);
      if (!have) {
        move_bytes(op, recv_buf, tmp.get(), bytes);
        have = true;
      } else {
        op(tmp.get(), recv_buf, count);
      }
    } else {
      op(partial.get(), tmp.get(), count);
      std::swap(partial, tmp);
    }
  }
}

// ---- gather and scatter ----

void gather(const comm::Comm &c, int tag, const void *send_buf, void *recv_buf, std::size_t bytes,
            int root) {
  if (c.inter()) return inter::gather(c, tag, send_buf, recv_buf, bytes, root);
  const int p = c.size();
  const int r = c.rank;
  const auto pz = static_cast<std::size_t>(p);
  if (pe::gather(c, tag, send_buf, recv_buf, bytes, root)) return;
  if (r == root && send_buf)
    move_bytes(at(recv_buf, static_cast<std::size_t>(r) * bytes), send_buf, bytes);
  if (p == 1) return;
  if (bytes > kGatherBinomialMax) {
    if (r == root) {
      Batch b(pz);
      for (int i = 0; i < p; ++i)
        if (i != root) b.irecv(c, i, tag, at(recv_buf, static_cast<std::size_t>(i) * bytes), bytes);
      b.waitall();
    } else {
      send(c, root, tag, send_buf, bytes);
    }
    return;
  }
  // Binomial tree in virtual ranks: each node holds its subtree's blocks, in order, in `tmp`.
  const int vr = (r - root + p) % p;
  std::unique_ptr<std::byte[]> tmp;
  std::byte *buf;
  if (vr == 0) {
    tmp = scratch(pz * bytes);
    buf = tmp.get();
    move_bytes(buf, at(recv_buf, static_cast<std::size_t>(r) * bytes), bytes);
  } else {
    int sub = 1; // subtree size
    while (!(vr & sub) && vr + sub < p)
      sub <<= 1;
    tmp = scratch(static_cast<std::size_t>(std::min(sub, p - vr)) * bytes);
    buf = tmp.get();
    move_bytes(buf, send_buf, bytes);
  }
  int have = 1;
  for (int mask = 1; mask < p; mask <<= 1) {
    if (vr & mask) {
      send(c, (vr - mask + root) % p, tag, buf, static_cast<std::size_t>(have) * bytes);
      return;
    }
    const int child = vr + mask;
    if (child < p) {
      const int n = std::min(mask, p - child);
      recv(c, (child + root) % p, tag, buf + static_cast<std::size_t>(mask) * bytes,
           static_cast<std::size_t>(n) * bytes);
      have = mask + n;
    }
  }
  // Root: virtual block v belongs to rank (v + root) % p.
  const std::size_t head = static_cast<std::size_t>(p - root) * bytes;
  move_bytes(at(recv_buf, static_cast<std::size_t>(root) * bytes), buf, head);
  move_bytes(recv_buf, buf + head, static_cast<std::size_t>(root) * bytes);
}

void scatter(const comm::Comm &c, int tag, const void *send_buf, void *recv_buf, std::size_t bytes,
             int root) {
  if (c.inter()) return inter::scatter(c, tag, send_buf, recv_buf, bytes, root);
  const int p = c.size();
  const int r = c.rank;
  const auto pz = static_cast<std::size_t>(p);
  if (r == root && recv_buf)
    move_bytes(recv_buf, at(send_buf, static_cast<std::size_t>(r) * bytes), bytes);
  if (p == 1) return;
  if (bytes > kGatherBinomialMax) {
    if (r == root) {
      Batch b(pz);
      for (int i = 0; i < p; ++i)
        if (i != root) b.isend(c, i, tag, at(send_buf, static_cast<std::size_t>(i) * bytes), bytes);
      b.waitall();
    } else {
      recv(c, root, tag, recv_buf, bytes);
    }
    return;
  }
  const int vr = (r - root + p) % p;
  std::unique_ptr<std::byte[]> tmp;
  std::byte *buf;
  int have; // blocks held, for virtual ranks [vr, vr + have)
  int mask = 1;
  if (vr == 0) {
    tmp = scratch(pz * bytes);
    buf = tmp.get();
    const std::size_t head = static_cast<std::size_t>(p - root) * bytes;
    move_bytes(buf, at(send_buf, static_cast<std::size_t>(root) * bytes), head);
    move_bytes(buf + head, send_buf, static_cast<std::size_t>(root) * bytes);
    have = p;
    while (mask < p)
      mask <<= 1;
  } else {
    while (!(vr & mask))
      mask <<= 1;
    have = std::min(mask, p - vr);
    tmp = scratch(static_cast<std::size_t>(have) * bytes);
    buf = tmp.get();
    recv(c, (vr - mask + root) % p, tag, buf, static_cast<std::size_t>(have) * bytes);
    move_bytes(recv_buf, buf, bytes);
  }
  Batch b(32);
  for (mask >>= 1; mask > 0; mask >>= 1) {
    const int child = vr + mask;
    if (child < p) {
      const int n = std::min(mask, p - child);
      b.isend(c, (child + root) % p, tag, buf + static_cast<std::size_t>(mask) * bytes,
              static_cast<std::size_t>(n) * bytes);
    }
  }
  b.waitall();
}

void gatherv(const comm::Comm &c, int tag, const void *send_buf, std::size_t sbytes,
             const Blocks &rb, int root) {
  if (c.inter()) return inter::gatherv(c, tag, send_buf, sbytes, rb, root);
  const int p = c.size();
  if (c.rank != root) {
    send(c, root, tag, send_buf, sbytes);
    return;
  }
  if (send_buf) move_bytes(rb.at(root), send_buf, rb.len(root));
  Batch b(static_cast<std::size_t>(p));
  for (int i = 0; i < p; ++i)
    if (i != root) b.irecv(c, i, tag, rb.at(i), rb.len(i));
  b.waitall();
}

void scatterv(const comm::Comm &c, int tag, const Blocks &sb, void *recv_buf, std::size_t rbytes,
              int root) {
  if (c.inter()) return inter::scatterv(c, tag, sb, recv_buf, rbytes, root);
  const int p = c.size();
  if (c.rank != root) {
    recv(c, root, tag, recv_buf, rbytes);
    return;
  }
  if (recv_buf) move_bytes(recv_buf, sb.at(root), sb.len(root));
  Batch b(static_cast<std::size_t>(p));
  for (int i = 0; i < p; ++i)
    if (i != root) b.isend(c, i, tag, sb.at(i), sb.len(i));
  b.waitall();
}

// ---- allgather and all-to-all ----

void allgather(const comm::Comm &c, int tag, const void *send_buf, void *recv_buf,
               std::size_t bytes) {
  if (c.inter()) {
    const Blocks rb = even(recv_buf, c.peer_size(), bytes);
    return inter::allgatherv(c, tag, send_buf, bytes, rb);
  }
  const int p = c.size(), r = c.rank;
  const auto pz = static_cast<std::size_t>(p);
  if (pe::allgather(c, tag, send_buf, recv_buf, bytes)) return;
  std::byte *mine = at(recv_buf, static_cast<std::size_t>(r) * bytes);
  if (send_buf) move_bytes(mine, send_buf, bytes);
  if (p == 1 || bytes == 0) return;
  if (pz * bytes > kAllgatherBruckMax) {
    Blocks b;
    b.base = static_cast<std::byte *>(recv_buf);
    for (int i = 0; i < p; ++i) {
      b.bytes.push_back(bytes);
      b.off.push_back(static_cast<std::ptrdiff_t>(static_cast<std::size_t>(i) * bytes));
    }
    ring_allgather(c, tag, b);
    return;
  }
  // Bruck: after the step with distance d, tmp holds the blocks of ranks r .. r + 2d - 1.
  auto tmp = scratch(pz * bytes);
  move_bytes(tmp.get(), mine, bytes);
  for (int d = 1; d < p; d <<= 1) {
    const int n = std::min(d, p - d);
    sendrecv(c, (r - d + p) % p, (r + d) % p, tag, tmp.get(), static_cast<std::size_t>(n) * bytes,
             tmp.get() + static_cast<std::size_t>(d) * bytes, static_cast<std::size_t>(n) * bytes);
  }
  // tmp block i is rank (r + i) % p's.
  const std::size_t head = static_cast<std::size_t>(p - r) * bytes;
  move_bytes(mine, tmp.get(), head);
  move_bytes(recv_buf, tmp.get() + head, static_cast<std::size_t>(r) * bytes);
}

void allgatherv(const comm::Comm &c, int tag, const void *send_buf, std::size_t sbytes,
                const Blocks &rb) {
  if (c.inter()) return inter::allgatherv(c, tag, send_buf, sbytes, rb);
  allgatherv(c, tag, send_buf, rb);
}

void allgatherv(const comm::Comm &c, int tag, const void *send_buf, const Blocks &rb) {
  if (send_buf) move_bytes(rb.at(c.rank), send_buf, rb.len(c.rank));
  if (c.size() > 1) ring_allgather(c, tag, rb);
}

namespace {

// Bruck's all-to-all for small blocks: ceil(log2 p) exchanges, each moving the blocks whose
// (rotated) index has the step's bit set, instead of p - 1 small messages.
void alltoall_bruck(const comm::Comm &c, int tag, const void *send_buf, void *recv_buf,
                    std::size_t bytes) {
  const int p = c.size(), r = c.rank;
  const auto pz = static_cast<std::size_t>(p);
  auto tmp = scratch(pz * bytes);
  // Block i of tmp is the one for rank (r + i) % p.
  const std::size_t head = static_cast<std::size_t>(p - r) * bytes;
  move_bytes(tmp.get(), at(send_buf, static_cast<std::size_t>(r) * bytes), head);
  move_bytes(tmp.get() + head, send_buf, static_cast<std::size_t>(r) * bytes);
  auto out = scratch(pz / 2 * bytes + bytes), in = scratch(pz / 2 * bytes + bytes);
  for (int bit = 1; bit < p; bit <<= 1) {
    std::size_t n = 0;
    for (int i = 1; i < p; ++i)
      if (i & bit)
        move_bytes(out.get() + n++ * bytes, tmp.get() + static_cast<std::size_t>(i) * bytes, bytes);
    sendrecv(c, (r + bit) % p, (r - bit + p) % p, tag, out.get(), n * bytes, in.get(), n * bytes);
    n = 0;
    for (int i = 1; i < p; ++i)
      if (i & bit)
        move_bytes(tmp.get() + static_cast<std::size_t>(i) * bytes, in.get() + n++ * bytes, bytes);
  }
  // Now block i came from rank (r - i) % p.
  for (int i = 0; i < p; ++i)
    move_bytes(at(recv_buf, static_cast<std::size_t>((r - i + p) % p) * bytes),
               tmp.get() + static_cast<std::size_t>(i) * bytes, bytes);
}

} // namespace

void alltoall(const comm::Comm &c, int tag, const void *send_buf, void *recv_buf,
              std::size_t bytes) {
  if (c.inter()) {
    const Blocks sb = even(const_cast<void *>(send_buf), c.peer_size(), bytes);
    return inter::alltoallv(c, tag, sb, even(recv_buf, c.peer_size(), bytes));
  }
  const int p = c.size(), r = c.rank;
  move_bytes(at(recv_buf, static_cast<std::size_t>(r) * bytes),
             at(send_buf, static_cast<std::size_t>(r) * bytes), bytes);
  if (p == 1) return;
  if (bytes <= kAlltoallBruckMax && p >= 8) {
    alltoall_bruck(c, tag, send_buf, recv_buf, bytes);
    return;
  }
  // Small blocks: every exchange in flight at once; larger: pairwise exchange, one peer per step
  // (the peers of a step pair up exactly, so no rank is swamped).
  if (bytes <= 1024) {
    Batch b(2 * static_cast<std::size_t>(p));
    for (int s = 1; s < p; ++s) {
      const int src = (r - s + p) % p;
      b.irecv(c, src, tag, at(recv_buf, static_cast<std::size_t>(src) * bytes), bytes);
    }
    for (int s = 1; s < p; ++s) {
      const int dst = (r + s) % p;
      b.isend(c, dst, tag, at(send_buf, static_cast<std::size_t>(dst) * bytes), bytes);
    }
    b.waitall();
    return;
  }
  const bool pof2 = (p & (p - 1)) == 0;
  for (int s = 1; s < p; ++s) {
    const int dst = pof2 ? r ^ s : (r + s) % p;
    const int src = pof2 ? r ^ s : (r - s + p) % p;
    sendrecv(c, dst, src, tag, at(send_buf, static_cast<std::size_t>(dst) * bytes), bytes,
             at(recv_buf, static_cast<std::size_t>(src) * bytes), bytes);
  }
}

void alltoallv(const comm::Comm &c, int tag, const Blocks &sb, const Blocks &rb) {
  if (c.inter()) return inter::alltoallv(c, tag, sb, rb);
  const int p = c.size(), r = c.rank;
  move_bytes(rb.at(r), sb.at(r), std::min(rb.len(r), sb.len(r)));
  if (p == 1) return;
  // A window of exchanges in flight, in pairwise order.
  constexpr int kWindow = 32;
  for (int s0 = 1; s0 < p; s0 += kWindow) {
    const int s1 = std::min(p, s0 + kWindow);
    Batch b(2 * static_cast<std::size_t>(s1 - s0));
    for (int s = s0; s < s1; ++s) {
      const int src = (r - s + p) % p;
      b.irecv(c, src, tag, rb.at(src), rb.len(src));
    }
    for (int s = s0; s < s1; ++s) {
      const int dst = (r + s) % p;
      b.isend(c, dst, tag, sb.at(dst), sb.len(dst));
    }
    b.waitall();
  }
}

void neighbor_exchange(const comm::Comm &c, int tag, const std::vector<int> &sources,
                       const std::vector<int> &dests, const Blocks &sb, const Blocks &rb,
                       bool cart) {
  Batch b(sources.size() + dests.size());
  for (std::size_t i = 0; i < sources.size(); ++i) {
    if (sources[i] == MPI_PROC_NULL) continue;
    const int t = cart ? tag + static_cast<int>(i ^ 1) : tag;
    b.irecv(c, sources[i], t, rb.at(static_cast<int>(i)), rb.len(static_cast<int>(i)));
  }
  for (std::size_t i = 0; i < dests.size(); ++i) {
    if (dests[i] == MPI_PROC_NULL) continue;
    const int t = cart ? tag + static_cast<int>(i) : tag;
    b.isend(c, dests[i], t, sb.at(static_cast<int>(i)), sb.len(static_cast<int>(i)));
  }
  b.waitall();
}

// ---- calls with their own tag ----

void barrier(const comm::Comm &c) {
  barrier(c, kBlockingTag);
}

void allreduce(const comm::Comm &c, const void *send, void *recv, std::size_t count,
               const Reducer &op) {
  allreduce(c, kBlockingTag, send, recv, count, op);
}

void bcast(const comm::Comm &c, void *buf, std::size_t bytes, int root) {
  bcast(c, kBlockingTag, buf, bytes, root);
}

void reduce(const comm::Comm &c, const void *send, void *recv, std::size_t count, const Reducer &op,
            int root) {
  reduce(c, kBlockingTag, send, recv, count, op, root);
}

void allgather(const comm::Comm &c, const void *send, void *recv, std::size_t bytes) {
  // Callers may pass `send` anywhere (not necessarily in recv's own slot).
  allgather(c, kBlockingTag, send, recv, bytes);
}

} // namespace ampi::coll
