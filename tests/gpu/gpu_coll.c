/* tests/gpu/gpu_coll.c — collectives on CUDA device buffers (staged through host memory by the
 * library): bcast (contiguous, and a strided type whose gaps must keep their bytes), reduce,
 * allreduce (also MPI_IN_PLACE and non-blocking), allgather, alltoall, alltoallv, gatherv,
 * scatter, reduce_scatter_block and scan, with device send and receive buffers (and a host send
 * buffer with a device receive buffer). Every value is checked against one computed here.
 * Exits 77 (skipped) before MPI_Init where there is no GPU. */
#include "gpu_mpi_test.h"

#include <string.h>

#define N 300

static void *dev(size_t bytes) {
  return dev_ints((bytes + sizeof(int) - 1) / sizeof(int));
}
static int val(int r, int i) {
  return r * 1000 + i;
}

static void bcast(void) {
  int h[N], *d = dev(N * sizeof(int));
  for (int i = 0; i < N; ++i)
    h[i] = rank == 1 % size ? val(7, i) : -1;
  to_dev_bytes(d, h, sizeof h);
  MPI_Bcast(d, N, MPI_INT, 1 % size, MPI_COMM_WORLD);
  from_dev_bytes(h, d, sizeof h);
  for (int i = 0; i < N; ++i)
    if (h[i] != val(7, i)) {
      EXPECT(0, "bcast [%d] = %d", i, h[i]);
      break;
    }
  /* Every third int: the others keep what each rank had (its own mark). */
  MPI_Datatype third;
  MPI_Type_vector(N / 3, 1, 3, MPI_INT, &third);
  MPI_Type_commit(&third);
  for (int i = 0; i < N; ++i)
    h[i] = i % 3 == 0 && rank == 0 ? val(3, i) : -100 - rank;
  to_dev_bytes(d, h, sizeof h);
  MPI_Bcast(d, 1, third, 0, MPI_COMM_WORLD);
  from_dev_bytes(h, d, sizeof h);
  for (int i = 0; i < N; ++i) {
    const int want = i % 3 == 0 ? val(3, i) : -100 - rank;
    if (h[i] != want) {
      EXPECT(0, "strided bcast [%d] = %d, want %d", i, h[i], want);
      break;
    }
  }
  MPI_Type_free(&third);
  dev_free(d);
}

static void reductions(void) {
  double hs[N], hr[N];
  double *ds = dev(sizeof hs), *dr = dev(sizeof hr);
  for (int i = 0; i < N; ++i)
    hs[i] = rank + 0.5 * i;
  to_dev_bytes(ds, hs, sizeof hs);
  const double ranks_sum = size * (size - 1) / 2.0;

  MPI_Allreduce(ds, dr, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  from_dev_bytes(hr, dr, sizeof hr);
  for (int i = 0; i < N; ++i)
    if (hr[i] != ranks_sum + size * 0.5 * i) {
      EXPECT(0, "allreduce [%d] = %g", i, hr[i]);
      break;
    }

  to_dev_bytes(dr, hs, sizeof hs);
  MPI_Allreduce(MPI_IN_PLACE, dr, N, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  from_dev_bytes(hr, dr, sizeof hr);
  for (int i = 0; i < N; ++i)
    if (hr[i] != size - 1 + 0.5 * i) {
      EXPECT(0, "in-place allreduce max [%d] = %g", i, hr[i]);
      break;
    }

  MPI_Request req;
  MPI_Iallreduce(hs, dr, N, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD, &req); /* host send */
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  from_dev_bytes(hr, dr, sizeof hr);
  for (int i = 0; i < N; ++i)
    if (hr[i] != 0.5 * i) {
      EXPECT(0, "iallreduce min [%d] = %g", i, hr[i]);
      break;
    }

  GPU_CHECK(cu.MemsetD8((CUdeviceptr)dr, 0, sizeof hr));
  MPI_Reduce(ds, dr, N, MPI_DOUBLE, MPI_SUM, size - 1, MPI_COMM_WORLD);
  if (rank == size - 1) {
    from_dev_bytes(hr, dr, sizeof hr);
    for (int i = 0; i < N; ++i)
      if (hr[i] != ranks_sum + size * 0.5 * i) {
        EXPECT(0, "reduce [%d] = %g", i, hr[i]);
        break;
      }
  }

  MPI_Scan(ds, dr, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  from_dev_bytes(hr, dr, sizeof hr);
  const double upto = rank * (rank + 1) / 2.0;
  for (int i = 0; i < N; ++i)
    if (hr[i] != upto + (rank + 1) * 0.5 * i) {
      EXPECT(0, "scan [%d] = %g", i, hr[i]);
      break;
    }

  /* reduce_scatter_block: N/size... use blocks of 4 per rank. */
  int *is = dev((size_t)size * 4 * sizeof(int)), *ir = dev(4 * sizeof(int));
  int *h = malloc((size_t)size * 4 * sizeof(int));
  for (int i = 0; i < size * 4; ++i)
    h[i] = rank + i;
  to_dev_bytes(is, h, (size_t)size * 4 * sizeof(int));
  MPI_Reduce_scatter_block(is, ir, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  int got[4];
  from_dev_bytes(got, ir, sizeof got);
  for (int k = 0; k < 4; ++k)
    EXPECT(got[k] == (int)ranks_sum + size * (rank * 4 + k), "reduce_scatter_block [%d] = %d", k,
           got[k]);
  free(h);
  dev_free(is);
  dev_free(ir);
  dev_free(ds);
  dev_free(dr);
}

static void data_movement(void) {
  const size_t all = (size_t)size * 8;
  int *h = malloc(all * sizeof(int)), *mine = malloc(8 * sizeof(int));
  int *dmine = dev(8 * sizeof(int)), *dall = dev(all * sizeof(int)),
      *dall2 = dev(all * sizeof(int));
  for (int i = 0; i < 8; ++i)
    mine[i] = val(rank, i);
  to_dev_bytes(dmine, mine, 8 * sizeof(int));

  MPI_Allgather(dmine, 8, MPI_INT, dall, 8, MPI_INT, MPI_COMM_WORLD);
  from_dev_bytes(h, dall, all * sizeof(int));
  for (size_t i = 0; i < all; ++i)
    if (h[i] != val((int)(i / 8), (int)(i % 8))) {
      EXPECT(0, "allgather [%zu] = %d", i, h[i]);
      break;
    }

  /* alltoall: block j of rank r holds val(r, j). */
  for (int j = 0; j < size; ++j)
    for (int k = 0; k < 8; ++k)
      h[j * 8 + k] = val(rank, j * 8 + k);
  to_dev_bytes(dall, h, all * sizeof(int));
  MPI_Alltoall(dall, 8, MPI_INT, dall2, 8, MPI_INT, MPI_COMM_WORLD);
  from_dev_bytes(h, dall2, all * sizeof(int));
  for (int j = 0; j < size; ++j)
    for (int k = 0; k < 8; ++k)
      if (h[j * 8 + k] != val(j, rank * 8 + k)) {
        EXPECT(0, "alltoall from %d [%d] = %d", j, k, h[j * 8 + k]);
        j = size;
        break;
      }

  /* alltoallv: rank r sends j+1 ints to rank j, at displacement 8*j. */
  int *sc = malloc(size * sizeof(int)), *sd = malloc(size * sizeof(int));
  int *rc = malloc(size * sizeof(int)), *rd = malloc(size * sizeof(int));
  for (int j = 0; j < size; ++j) {
    sc[j] = j + 1 > 8 ? 8 : j + 1;
    sd[j] = 8 * j;
    rc[j] = rank + 1 > 8 ? 8 : rank + 1;
    rd[j] = 8 * j;
  }
  for (size_t i = 0; i < all; ++i)
    h[i] = -7;
  to_dev_bytes(dall2, h, all * sizeof(int));
  MPI_Alltoallv(dall, sc, sd, MPI_INT, dall2, rc, rd, MPI_INT, MPI_COMM_WORLD);
  from_dev_bytes(h, dall2, all * sizeof(int));
  for (int j = 0; j < size; ++j)
    for (int k = 0; k < 8; ++k) {
      const int want = k < rc[j] ? val(j, rank * 8 + k) : -7;
      if (h[j * 8 + k] != want) {
        EXPECT(0, "alltoallv from %d [%d] = %d, want %d", j, k, h[j * 8 + k], want);
        j = size;
        break;
      }
    }

  /* gatherv to rank 0: rank r gives r%8+1 ints at displacement 8*r. */
  for (int j = 0; j < size; ++j) {
    rc[j] = j % 8 + 1;
    rd[j] = 8 * j;
  }
  for (size_t i = 0; i < all; ++i)
    h[i] = -9;
  to_dev_bytes(dall2, h, all * sizeof(int));
  MPI_Gatherv(dmine, rank % 8 + 1, MPI_INT, dall2, rc, rd, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    from_dev_bytes(h, dall2, all * sizeof(int));
    for (int j = 0; j < size; ++j)
      for (int k = 0; k < 8; ++k) {
        const int want = k < rc[j] ? val(j, k) : -9;
        if (h[j * 8 + k] != want) {
          EXPECT(0, "gatherv from %d [%d] = %d, want %d", j, k, h[j * 8 + k], want);
          j = size;
          break;
        }
      }
  }

  /* scatter from the last rank: rank r gets block r. */
  for (size_t i = 0; i < all; ++i)
    h[i] = (int)i * 3;
  to_dev_bytes(dall, h, all * sizeof(int));
  MPI_Scatter(dall, 8, MPI_INT, dmine, 8, MPI_INT, size - 1, MPI_COMM_WORLD);
  from_dev_bytes(mine, dmine, 8 * sizeof(int));
  for (int k = 0; k < 8; ++k)
    EXPECT(mine[k] == (rank * 8 + k) * 3, "scatter [%d] = %d", k, mine[k]);

  free(sc);
  free(sd);
  free(rc);
  free(rd);
  free(h);
  free(mine);
  dev_free(dmine);
  dev_free(dall);
  dev_free(dall2);
}

int main(int argc, char **argv) {
  if (gpu_init() != 0) {
    printf("no GPU: skipped\n");
    return 77;
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bcast();
  reductions();
  data_movement();
  return finish("gpu_coll");
}
