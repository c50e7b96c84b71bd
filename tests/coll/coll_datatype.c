/* tests/coll/coll_datatype.c — collectives on derived datatypes (MPI_Type_vector,
 * MPI_Type_contiguous): non-contiguous data packed and unpacked around the algorithms (gaps left
 * untouched), different but matching send and receive types, predefined reductions on the basic
 * type underneath, a user operation that gets the derived datatype and the user's layout, and
 * the non-blocking versions. Skips (prints "skipped") while the library lacks derived types. */
#include "mpitest.h"

#define GAP (-99)
/* MPI_Type_vector(3, 2, 4, MPI_INT): data at 0,1, 4,5, 8,9 of every 10 ints (extent 10 ints) */
static int pos(int k, int j) {
  return k * 10 + (j / 2) * 4 + j % 2;
} /* j-th int of element k */
static int is_data(int x) {
  int m = x % 10;
  return m == 0 || m == 1 || m == 4 || m == 5 || m == 8 || m == 9;
}

static void vec_max_op(void *in, void *inout, int *len, MPI_Datatype *type) {
  int size = 0;
  MPI_Type_size(*type, &size);
  CHECK(size == 6 * (int)sizeof(int), "user op got a datatype of size %d", size);
  const int *a = in;
  int *b = inout;
  for (int k = 0; k < *len; ++k)
    for (int j = 0; j < 6; ++j) {
      int x = pos(k, j);
      b[x] = a[x] > b[x] ? a[x] : b[x]; /* only the data positions are read or written */
    }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int p, me;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Datatype vec, six;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int e = MPI_Type_vector(3, 2, 4, MPI_INT, &vec);
  if (mt_class(e) == MPI_ERR_UNSUPPORTED_OPERATION) {
    mt_skip("coll_datatype", "MPI_Type_vector is not supported by this build");
    MPI_Finalize();
    return 0;
  }
  CHECK_MPI(e);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  CHECK_MPI(MPI_Type_commit(&vec));
  CHECK_MPI(MPI_Type_contiguous(6, MPI_INT, &six));
  CHECK_MPI(MPI_Type_commit(&six));
  const int counts[] = {1, 3, 3000}; /* 3000 elements: 72000 bytes of data */
  for (int c = 0; c < 3; ++c) {
    const int n = counts[c];
    const size_t span = (size_t)n * 10;
    int *v = malloc(sizeof(int) * span * p), *w = malloc(sizeof(int) * span * p);
    int *flat = malloc(sizeof(int) * 6 * n * p);
    /* bcast from the last rank */
    for (size_t x = 0; x < span; ++x)
      v[x] = is_data((int)x) ? (me == p - 1 ? (int)x : -1) : GAP;
    CHECK_MPI(MPI_Bcast(v, n, vec, p - 1, MPI_COMM_WORLD));
    for (size_t x = 0; x < span; ++x)
      CHECK(v[x] == (is_data((int)x) ? (int)x : GAP), "vector bcast n=%d x=%zu", n, x);
    /* allreduce SUM and the user op (MAX) on vector elements; in place too */
    for (size_t x = 0; x < span; ++x)
      v[x] = is_data((int)x) ? (int)x + me : GAP, w[x] = GAP;
    CHECK_MPI(MPI_Allreduce(v, w, n, vec, MPI_SUM, MPI_COMM_WORLD));
    for (size_t x = 0; x < span; ++x)
      CHECK(w[x] == (is_data((int)x) ? p * (int)x + p * (p - 1) / 2 : GAP),
            "vector allreduce n=%d x=%zu", n, x);
    MPI_Op vmax;
    CHECK_MPI(MPI_Op_create(vec_max_op, 1, &vmax));
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, v, n, vec, vmax, MPI_COMM_WORLD));
    for (size_t x = 0; x < span; ++x)
      CHECK(v[x] == (is_data((int)x) ? (int)x + p - 1 : GAP), "vector user-op allreduce n=%d x=%zu",
            n, x);
    CHECK_MPI(MPI_Op_free(&vmax));
    /* scan */
    for (size_t x = 0; x < span; ++x)
      v[x] = is_data((int)x) ? 1 : GAP, w[x] = GAP;
    CHECK_MPI(MPI_Scan(v, w, n, vec, MPI_SUM, MPI_COMM_WORLD));
    for (size_t x = 0; x < span; ++x)
      CHECK(w[x] == (is_data((int)x) ? me + 1 : GAP), "vector scan x=%zu", x);
    /* gather: contiguous(6) sent, vectors received */
    for (int k = 0; k < n; ++k)
      for (int j = 0; j < 6; ++j)
        flat[k * 6 + j] = me * 100000 + k * 6 + j;
    for (size_t x = 0; x < span * p; ++x)
      w[x] = GAP;
    CHECK_MPI(MPI_Gather(flat, n, six, w, n, vec, 0, MPI_COMM_WORLD));
    if (me == 0)
      for (int r = 0; r < p; ++r)
        for (int k = 0; k < n; ++k)
          for (int j = 0; j < 6; ++j)
            CHECK(w[(size_t)r * span + pos(k, j)] == r * 100000 + k * 6 + j,
                  "gather six->vector r=%d k=%d", r, k);
    /* alltoall with vectors, non-blocking */
    for (int d = 0; d < p; ++d)
      for (int k = 0; k < n; ++k)
        for (int j = 0; j < 6; ++j)
          v[(size_t)d * span + pos(k, j)] = me * 1000 + d * 10 + j;
    for (size_t x = 0; x < span * p; ++x)
      w[x] = GAP;
    MPI_Request req;
    CHECK_MPI(MPI_Ialltoall(v, n, vec, w, n, vec, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int s = 0; s < p; ++s)
      for (size_t x = 0; x < span; ++x) {
        int want =
            is_data((int)x) ? s * 1000 + me * 10 + (int)(((x % 10) / 4) * 2 + (x % 10) % 4) : GAP;
        CHECK(w[(size_t)s * span + x] == want, "ialltoall vector s=%d x=%zu got %d want %d", s, x,
              w[(size_t)s * span + x], want);
      }
    /* allgatherv of contiguous(6) into vectors at reversed displacements */
    int *cnt = malloc(sizeof(int) * p), *dsp = malloc(sizeof(int) * p);
    for (int r = 0; r < p; ++r)
      cnt[r] = n, dsp[r] = (p - 1 - r) * n;
    for (size_t x = 0; x < span * p; ++x)
      w[x] = GAP;
    CHECK_MPI(MPI_Allgatherv(flat, n, six, w, cnt, dsp, vec, MPI_COMM_WORLD));
    for (int r = 0; r < p; ++r)
      for (int k = 0; k < n; ++k)
        for (int j = 0; j < 6; ++j)
          CHECK(w[(size_t)dsp[r] * 10 + pos(k, j)] == r * 100000 + k * 6 + j,
                "allgatherv vector r=%d", r);
    free(cnt), free(dsp), free(v), free(w), free(flat);
  }
  CHECK_MPI(MPI_Type_free(&vec));
  CHECK_MPI(MPI_Type_free(&six));
  mt_ok("coll_datatype");
  MPI_Finalize();
  return 0;
}
