// src/coll/coll.hpp — collective algorithms over point-to-point on a communicator's collective
// context: dissemination barrier, binomial-tree broadcast and reduce, recursive-doubling allreduce,
// gather-and-broadcast allgather. Buffers are contiguous bytes; the MPI layer resolves datatypes.
#pragma once

#include "comm/comm.hpp"
#include "datatype/datatype.hpp"

#include <cstddef>

namespace ampi::coll {

// How to combine `count` elements of `extent` bytes: inout = in op inout, in rank order.
struct Reducer {
  datatype::ReduceFn fn;
  std::size_t extent;
  bool commutative = true;
  void operator()(const void *in, void *inout, std::size_t count) const { fn(in, inout, count); }
};

void barrier(const comm::Comm &c);
void bcast(const comm::Comm &c, void *buf, std::size_t bytes, int root);
// `send` may be MPI_IN_PLACE's meaning: nullptr = the root's data is already in `recv`.
void reduce(const comm::Comm &c, const void *send, void *recv, std::size_t count, const Reducer &op,
            int root);
void allreduce(const comm::Comm &c, const void *send, void *recv, std::size_t count,
               const Reducer &op);
// Every rank's `bytes` bytes at `send`, in rank order, into `recv` (size() * bytes) on all ranks.
void allgather(const comm::Comm &c, const void *send, void *recv, std::size_t bytes);

} // namespace ampi::coll
