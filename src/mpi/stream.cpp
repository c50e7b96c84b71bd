// src/mpi/stream.cpp — MPI ordered with CUDA streams, without the host waiting for the GPU:
// MPIX_GPU_Iinvoke (a request that completes when a stream's work so far is done) and MPICH's
// MPIX_Stream calls (MPIX_Stream_create/free, MPIX_Stream_comm_create, MPIX_{I,}send_enqueue,
// MPIX_{I,}recv_enqueue, MPIX_Wait{,all}_enqueue, MPIX_Info_set_hex), with MPICH's signatures.
//
// An enqueued send or receive starts when the stream reaches it: an event recorded on the stream
// at the call is polled by the PE (with its device copies), and a helper task of the rank (the
// kind non-blocking collectives run in) then posts the operation and waits for it, while the rank
// and its PE go on. The stream waits for the operation where the program says so (the _enqueue
// wait, or at once for the blocking forms): cuStreamWaitValue32 on a word of mapped host memory,
// one per MPIX stream, which counts the stream's operations done in the order they were enqueued
// (an operation completes the word only when all enqueued before it have: a wait may wait longer
// than it must, never less).
#include "core/cudart.hpp"
#include "mpi/common.hpp"
#include "mpi/pt2pt.hpp"
#include "p2p/p2p.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <set>
#include <vector>

namespace ampi::mpi {

namespace {

constexpr int kFirstStream = MPIX_STREAM_NULL + 1;

// One MPIX stream of a rank.
struct Stream {
  void *cuda = nullptr; // the CUDA stream; nullptr for a stream without one (MPI_INFO_NULL)
  // The word the CUDA stream waits on (host address and the device's view of it), mapped host
  // memory from the PE's slabs (DevPtrCache::take_host_word; back to them with the stream).
  std::shared_ptr<std::uint32_t> word;
  gpu::CUdeviceptr word_device = 0;
  std::uint32_t issued = 0;           // operations enqueued so far (the last one's ticket)
  std::uint32_t done = 0;             // every operation up to this ticket has completed
  std::set<std::uint32_t> done_later; // completed tickets past `done`
  int running = 0;                    // operations started and not completed
  bool freed = false;
};

// An enqueued operation, until it has completed and its wait was enqueued.
struct Op {
  std::shared_ptr<Stream> stream;
  std::uint32_t ticket = 0;
  MPI_Request user = MPI_REQUEST_NULL; // the request the program holds (completes with the op)
  bool complete = false;
  MPI_Status status{};
  MPI_Status *status_out = nullptr; // where MPIX_Wait_enqueue wants the status (or null)
};

struct State {
  std::vector<std::shared_ptr<Stream>> streams; // by MPIX_Stream handle - kFirstStream
  std::vector<std::shared_ptr<Op>> ops;         // operations whose wait is not enqueued yet
  int keyval = MPI_KEYVAL_INVALID;              // a communicator's MPIX stream (index + 1)
};

State &state(Rank &self) {
  if (!self.cuda.mpix) self.cuda.mpix = std::make_shared<State>();
  return *static_cast<State *>(self.cuda.mpix.get());
}

std::shared_ptr<Stream> find_stream(Rank &self, MPIX_Stream h) {
  State &st = state(self);
  const long i = static_cast<long>(h) - kFirstStream;
  if (i < 0 || i >= static_cast<long>(st.streams.size()) || !st.streams[i]) return nullptr;
  return st.streams[i];
}

// The MPIX stream of a communicator made by MPIX_Stream_comm_create, or nullptr.
std::shared_ptr<Stream> stream_of(Rank &self, MPI_Comm comm) {
  State &st = state(self);
  if (st.keyval == MPI_KEYVAL_INVALID) return nullptr;
  void *v = nullptr;
  int flag = 0;
  if (PMPI_Comm_get_attr(comm, st.keyval, &v, &flag) != MPI_SUCCESS || !flag) return nullptr;
  return find_stream(self, static_cast<MPIX_Stream>(reinterpret_cast<std::intptr_t>(v)));
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Decodes MPIX_Info_set_hex's value (two hex digits a byte; MPICH's "[n]" for n zero bytes is
// accepted too); false unless it is exactly `len` bytes.
bool decode_hex(const char *s, void *out, std::size_t len) {
  auto *o = static_cast<unsigned char *>(out);
  std::size_t n = 0;
  while (*s) {
    if (*s == '[') {
      char *end = nullptr;
      const unsigned long zeros = std::strtoul(s + 1, &end, 10);
      if (!end || *end != ']' || n + zeros > len) return false;
      std::memset(o + n, 0, zeros);
      n += zeros;
      s = end + 1;
      continue;
    }
    const int hi = hex_digit(s[0]), lo = hi < 0 ? -1 : hex_digit(s[1]);
    if (lo < 0 || n >= len) return false;
    o[n++] = static_cast<unsigned char>(hi * 16 + lo);
    s += 2;
  }
  return n == len;
}

// Marks `op` complete: the stream's word moves past every ticket completed in order.
void finish(Rank &self, Op &op) {
  op.complete = true;
  Stream &s = *op.stream;
  --s.running;
  s.done_later.insert(op.ticket);
  while (!s.done_later.empty() && *s.done_later.begin() == s.done + 1) {
    s.done_later.erase(s.done_later.begin());
    ++s.done;
  }
  __atomic_store_n(s.word.get(), s.done, __ATOMIC_RELEASE);
  if (op.status_out) *op.status_out = op.status;
  if (p2p::Request *r = self.p2p.requests.find(op.user)) {
    r->status_source = op.status.MPI_SOURCE;
    r->status_tag = op.status.MPI_TAG;
    r->status_error = op.status.MPI_ERROR;
    p2p::complete(*r);
  }
}

// Enqueues a send (`send`) or receive on the stream of `comm`; the request the program holds.
int enqueue(const char *fn, bool send, void *buf, int count, MPI_Datatype type, int peer, int tag,
            MPI_Comm comm, MPI_Request *request) {
  auto self = enter(fn);
  int err = MPI_SUCCESS;
  if (!find_comm(*self, comm, fn, &err)) return err;
  if (!request) return raise(comm, MPI_ERR_ARG, fn, "request is NULL");
  if (count < 0) return raise(comm, MPI_ERR_COUNT, fn, "count %d is negative", count);
  std::shared_ptr<Stream> st = stream_of(*self, comm);
  if (!st || !st->cuda)
    return raise(comm, MPI_ERR_ARG, fn,
                 "comm was not made by MPIX_Stream_comm_create with a CUDA stream");
  Pe &pe = self->pe();
  auto op = std::make_shared<Op>();
  op->stream = st;
  op->ticket = ++st->issued;
  ++st->running;
  p2p::Request &r = self->p2p.requests.create(*self);
  r.kind = p2p::Kind::Send;
  r.comm = comm;
  r.complete = false;
  op->user = r.handle;
  *request = r.handle;
  state(*self).ops.push_back(op);
  // A helper task of the rank posts the operation and waits for it, started once the stream is
  // past the point it has reached now. Started at the call instead, each helper waited for its
  // point in the PE's loop: every completion for the rank made all of them run again (Pe::wake),
  // and with 8 ranks on one PE queuing 2 iterations ahead (jacobi3d_cuda --enqueue, H100) an
  // iteration took 2.0 ms against 0.66 ms without enqueuing.
  // Helpers start in the order their points are reached (a stream's events are polled in order),
  // which is the order of the calls: MPI's order of messages holds.
  Rank *rank = self;
  auto body = [op, rank, send, buf, count, type, peer, tag, comm] {
    MPI_Request inner = MPI_REQUEST_NULL;
    const int e = send ? PMPI_Isend(buf, count, type, peer, tag, comm, &inner)
                       : PMPI_Irecv(buf, count, type, peer, tag, comm, &inner);
    op->status.MPI_ERROR = e;
    if (e == MPI_SUCCESS) PMPI_Wait(&inner, &op->status);
    if (send) {
      op->status.MPI_SOURCE = MPI_ANY_SOURCE;
      op->status.MPI_TAG = MPI_ANY_TAG;
    }
    finish(*rank, *op);
  };
  auto start = [rank, body] { rank->pe().spawn_helper(*rank, body); };
  if (!pe.devptrs().watch_stream(static_cast<gpu::CUstream>(st->cuda),
                                 [start](gpu::CUresult) { start(); }))
    start(); // (the stream is unusable: the operation reports what it can)
  return MPI_SUCCESS;
}

// The stream waits for the operation of `*request`; the request is released.
int wait_enqueue(Rank &self, const char *fn, MPI_Request *request, MPI_Status *status) {
  State &st = state(self);
  std::shared_ptr<Op> op;
  for (auto it = st.ops.begin(); it != st.ops.end(); ++it)
    if ((*it)->user == *request) {
      op = *it;
      st.ops.erase(it);
      break;
    }
  if (!op)
    return raise(MPI_COMM_WORLD, MPI_ERR_REQUEST, fn,
                 "request 0x%x was not made by MPIX_Isend_enqueue or MPIX_Irecv_enqueue",
                 static_cast<unsigned>(*request));
  const gpu::Driver &d = gpu::driver();
  Stream &s = *op->stream;
  if (const gpu::CUresult e = d.cuStreamWaitValue32(
          static_cast<gpu::CUstream>(s.cuda), s.word_device, op->ticket, gpu::kStreamWaitValueGeq);
      e != gpu::kCudaSuccess)
    return raise(MPI_COMM_WORLD, MPI_ERR_OTHER, fn, "cuStreamWaitValue32 failed: %s",
                 gpu::cuda_error_string(e));
  if (status != MPI_STATUS_IGNORE) {
    if (op->complete)
      *status = op->status;
    else
      op->status_out = status;
  }
  if (p2p::Request *r = self.p2p.requests.find(op->user)) {
    if (r->complete)
      self.p2p.requests.release(*r);
    else
      r->freed = true; // released when the operation completes
  }
  *request = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}

} // namespace

} // namespace ampi::mpi

using namespace ampi;
using namespace ampi::mpi;

extern "C" int PMPIX_GPU_Iinvoke(void *cuda_stream, MPI_Request *request) {
  static constexpr const char *fn = "MPIX_GPU_Iinvoke";
  auto self = enter(fn);
  if (!request) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "request is NULL");
  if (!gpu::cuda_loaded())
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn,
                 "cuda_stream: CUDA is not loaded in this process");
  int err = 0;
  void *s = cudart::stream_of_rank(cuda_stream, &err);
  if (!s && err != 0)
    return raise(MPI_COMM_WORLD, MPI_ERR_OTHER, fn, "the rank's CUDA stream: CUDA error %d", err);
  p2p::Request &r = self->p2p.requests.create(*self);
  r.kind = p2p::Kind::Send;
  r.comm = MPI_COMM_WORLD;
  r.complete = false;
  p2p::Request *req = &r;
  if (!self->pe().devptrs().watch_stream(static_cast<gpu::CUstream>(s), [req](gpu::CUresult e) {
        if (e != gpu::kCudaSuccess) req->status_error = MPI_ERR_OTHER;
        p2p::complete(*req);
      })) {
    self->p2p.requests.release(r);
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "cuda_stream %p: cannot record an event on it",
                 cuda_stream);
  }
  *request = r.handle;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPIX_GPU_Iinvoke)

extern "C" int PMPIX_Info_set_hex(MPI_Info info, const char *key, const void *value,
                                  int value_size) {
  static constexpr const char *fn = "MPIX_Info_set_hex";
  if (!value || value_size < 0 || value_size > 512) {
    auto self = enter(fn);
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "value is NULL or value_size %d out of [0, 512]",
                 value_size);
  }
  char text[1025];
  const auto *b = static_cast<const unsigned char *>(value);
  for (int i = 0; i < value_size; ++i)
    std::snprintf(text + 2 * i, 3, "%02x", b[i]);
  text[2 * value_size] = '\0';
  return PMPI_Info_set(info, key, text);
}
AMPI_PMPI_ALIAS(MPIX_Info_set_hex)

extern "C" int PMPIX_Stream_create(MPI_Info info, MPIX_Stream *stream) {
  static constexpr const char *fn = "MPIX_Stream_create";
  auto self = enter(fn);
  if (!stream) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "stream is NULL");
  auto st = std::make_shared<Stream>();
  if (info != MPI_INFO_NULL) {
    char type[64] = "";
    int flag = 0;
    if (int e = PMPI_Info_get(info, "type", sizeof type - 1, type, &flag); e != MPI_SUCCESS)
      return e;
    if (flag && std::strcmp(type, "cudaStream_t") == 0) {
      char text[1025] = "";
      if (int e = PMPI_Info_get(info, "value", sizeof text - 1, text, &flag); e != MPI_SUCCESS)
        return e;
      if (!flag || !decode_hex(text, &st->cuda, sizeof st->cuda))
        return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn,
                     "info: \"value\" is not a cudaStream_t set with MPIX_Info_set_hex");
      if (!gpu::cuda_loaded())
        return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "info: CUDA is not loaded in this process");
      int err = 0;
      st->cuda = cudart::stream_of_rank(st->cuda, &err);
      if (!st->cuda)
        return raise(MPI_COMM_WORLD, MPI_ERR_OTHER, fn, "the rank's CUDA stream: CUDA error %d",
                     err);
      const gpu::Driver &d = gpu::driver();
      if (!d.cuStreamWaitValue32 || !d.cuMemHostAlloc || !d.cuMemHostGetDevicePointer ||
          !d.cuMemFreeHost)
        return raise(MPI_COMM_WORLD, MPI_ERR_UNSUPPORTED_OPERATION, fn,
                     "the CUDA driver lacks cuStreamWaitValue32 or mapped host memory");
      // From the PE's slabs, back to them when the stream goes (never cuMemFreeHost, which
      // waits for every stream of the context: see take_host_word).
      if (gpu::CUresult e = self->pe().devptrs().take_host_word(&st->word, &st->word_device);
          e != gpu::kCudaSuccess)
        return raise(MPI_COMM_WORLD, MPI_ERR_OTHER, fn,
                     "mapped host memory for the stream's word (cuMemHostAlloc or "
                     "cuMemHostGetDevicePointer) failed: %s",
                     gpu::cuda_error_string(e));
      self->pe().devptrs().prepare_streams(); // before this stream waits for MPI
    }
  }
  State &s = state(*self);
  s.streams.push_back(std::move(st));
  *stream = static_cast<MPIX_Stream>(kFirstStream + static_cast<int>(s.streams.size()) - 1);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPIX_Stream_create)

extern "C" int PMPIX_Stream_free(MPIX_Stream *stream) {
  static constexpr const char *fn = "MPIX_Stream_free";
  auto self = enter(fn);
  std::shared_ptr<Stream> st = stream ? find_stream(*self, *stream) : nullptr;
  if (!st) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "*stream is not an MPIX stream");
  // Its operations finish first, and the CUDA stream must be past its waits on the word before
  // the word's memory goes (the rank waits, yielding).
  while (st->running > 0)
    self->pe().block(fn);
  if (st->cuda) cudart::wait_stream(st->cuda);
  state(*self).streams[static_cast<std::size_t>(*stream - kFirstStream)].reset();
  *stream = MPIX_STREAM_NULL;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPIX_Stream_free)

extern "C" int PMPIX_Stream_comm_create(MPI_Comm comm, MPIX_Stream stream, MPI_Comm *newcomm) {
  static constexpr const char *fn = "MPIX_Stream_comm_create";
  auto self = enter(fn);
  if (stream != MPIX_STREAM_NULL && !find_stream(*self, stream))
    return raise(comm, MPI_ERR_ARG, fn, "stream 0x%x is not an MPIX stream",
                 static_cast<unsigned>(stream));
  if (int e = PMPI_Comm_dup(comm, newcomm); e != MPI_SUCCESS) return e;
  if (stream == MPIX_STREAM_NULL) return MPI_SUCCESS;
  State &st = state(*self);
  if (st.keyval == MPI_KEYVAL_INVALID)
    if (int e = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &st.keyval,
                                        nullptr);
        e != MPI_SUCCESS)
      return e;
  return PMPI_Comm_set_attr(*newcomm, st.keyval,
                            reinterpret_cast<void *>(static_cast<std::intptr_t>(stream)));
}
AMPI_PMPI_ALIAS(MPIX_Stream_comm_create)

extern "C" int PMPIX_Isend_enqueue(const void *buf, int count, MPI_Datatype datatype, int dest,
                                   int tag, MPI_Comm comm, MPI_Request *request) {
  return enqueue("MPIX_Isend_enqueue", true, const_cast<void *>(buf), count, datatype, dest, tag,
                 comm, request);
}
AMPI_PMPI_ALIAS(MPIX_Isend_enqueue)

extern "C" int PMPIX_Irecv_enqueue(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                                   MPI_Comm comm, MPI_Request *request) {
  return enqueue("MPIX_Irecv_enqueue", false, buf, count, datatype, source, tag, comm, request);
}
AMPI_PMPI_ALIAS(MPIX_Irecv_enqueue)

extern "C" int PMPIX_Wait_enqueue(MPI_Request *request, MPI_Status *status) {
  static constexpr const char *fn = "MPIX_Wait_enqueue";
  auto self = enter(fn);
  if (!request) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "request is NULL");
  return wait_enqueue(*self, fn, request, status);
}
AMPI_PMPI_ALIAS(MPIX_Wait_enqueue)

extern "C" int PMPIX_Waitall_enqueue(int count, MPI_Request array_of_requests[],
                                     MPI_Status array_of_statuses[]) {
  static constexpr const char *fn = "MPIX_Waitall_enqueue";
  auto self = enter(fn);
  if (count < 0 || (count > 0 && !array_of_requests))
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "count %d or array_of_requests is bad", count);
  for (int i = 0; i < count; ++i)
    if (int e = wait_enqueue(*self, fn, &array_of_requests[i],
                             array_of_statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE
                                                                      : &array_of_statuses[i]);
        e != MPI_SUCCESS)
      return e;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPIX_Waitall_enqueue)

extern "C" int PMPIX_Send_enqueue(const void *buf, int count, MPI_Datatype datatype, int dest,
                                  int tag, MPI_Comm comm) {
  MPI_Request r = MPI_REQUEST_NULL;
  if (int e = PMPIX_Isend_enqueue(buf, count, datatype, dest, tag, comm, &r); e != MPI_SUCCESS)
    return e;
  return PMPIX_Wait_enqueue(&r, MPI_STATUS_IGNORE);
}
AMPI_PMPI_ALIAS(MPIX_Send_enqueue)

extern "C" int PMPIX_Recv_enqueue(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                                  MPI_Comm comm, MPI_Status *status) {
  MPI_Request r = MPI_REQUEST_NULL;
  if (int e = PMPIX_Irecv_enqueue(buf, count, datatype, source, tag, comm, &r); e != MPI_SUCCESS)
    return e;
  return PMPIX_Wait_enqueue(&r, status);
}
AMPI_PMPI_ALIAS(MPIX_Recv_enqueue)
