// src/shm/shm.cpp — the same-host transport (see shm.hpp): segments, rings, wake-ups, CMA.
#include "shm/shm.hpp"

#include <fcntl.h>
#include <linux/membarrier.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>
#include <stdexcept>

namespace ampi::shm {

namespace {

constexpr std::uint64_t kMagic = 0x616d70692d73686d; // "ampi-shm"
constexpr std::uint32_t kAsymmetric = 1;

long membarrier(int cmd) noexcept {
  return ::syscall(SYS_membarrier, cmd, 0, 0);
}

// Whether this process can take part in the asymmetric fence: the kernel has global expedited
// membarrier (Linux 4.16) and lets us register for it (seccomp profiles may refuse the call).
bool register_membarrier() noexcept {
  const long cmds = membarrier(MEMBARRIER_CMD_QUERY);
  return cmds > 0 && (cmds & MEMBARRIER_CMD_GLOBAL_EXPEDITED) &&
         (cmds & MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) &&
         membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) == 0;
}

// Whether the CPU prefetches for writing (x86: PREFETCHW, CPUID 0x80000001 ECX bit 8; AMD since
// K8, Intel since Broadwell).
bool cpu_prefetches_for_write() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid(0x80000001u, &a, &b, &c, &d) && (c & (1u << 8));
#else
  return true; // (__builtin_prefetch for writing)
#endif
}

// What each process publishes at start-up.
struct Blob {
  std::uint64_t host;
  std::int32_t pid;
  std::uint32_t flags; // kAsymmetric: registered for membarrier's global expedited barriers
  std::uint64_t probe; // address of a word peers read to test CMA
  char segment[48];    // shm_open name
  char socket[48];     // abstract socket name (without the leading NUL)
};

// The segment's first two cache lines; the rings follow.
struct SegmentHeader {
  alignas(64) std::uint64_t magic;
  std::int32_t pid;
  std::uint32_t slots;
  std::uint64_t ring_bytes;
  alignas(64) std::atomic<std::uint32_t> sleeping; // its owner sleeps: senders wake it
};
static_assert(sizeof(SegmentHeader) == 128 && sizeof(RingControl) == 64);
constexpr std::size_t kHeaderBytes = sizeof(SegmentHeader);
// The split words follow the rings, one per cache line (a peer's claim of one does not disturb
// the owner's copy of another), so that the header and the rings keep the places they had.
constexpr std::size_t kSplitStride = 64;
constexpr std::size_t kSplitBytes = Node::kSplits * kSplitStride;
// A split word: the ticket (a sequence number times kSplits plus the word's index, never 0) times
// 8, plus its state.
constexpr std::uint64_t kSplitOpen = 0;   // offered, nobody copies the tail yet
constexpr std::uint64_t kSplitOwner = 1;  // the owner copies it
constexpr std::uint64_t kSplitDone = 2;   // the owner copied it
constexpr std::uint64_t kSplitFailed = 3; // the owner could not: the peer copies it
constexpr std::uint64_t kSplitPeer = 4;   // the peer copies it
std::atomic_ref<std::uint64_t> split_word(std::byte *splits, std::uint64_t ticket) noexcept {
  return std::atomic_ref<std::uint64_t>(
      *reinterpret_cast<std::uint64_t *>(splits + (ticket % Node::kSplits) * kSplitStride));
}

[[noreturn]] void fail(const char *what, int err) {
  throw std::runtime_error(std::string("ampi: shared memory: ") + what + ": " + std::strerror(err));
}

sockaddr_un abstract_address(const char *name, socklen_t &len) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  const std::size_t n = std::strlen(name);
  std::memcpy(a.sun_path + 1, name, n); // sun_path[0] == 0: the abstract namespace
  len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
  return a;
}

// Maps every page of [p, p + bytes) into this process now, writable, so that no message pays a
// page fault later. Without it the first pass through a fresh 1 MiB ring faults once per 4 KiB
// page on both sides (the sender allocating and mapping, the receiver mapping): with one 64-byte
// cell per small message, 1 message in 64 took 4-8 us instead of 0.25 us until about 16,000
// messages had gone by (osu_latency -z: P99 16-30x the median at 1-256 B, not from 512 B on,
// once the rings had wrapped). The kernel populates the pages (MADV_POPULATE_WRITE, Linux 5.14);
// then one write access per page from user space as well: on the project's AMD Zen 5 VM (a
// guest whose hypervisor shadows its page tables) the kernel's populating was not enough, and
// each ring page's first access still cost 5-6 us (12,000 cycles in the receiver's poll, no
// guest page fault counted) until the rings wrapped: 8 B osu_latency -z P99 17-30x the median
// for the first ~20 ms of every job. The access changes nothing: a plain write of zero where
// the pages are `fresh` (nobody else has them yet), else an atomic or of zero, which cannot
// undo a peer's concurrent store.
void prefault(void *p, std::size_t bytes, bool fresh) noexcept {
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const std::uintptr_t begin = reinterpret_cast<std::uintptr_t>(p) & ~(page - 1);
  const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(p) + bytes;
  (void)::madvise(reinterpret_cast<void *>(begin), end - begin, MADV_POPULATE_WRITE);
  for (std::uintptr_t a = begin; a < end; a += page) {
    auto *w = reinterpret_cast<std::uint64_t *>(a);
    if (fresh)
      *reinterpret_cast<volatile std::uint64_t *>(w) = 0;
    else
      __atomic_fetch_or(w, std::uint64_t{0}, __ATOMIC_RELAXED);
  }
}

} // namespace

std::byte *Node::ring_at(void *segment, int slot) const noexcept {
  return static_cast<std::byte *>(segment) + kHeaderBytes +
         static_cast<std::size_t>(slot) * (sizeof(RingControl) + ring_bytes_);
}

std::unique_ptr<Node> Node::open(int my_pe, int npes, std::uint64_t host, const Config &config,
                                 const Exchange &exchange) {
  std::unique_ptr<Node> node(new Node); // NOLINT: the constructor is private
  Node &n = *node;
  std::random_device rd;
  const std::uint64_t nonce = (std::uint64_t{rd()} << 32) ^ rd();
  Blob mine{};
  mine.host = host;
  mine.pid = static_cast<std::int32_t>(::getpid());
  mine.probe = reinterpret_cast<std::uintptr_t>(&n.probe_);
  if (config.asymmetric_fence && register_membarrier()) mine.flags |= kAsymmetric;
  std::snprintf(mine.segment, sizeof mine.segment, "/ampi-%u-%d-%016llx",
                static_cast<unsigned>(::getuid()), mine.pid,
                static_cast<unsigned long long>(nonce));
  std::snprintf(mine.socket, sizeof mine.socket, "ampi-wake-%u-%d-%016llx",
                static_cast<unsigned>(::getuid()), mine.pid,
                static_cast<unsigned long long>(nonce));
  std::vector<std::byte> raw(sizeof mine);
  std::memcpy(raw.data(), &mine, sizeof mine);
  const std::vector<std::vector<std::byte>> all = exchange.allgather(raw);
  std::vector<Blob> blobs(static_cast<std::size_t>(npes));
  for (int pe = 0; pe < npes; ++pe) {
    const auto &b = all[static_cast<std::size_t>(pe)];
    if (b.size() != sizeof(Blob)) throw std::runtime_error("ampi: shared memory: bad peer data");
    std::memcpy(&blobs[static_cast<std::size_t>(pe)], b.data(), sizeof(Blob));
  }
  // This host's PEs, in PE order: their slots.
  n.slot_of_.assign(static_cast<std::size_t>(npes), -1);
  int local = 0;
  for (int pe = 0; pe < npes; ++pe)
    if (blobs[static_cast<std::size_t>(pe)].host == host)
      n.slot_of_[static_cast<std::size_t>(pe)] = local++;
  n.my_slot_ = n.slot_of_[static_cast<std::size_t>(my_pe)];
  n.my_pid_ = mine.pid;
  // (A CPU without a prefetch for writing gets none, whatever the setting.)
  if (cpu_prefetches_for_write())
    n.prefetch_lines_ = static_cast<unsigned>(config.prefetch_lines >= 0 ? config.prefetch_lines
                                                                         : kPrefetchLinesAuto);
  // The asymmetric fence holds only if every process of the host takes part (each one decides
  // the same from the same blobs).
  n.asym_ = true;
  for (int pe = 0; pe < npes; ++pe)
    if (n.slot_of_[static_cast<std::size_t>(pe)] >= 0 &&
        !(blobs[static_cast<std::size_t>(pe)].flags & kAsymmetric))
      n.asym_ = false;
  if (local < 2) { // alone on the host: take part in the fences, then nothing to do
    exchange.fence();
    exchange.fence();
    return nullptr;
  }
  // Every process of the host computes the same ring size.
  std::size_t ring = std::bit_floor(
      std::max<std::size_t>(config.segment_budget / static_cast<std::size_t>(local - 1), 1));
  ring = std::clamp(ring, std::bit_ceil(std::max<std::size_t>(config.ring_min, 4096)),
                    std::bit_floor(std::max<std::size_t>(config.ring_max, 4096)));
  n.ring_bytes_ = ring;
  n.max_record_ = ring / 2 - kHeaderWord;
  const std::size_t splits_at =
      kHeaderBytes + static_cast<std::size_t>(local) * (sizeof(RingControl) + ring);
  n.segment_bytes_ = splits_at + kSplitBytes;

  // Our segment: private to this user, never an old one.
  const int fd = ::shm_open(mine.segment, O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0) fail("shm_open", errno);
  n.name_ = mine.segment;
  if (::fchmod(fd, 0600) != 0 || ::ftruncate(fd, static_cast<off_t>(n.segment_bytes_)) != 0) {
    const int e = errno;
    ::close(fd);
    fail("ftruncate", e);
  }
  void *base = ::mmap(nullptr, n.segment_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (base == MAP_FAILED) fail("mmap", errno);
  n.maps_.push_back({base, n.segment_bytes_});
  prefault(base, n.segment_bytes_, true); // all of it: every inbound ring
  auto *hdr = new (base) SegmentHeader;   // NOLINT: placement into the fresh (zeroed) segment
  hdr->magic = kMagic;
  hdr->pid = mine.pid;
  hdr->slots = static_cast<std::uint32_t>(local);
  hdr->ring_bytes = ring;
  hdr->sleeping.store(0, std::memory_order_relaxed);
  n.sleeping_ = &hdr->sleeping;
  for (int s = 0; s < local; ++s)
    new (n.ring_at(base, s)) RingControl{}; // NOLINT: placement, as above
  n.splits_ = static_cast<std::byte *>(base) + splits_at;
  n.free_splits_.resize(kSplits);
  for (std::size_t i = 0; i < kSplits; ++i)
    n.free_splits_[i] = static_cast<std::uint32_t>(kSplits - 1 - i);

  // Our wake-up socket.
  n.sock_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (n.sock_ < 0) fail("socket", errno);
  socklen_t len = 0;
  const sockaddr_un a = abstract_address(mine.socket, len);
  if (::bind(n.sock_, reinterpret_cast<const sockaddr *>(&a), len) != 0) fail("bind", errno);

  exchange.fence(); // every segment exists
  n.out_.resize(static_cast<std::size_t>(local));
  for (int pe = 0; pe < npes; ++pe) {
    const int s = n.slot_of_[static_cast<std::size_t>(pe)];
    if (s < 0 || s == n.my_slot_) continue;
    const Blob &b = blobs[static_cast<std::size_t>(pe)];
    const int pfd = ::shm_open(b.segment, O_RDWR, 0);
    if (pfd < 0) fail("shm_open (a peer's segment)", errno);
    void *pbase = ::mmap(nullptr, n.segment_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, pfd, 0);
    ::close(pfd);
    if (pbase == MAP_FAILED) fail("mmap (a peer's segment)", errno);
    n.maps_.push_back({pbase, n.segment_bytes_});
    auto *ph = static_cast<SegmentHeader *>(pbase);
    if (ph->magic != kMagic || ph->ring_bytes != ring)
      throw std::runtime_error("ampi: shared memory: a peer's segment does not match ours");
    Out &o = n.out_[static_cast<std::size_t>(s)];
    std::byte *r = n.ring_at(pbase, n.my_slot_);
    // Only what we touch there: its header (the sleeping word) and our ring (the others' rings
    // stay unmapped here: 64 processes of a host map 63 peers' segments each).
    prefault(pbase, kHeaderBytes, false);
    prefault(r, sizeof(RingControl) + ring, false);
    o.ring = reinterpret_cast<RingControl *>(r);
    o.data = r + sizeof(RingControl);
    o.sleeping = &ph->sleeping;
    o.splits = static_cast<std::byte *>(pbase) + splits_at;
    prefault(o.splits, kSplitBytes, false);
    o.pid = b.pid;
    o.wake_name = b.socket;
    // CMA: read the peer's probe word (refused under Yama ptrace_scope >= 2, some seccomp
    // profiles, or across user namespaces).
    std::uint64_t probe = 0;
    iovec l{&probe, sizeof probe};
    iovec rv{reinterpret_cast<void *>(static_cast<std::uintptr_t>(b.probe)), sizeof probe};
    o.cma = ::process_vm_readv(b.pid, &l, 1, &rv, 1, 0) == static_cast<ssize_t>(sizeof probe) &&
            probe == n.probe_;
    std::byte *in = n.ring_at(base, s);
    n.in_.push_back({reinterpret_cast<RingControl *>(in), in + sizeof(RingControl), 0});
  }
  exchange.fence(); // every peer has mapped ours: the name can go
  ::shm_unlink(n.name_.c_str());
  n.name_.clear();
  return node;
}

Node::~Node() {
  if (!name_.empty()) ::shm_unlink(name_.c_str());
  for (const Mapping &m : maps_)
    ::munmap(m.base, m.bytes);
  if (sock_ >= 0) ::close(sock_);
}

void Node::wake(const Out &o) noexcept {
  if (o.sleeping->exchange(0, std::memory_order_acq_rel) == 0) return; // another sender did
  socklen_t len = 0;
  const sockaddr_un a = abstract_address(o.wake_name.c_str(), len);
  const char byte = 1;
  // Non-blocking: a full socket buffer means a wake-up is pending anyway.
  (void)::sendto(sock_, &byte, 1, MSG_DONTWAIT, reinterpret_cast<const sockaddr *>(&a), len);
}

bool Node::arm() noexcept {
  sleeping_->store(1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (asym_ && membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) != 0) {
    // Cannot happen once registered; if it does, a sender might miss the word: never sleep.
    sleeping_->store(0, std::memory_order_relaxed);
    return false;
  }
  for (const In &in : in_) {
    if (word(in.data + (in.head & (ring_bytes_ - 1))).load(std::memory_order_relaxed) & kValid) {
      sleeping_->store(0, std::memory_order_relaxed);
      return false;
    }
  }
  return true;
}

void Node::disarm() noexcept {
  sleeping_->store(0, std::memory_order_relaxed);
  char buf[64];
  while (::recv(sock_, buf, sizeof buf, MSG_DONTWAIT) > 0) {
  }
}

bool Node::read_from(int pe, void *local, std::uint64_t remote, std::size_t bytes) noexcept {
  const Out &o = out_[static_cast<std::size_t>(slot_of_[static_cast<std::size_t>(pe)])];
  auto *dst = static_cast<std::byte *>(local);
  while (bytes > 0) {
    iovec l{dst, bytes};
    iovec r{reinterpret_cast<void *>(static_cast<std::uintptr_t>(remote)), bytes};
    const ssize_t got = ::process_vm_readv(o.pid, &l, 1, &r, 1, 0);
    if (got <= 0) {
      if (got < 0 && errno == EINTR) continue;
      return false;
    }
    dst += got;
    remote += static_cast<std::uint64_t>(got);
    bytes -= static_cast<std::size_t>(got);
  }
  return true;
}

bool Node::write_to(int pe, std::uint64_t remote, const void *local, std::size_t bytes) noexcept {
  const Out &o = out_[static_cast<std::size_t>(slot_of_[static_cast<std::size_t>(pe)])];
  const auto *src = static_cast<const std::byte *>(local);
  while (bytes > 0) {
    iovec l{const_cast<std::byte *>(src), bytes}; // NOLINT: iovec's pointer is not const
    iovec r{reinterpret_cast<void *>(static_cast<std::uintptr_t>(remote)), bytes};
    const ssize_t put = ::process_vm_writev(o.pid, &l, 1, &r, 1, 0);
    if (put <= 0) {
      if (put < 0 && errno == EINTR) continue;
      return false;
    }
    src += put;
    remote += static_cast<std::uint64_t>(put);
    bytes -= static_cast<std::size_t>(put);
  }
  return true;
}

std::uint64_t Node::open_split() noexcept {
  if (free_splits_.empty()) return 0;
  const std::uint32_t i = free_splits_.back();
  free_splits_.pop_back();
  const std::uint64_t ticket = ++split_seq_ * kSplits + i;
  split_word(splits_, ticket).store(ticket * 8 + kSplitOpen, std::memory_order_relaxed);
  return ticket; // (published to the peer by the ring's release store of the message naming it)
}

void Node::close_split(std::uint64_t ticket) noexcept {
  free_splits_.push_back(static_cast<std::uint32_t>(ticket % kSplits));
}

bool Node::own_split(std::uint64_t ticket) noexcept {
  std::uint64_t open = ticket * 8 + kSplitOpen;
  return split_word(splits_, ticket)
      .compare_exchange_strong(open, ticket * 8 + kSplitOwner, std::memory_order_acquire);
}

void Node::split_done(std::uint64_t ticket, bool ok) noexcept {
  split_word(splits_, ticket)
      .store(ticket * 8 + (ok ? kSplitDone : kSplitFailed), std::memory_order_release);
}

bool Node::peer_takes_split(int owner_pe, std::uint64_t ticket) noexcept {
  std::byte *splits =
      out_[static_cast<std::size_t>(slot_of_[static_cast<std::size_t>(owner_pe)])].splits;
  std::uint64_t w = ticket * 8 + kSplitOpen;
  if (split_word(splits, ticket)
          .compare_exchange_strong(w, ticket * 8 + kSplitPeer, std::memory_order_acquire))
    return true;
  // The owner claimed it first: it is copying now, on its own core; wait for the end of that.
  while (w == ticket * 8 + kSplitOwner) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
    w = split_word(splits, ticket).load(std::memory_order_acquire);
  }
  return w != ticket * 8 + kSplitDone;
}

} // namespace ampi::shm
