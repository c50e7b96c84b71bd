/* tests/rma/rma_dtype.c — RMA with derived datatypes on either side: a strided (vector) target
 * for put and accumulate, a strided origin for get, an indexed target for get_accumulate;
 * values checked against ones computed from the ranks. */
#include "../mpi/mpitest.h"

#define W 64

static int val(int rank, int i) {
  return rank * 100 + i;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int *mem;
  MPI_Win win;
  CHECK_MPI(
      MPI_Win_allocate(W * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  for (int i = 0; i < W; ++i)
    mem[i] = -1;
  MPI_Datatype every2, every3, idx;
  MPI_Type_vector(8, 1, 2, MPI_INT, &every2); /* 8 ints, every other one */
  MPI_Type_vector(8, 1, 3, MPI_INT, &every3);
  const int lens[3] = {2, 1, 3}, displs[3] = {0, 4, 9};
  MPI_Type_indexed(3, lens, displs, MPI_INT, &idx); /* 6 ints at 0,1,4,9,10,11 */
  MPI_Type_commit(&every2);
  MPI_Type_commit(&every3);
  MPI_Type_commit(&idx);
  int src[8], got[24], res[6], six[6];
  for (int i = 0; i < 8; ++i)
    src[i] = val(rank, i);
  for (int i = 0; i < 24; ++i)
    got[i] = -7;
  for (int i = 0; i < 6; ++i)
    six[i] = 1;

  CHECK_MPI(MPI_Win_fence(0, win));
  /* mem[0,2,..,14] of the right neighbour = src; mem[32..39] stays for the get below. */
  CHECK_MPI(MPI_Put(src, 8, MPI_INT, right, 0, 1, every2, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int i = 0; i < 16; ++i)
    CHECK(mem[i] == (i % 2 ? -1 : val(left, i / 2)), "strided put: mem[%d]=%d", i, mem[i]);
  for (int i = 0; i < 8; ++i)
    mem[32 + i] = val(rank, 50 + i);
  CHECK_MPI(MPI_Win_fence(0, win));
  /* Strided origin: got[0,3,..,21] = left's mem[32..39]. */
  CHECK_MPI(MPI_Get(got, 1, every3, left, 32, 8, MPI_INT, win));
  /* Everyone adds 1 to rank 0's mem[40,42,..,54]. */
  const int ones[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  CHECK_MPI(MPI_Accumulate(ones, 8, MPI_INT, 0, 40, 1, every2, MPI_SUM, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int i = 0; i < 24; ++i)
    CHECK(got[i] == (i % 3 ? -7 : val(left, 50 + i / 3)), "strided get: got[%d]=%d", i, got[i]);
  if (rank == 0)
    for (int i = 40; i < 56; ++i)
      CHECK(mem[i] == (i % 2 ? -1 : size - 1), "strided accumulate: mem[%d]=%d", i, mem[i]);
  /* Indexed target: get_accumulate fetches the old values and adds 1, on the right neighbour's
   * mem[0,1,4,9,10,11]. */
  CHECK_MPI(MPI_Get_accumulate(six, 6, MPI_INT, res, 6, MPI_INT, right, 0, 1, idx, MPI_SUM, win));
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  const int at[6] = {0, 1, 4, 9, 10, 11};
  for (int k = 0; k < 6; ++k) {
    const int i = at[k];
    const int before = i < 16 ? (i % 2 ? -1 : val(rank, i / 2)) : -1;
    CHECK(res[k] == before, "indexed get_accumulate old [%d]: %d expected %d", k, res[k], before);
    const int lbefore = i < 16 ? (i % 2 ? -1 : val(left, i / 2)) : -1;
    CHECK(mem[i] == lbefore + 1, "indexed get_accumulate new mem[%d]=%d", i, mem[i]);
  }
  MPI_Type_free(&every2);
  MPI_Type_free(&every3);
  MPI_Type_free(&idx);
  CHECK_MPI(MPI_Win_free(&win));
  mt_ok("rma_dtype");
  MPI_Finalize();
  return 0;
}
