// src/mpi/bigcount_rt.cpp — the run-time half of the large-count bindings
// (src/mpi/bigcount_rt.hpp): narrowing with MPI_ERR_COUNT, the derived type for messages past
// INT_MAX elements, and the array lengths of the collective bindings.
#include "mpi/bigcount_rt.hpp"

#include "mpi/common.hpp"
#include "mpi/errors.hpp"

#include <climits>

namespace ampi::mpi::bigcount {

namespace {
// Elements per chunk of a large message's type: 2^30 keeps every count the int constructors see
// below INT_MAX, and a chunk count below 2^31 covers 2^61 elements.
constexpr MPI_Count kChunk = MPI_Count{1} << 30;

// Whether `comm` is a communicator of the calling rank, asked without raising anything: the
// lengths below must not report a bad handle, the int function does (once, with its own name).
bool valid(MPI_Comm comm) {
  auto self = enter("MPI large-count call");
  return self->comm.comms.find(comm) != nullptr;
}
} // namespace

Narrow::~Narrow() {
  for (int i = 0; i < nmade_; ++i)
    PMPI_Type_free(&made_[i]);
}

bool Narrow::narrow(MPI_Count v, int *out, const char *arg) {
  if (v > INT_MAX || v < INT_MIN) {
    arg_ = arg;
    value_ = v;
    code_ = MPI_ERR_COUNT;
    return false;
  }
  *out = static_cast<int>(v);
  return true;
}

bool Narrow::big(MPI_Count count, MPI_Datatype type, int *out_count, MPI_Datatype *out_type,
                 const char *arg) {
  *out_type = type;
  if (count <= INT_MAX) return narrow(count, out_count, arg);
  arg_ = arg;
  value_ = count;
  if (nmade_ == 2) return false; // at most two (count, datatype) pairs per call
  // contiguous(q, contiguous(2^30, type)) then, for the rest r, a struct with contiguous(r, type)
  // after it; resized to the extent of `count` elements, as MPI_Type_contiguous would give.
  MPI_Aint lb = 0, extent = 0;
  if ((code_ = PMPI_Type_get_extent(type, &lb, &extent)) != MPI_SUCCESS) return false;
  const MPI_Count q = count / kChunk, r = count % kChunk;
  if (q > INT_MAX) {
    code_ = MPI_ERR_COUNT;
    return false;
  }
  MPI_Datatype chunk = MPI_DATATYPE_NULL, body = MPI_DATATYPE_NULL, tail = MPI_DATATYPE_NULL,
               whole = MPI_DATATYPE_NULL, sized = MPI_DATATYPE_NULL;
  auto fail = [&](int e) {
    for (MPI_Datatype *t : {&chunk, &body, &tail, &whole, &sized})
      if (*t != MPI_DATATYPE_NULL) PMPI_Type_free(t);
    code_ = e;
    return false;
  };
  if (int e = PMPI_Type_contiguous(static_cast<int>(kChunk), type, &chunk)) return fail(e);
  if (int e = PMPI_Type_contiguous(static_cast<int>(q), chunk, &body)) return fail(e);
  whole = body;
  body = MPI_DATATYPE_NULL;
  if (r) {
    if (int e = PMPI_Type_contiguous(static_cast<int>(r), type, &tail)) return fail(e);
    const int blocks[2] = {1, 1};
    const MPI_Aint displs[2] = {0, static_cast<MPI_Aint>(q * kChunk * extent)};
    const MPI_Datatype types[2] = {whole, tail};
    MPI_Datatype both = MPI_DATATYPE_NULL;
    if (int e = PMPI_Type_create_struct(2, blocks, displs, types, &both)) return fail(e);
    PMPI_Type_free(&whole);
    whole = both;
  }
  if (int e = PMPI_Type_create_resized(whole, lb, static_cast<MPI_Aint>(count * extent), &sized))
    return fail(e);
  if (int e = PMPI_Type_commit(&sized)) return fail(e);
  PMPI_Type_free(&chunk);
  PMPI_Type_free(&whole);
  if (tail != MPI_DATATYPE_NULL) PMPI_Type_free(&tail);
  made_[nmade_++] = sized;
  *out_type = sized;
  *out_count = 1;
  return true;
}

int Narrow::raise_comm(MPI_Comm comm) {
  if (code_ != MPI_ERR_COUNT) return code_; // raised already by the call that failed
  return raise(comm, MPI_ERR_COUNT, fn_,
               "%s=%lld is more than this call can take (INT_MAX elements on this path)", arg_,
               static_cast<long long>(value_));
}

int Narrow::raise_win(MPI_Win win) {
  if (code_ != MPI_ERR_COUNT) return code_;
  return raise_window(win, MPI_ERR_COUNT, fn_,
                      "%s=%lld is more than this call can take (INT_MAX elements on this path)",
                      arg_, static_cast<long long>(value_));
}

int Narrow::raise_world() {
  return raise_comm(MPI_COMM_WORLD);
}

void copy_array(const MPI_Count a[], int n, std::vector<MPI_Aint> *out) {
  if (!a || n <= 0) return;
  out->assign(a, a + n);
}

int peers(MPI_Comm comm) {
  int inter = 0, n = 0;
  if (!valid(comm)) return 0;
  if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) return 0;
  if (inter ? PMPI_Comm_remote_size(comm, &n) : PMPI_Comm_size(comm, &n)) return 0;
  return n;
}

int local_size(MPI_Comm comm) {
  int n = 0;
  if (!valid(comm)) return 0;
  return PMPI_Comm_size(comm, &n) == MPI_SUCCESS ? n : 0;
}

bool is_root(MPI_Comm comm, int root) {
  int inter = 0, rank = -1;
  if (!valid(comm)) return false;
  if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) return false;
  if (inter) return root == MPI_ROOT;
  return PMPI_Comm_rank(comm, &rank) == MPI_SUCCESS && rank == root;
}

int degree(MPI_Comm comm, bool in) {
  int kind = MPI_UNDEFINED, n = 0, nin = 0, nout = 0, weighted = 0;
  if (!valid(comm)) return 0;
  if (PMPI_Topo_test(comm, &kind) != MPI_SUCCESS) return 0;
  switch (kind) {
  case MPI_CART:
    return PMPI_Cartdim_get(comm, &n) == MPI_SUCCESS ? 2 * n : 0;
  case MPI_GRAPH: {
    int rank = 0;
    if (PMPI_Comm_rank(comm, &rank) || PMPI_Graph_neighbors_count(comm, rank, &n)) return 0;
    return n;
  }
  case MPI_DIST_GRAPH:
    if (PMPI_Dist_graph_neighbors_count(comm, &nin, &nout, &weighted)) return 0;
    return in ? nin : nout;
  default:
    return 0;
  }
}

int length(MPI_Count n) {
  return n > 0 && n <= INT_MAX ? static_cast<int>(n) : 0;
}

} // namespace ampi::mpi::bigcount
