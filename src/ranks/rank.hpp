// src/ranks/rank.hpp — one virtual MPI rank: the user-level thread that runs the program's main,
// and the MPI state that belongs to this rank alone (its matching queues, requests,
// communicators, groups, error handlers, attached send buffer, life-cycle flags).
#pragma once

#include "comm/comm.hpp"
#include "datatype/layout.hpp"
#include "matching/engine.hpp"
#include "p2p/request.hpp"
#include "privatize/libc_state.hpp"
#include "ranks/task.hpp"
#include "rma/table.hpp"

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ampi {

class Pe;

// MPI_Buffer_attach's buffer and the buffered sends that hold parts of it.
struct BsendBuffer {
  std::byte *base = nullptr;
  std::size_t size = 0;
  struct Block {
    std::size_t offset, size;
  };
  std::vector<Block> used; // sorted by offset
};

struct UserErrhandler {
  MPI_Comm_errhandler_function *fn = nullptr;
  int refs = 0;
};

class Rank {
public:
  Rank(Pe &pe, int world_rank, std::size_t stack_size, std::function<void(Rank &)> body);

  Pe &pe;
  const int world_rank;
  ranks::Task task;
  matching::Engine matching;
  p2p::RequestTable requests;
  comm::CommTable comms;
  comm::GroupTable groups;
  std::vector<UserErrhandler> errhandlers; // handle 0x54000000 | (index + 2)
  BsendBuffer bsend;
  // comm area: attribute keys, info objects, user error classes and codes (src/comm/objects.hpp).
  comm::Registry comm_objects;
  std::uint32_t next_context = 4; // 0/1: MPI_COMM_WORLD, 2/3: MPI_COMM_SELF
  // rma: the rank's windows (MPI_Win handles).
  rma::WindowTable windows;
  // The rank's own copy of the program's arguments, as its main gets them (argv points into
  // args). Kept here rather than on the rank's stack, which exit() drops without unwinding.
  std::vector<std::string> args;
  std::vector<char *> argv;

  // ---- datatypes and matched probes (dtype area) ----
  // Derived datatype handles (0x8c000000 | slot); names given to predefined types with
  // MPI_Type_set_name (by predefined index; empty: the standard name); messages taken by
  // MPI_Mprobe / MPI_Improbe until MPI_Mrecv / MPI_Imrecv (handle 0x74000000 | slot).
  datatype::TypeTable types;
  std::vector<std::string> predefined_type_names;
  std::vector<p2p::MatchedMessage> matched_messages;
  std::vector<unsigned> free_message_slots;
  // Datatype attributes (MPI_Type_set_attr), by handle; keyvals live in comm_objects.keyvals.
  std::unordered_map<MPI_Datatype, comm::AttrStore> type_attrs;
  // ---- end of the dtype area ----

  bool initialized = false;
  int thread_level = MPI_THREAD_SINGLE; // what MPI_Init(_thread) provided
  bool finalized = false;
  bool probing = false; // blocked in MPI_Probe: new unexpected messages wake it
  int exit_code = 0;
  // ---- privatize (src/privatize): this rank's copy of the program (a dlopen handle), if any
  void *program = nullptr;
  void *program_dso = nullptr; // its __dso_handle
  // Its images of what each rank has its own of (the program's thread_local block, libc's getopt
  // state; privatize::setup_rank_images), or nullptr; its tasks run with them live.
  std::unique_ptr<std::byte[]> images;
  // Its state of libc's rand, random, drand48 and strtok (src/privatize/libc_state.hpp).
  privatize::RankLibc libc;
  // Destructors of its thread_local objects (registered while its image was live), run when the
  // rank ends, last registered first.
  std::vector<std::pair<void (*)(void *), void *>> tls_destructors;
  // The MPI call the rank is blocked in, for the deadlock report.
  const char *blocked_in = nullptr;
  std::uint32_t blocked_context = 0;
  int blocked_source = MPI_ANY_SOURCE;
  int blocked_tag = MPI_ANY_TAG;

  // coll: internal tasks that run this rank's non-blocking collectives (Pe::spawn_helper); they
  // act as this rank, and wake(rank) wakes them too. User-defined reduction operations
  // (MPI_Op_create), handle 0x58000100 | index; null entries are freed slots.
  std::vector<std::unique_ptr<ranks::Task>> helper_tasks;
  struct UserOp {
    MPI_User_function *fn = nullptr;
    bool commutative = true;
  };
  std::vector<std::optional<UserOp>> user_ops;
};

} // namespace ampi
