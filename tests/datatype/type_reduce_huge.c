/* tests/datatype/type_reduce_huge.c — reductions over large counts of derived types: 2^21
 * elements of "every other int" (MPI_INT resized to 8 bytes) in MPI_Allreduce (2^21 separate
 * blocks), a nested vector of doubles in MPI_Reduce and MPI_Reduce_local, each checked value by
 * value, with the gaps between the blocks left as they were. */
#include "../mpi/mpitest.h"

#include <stdint.h>

#define N (1 << 21)

static void every_other_int(int rank, int size) {
  MPI_Datatype t;
  int *in = malloc(sizeof(int) * 2 * N), *out = malloc(sizeof(int) * 2 * N);
  long i;
  CHECK(in && out, "no memory");
  CHECK_MPI(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &t));
  CHECK_MPI(MPI_Type_commit(&t));
  for (i = 0; i < N; ++i) {
    in[2 * i] = rank + (int)(i % 1000);
    in[2 * i + 1] = -1;
    out[2 * i] = -5;
    out[2 * i + 1] = -7;
  }
  CHECK_MPI(MPI_Allreduce(in, out, N, t, MPI_SUM, MPI_COMM_WORLD));
  for (i = 0; i < N; ++i) {
    const int want = size * (size - 1) / 2 + size * (int)(i % 1000);
    CHECK(out[2 * i] == want, "element %ld: %d, expected %d", i, out[2 * i], want);
    CHECK(out[2 * i + 1] == -7, "gap %ld written: %d", i, out[2 * i + 1]);
  }
  /* In place. */
  CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, in, N, t, MPI_MAX, MPI_COMM_WORLD));
  for (i = 0; i < N; ++i) {
    CHECK(in[2 * i] == size - 1 + (int)(i % 1000), "in place element %ld: %d", i, in[2 * i]);
    CHECK(in[2 * i + 1] == -1, "in place gap %ld written: %d", i, in[2 * i + 1]);
  }
  MPI_Type_free(&t);
  free(in);
  free(out);
}

/* Two copies of 3 doubles 2 apart, as one element (span 6 doubles: 12 doubles per element). */
static void nested_doubles(int rank, int size) {
  const long n = 1 << 17, per = 12;
  MPI_Datatype v, c;
  double *in = malloc(sizeof(double) * (size_t)(n * per)),
         *out = malloc(sizeof(double) * (size_t)(n * per));
  long e, k;
  CHECK(in && out, "no memory");
  CHECK_MPI(MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &v));
  CHECK_MPI(MPI_Type_create_resized(v, 0, 6 * sizeof(double), &c));
  MPI_Type_free(&v);
  CHECK_MPI(MPI_Type_contiguous(2, c, &v));
  MPI_Type_free(&c);
  CHECK_MPI(MPI_Type_commit(&v));
  for (e = 0; e < n * per; ++e) {
    in[e] = (e % 2) ? -1.0 : (double)(rank * 3 + e % 5);
    out[e] = -2.0;
  }
  CHECK_MPI(MPI_Reduce(in, out, (int)n, v, MPI_MAX, 0, MPI_COMM_WORLD));
  if (rank == 0)
    for (e = 0; e < n; ++e)
      for (k = 0; k < per; ++k) {
        const long at = e * per + k;
        const int data = k % 2 == 0; /* every even double of an element is data */
        const double want = data ? (double)((size - 1) * 3 + at % 5) : -2.0;
        CHECK(out[at] == want, "reduce: double %ld is %g, expected %g", at, out[at], want);
      }
  /* MPI_Reduce_local: inout = in + inout on the data, gaps untouched. */
  for (e = 0; e < n * per; ++e)
    out[e] = (e % 2) ? -3.0 : 1.0;
  CHECK_MPI(MPI_Reduce_local(in, out, (int)n, v, MPI_SUM));
  for (e = 0; e < n * per; ++e) {
    const double want = (e % 2) ? -3.0 : 1.0 + (double)(rank * 3 + e % 5);
    CHECK(out[e] == want, "reduce_local: double %ld is %g, expected %g", e, out[e], want);
  }
  MPI_Type_free(&v);
  free(in);
  free(out);
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  every_other_int(rank, size);
  nested_doubles(rank, size);
  mt_ok("type_reduce_huge");
  MPI_Finalize();
  return 0;
}
