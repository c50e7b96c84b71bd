/* tests/rma/rma_shared.c — MPI_Win_allocate_shared among the ranks of one process (found with
 * MPI_Win_shared_query on an ordinary window): each rank writes its own segment with plain stores,
 * the others read it through MPI_Win_shared_query's pointers; the segments are contiguous. Over
 * several processes, MPI_Win_allocate_shared on MPI_COMM_WORLD fails with MPI_ERR_RMA_SHARED. */
#include "../mpi/mpitest.h"

#define M 8

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* Colour = the lowest rank whose memory this rank shares. */
  int *probe_mem;
  MPI_Win probe;
  CHECK_MPI(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &probe_mem,
                             &probe));
  int color = rank;
  for (int r = 0; r < size; ++r) {
    MPI_Aint sz;
    int du;
    void *p = NULL;
    CHECK_MPI(MPI_Win_shared_query(probe, r, &sz, &du, &p));
    if (p) {
      CHECK(sz == sizeof(int) && du == sizeof(int), "shared_query size %ld unit %d", (long)sz, du);
      if (r < color) color = r;
    }
  }
  CHECK_MPI(MPI_Win_free(&probe));
  MPI_Comm node;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, rank, &node));
  int nrank, nsize;
  MPI_Comm_rank(node, &nrank);
  MPI_Comm_size(node, &nsize);

  /* Sizes differ per rank: rank i has i+1 doubles... times M. */
  const MPI_Aint bytes = (nrank + 1) * M * (MPI_Aint)sizeof(double);
  double *mine = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate_shared(bytes, sizeof(double), MPI_INFO_NULL, node, &mine, &win));
  int flavor_flag = 0, *flavor = NULL;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flavor_flag));
  CHECK(flavor_flag && *flavor == MPI_WIN_FLAVOR_SHARED, "flavor attribute");
  CHECK_MPI(MPI_Win_lock_all(0, win));
  for (int i = 0; i < (nrank + 1) * M; ++i)
    mine[i] = rank * 100.0 + i;
  CHECK_MPI(MPI_Win_sync(win));
  MPI_Barrier(node);
  CHECK_MPI(MPI_Win_sync(win));
  double *prev_end = NULL;
  for (int r = 0; r < nsize; ++r) {
    MPI_Aint sz;
    int du;
    double *p = NULL;
    CHECK_MPI(MPI_Win_shared_query(win, r, &sz, &du, &p));
    CHECK(sz == (r + 1) * M * (MPI_Aint)sizeof(double) && du == sizeof(double), "rank %d: size %ld",
          r, (long)sz);
    if (prev_end) CHECK(p == prev_end, "segment of rank %d does not follow rank %d's", r, r - 1);
    prev_end = p + (r + 1) * M;
    int wr;
    MPI_Group g, wg;
    MPI_Comm_group(node, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_translate_ranks(g, 1, &r, wg, &wr);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    for (int i = 0; i < (r + 1) * M; ++i)
      CHECK(p[i] == wr * 100.0 + i, "rank %d's segment [%d] = %g", r, i, p[i]);
  }
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Win_free(&win));

  if (nsize < size) { /* several processes: not shareable */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    double *p = NULL;
    MPI_Win w2 = MPI_WIN_NULL;
    const int rc = MPI_Win_allocate_shared(64, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &p, &w2);
    CHECK(mt_class(rc) == MPI_ERR_RMA_SHARED, "allocate_shared over processes gave %d", rc);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  }
  MPI_Comm_free(&node);
  mt_ok("rma_shared");
  MPI_Finalize();
  return 0;
}
