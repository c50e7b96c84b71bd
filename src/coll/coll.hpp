// src/coll/coll.hpp — collective algorithms over point-to-point on a communicator's collective
// context, on contiguous bytes (the MPI layer packs non-contiguous datatypes): dissemination
// barrier; binomial and scatter+ring-allgather broadcast; binomial and reduce-scatter+gather
// reduce; recursive-doubling and ring (reduce-scatter + allgather) allreduce; binomial or linear
// gather/scatter; Bruck and ring allgather; pairwise-exchange all-to-all; ring reduce-scatter;
// recursive-doubling scan/exscan; neighbourhood exchanges. On an intercommunicator (a remote group)
// they run the algorithms of inter.cpp.
//
// Every operation takes a tag: all messages of one collective use the communicator's collective
// context and that tag (kBlockingTag for blocking ones; next_tag() hands out a fresh one per
// non-blocking collective), so that several collectives in flight on one communicator never mix.
#pragma once

#include "comm/comm.hpp"
#include "datatype/datatype.hpp"
#include "datatype/type.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace ampi::coll {

// How to combine `count` elements held in packed form (each `extent` bytes):
// inout = in op inout, where `in` comes from lower ranks.
struct Reducer {
  Reducer() = default;
  // A predefined kernel on elements of `extent_` bytes.
  Reducer(datatype::ReduceFn fn_, std::size_t extent_) : fn(fn_), extent(extent_) {}

  datatype::ReduceFn fn = nullptr; // predefined operation: the kernel on basic elements
  std::size_t extent = 0;          // packed bytes of one element of the datatype
  bool commutative = true;
  std::size_t basic_per_elem = 1; // basic elements per element
  // The basic element's packed size, and its size in the kernel's C layout (they differ for the
  // padded pair types, e.g. MPI_DOUBLE_INT: 12 packed bytes, 16 in the struct); 0: extent /
  // basic_per_elem for both.
  std::size_t basic_size = 0;
  std::size_t basic_stride = 0;
  // The predefined type of the basic elements when the two differ: widening goes through its
  // layout, since MPI_SHORT_INT's padding sits between value and index, not at the end.
  MPI_Datatype basic = MPI_DATATYPE_NULL;
  // User-defined operation (MPI_Op_create): called on the user's datatype and memory layout.
  MPI_User_function *user = nullptr;
  MPI_Datatype handle = MPI_DATATYPE_NULL;
  std::shared_ptr<const datatype::Type> type;
  // Device reduction: the data (the buffers and the algorithm's temporaries) is device memory
  // and the operation runs as this kernel (datatype::device_reduction) on the rank's stream; the
  // algorithm's temporaries are device buffers and its local copies device copies. Empty: host.
  // Set by src/mpi/coll.cpp only for intracommunicators and predefined operations on contiguous
  // predefined elements whose packed form is their C layout (`fn` stays the host kernel).
  std::string device;

  void operator()(const void *in, void *inout, std::size_t count) const;
};

// Per-rank blocks of a v/w collective inside one buffer: rank i's bytes at base + off[i].
struct Blocks {
  std::byte *base = nullptr;
  std::vector<std::size_t> bytes;
  std::vector<std::ptrdiff_t> off;
  std::byte *at(int i) const { return base + off[static_cast<std::size_t>(i)]; }
  std::size_t len(int i) const { return bytes[static_cast<std::size_t>(i)]; }
};

// The tag of blocking collectives: a rank runs one at a time, and the ranks run them in the same
// order, so consecutive ones cannot mix (messages between two ranks do not overtake). Reusing one
// tag keeps the receiver's matching buckets warm.
inline constexpr int kBlockingTag = 1 << 30;
// A fresh tag below 2^29 for the next non-blocking collective on `c` (n consecutive tags when it
// needs several); they are taken in the order the ranks start them.
int next_tag(const comm::Comm &c, int n = 1);

void barrier(const comm::Comm &c, int tag);
void bcast(const comm::Comm &c, int tag, void *buf, std::size_t bytes, int root);
// send == nullptr: the input is already in recv (MPI_IN_PLACE at the root). recv may be nullptr
// at non-roots.
void reduce(const comm::Comm &c, int tag, const void *send, void *recv, std::size_t count,
            const Reducer &op, int root);
// send == nullptr: the input is in recv.
void allreduce(const comm::Comm &c, int tag, const void *send, void *recv, std::size_t count,
               const Reducer &op);
// `bytes` per rank; at the root, send == nullptr means its block is already in place in recv.
void gather(const comm::Comm &c, int tag, const void *send, void *recv, std::size_t bytes,
            int root);
// At the root, recv == nullptr means its block stays in place in send.
void scatter(const comm::Comm &c, int tag, const void *send, void *recv, std::size_t bytes,
             int root);
void gatherv(const comm::Comm &c, int tag, const void *send, std::size_t sbytes, const Blocks &recv,
             int root);
void scatterv(const comm::Comm &c, int tag, const Blocks &send, void *recv, std::size_t rbytes,
              int root);
// send == nullptr: this rank's block is already in place in recv.
void allgather(const comm::Comm &c, int tag, const void *send, void *recv, std::size_t bytes);
void allgatherv(const comm::Comm &c, int tag, const void *send, const Blocks &recv);
// The same with this rank's block size given (on an intercommunicator, `recv` holds the remote
// ranks' blocks only).
void allgatherv(const comm::Comm &c, int tag, const void *send, std::size_t sbytes,
                const Blocks &recv);
void alltoall(const comm::Comm &c, int tag, const void *send, void *recv, std::size_t bytes);
void alltoallv(const comm::Comm &c, int tag, const Blocks &send, const Blocks &recv);
// `send` holds sum(counts) elements (it may alias recv); rank r gets counts[r] elements.
void reduce_scatter(const comm::Comm &c, int tag, const void *send, void *recv,
                    const std::vector<std::size_t> &counts, const Reducer &op);
// send == nullptr: the input is in recv. exscan leaves recv untouched on rank 0.
void scan(const comm::Comm &c, int tag, const void *send, void *recv, std::size_t count,
          const Reducer &op);
void exscan(const comm::Comm &c, int tag, const void *send, void *recv, std::size_t count,
            const Reducer &op);
// Sends send block i to dests[i] and receives recv block i from sources[i] (MPI_PROC_NULL
// entries skipped). With `cart`, the block sent towards slot k is received in slot k^1 and each
// slot has its own tag (tag + slot), so that a neighbour met in both directions is told apart.
void neighbor_exchange(const comm::Comm &c, int tag, const std::vector<int> &sources,
                       const std::vector<int> &dests, const Blocks &send, const Blocks &recv,
                       bool cart);

// Blocking calls with kBlockingTag (used by other parts of the library).
void barrier(const comm::Comm &c);
void bcast(const comm::Comm &c, void *buf, std::size_t bytes, int root);
void reduce(const comm::Comm &c, const void *send, void *recv, std::size_t count, const Reducer &op,
            int root);
void allreduce(const comm::Comm &c, const void *send, void *recv, std::size_t count,
               const Reducer &op);
void allgather(const comm::Comm &c, const void *send, void *recv, std::size_t bytes);

} // namespace ampi::coll
