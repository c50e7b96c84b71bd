// src/shm/shm.hpp — the same-host transport between the processes of one host: one shared segment
// per process holding its inbound rings (one single-producer single-consumer ring per local peer,
// lock-free, the receiver polling the next record's header word, its head on a line of its own), a
// "sleeping" word and a wake-up socket per process, single copies of large data from or into a
// peer's memory (Linux CMA, process_vm_readv / process_vm_writev) and the claim words that let
// two processes split one such copy. It moves typed byte records and knows nothing of MPI, p2p
// or the network port; the port (net/port.hpp) routes every active message to a PE of this host
// through it, so that all messages between two PEs keep one order.
//
// Start-up (Node::open): each process creates its segment (0600, O_EXCL), the job exchanges names
// through the caller's allgather (PMIx), every process maps its local peers' segments, and after
// the caller's fence each one unlinks its own: from then on nothing of the job is left in
// /dev/shm however it ends (SIGKILL included). The wake-up sockets are Unix datagram sockets in the
// abstract namespace: no file at all.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ampi::shm {

struct Config {
  // Bytes of inbound rings per process, shared among its local peers (each ring gets this divided
  // by the number of peers, rounded down to a power of two, within [ring_min, ring_max]).
  std::size_t segment_budget = 4u << 20;
  std::size_t ring_min = 64u << 10;
  std::size_t ring_max = 1u << 20;
  // Senders skip the full fence per record when every process of the host could register for
  // membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) (see try_send); false: always the fence.
  bool asymmetric_fence = true;
  // Lines of a ring that a sender asks for, for writing, past its tail after each record (see
  // try_send); -1: kPrefetchLinesAuto. None on a CPU without a prefetch for writing (x86:
  // PREFETCHW).
  int prefetch_lines = -1;
};
inline constexpr int kPrefetchLinesAuto = 8;

// The job-wide exchange the caller provides: publishes `mine` and returns every process's blob,
// indexed by PE (PMIx put + commit + fence + get); and a fence.
struct Exchange {
  std::function<std::vector<std::vector<std::byte>>(const std::vector<std::byte> &mine)> allgather;
  std::function<void()> fence;
};

// The ring's shared control word. There is no shared tail: the receiver polls the header of the
// cell where the next record will start (see try_send), so a message costs it one cache line from
// the sender (the cell's) instead of two (the tail's, then the cell's).
struct alignas(64) RingControl {
  alignas(64) std::atomic<std::uint64_t> head; // bytes consumed, by the receiver
};

// One record in a ring: an 8-byte header word, then the body, padded to 64-byte cells. The word
// is written last, in one store, and read in one load: the body's bytes (low 32 bits), the
// caller's type (next 8; 0 is a skip record: the rest of the ring up to its end) and kValid.
// A word without kValid is "nothing yet".
inline constexpr std::size_t kCell = 64;
inline constexpr std::size_t kHeaderWord = 8;
inline constexpr std::uint64_t kValid = std::uint64_t{1} << 40;
constexpr std::uint64_t header_word(std::uint8_t type, std::size_t bytes) noexcept {
  return kValid | std::uint64_t{type} << 32 | static_cast<std::uint32_t>(bytes);
}

namespace detail {

// memcpy for a record's parts, with the small sizes (the payload structs, 8-byte data) inline:
// glibc's memcpy behind a call cost osu_bw's 8-byte sends ~22 instructions a record for its two
// parts. Overlapping loads and stores of 8 or 16 bytes cover every size up to 32.
[[gnu::always_inline]] inline void copy_part(std::byte *d, const void *src,
                                             std::size_t n) noexcept {
  const auto *s = static_cast<const std::byte *>(src);
  if (n > 32) {
    std::memcpy(d, s, n);
  } else if (n >= 16) {
    unsigned char lo[16], hi[16];
    std::memcpy(lo, s, 16);
    std::memcpy(hi, s + n - 16, 16);
    std::memcpy(d, lo, 16);
    std::memcpy(d + n - 16, hi, 16);
  } else if (n >= 8) {
    std::uint64_t lo, hi;
    std::memcpy(&lo, s, 8);
    std::memcpy(&hi, s + n - 8, 8);
    std::memcpy(d, &lo, 8);
    std::memcpy(d + n - 8, &hi, 8);
  } else {
    for (std::size_t i = 0; i < n; ++i)
      d[i] = s[i];
  }
}

// Asks for the cache line at `p` in a state this core may write (x86's PREFETCHW, which the
// caller checks the CPU has: Node::open).
[[gnu::always_inline]] inline void prefetch_for_write(const void *p) noexcept {
#if defined(__x86_64__) || defined(__i386__)
  asm volatile("prefetchw %0" ::"m"(*static_cast<const char *>(p)));
#else
  __builtin_prefetch(p, 1, 3);
#endif
}

} // namespace detail

class Node {
public:
  // Opens the transport for PE `my_pe` of `npes`: returns nullptr if no other PE shares this host
  // (every process must call it, as it takes part in the exchange). `host` identifies the host.
  static std::unique_ptr<Node> open(int my_pe, int npes, std::uint64_t host, const Config &config,
                                    const Exchange &exchange);
  ~Node();
  Node(const Node &) = delete;
  Node &operator=(const Node &) = delete;

  // Whether `pe` is another PE of this host (and so reached through this transport).
  bool reaches(int pe) const noexcept {
    if (static_cast<unsigned>(pe) >= slot_of_.size()) return false;
    const int slot = slot_of_[static_cast<std::size_t>(pe)];
    return slot >= 0 && slot != my_slot_;
  }
  // The largest body a record may have (half a ring: at least 32 KiB - 8).
  std::size_t max_record() const noexcept { return max_record_; }
  std::size_t ring_bytes() const noexcept { return ring_bytes_; }
  std::size_t segment_bytes() const noexcept { return segment_bytes_; }

  // Writes a record of `type` (1..255) whose body is `a` then `b` into the ring to `pe`, and wakes
  // the receiver if it sleeps; false (nothing written) when the ring has no room now. Inline
  // (below the class): the payload's size is then a constant where it is called, its copy
  // straight-line, and the call is gone; as a function of its own it took 78 of the 542
  // instructions of an 8-byte osu_bw send (callgrind), 494 with it inline.
  bool try_send(int pe, std::uint8_t type, const void *a, std::size_t na, const void *b,
                std::size_t nb) noexcept;

  // Hands the records that arrived to f(type, body, bytes), ring by ring, each ring's in order;
  // the body is valid during the call only. True if any arrived. With `drain` false, at most one
  // record per ring (skip records are followed, not handed over): the caller's next call takes the
  // next one.
  // Why not always drain: the look for the record after one is a cache miss when none is there
  // yet, since the sender cleared that cell's word before it published this record (try_send) and
  // so holds the line. Taken right away, that miss lies between a message's arrival and the
  // rank's reply; taken at the caller's next look, it overlaps the wait for the next message. A
  // rank that had to wait for its message therefore takes one (Port::spin); when records were
  // already waiting, the sender is ahead and the look past each one finds the next. Real OSU 7.4
  // between two processes on a Zen 5 guest, 10 interleaved rounds (bench/lat_goals.sh): 8 B
  // osu_latency P50 0.46 us draining always, 0.33 us one per call (Open MPI 0.40); but 8 B osu_bw
  // 138 MB/s draining, 106 one per call (Open MPI 60). Port::spin's rule (drain when the first
  // look finds a record): 0.34 us and 136 MB/s, against 0.475 and 124 before (10 more rounds).
  template <class F> bool poll(F &&f, bool drain = true) {
    bool any = false;
    for (In &in : in_) {
      std::uint64_t head = in.head;
      for (;;) {
        const std::size_t pos = head & (ring_bytes_ - 1);
        const std::uint64_t w = word(in.data + pos).load(std::memory_order_acquire);
        if (!(w & kValid)) break; // the one load of an empty ring
        const auto type = static_cast<std::uint8_t>(w >> 32);
        if (type == 0) { // skip to the ring's start
          head += ring_bytes_ - pos;
          continue;
        }
        const auto bytes = static_cast<std::uint32_t>(w);
        f(type, static_cast<const std::byte *>(in.data + pos + kHeaderWord), std::size_t{bytes});
        head += cells(bytes);
        if (!drain) break;
      }
      if (head == in.head) continue;
      any = true;
      in.head = head;
      in.ring->head.store(head, std::memory_order_release);
    }
    return any;
  }

  // Whether a record (or a skip record) waits in an inbound ring: what poll() would find, in one
  // load per ring and no call, for a rank that spins waiting for a message (Port::spin).
  bool arrived() const noexcept {
    for (const In &in : in_)
      if (word(in.data + (in.head & (ring_bytes_ - 1))).load(std::memory_order_acquire) & kValid)
        return true;
    return false;
  }

  // Sleeping, in two halves: arm() marks this process as sleeping and re-checks the rings (false:
  // something arrived, do not sleep); then poll fd() (readable when a sender woke us), then
  // disarm().
  bool arm() noexcept;
  void disarm() noexcept;
  int fd() const noexcept { return sock_; }

  // Whether senders skip the fence (every process of the host registered for membarrier).
  bool asymmetric() const noexcept { return asym_; }
  // Whether single copies from `pe`'s memory work (CMA, probed at start-up).
  bool cma(int pe) const noexcept { return out_[static_cast<std::size_t>(slot_of_[pe])].cma; }
  // Whether `pe` runs in this very process (SMP mode: PEs that are threads of one process): its
  // memory is ours, so the caller copies from it directly instead of through the kernel.
  bool same_process(int pe) const noexcept {
    return out_[static_cast<std::size_t>(slot_of_[static_cast<std::size_t>(pe)])].pid == my_pid_;
  }
  // Copies `bytes` at `remote` in `pe`'s memory to `local` (process_vm_readv); false if the kernel
  // refuses (no permission, no such call): the caller falls back to another way.
  bool read_from(int pe, void *local, std::uint64_t remote, std::size_t bytes) noexcept;
  // The same the other way: `bytes` at `local` to `remote` in `pe`'s memory (process_vm_writev).
  bool write_to(int pe, std::uint64_t remote, const void *local, std::size_t bytes) noexcept;

  // Split copies: the tail of one large copy that either of two processes may do, whichever
  // claims it first (one word in the owner's segment, kSplits of them). The owner (the process
  // whose data it is) opens one per copy it offers, and names it by the ticket open_split returns
  // (0: none free); the peer (the process that reads the data) asks the owner to copy the tail
  // and copies the head itself, then takes the tail unless the owner has (peer_takes_split,
  // which waits while the owner copies). The owner claims it (own_split), copies, says how it
  // went (split_done), and closes the ticket once the peer is past it (close_split).
  static constexpr std::size_t kSplits = 128;
  std::uint64_t open_split() noexcept;
  void close_split(std::uint64_t ticket) noexcept;
  bool own_split(std::uint64_t ticket) noexcept;
  void split_done(std::uint64_t ticket, bool ok) noexcept;
  // True: the caller (the peer) copies the tail itself (it claimed it, or the owner could not
  // copy it); false: the owner copied it.
  bool peer_takes_split(int owner_pe, std::uint64_t ticket) noexcept;

private:
  Node() = default;
  static std::size_t cells(std::size_t body) noexcept {
    return (kHeaderWord + body + kCell - 1) & ~(kCell - 1);
  }
  // The header word at the start of a cell (cells are 64-byte aligned in the mapping).
  static std::atomic_ref<std::uint64_t> word(std::byte *cell) noexcept {
    return std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t *>(cell));
  }
  struct In {
    RingControl *ring = nullptr;
    std::byte *data = nullptr; // written only by the sender (read-write for atomic_ref)
    std::uint64_t head = 0;
  };
  struct Out {
    RingControl *ring = nullptr;
    std::byte *data = nullptr;
    std::atomic<std::uint32_t> *sleeping = nullptr;
    std::uint64_t tail = 0;
    std::uint64_t head = 0; // last seen
    int pid = 0;
    std::string wake_name; // the peer's abstract socket name
    bool cma = false;
    std::byte *splits = nullptr; // the peer's split words (after what try_send reads)
  };
  struct Mapping {
    void *base = nullptr;
    std::size_t bytes = 0;
  };
  std::byte *ring_at(void *segment, int slot) const noexcept;
  void wake(const Out &o) noexcept;

  unsigned prefetch_lines_ = 0; // try_send's reach ahead (Config::prefetch_lines)
  std::vector<int> slot_of_;    // by PE: its index among this host's PEs, or -1
  int my_slot_ = -1;
  int my_pid_ = 0;
  std::size_t ring_bytes_ = 0, max_record_ = 0, segment_bytes_ = 0;
  std::vector<Mapping> maps_; // ours first, then the peers' (unmapped by the destructor)
  std::vector<In> in_;        // our inbound rings from the other local PEs
  std::vector<Out> out_;      // by slot: the ring into each local PE's segment (ours unused)
  std::atomic<std::uint32_t> *sleeping_ = nullptr; // in our segment
  bool asym_ = false;                              // see asymmetric()
  int sock_ = -1;                                  // our wake-up socket (bound), also used to send
  std::string name_;                               // our segment's name, until unlinked
  std::uint64_t probe_ = 0x616d70692d636d61;       // read by peers to test CMA
  // Split copies, last: the members the rings' paths read keep the places they were measured in
  // (with these before asym_, osu_bw 8 B was ~5% slower at the same instruction count).
  std::byte *splits_ = nullptr;            // our split words, in our segment
  std::vector<std::uint32_t> free_splits_; // their indices not in use
  std::uint64_t split_seq_ = 0;            // tickets handed out
};

[[gnu::always_inline]] inline bool Node::try_send(int pe, std::uint8_t type, const void *a,
                                                  std::size_t na, const void *b,
                                                  std::size_t nb) noexcept {
  Out &o = out_[static_cast<std::size_t>(slot_of_[static_cast<std::size_t>(pe)])];
  const std::size_t body = na + nb;
  const std::size_t need = cells(body);
  const std::size_t pos = o.tail & (ring_bytes_ - 1);
  const std::size_t skip = pos + need > ring_bytes_ ? ring_bytes_ - pos : 0;
  // Room for the record and for the cell after it, which we clear (below).
  if (o.tail + skip + need + kCell - o.head > ring_bytes_) {
    o.head = o.ring->head.load(std::memory_order_acquire);
    if (o.tail + skip + need + kCell - o.head > ring_bytes_) return false;
  }
  // The receiver polls the header word of the cell at its head, which is where our next record
  // starts: that cell must read "nothing yet" until we publish there, whatever an earlier lap
  // left in it (the middle of an older record's body can look like a header). So before we
  // publish a record we clear the word of the cell after it; the receiver, having seen the
  // record, sees the cleared word too (the clear comes first in our order of stores).
  std::byte *p = o.data + ((o.tail + skip) & (ring_bytes_ - 1));
  word(o.data + ((o.tail + skip + need) & (ring_bytes_ - 1))).store(0, std::memory_order_relaxed);
  detail::copy_part(p + kHeaderWord, a, na);
  detail::copy_part(p + kHeaderWord + na, b, nb);
  word(p).store(header_word(type, body), std::memory_order_release);
  // A skip record goes after the record it makes room for (at the ring's start), so that a
  // receiver that follows it finds that record published.
  if (skip) word(o.data + pos).store(header_word(0, 0), std::memory_order_release);
  o.tail += skip + need;
  // Ask now for the lines of the next records, prefetch_lines_ of them past the tail, in a state
  // we may write. Each record's stores wait, in order, for the ownership of its lines, which the
  // receiver read on the ring's last lap (and its core's prefetchers read ahead of it on this
  // one). On a Zen 5 guest, asked for only when written, every 8-byte MPI_Isend of an osu_bw
  // window waited ~120 ns (perf: nearly all of start_send's samples on stores and loads stalled
  // behind the ring's stores; bench/results/2026-11-28-s17/bwwin.c: 150-180 ns a message, Open
  // MPI 120-130); 8 lines asked for again after every record: 58-68 ns (each line asked for once,
  // as it came into reach: 88-132 ns, the receiver's side takes lines back meanwhile). On the
  // lent GPU machines' Intel Xeons (Emerald Rapids), 16 interleaved rounds on two hosts: 8-byte
  // osu_bw 57-59 MB/s without, 81-85 with 8 lines, 79-88 with 2 or 4 (Open MPI 49-58); one
  // earlier call of 2 rounds had 8 lines slower (68-72 -> 75-86 ns a message).
  for (unsigned k = 1; k <= prefetch_lines_; ++k)
    detail::prefetch_for_write(o.data + ((o.tail + k * kCell) & (ring_bytes_ - 1)));
  // The receiver sets its word, then re-checks its rings; we publish, then check its word: with a
  // full fence on both sides one of us sees the other (no lost wake-up). That fence cost the
  // sender most of its time per record (perf annotate of osu_bw 8 B: 91% of try_send's samples
  // right after the `lock or`, waiting for the stores to the cell and tail lines that the
  // receiver keeps reading). So, where every process registered, the fence is asymmetric: the
  // sender only keeps the compiler from reordering, and the receiver, before it sleeps, makes
  // every registered thread of the host run a full barrier (membarrier, about 0.4 us, once per
  // sleep): each sender's publishing store is then either visible to the receiver's re-check, or
  // came after that barrier, and so did its load of the word, which sees the receiver asleep. (The
  // store that publishes is the record's header word, or the skip record's after it.)
  if (asym_)
    std::atomic_signal_fence(std::memory_order_seq_cst);
  else
    std::atomic_thread_fence(std::memory_order_seq_cst);
  if (o.sleeping->load(std::memory_order_relaxed) != 0) wake(o);
  return true;
}

} // namespace ampi::shm
