/* tests/coll/coll_neighbor.c — the neighbourhood collectives (blocking and non-blocking) on a
 * periodic ring, on a 2-D Cartesian grid with one non-periodic dimension (MPI_PROC_NULL slots
 * are skipped and left untouched) and on a distributed graph. Neighbours are computed here from
 * coordinates (row-major), independently of the library; block contents encode (sender, slot). */
#include "mpitest.h"

#define UNTOUCHED (-77)
static int f(int sender, int slot, int i) {
  return sender * 10000 + slot * 100 + i;
}

/* the neighbour of `me` on a row-major grid dims[0] x dims[1], in dimension d, direction dir */
static int cart_neighbor(const int *dims, const int *periods, int me, int d, int dir) {
  int c[2] = {me / dims[1], me % dims[1]};
  c[d] += dir;
  if (c[d] < 0 || c[d] >= dims[d]) {
    if (!periods[d]) return MPI_PROC_NULL;
    c[d] = (c[d] + dims[d]) % dims[d];
  }
  return c[0] * dims[1] + c[1];
}

static void check_cart(int *dims, int *periods, int n, int nonblocking) {
  int p, me;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm cart;
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
  int nb[4];
  for (int d = 0; d < 2; ++d)
    for (int s = 0; s < 2; ++s)
      nb[2 * d + s] = cart_neighbor(dims, periods, me, d, s ? 1 : -1);
  int *sb = malloc(sizeof(int) * 4 * (n + 1)), *rb = malloc(sizeof(int) * 4 * (n + 1));
  /* alltoall: block k goes to nb[k]; slot k receives what nb[k] sent towards us (its slot k^1) */
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < n; ++i)
      sb[k * n + i] = f(me, k, i);
  for (int i = 0; i < 4 * n; ++i)
    rb[i] = UNTOUCHED;
  if (nonblocking) {
    MPI_Request r;
    CHECK_MPI(MPI_Ineighbor_alltoall(sb, n, MPI_INT, rb, n, MPI_INT, cart, &r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  } else {
    CHECK_MPI(MPI_Neighbor_alltoall(sb, n, MPI_INT, rb, n, MPI_INT, cart));
  }
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < n; ++i) {
      int want = nb[k] == MPI_PROC_NULL ? UNTOUCHED : f(nb[k], k ^ 1, i);
      CHECK(rb[k * n + i] == want, "cart %dx%d neighbor_alltoall slot %d i=%d got %d want %d",
            dims[0], dims[1], k, i, rb[k * n + i], want);
    }
  /* allgather: everybody sends the same block */
  for (int i = 0; i < n; ++i)
    sb[i] = f(me, 9, i);
  for (int i = 0; i < 4 * n; ++i)
    rb[i] = UNTOUCHED;
  if (nonblocking) {
    MPI_Request r;
    CHECK_MPI(MPI_Ineighbor_allgather(sb, n, MPI_INT, rb, n, MPI_INT, cart, &r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  } else {
    CHECK_MPI(MPI_Neighbor_allgather(sb, n, MPI_INT, rb, n, MPI_INT, cart));
  }
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < n; ++i) {
      int want = nb[k] == MPI_PROC_NULL ? UNTOUCHED : f(nb[k], 9, i);
      CHECK(rb[k * n + i] == want, "cart neighbor_allgather slot %d i=%d", k, i);
    }
  CHECK_MPI(MPI_Comm_free(&cart));
  free(sb);
  free(rb);
}

static void check_graph(int n, int nonblocking) {
  int p, me;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  /* edges r -> r+1 and r -> r+2 (mod p): sources me-1, me-2; destinations me+1, me+2 */
  int src[2] = {(me - 1 + p) % p, (me - 2 + 2 * p) % p}, dst[2] = {(me + 1) % p, (me + 2) % p};
  MPI_Comm g;
  CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, MPI_UNWEIGHTED, 2, dst,
                                           MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g));
  /* alltoallv: the block to dst[k] has n + k elements; displacements with gaps */
  int sc[2] = {n, n + 1}, sd[2] = {0, n + 3}, rc[2] = {n, n + 1}, rd[2] = {1, n + 4};
  int *sb = malloc(sizeof(int) * (2 * n + 8)), *rb = malloc(sizeof(int) * (2 * n + 8));
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < sc[k]; ++i)
      sb[sd[k] + i] = f(me, k, i);
  for (int i = 0; i < 2 * n + 8; ++i)
    rb[i] = UNTOUCHED;
  if (nonblocking) {
    MPI_Request r;
    CHECK_MPI(MPI_Ineighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, g, &r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  } else {
    CHECK_MPI(MPI_Neighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, g));
  }
  /* source k sent to us as its destination k (me = src[k] + k + 1) */
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < rc[k]; ++i)
      CHECK(rb[rd[k] + i] == f(src[k], k, i), "graph neighbor_alltoallv slot %d i=%d got %d", k, i,
            rb[rd[k] + i]);
  CHECK(rb[0] == UNTOUCHED, "alltoallv wrote outside its blocks");
  /* alltoallw with byte displacements (MPI_Aint) */
  MPI_Aint swd[2] = {0, (MPI_Aint)sizeof(int) * (n + 3)},
           rwd[2] = {(MPI_Aint)sizeof(int), (MPI_Aint)sizeof(int) * (n + 4)};
  MPI_Datatype ty[2] = {MPI_INT, MPI_INT};
  for (int i = 0; i < 2 * n + 8; ++i)
    rb[i] = UNTOUCHED;
  if (nonblocking) {
    MPI_Request r;
    CHECK_MPI(MPI_Ineighbor_alltoallw(sb, sc, swd, ty, rb, rc, rwd, ty, g, &r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  } else {
    CHECK_MPI(MPI_Neighbor_alltoallw(sb, sc, swd, ty, rb, rc, rwd, ty, g));
  }
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < rc[k]; ++i)
      CHECK(rb[rd[k] + i] == f(src[k], k, i), "graph neighbor_alltoallw slot %d", k);
  /* allgatherv */
  for (int i = 0; i < n; ++i)
    sb[i] = f(me, 5, i);
  int gc[2] = {n, n}, gd[2] = {n + 2, 0};
  for (int i = 0; i < 2 * n + 8; ++i)
    rb[i] = UNTOUCHED;
  if (nonblocking) {
    MPI_Request r;
    CHECK_MPI(MPI_Ineighbor_allgatherv(sb, n, MPI_INT, rb, gc, gd, MPI_INT, g, &r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  } else {
    CHECK_MPI(MPI_Neighbor_allgatherv(sb, n, MPI_INT, rb, gc, gd, MPI_INT, g));
  }
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < n; ++i)
      CHECK(rb[gd[k] + i] == f(src[k], 5, i), "graph neighbor_allgatherv slot %d", k);
  CHECK_MPI(MPI_Comm_free(&g));
  free(sb);
  free(rb);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int p;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  const int counts[] = {0, 1, 5, 20000};
  for (int nbk = 0; nbk < 2; ++nbk)
    for (int k = 0; k < 4; ++k) {
      int ring[2] = {1, p}, rp[2] = {1, 1};
      check_cart(ring, rp, counts[k], nbk); /* periodic ring (a 1 x p torus) */
      int grid[2] = {p % 2 == 0 ? 2 : 1, p % 2 == 0 ? p / 2 : p}, gp[2] = {0, 1};
      check_cart(grid, gp, counts[k], nbk);
      int line[2] = {p, 1}, lp[2] = {0, 0};
      check_cart(line, lp, counts[k], nbk);
      check_graph(counts[k], nbk);
    }
  /* a communicator without a topology */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int x = 0, y[4];
  int e = MPI_Neighbor_allgather(&x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD);
  CHECK(mt_class(e) == MPI_ERR_TOPOLOGY, "neighbor_allgather without topology gave %d", e);
  mt_ok("coll_neighbor");
  MPI_Finalize();
  return 0;
}
