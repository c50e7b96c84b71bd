// src/p2p/request.hpp — what a point-to-point operation is while it is in flight: the Request a
// rank waits on (send or receive; a receive is also an entry of the matching engine's posted
// queue), the Message that waits in a receiver's unexpected queue, and the per-rank table that maps
// MPI_Request handles to Requests.
#pragma once

#include "datatype/type.hpp"
#include "handles/handle.hpp"
#include "matching/engine.hpp"

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <new>
#include <vector>

namespace ampi {
class Rank;
}

namespace ampi::p2p {

enum class Mode : unsigned char { Standard, Synchronous, Buffered, Ready };
enum class Kind : unsigned char { Send, Recv, Generalized };

struct Message;
struct Persistent;
struct Generalized;

struct Request : matching::PostedReceive {
  Kind kind = Kind::Send;
  bool complete = false;
  bool cancelled = false;
  bool freed = false;      // MPI_Request_free'd while active: released on completion
  bool persistent = false; // MPI_Send_init / MPI_Recv_init: survives completion
  bool collective = false; // a non-blocking or persistent collective's (src/mpi/coll_common.hpp)
  Rank *owner = nullptr;
  int handle = MPI_REQUEST_NULL;

  // The outcome, as MPI_Status reports it.
  int status_source = MPI_ANY_SOURCE;
  int status_tag = MPI_ANY_TAG;
  int status_error = MPI_SUCCESS;
  std::size_t status_bytes = 0;

  // Receive: where the data goes.
  void *recv_buf = nullptr;
  std::size_t capacity = 0;
  // Send: where the data comes from, and the message that stands for it at the receiver while a
  // rendezvous or synchronous send is unmatched.
  const void *send_buf = nullptr;
  std::size_t bytes = 0;
  Message *unmatched = nullptr;
  Rank *peer = nullptr; // send: the destination rank (local)

  // Called once when the request completes (buffered sends give back their buffer space).
  void (*on_complete)(Request &) = nullptr;
  void *on_complete_arg = nullptr;

  // The communicator the call named: its error handler reports this request's failures.
  MPI_Comm comm = MPI_COMM_NULL;

  // MPI_*_init: `persistent` is set (Extra::op); `active` from MPI_Start until the completion is
  // reported.
  bool active = false;
  // What only non-contiguous, persistent and generalized requests need (one pointer here keeps
  // the common Request small and cheap to make).
  struct Extra;
  std::unique_ptr<Extra> extra;
  Extra &ext();
  Persistent *op() const noexcept;
};

// What a persistent request repeats (src/mpi/pt2pt_persistent.cpp).
struct Persistent {
  Kind kind = Kind::Send;
  Mode mode = Mode::Standard;
  void *buf = nullptr;
  std::size_t count = 0;
  std::size_t bytes = 0; // packed bytes
  std::shared_ptr<const datatype::Type> type;
  int peer = MPI_PROC_NULL; // rank in the communicator, or MPI_PROC_NULL / MPI_ANY_SOURCE
  int tag = 0;
  std::uint32_t context = 0;
  int my_rank = 0;    // sends: the sender's rank in the communicator
  int peer_world = 0; // sends: the destination's world rank
  // Persistent collectives (src/mpi/coll_common.hpp): what MPI_Start runs instead of a send or
  // receive; it completes the request later.
  std::function<void(Request &)> start;
  // Partitioned sends and receives (MPI_Psend_init / MPI_Precv_init, src/mpi/pt2pt_persistent.cpp):
  // the number of partitions (0: not partitioned) and, for a send, which are ready since MPI_Start.
  int partitions = 0;
  int nready = 0;
  std::vector<bool> ready;
};

struct Generalized {
  MPI_Grequest_query_function *query = nullptr;
  MPI_Grequest_free_function *free = nullptr;
  MPI_Grequest_cancel_function *cancel = nullptr;
  void *extra_state = nullptr;
};

struct Request::Extra {
  // Non-contiguous datatypes (src/mpi/pt2pt.cpp): the packed copy a send sends from or a receive
  // lands in; a receive unpacks it into `user_count` elements of `dtype` at `user_buf` when it
  // completes (on_complete).
  std::unique_ptr<std::byte[]> staging;
  // The same in device memory, for device data that the copy engines pack (p2p/device_pack.hpp);
  // set, it is used instead of `staging`. get() is the device address; the owner is a pooled
  // gpu::DeviceBuffer, held type-erased (p2p's rank state may not see devptr_cache).
  std::shared_ptr<void> dev_staging;
  std::size_t dev_staging_size = 0;
  std::shared_ptr<const datatype::Type> dtype;
  void *user_buf = nullptr;
  std::size_t user_count = 0;
  // A send whose data stays in its non-contiguous device layout (`user_count` elements of `dtype`
  // at `user_buf`), not packed: a receiver of this process copies from that layout into its own
  // (p2p/data.hpp's copy_from_layout), one of another process from it mapped with CUDA IPC
  // (p2p/ipc.cpp's send_layout; refused, the sender packs it then: pack_layout).
  bool layout = false;
  // MPI_*_init: the operation MPI_Start repeats.
  std::unique_ptr<Persistent> op;
  // MPI_Grequest_start: the user's callbacks.
  std::unique_ptr<Generalized> grequest;
  // A network receive of a message longer than its buffer (src/p2p/net.cpp): UCX delivers
  // nothing of a truncated message, so the whole message lands here and its first `capacity`
  // bytes are copied to recv_buf, as the other paths deliver them.
  std::unique_ptr<std::byte[]> overflow;
};

inline Request::Extra &Request::ext() {
  if (!extra) extra = std::make_unique<Extra>();
  return *extra;
}
inline Persistent *Request::op() const noexcept {
  return extra ? extra->op.get() : nullptr;
}

// A message taken out of matching by MPI_Mprobe / MPI_Improbe, until MPI_Mrecv / MPI_Imrecv.
struct MatchedMessage {
  Message *message = nullptr;
  MPI_Comm comm = MPI_COMM_NULL;
};

// A message that arrived before its receive was posted.
struct Message : matching::UnexpectedMessage {
  static constexpr std::size_t kInlineBytes = 256;

  std::size_t bytes = 0;
  // Rendezvous or synchronous: the sender's request, whose buffer still holds the data.
  Request *send_request = nullptr;
  // From another PE: the network port's id its data waits under (rendezvous), or kIpc (the
  // data stays in the sender's device memory; its net::IpcNote is in `data`) or kCma (host
  // memory of a process of this host; its net::CmaNote is in `data`); 0 when the data
  // is here (eager, and same-PE messages).
  std::uint64_t data_tag = 0;
  static constexpr std::uint64_t kIpc = ~std::uint64_t{0}; // never a port's id
  static constexpr std::uint64_t kCma = ~std::uint64_t{1}; // likewise: its net::CmaNote in `data`
  // Eager: the payload, inline or on the heap.
  std::byte *data = nullptr;
  std::unique_ptr<std::byte[]> heap;
  Message *next_free = nullptr;
  alignas(16) std::byte inline_data[kInlineBytes];
};

// Recycles Message objects (one pool per PE: a sender allocates, the receiver frees).
class MessagePool {
public:
  Message &get();
  void put(Message &m) noexcept;
  ~MessagePool();

private:
  Message *free_ = nullptr;
  std::vector<std::unique_ptr<Message>> all_;
};

// A rank's requests: the MPI_Request handles (handles::kind::request, numbered as HandleTable
// numbers them: slot, generation, prefix) of its live Requests. Each slot owns one Request for
// good, so the free list of slots is also the pool of Requests: making a request pops one index
// and releasing it pushes one back (a HandleTable of pointers beside a pool of its own, as before,
// kept two free lists (vectors) and moved the pointer in and out of an optional: 68 instructions to
// create and 46 to release, callgrind of osu_bw 8 B). A released handle is caught as stale, as
// every handle kind's is: its slot's generation moved on.
class RequestTable {
public:
  // A new request with a handle.
  Request &create(Rank &owner) {
    if (free_ == kNone) [[unlikely]]
      grow();
    const std::uint32_t i = free_;
    Slot &s = slots_[i];
    free_ = s.next_free;
    Request *r = s.request;
    // A fresh Request in place, over the released one without running its destructor: release()
    // dropped what it held (no Extra) and a released request is in no queue (its hooks are
    // unlinked), so the destructor would do nothing ([basic.life]: storage may be reused without
    // it); with it inline, its unreachable half cost create() a frame of saved registers.
    ::new (static_cast<void *>(r)) Request; // default-initialized: the members' initializers
    s.handle = handles::encode(kKind, i, s.generation);
    r->handle = s.handle;
    r->owner = &owner;
    ++live_;
    return *r;
  }
  // The request behind a handle, or nullptr for a handle that is not live (another kind, a freed
  // or never used slot, a slot freed since: its generation moved on).
  Request *find(MPI_Request h) const noexcept {
    const std::uint32_t i = (static_cast<std::uint32_t>(h) ^ kKind.prefix) & handles::kSlotMask;
    if (i >= slots_.size()) return nullptr;
    const Slot &s = slots_[i];
    return s.handle == h ? s.request : nullptr; // (a free slot's handle is 0: never a request's)
  }
  // Frees the request's handle and gives back what it held; the Request waits for the next
  // create(). A request whose handle is not live is left alone.
  void release(Request &r) noexcept {
    const std::uint32_t i =
        (static_cast<std::uint32_t>(r.handle) ^ kKind.prefix) & handles::kSlotMask;
    if (i < slots_.size() && slots_[i].request == &r && slots_[i].handle == r.handle) [[likely]] {
      Slot &s = slots_[i];
      s.handle = 0;
      s.generation = (s.generation + 1) & handles::kGenerationMask;
      s.next_free = free_;
      free_ = i;
      --live_;
    }
    r.handle = MPI_REQUEST_NULL;
    // Give back what a datatype, persistent or generalized request held, now rather than at reuse
    // (out of line: Extra's destructor inline made every release save and restore six registers).
    if (r.extra) [[unlikely]]
      drop_extra(r);
    r.on_complete = nullptr;
  }
  std::size_t live() const noexcept { return live_; }
  // Live requests still in progress (not complete, and not inactive persistent ones).
  std::size_t in_progress() noexcept;
  // Whether a non-blocking collective is in progress, or a persistent one exists (their schedules
  // hold the communicator's layout over PEs).
  bool has_collective() noexcept;
  RequestTable();
  ~RequestTable();

private:
  static constexpr handles::HandleKind kKind = handles::kind::request;
  static_assert(kKind.first == 0);
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  struct Slot {
    Request *request;
    MPI_Request handle;       // while live; 0 when free
    std::uint32_t generation; // of the slot's next (or current) handle
    std::uint32_t next_free;  // while free: the next free slot (kNone: none)
  };
  void grow(); // a new slot and its Request onto the free list (request.cpp)
  static void drop_extra(Request &r) noexcept; // r.extra.reset() (request.cpp)

  std::vector<Slot> slots_;
  std::vector<std::unique_ptr<Request>> pool_; // owns slots_[i].request
  std::uint32_t free_ = kNone; // the free slots, linked, the last freed first (reused first)
  std::size_t live_ = 0;
};

} // namespace ampi::p2p
