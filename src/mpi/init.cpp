// src/mpi/init.cpp — the MPI environment functions: init and finalize of a rank, abort, thread
// level (and whether the caller is the rank's main thread), versions, processor name, memory
// allocation.
#include "coll/coll.hpp"
#include "mpi/comm_util.hpp"
#include "mpi/common.hpp"
#include "p2p/p2p.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace ampi;
using namespace ampi::mpi;

namespace {

int init_common(Rank &self, const char *fn) {
  if (self.initialized)
    return raise(MPI_COMM_WORLD, MPI_ERR_OTHER, fn,
                 self.finalized ? "MPI cannot be initialized again after MPI_Finalize"
                                : "MPI is already initialized");
  self.initialized = true;
  return MPI_SUCCESS;
}

// The rank of the calling thread for the questions that may be asked at any time (no mutex
// taken: they read flags that only the rank's main thread writes): the rank the PE runs, or the
// creator of a thread that a rank created.
Rank *asking_rank() {
  if (Pe *pe = Pe::get_if()) return pe->current_if();
  return core::creator_rank_any();
}

} // namespace

extern "C" int PMPI_Init(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  auto self = enter_any("MPI_Init");
  return init_common(*self, "MPI_Init");
}
AMPI_PMPI_ALIAS(MPI_Init)

extern "C" int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  (void)argc;
  (void)argv;
  if (!provided) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Init_thread", "provided=NULL");
  if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Init_thread",
                 "required=%d is not a thread level", required);
  auto self = enter_any("MPI_Init_thread");
  const int e = init_common(*self, "MPI_Init_thread");
  if (e != MPI_SUCCESS) return e;
  // The rank's user-level thread is its main thread. Threads it creates may call MPI when it
  // asks for SERIALIZED or MULTIPLE: its PE then guards its state with a mutex
  // (src/ult/os_threads.hpp). Either way ampi provides what was asked for.
  self->thread_level = required;
  *provided = required;
  if (required >= MPI_THREAD_SERIALIZED && !self->pe().threaded())
    self->pe().enable_threads(); // may take the PE's mutex, which `self` releases
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Init_thread)

extern "C" int PMPI_Query_thread(int *provided) {
  if (!provided) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Query_thread", "provided=NULL");
  // Any thread of a rank may ask (it reads what MPI_Init_thread set once).
  if (const Rank *r = Pe::get_if() ? nullptr : core::creator_rank_any(); r && r->initialized) {
    *provided = r->thread_level;
    return MPI_SUCCESS;
  }
  *provided = enter("MPI_Query_thread")->thread_level;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Query_thread)

extern "C" int PMPI_Is_thread_main(int *flag) {
  if (!flag) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Is_thread_main", "flag=NULL");
  // A thread that a rank created may ask whatever the thread level.
  if (const Rank *r = Pe::get_if() ? nullptr : core::creator_rank_any(); r && r->initialized) {
    *flag = 0;
    return MPI_SUCCESS;
  }
  auto self = enter("MPI_Is_thread_main");
  *flag = !Pe::in_thread(); // the rank's user-level thread is its main thread
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Is_thread_main)

extern "C" int PMPI_Finalize(void) {
  static constexpr const char *fn = "MPI_Finalize";
  auto self = enter(fn);
  if (Pe::in_thread())
    return raise(MPI_COMM_WORLD, MPI_ERR_OTHER, fn,
                 "called from a thread the rank created; the rank's main thread must call it");
  finalize_comm_attrs(*self); // MPI_COMM_SELF's attribute delete callbacks run first
  p2p::drain_bsend(fn);
  // Finalize is collective: no rank leaves while another may still talk to it.
  coll::barrier(*self->comm.comms.find(MPI_COMM_WORLD));
  self->finalized = true;
  std::fflush(stdout);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Finalize)

extern "C" int PMPI_Initialized(int *flag) {
  if (!flag) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Initialized", "flag=NULL");
  const Rank *self = asking_rank();
  *flag = self && self->initialized;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Initialized)

extern "C" int PMPI_Finalized(int *flag) {
  if (!flag) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Finalized", "flag=NULL");
  const Rank *self = asking_rank();
  *flag = self && self->finalized;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Finalized)

extern "C" int PMPI_Abort(MPI_Comm comm, int errorcode) {
  if (const Rank *r = Pe::get_if() ? nullptr : core::creator_rank_any()) {
    // A thread of a rank ends the job whatever the thread level (nothing else is touched).
    std::fflush(stdout);
    std::fprintf(stderr, "ampi: a thread of rank %d called MPI_Abort(..., %d): ending the job\n",
                 r->world_rank, errorcode);
    Pe::abort_job(errorcode);
  }
  auto self = enter_any("MPI_Abort");
  const comm::Comm *c = self->comm.comms.find(comm);
  std::fflush(stdout);
  std::fprintf(stderr, "ampi: rank %d called MPI_Abort(%s, %d): ending the job\n", self->world_rank,
               c ? comm_label(*c) : "an invalid communicator", errorcode);
  Pe::abort_job(errorcode);
}
AMPI_PMPI_ALIAS(MPI_Abort)

extern "C" int PMPI_Get_version(int *version, int *subversion) {
  if (!version || !subversion)
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Get_version", "version or subversion is NULL");
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Get_version)

extern "C" int PMPI_Get_library_version(char *version, int *resultlen) {
  if (!version || !resultlen)
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Get_library_version",
                 "version or resultlen is NULL");
  int n = std::snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                        "%s: MPI %d.%d with virtual ranks (user-level threads)",
                        AMPI_VERSION_STRING, MPI_VERSION, MPI_SUBVERSION);
  *resultlen = n;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Get_library_version)

extern "C" int PMPI_Get_processor_name(char *name, int *resultlen) {
  if (!name || !resultlen)
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Get_processor_name",
                 "name or resultlen is NULL");
  if (::gethostname(name, MPI_MAX_PROCESSOR_NAME) != 0) std::strcpy(name, "localhost");
  name[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
  *resultlen = static_cast<int>(std::strlen(name));
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Get_processor_name)

extern "C" int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr) {
  (void)info;
  static constexpr const char *fn = "MPI_Alloc_mem";
  if (size < 0 || !baseptr)
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "size=%ld or baseptr=NULL",
                 static_cast<long>(size));
  void *p = std::malloc(size ? static_cast<std::size_t>(size) : 1);
  if (!p)
    return raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn, "cannot allocate %ld bytes",
                 static_cast<long>(size));
  *static_cast<void **>(baseptr) = p;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Alloc_mem)

extern "C" int PMPI_Free_mem(void *base) {
  std::free(base);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Free_mem)
