/* tests/mpi/bigcount.c — the MPI-4 large-count functions (MPI_<Name>_c, generated from
 * src/mpi/bigcount.txt): results of the p2p, collective, datatype, pack and one-sided families
 * with MPI_Count/MPI_Aint arguments; MPI_ERR_COUNT where a count does not fit the int path; and,
 * with argv[1] = "large", one message of 2^31 + 100 elements (more than INT_MAX: carried as one
 * element of a derived type) from rank 0 to rank 1, checked through MPI_Get_count_c. */
#include "mpitest.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_small(int rank, int size) {
  const MPI_Count n = 5;
  int i, r;
  /* Point-to-point: a ring with MPI_Sendrecv_c, then MPI_Isend_c/MPI_Irecv_c. */
  {
    int out[5], in[5];
    MPI_Status st;
    MPI_Count got = -1;
    for (i = 0; i < 5; ++i)
      out[i] = rank * 10 + i;
    CHECK_MPI(MPI_Sendrecv_c(out, n, MPI_INT, (rank + 1) % size, 7, in, n, MPI_INT,
                             (rank + size - 1) % size, 7, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Get_count_c(&st, MPI_INT, &got));
    CHECK(got == 5, "MPI_Get_count_c gave %lld, not 5", (long long)got);
    for (i = 0; i < 5; ++i)
      CHECK(in[i] == ((rank + size - 1) % size) * 10 + i, "sendrecv_c in[%d]=%d", i, in[i]);
    {
      MPI_Request rq[2];
      CHECK_MPI(MPI_Irecv_c(in, n, MPI_INT, (rank + size - 1) % size, 8, MPI_COMM_WORLD, &rq[0]));
      CHECK_MPI(MPI_Isend_c(out, n, MPI_INT, (rank + 1) % size, 8, MPI_COMM_WORLD, &rq[1]));
      CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
      CHECK(in[4] == ((rank + size - 1) % size) * 10 + 4, "isend_c/irecv_c in[4]=%d", in[4]);
    }
  }
  /* Collectives: bcast, allreduce, allgatherv and alltoallv with MPI_Count/MPI_Aint arrays. */
  {
    long v = rank == 0 ? 42 : -1, sum = 0;
    int *all = malloc(sizeof(int) * (size_t)size * 2);
    MPI_Count *counts = malloc(sizeof(MPI_Count) * (size_t)size);
    MPI_Aint *displs = malloc(sizeof(MPI_Aint) * (size_t)size);
    int mine[2];
    CHECK_MPI(MPI_Bcast_c(&v, 1, MPI_LONG, 0, MPI_COMM_WORLD));
    CHECK(v == 42, "MPI_Bcast_c gave %ld", v);
    v = rank + 1;
    CHECK_MPI(MPI_Allreduce_c(&v, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == (long)size * (size + 1) / 2, "MPI_Allreduce_c gave %ld", sum);
    /* rank r contributes r % 2 + 1 ints, placed back to front */
    for (r = 0, i = 0; r < size; ++r) {
      counts[r] = r % 2 + 1;
      i += r % 2 + 1;
    }
    for (r = 0; r < size; ++r) {
      i -= r % 2 + 1;
      displs[r] = i;
    }
    mine[0] = rank * 100;
    mine[1] = rank * 100 + 1;
    CHECK_MPI(MPI_Allgatherv_c(mine, rank % 2 + 1, MPI_INT, all, counts, displs, MPI_INT,
                               MPI_COMM_WORLD));
    for (r = 0; r < size; ++r)
      for (i = 0; i < r % 2 + 1; ++i)
        CHECK(all[displs[r] + i] == r * 100 + i, "allgatherv_c: rank %d's element %d is %d", r, i,
              all[displs[r] + i]);
    {
      int *sb = malloc(sizeof(int) * (size_t)size), *rb = malloc(sizeof(int) * (size_t)size);
      MPI_Count *c1 = malloc(sizeof(MPI_Count) * (size_t)size);
      MPI_Aint *d1 = malloc(sizeof(MPI_Aint) * (size_t)size);
      for (r = 0; r < size; ++r) {
        sb[r] = rank * 1000 + r;
        c1[r] = 1;
        d1[r] = r;
      }
      CHECK_MPI(MPI_Alltoallv_c(sb, c1, d1, MPI_INT, rb, c1, d1, MPI_INT, MPI_COMM_WORLD));
      for (r = 0; r < size; ++r)
        CHECK(rb[r] == r * 1000 + rank, "alltoallv_c: rb[%d]=%d", r, rb[r]);
      free(sb);
      free(rb);
      free(c1);
      free(d1);
    }
    free(all);
    free(counts);
    free(displs);
  }
  /* Datatypes: a vector made by MPI_Type_vector_c, its size and extent as MPI_Count. */
  {
    MPI_Datatype vec;
    MPI_Count sz = 0, lb = -1, ext = 0;
    CHECK_MPI(MPI_Type_vector_c(3, 2, 4, MPI_INT, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    CHECK_MPI(MPI_Type_size_c(vec, &sz));
    CHECK_MPI(MPI_Type_get_extent_c(vec, &lb, &ext));
    CHECK(sz == 6 * (MPI_Count)sizeof(int), "MPI_Type_size_c gave %lld", (long long)sz);
    CHECK(lb == 0 && ext == 10 * (MPI_Count)sizeof(int), "extent_c gave lb %lld extent %lld",
          (long long)lb, (long long)ext);
    /* Pack_c / Unpack_c with an MPI_Count position. */
    {
      int src[12], dst[12];
      char packed[64];
      MPI_Count pos = 0, psize = 0;
      for (i = 0; i < 12; ++i) {
        src[i] = i;
        dst[i] = -1;
      }
      CHECK_MPI(MPI_Pack_size_c(1, vec, MPI_COMM_WORLD, &psize));
      CHECK(psize >= sz, "MPI_Pack_size_c gave %lld", (long long)psize);
      CHECK_MPI(MPI_Pack_c(src, 1, vec, packed, (MPI_Count)sizeof packed, &pos, MPI_COMM_WORLD));
      CHECK(pos == sz, "MPI_Pack_c left position at %lld", (long long)pos);
      pos = 0;
      CHECK_MPI(MPI_Unpack_c(packed, (MPI_Count)sizeof packed, &pos, dst, 1, vec, MPI_COMM_WORLD));
      CHECK(
          dst[0] == 0 && dst[1] == 1 && dst[2] == -1 && dst[4] == 4 && dst[9] == 9 && dst[10] == -1,
          "MPI_Unpack_c: dst = %d %d %d %d %d %d", dst[0], dst[1], dst[2], dst[4], dst[9], dst[10]);
    }
    CHECK_MPI(MPI_Type_free(&vec));
  }
  /* One-sided: MPI_Win_create_c (MPI_Aint disp_unit), MPI_Put_c / MPI_Get_c. */
  {
    int *base = calloc((size_t)size, sizeof(int)), got = -1;
    MPI_Win win;
    CHECK_MPI(MPI_Win_create_c(base, (MPI_Aint)(sizeof(int) * (size_t)size), (MPI_Aint)sizeof(int),
                               MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Put_c(&rank, 1, MPI_INT, (rank + 1) % size, rank, 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK(base[(rank + size - 1) % size] == (rank + size - 1) % size, "MPI_Put_c: base[%d]=%d",
          (rank + size - 1) % size, base[(rank + size - 1) % size]);
    CHECK_MPI(MPI_Get_c(&got, 1, MPI_INT, (rank + 1) % size, rank, 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK(got == rank, "MPI_Get_c gave %d", got);
    CHECK_MPI(MPI_Win_free(&win));
    free(base);
  }
}

/* Counts the int path cannot take: MPI_ERR_COUNT, raised through the handler (here: returned). */
static void check_errors(void) {
  const MPI_Count huge = (MPI_Count)1 << 31;
  int cls = 0, v = 0;
  MPI_Datatype t = MPI_DATATYPE_NULL;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  cls = MPI_Allreduce_c(&v, &v, huge, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Error_class(cls, &cls);
  CHECK(cls == MPI_ERR_COUNT, "MPI_Allreduce_c(count=2^31) gave class %d, not MPI_ERR_COUNT", cls);
  cls = MPI_Type_contiguous_c(huge, MPI_INT, &t);
  MPI_Error_class(cls, &cls);
  CHECK(cls == MPI_ERR_COUNT, "MPI_Type_contiguous_c(2^31) gave class %d", cls);
  cls = MPI_Send_c(&v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD);
  MPI_Error_class(cls, &cls);
  CHECK(cls == MPI_ERR_COUNT, "MPI_Send_c(count=-1) gave class %d", cls);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* 2^31 + 100 bytes from rank 0 to rank 1 in one MPI_Send_c / MPI_Recv_c. */
static void check_large(int rank, int size) {
  const MPI_Count n = ((MPI_Count)1 << 31) + 100;
  if (size < 2 || rank > 1) return;
  {
    unsigned char *buf = malloc((size_t)n);
    MPI_Count i;
    CHECK(buf != NULL, "cannot allocate %lld bytes", (long long)n);
    if (rank == 0) {
      for (i = 0; i < n; i += 4096)
        buf[i] = (unsigned char)(i / 4096);
      buf[n - 1] = 0xab;
      CHECK_MPI(MPI_Send_c(buf, n, MPI_BYTE, 1, 3, MPI_COMM_WORLD));
    } else {
      MPI_Status st;
      MPI_Count got = 0;
      memset(buf, 0, (size_t)n);
      CHECK_MPI(MPI_Recv_c(buf, n, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &st));
      CHECK_MPI(MPI_Get_count_c(&st, MPI_BYTE, &got));
      CHECK(got == n, "MPI_Get_count_c gave %lld, not %lld", (long long)got, (long long)n);
      for (i = 0; i < n; i += 4096)
        CHECK(buf[i] == (unsigned char)(i / 4096), "byte %lld is %d", (long long)i, buf[i]);
      CHECK(buf[n - 1] == 0xab, "the last byte is %d", buf[n - 1]);
    }
    free(buf);
  }
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 1 && strcmp(argv[1], "large") == 0) {
    check_large(rank, size);
  } else {
    check_small(rank, size);
    check_errors();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("ok bigcount (%d ranks)\n", size);
  MPI_Finalize();
  return 0;
}
