// tests/p2p/protocol_test.cpp — the protocol table (src/p2p/protocol.hpp): which back-end and
// protocol each size, memory kind and locality get with the default thresholds and with the
// thresholds changed, and the AMPI_DEBUG_PROTOCOL trace.
#include "p2p/protocol.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using ampi::gpu::MemKind;
using namespace ampi::p2p;

constexpr Choice kSelfEager{Backend::Self, Protocol::SelfEager};
constexpr Choice kSelfRdv{Backend::Self, Protocol::SelfRendezvous};
constexpr Choice kNetEager{Backend::Net, Protocol::NetEager};
constexpr Choice kNetStaged{Backend::Net, Protocol::NetGpuStaged};
constexpr Choice kNetRdv{Backend::Net, Protocol::NetRendezvous};
constexpr Choice kIpc{Backend::Host, Protocol::HostIpc};
constexpr Choice kShmEager{Backend::Host, Protocol::ShmEager};
constexpr Choice kShmCma{Backend::Host, Protocol::ShmCma};

// Usable at compile time: the table costs nothing that the compiler can fold.
static_assert(choose(Thresholds{}, Locality::SamePe, MemKind::Host, 8, false) == kSelfEager);

TEST(ProtocolTable, SamePeHost) {
  const Thresholds t; // 64 KiB eager
  EXPECT_EQ(choose(t, Locality::SamePe, MemKind::Host, 0, false), kSelfEager);
  EXPECT_EQ(choose(t, Locality::SamePe, MemKind::Host, 8, false), kSelfEager);
  EXPECT_EQ(choose(t, Locality::SamePe, MemKind::Host, 64 * 1024, false), kSelfEager);
  EXPECT_EQ(choose(t, Locality::SamePe, MemKind::Host, 64 * 1024 + 1, false), kSelfRdv);
  EXPECT_EQ(choose(t, Locality::SamePe, MemKind::Host, 8, true), kSelfRdv); // MPI_Ssend
}

TEST(ProtocolTable, SamePeDevice) {
  const Thresholds t; // device data from 16 KiB on goes direct
  EXPECT_EQ(choose(t, Locality::SamePe, MemKind::Device, 16 * 1024 - 1, false), kSelfEager);
  EXPECT_EQ(choose(t, Locality::SamePe, MemKind::Device, 16 * 1024, false), kSelfRdv);
  EXPECT_EQ(choose(t, Locality::SamePe, MemKind::Managed, 16 * 1024, false), kSelfRdv);
  EXPECT_EQ(choose(t, Locality::SamePe, MemKind::Host, 16 * 1024, false), kSelfEager);
}

TEST(ProtocolTable, NetworkHost) {
  const Thresholds t; // 8 KiB network eager
  for (Locality where : {Locality::SameHost, Locality::OtherHost}) {
    EXPECT_EQ(choose(t, where, MemKind::Host, 8, false), kNetEager);
    EXPECT_EQ(choose(t, where, MemKind::Host, 8192, false), kNetEager);
    EXPECT_EQ(choose(t, where, MemKind::Host, 8193, false), kNetRdv);
    EXPECT_EQ(choose(t, where, MemKind::Host, 8, true), kNetRdv);
  }
}

TEST(ProtocolTable, SameHostShm) {
  Thresholds t;
  t.shm = true; // AMPI_SHM=1: 16 KiB through the ring, CMA from 16 KiB
  EXPECT_EQ(choose(t, Locality::SameHost, MemKind::Host, 0, false), kShmEager);
  EXPECT_EQ(choose(t, Locality::SameHost, MemKind::Host, 16384, false), kShmEager);
  EXPECT_EQ(choose(t, Locality::SameHost, MemKind::Host, 16385, false), kShmCma);
  EXPECT_EQ(choose(t, Locality::SameHost, MemKind::Host, 8, true), kShmCma); // MPI_Ssend
  EXPECT_EQ(choose(t, Locality::OtherHost, MemKind::Host, 8, false), kNetEager);
  EXPECT_EQ(choose(t, Locality::SameHost, MemKind::Device, 8, false), kIpc); // device: unchanged
  t.shm_cma_min = 1 << 20; // between the two: UCX rendezvous
  EXPECT_EQ(choose(t, Locality::SameHost, MemKind::Host, 16385, false), kNetRdv);
  EXPECT_EQ(choose(t, Locality::SameHost, MemKind::Host, 1 << 20, false), kShmCma);
  t.shm_cma = false; // AMPI_SHM_CMA=0
  EXPECT_EQ(choose(t, Locality::SameHost, MemKind::Host, 1 << 20, false), kNetRdv);
  EXPECT_EQ(choose(t, Locality::SameHost, MemKind::Host, 8, true), kNetRdv);
  EXPECT_EQ(choose(t, Locality::SameHost, MemKind::Host, 8, false), kShmEager);
  EXPECT_STREQ(name(Protocol::ShmEager), "shm-eager");
  EXPECT_STREQ(name(Protocol::ShmCma), "shm-cma");
}

TEST(ProtocolTable, ShmEagerIsCutToTheRingsRecords) {
  Thresholds t;
  t.shm = true;
  t.shm_eager_limit = 512 * 1024; // AMPI_SHM_EAGER_LIMIT=512K
  Protocols p(t);
  p.fit_shm_eager(32 * 1024 - 32); // 64 KiB rings: half of one, less header and envelope
  EXPECT_EQ(p.limits().shm_eager_limit, 32u * 1024 - 32);
  EXPECT_EQ(p.choose(Locality::SameHost, MemKind::Host, 32 * 1024 - 32, false), kShmEager);
  EXPECT_EQ(p.choose(Locality::SameHost, MemKind::Host, 32 * 1024 - 31, false), kShmCma);
  p.fit_shm_eager(1 << 20); // never raised
  EXPECT_EQ(p.limits().shm_eager_limit, 32u * 1024 - 32);
}

TEST(ProtocolTable, NetworkDevice) {
  Thresholds t; // no GPU eager by default
  EXPECT_EQ(choose(t, Locality::OtherHost, MemKind::Device, 8, false), kNetRdv);
  EXPECT_EQ(choose(t, Locality::SameHost, MemKind::Device, 8, false), kIpc);
  EXPECT_EQ(choose(t, Locality::SameHost, MemKind::Device, 8, true), kIpc);
  EXPECT_EQ(choose(t, Locality::SameHost, MemKind::Managed, 8, false), kNetRdv); // no IPC export
  t.gpu_eager_limit = 4096;
  EXPECT_EQ(choose(t, Locality::SameHost, MemKind::Device, 4096, false), kNetStaged);
  EXPECT_EQ(choose(t, Locality::OtherHost, MemKind::Managed, 4096, false), kNetStaged);
  EXPECT_EQ(choose(t, Locality::SameHost, MemKind::Device, 4096, true), kIpc);
  EXPECT_EQ(choose(t, Locality::SameHost, MemKind::Device, 4097, false), kIpc);
  EXPECT_EQ(choose(t, Locality::OtherHost, MemKind::Device, 4097, false), kNetRdv);
  t.gpu_ipc = false; // AMPI_GPU_IPC=0
  EXPECT_EQ(choose(t, Locality::SameHost, MemKind::Device, 4097, false), kNetRdv);
}

TEST(ProtocolTable, Names) {
  EXPECT_STREQ(name(Backend::Self), "self");
  EXPECT_STREQ(name(Backend::Host), "host");
  EXPECT_STREQ(name(Backend::Net), "net");
  EXPECT_STREQ(name(Protocol::SelfEager), "eager");
  EXPECT_STREQ(name(Protocol::SelfRendezvous), "rendezvous");
  EXPECT_STREQ(name(Protocol::HostIpc), "cuda-ipc");
  EXPECT_STREQ(name(Protocol::NetGpuStaged), "gpu-staged-eager");
  EXPECT_STREQ(name(MemKind::Device), "device");
}

TEST(ProtocolTable, TracePrintsEachClassOnce) {
  Thresholds t;
  t.debug = true;
  Protocols p(t);
  testing::internal::CaptureStderr();
  for (std::size_t bytes : {8u, 9u, 15u, 16u}) // size classes 4, 4, 4, 5
    p.trace(p.choose(Locality::SamePe, MemKind::Host, bytes, false), MemKind::Host, bytes, 0, 1);
  p.trace(kNetRdv, MemKind::Device, 1 << 20, 2, 3);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "ampi: protocol: 8 B host, rank 0 -> rank 1: self/eager\n"
                 "ampi: protocol: 16 B host, rank 0 -> rank 1: self/eager\n"
                 "ampi: protocol: 1048576 B device, rank 2 -> rank 3: net/rendezvous\n");
}

} // namespace
