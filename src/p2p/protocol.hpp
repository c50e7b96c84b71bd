// src/p2p/protocol.hpp — the one table that decides, once per message, which back-end carries it
// and with which protocol, from its size, its memory kind and where the receiver is. Every
// threshold that takes part is here (filled in from the settings table, src/settings, by core's
// PeConfig::from_settings), and so are the names that AMPI_DEBUG_PROTOCOL=1 prints.
// choose() is a pure function (unit-tested in tests/p2p/protocol_test.cpp): the back-ends only
// carry out what it says.
#pragma once

#include "devptr_cache/devptr_cache.hpp"

#include <array>
#include <cstddef>
#include <cstdint>

namespace ampi::p2p {

// Who carries a message: the PE itself (a copy between two of its ranks), this host's shared
// memory (the rings of src/shm and CMA for host data, CUDA IPC for device data), or the network
// port.
enum class Backend : std::uint8_t { Self, Host, Net };

enum class Protocol : std::uint8_t {
  // Same PE. A receive already posted gets one copy either way; they differ when it is not:
  SelfEager,      // copied into the message (a buffer) and the send completes
  SelfRendezvous, // the send waits; the receiver copies from its buffer once matched
  // Same host, device memory: the receiver copies from the sender's buffer with CUDA IPC, then
  // acknowledges (refused: the sender falls back to NetRendezvous for that PE).
  HostIpc,
  // Same host, host memory (AMPI_SHM=1), through the port's same-host rings (src/shm):
  ShmEager, // the data travels in the envelope, copied into the ring and out of it
  ShmCma,   // the receiver, once matched, reads the data from the sender's memory (one copy,
            // process_vm_readv) and acknowledges; refused: NetRendezvous for that PE from then on
  // Network port.
  NetEager,      // the data travels in the envelope
  NetGpuStaged,  // device data copied to a host buffer, then sent like NetEager
  NetRendezvous, // the data waits under an id until the receiver has matched the envelope
};
inline constexpr std::size_t kProtocols = 8;

// Where the receiver is, as far as the choice is concerned: its PE, or another PE on this host
// (for device data: whose device memory CUDA IPC may reach; for host data: that the same-host
// rings reach), or any other PE.
enum class Locality : std::uint8_t { SamePe, SameHost, OtherHost };

struct Choice {
  Backend backend;
  Protocol protocol;
  friend constexpr bool operator==(Choice, Choice) = default;
};

// The thresholds. Defaults are today's measured ones (README, GPU section).
struct Thresholds {
  // Same PE: unexpected sends up to this size are buffered (AMPI_EAGER_LIMIT, core's PeConfig).
  std::size_t self_eager_limit = 64 * 1024;
  // Same PE: device data of at least this size is never buffered (two copies through the host);
  // the receiver copies it directly (DevPtrCache::async_bytes, AMPI_GPU_ASYNC_BYTES).
  std::size_t self_device_direct = 16 * 1024;
  // Network: host data up to this size travels in the envelope (AMPI_UCX_EAGER_LIMIT).
  std::size_t net_eager_limit = 8192;
  // Network: device data up to this size is staged through the host and sent eagerly
  // (AMPI_GPU_EAGER_LIMIT; at most net_eager_limit; 0: never).
  std::size_t gpu_eager_limit = 0;
  // CUDA IPC between processes of a host (AMPI_GPU_IPC=0 turns it off).
  bool gpu_ipc = true;
  // AMPI_GPU_IPC_REFUSE=1: receivers refuse every IPC message (tests the fallback).
  bool gpu_ipc_refuse = false;
  // Same host, host data (AMPI_SHM): through the rings up to shm_eager_limit
  // (AMPI_SHM_EAGER_LIMIT); single copy with CMA from shm_cma_min (AMPI_SHM_CMA_MIN; AMPI_SHM_CMA=0
  // turns it off), and for synchronous sends the ring would carry; the sizes between: rendezvous
  // through UCX (its envelope through the ring all the same).
  // 16 KiB: quiet, eager at 16 KiB took 1.28 us against 5.95 us single-copy at 32 KiB (P50); but
  // on the loaded VM eager at 32 KiB (AMPI_SHM_EAGER_LIMIT=32K) took 8.5-10.5 us against 5.0-5.8
  // us with CMA and osu_bw fell from ~450 to ~140 MB/s (64 messages of 32 KiB overflow a 1 MiB
  // ring into the sender's backlog): bench/results/2026-11-26-lat2/measure.sh compares them
  // quietly.
  bool shm = false;
  std::size_t shm_eager_limit = 16 * 1024;
  bool shm_cma = true;
  std::size_t shm_cma_min = 16 * 1024;
  bool shm_cma_refuse = false; // AMPI_SHM_CMA_REFUSE=1: receivers refuse every CMA message
  // CMA messages of at least this size are split (AMPI_SHM_CMA_SPLIT; 0: never): the receiver
  // reads the first half and asks the sender to write the second half, which whichever of the two
  // comes to it first copies (p2p/shm.cpp).
  std::size_t shm_cma_split = 64 * 1024;
  // AMPI_DEBUG_PROTOCOL=1: print the choice for each new (protocol, memory kind, size class).
  bool debug = false;
};

// The decision. `synchronous`: MPI_Ssend and friends (never eager).
constexpr Choice choose(const Thresholds &t, Locality where, gpu::MemKind kind, std::size_t bytes,
                        bool synchronous) noexcept {
  const bool device = kind != gpu::MemKind::Host; // gpu::is_device, usable in constexpr
  if (where == Locality::SamePe) {
    const bool device_direct = device && bytes >= t.self_device_direct;
    if (!synchronous && bytes <= t.self_eager_limit && !device_direct)
      return {Backend::Self, Protocol::SelfEager};
    return {Backend::Self, Protocol::SelfRendezvous};
  }
  if (device) {
    // Small device messages: one host copy beats a transfer of device memory (measured).
    if (!synchronous && bytes <= t.gpu_eager_limit) return {Backend::Net, Protocol::NetGpuStaged};
    // Managed memory cannot be exported with CUDA IPC.
    if (kind == gpu::MemKind::Device && where == Locality::SameHost && t.gpu_ipc)
      return {Backend::Host, Protocol::HostIpc};
    return {Backend::Net, Protocol::NetRendezvous};
  }
  if (where == Locality::SameHost && t.shm) {
    const bool small = bytes <= t.shm_eager_limit;
    if (!synchronous && small) return {Backend::Host, Protocol::ShmEager};
    if (t.shm_cma && (small || bytes >= t.shm_cma_min)) return {Backend::Host, Protocol::ShmCma};
    return {Backend::Net, Protocol::NetRendezvous};
  }
  if (!synchronous && bytes <= t.net_eager_limit) return {Backend::Net, Protocol::NetEager};
  return {Backend::Net, Protocol::NetRendezvous};
}

constexpr const char *name(Backend b) noexcept {
  switch (b) {
  case Backend::Self:
    return "self";
  case Backend::Host:
    return "host";
  case Backend::Net:
    return "net";
  }
  return "?";
}

constexpr const char *name(Protocol p) noexcept {
  switch (p) {
  case Protocol::SelfEager:
    return "eager";
  case Protocol::SelfRendezvous:
    return "rendezvous";
  case Protocol::HostIpc:
    return "cuda-ipc";
  case Protocol::ShmEager:
    return "shm-eager";
  case Protocol::ShmCma:
    return "shm-cma";
  case Protocol::NetEager:
    return "eager";
  case Protocol::NetGpuStaged:
    return "gpu-staged-eager";
  case Protocol::NetRendezvous:
    return "rendezvous";
  }
  return "?";
}

constexpr const char *name(gpu::MemKind k) noexcept {
  switch (k) {
  case gpu::MemKind::Host:
    return "host";
  case gpu::MemKind::Device:
    return "device";
  case gpu::MemKind::Managed:
    return "managed";
  }
  return "?";
}

// The PE's table and its AMPI_DEBUG_PROTOCOL trace (one per PE: no locks, like the rest of it).
class Protocols {
public:
  explicit Protocols(const Thresholds &t) noexcept : limits_(t) {}
  const Thresholds &limits() const noexcept { return limits_; }
  // Same-host eager messages must fit the rings' records (known once the rings are sized).
  void fit_shm_eager(std::size_t max_bytes) noexcept {
    if (limits_.shm_eager_limit > max_bytes) limits_.shm_eager_limit = max_bytes;
  }
  Choice choose(Locality where, gpu::MemKind kind, std::size_t bytes, bool synchronous) const {
    return p2p::choose(limits_, where, kind, bytes, synchronous);
  }
  bool tracing() const noexcept { return limits_.debug; }
  // Prints `c` for a message of `bytes` (memory `kind`) from `source` to `dest` (world ranks),
  // the first time this protocol, kind and size class (power of two) come up.
  void trace(Choice c, gpu::MemKind kind, std::size_t bytes, int source, int dest);

private:
  Thresholds limits_;
  // Which size classes (bit widths 0..64, as a 65-bit set in two words) each protocol and
  // memory kind printed.
  std::array<std::array<std::uint64_t, 2>, kProtocols * 3> printed_{};
};

} // namespace ampi::p2p
