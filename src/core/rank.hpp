// src/core/rank.hpp — one virtual MPI rank: the user-level thread that runs the program's main,
// its life-cycle flags, and the per-rank state of each area, each in a struct that area owns
// (p2p, comm, datatype, rma, coll, privatize, io: <area>/rank_state.hpp).
#pragma once

#include "coll/rank_state.hpp"
#include "comm/rank_state.hpp"
#include "datatype/rank_state.hpp"
#include "io/rank_state.hpp"
#include "p2p/rank_state.hpp"
#include "privatize/rank_state.hpp"
#include "rma/rank_state.hpp"
#include "ult/task.hpp"

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ampi {

class Pe;

class Rank {
  Pe *pe_; // see pe()

public:
  Rank(Pe &pe, int world_rank, ult::StackPool &stacks, std::function<void(Rank &)> body);

  // The PE running the rank now: its home PE (which owns the Rank and its stack) until
  // MPIX_Migrate moves it to another PE of the process (src/mpi/migrate.cpp). Read it afresh after
  // any suspension: a rank may resume on another PE than it blocked on.
  Pe &pe() const noexcept { return *pe_; }
  void set_pe(Pe &pe) noexcept { pe_ = &pe; }
  const int world_rank;
  ult::Task task;

  // The areas' per-rank state.
  p2p::RankState p2p;
  comm::RankState comm;
  datatype::RankState datatype;
  rma::RankState rma;
  coll::RankState coll;
  privatize::RankState privatize;
  io::RankState io; // MPI_FILE_NULL's error handler

  // The rank's own copy of the program's arguments, as its main gets them (argv points into
  // args). Kept here rather than on the rank's stack, which exit() drops without unwinding.
  std::vector<std::string> args;
  std::vector<char *> argv;

  // CUDA (src/core/cudart.cpp): the stream that takes the rank's default-stream work, created on
  // first use (the PE's device cache destroys it at the end), and the streams the rank created,
  // which its cudaDeviceSynchronize waits for.
  struct Cuda {
    void *stream = nullptr;
    std::vector<void *> streams;
    // MPIX streams and stream-ordered operations (src/mpi/stream.cpp owns what this holds).
    std::shared_ptr<void> mpix;
  } cuda;

  bool initialized = false;
  int thread_level = MPI_THREAD_SINGLE; // what MPI_Init(_thread) provided
  bool finalized = false;
  int exit_code = 0;
  // The MPI call the rank is blocked in, for the deadlock report.
  const char *blocked_in = nullptr;
  std::uint32_t blocked_context = 0;
  int blocked_source = MPI_ANY_SOURCE;
  int blocked_tag = MPI_ANY_TAG;
  // MPI calls of this rank in progress (src/mpi/common.hpp's Entered; nested ones count too):
  // while there are, the PE trusts its device pointer checks (DevPtrCache::trust).
  int calls_open = 0;

  // MPIX_Migrate (src/mpi/migrate.cpp): the calls made so far, and the private duplicate of
  // MPI_COMM_WORLD its messages travel on (made at the first call).
  std::uint64_t migrations = 0;
  MPI_Comm migrate_comm = MPI_COMM_NULL;
};

} // namespace ampi
