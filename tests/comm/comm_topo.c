/* tests/comm/comm_topo.c — virtual topologies. MPI_Dims_create against a brute-force search
 * and a table; Cartesian grids (3-D periodic, non-periodic and mixed) with coordinates, ranks and
 * shifts checked by arithmetic and by messages along each shift; Cart_sub, Cart_map, a grid
 * smaller than the communicator, dup keeping the topology; graph (a ring with chords) and
 * distributed graphs (adjacent, and the general form with edges given by other ranks), with
 * their neighbour lists and weights; MPI_Topo_test; and the error classes of bad calls. */
#include "mpitest.h"

static int imod(int a, int n) {
  return ((a % n) + n) % n;
}

static int cmp_int(const void *a, const void *b) {
  return *(const int *)a - *(const int *)b;
}

/* The most balanced factorisation of n into k factors (non-increasing): smallest largest factor,
 * then largest smallest factor; by brute force for k <= 3. */
static void brute_dims(int n, int k, int *out) {
  int a, b, c, best[3] = {0, 0, 0};
  if (k == 1) {
    out[0] = n;
    return;
  }
  for (a = 1; a <= n; ++a)
    for (b = 1; b <= a; ++b) {
      if (k == 2) {
        if (a * b != n) continue;
        if (!best[0] || a < best[0] || (a == best[0] && b > best[1])) {
          best[0] = a;
          best[1] = b;
        }
        continue;
      }
      for (c = 1; c <= b; ++c)
        if (a * b * c == n && (!best[0] || a < best[0] || (a == best[0] && c > best[2]) ||
                               (a == best[0] && c == best[2] && b > best[1]))) {
          best[0] = a;
          best[1] = b;
          best[2] = c;
        }
    }
  memcpy(out, best, (size_t)k * sizeof(int));
}

static void check_dims(void) {
  int n, k, i, dims[3], want[3];
  for (n = 1; n <= 120; ++n)
    for (k = 1; k <= 3; ++k) {
      memset(dims, 0, sizeof dims);
      CHECK_MPI(MPI_Dims_create(n, k, dims));
      brute_dims(n, k, want);
      for (i = 0; i < k; ++i)
        CHECK(dims[i] == want[i], "Dims_create(%d, %d)[%d] = %d, expected %d", n, k, i, dims[i],
              want[i]);
    }
  {
    /* A table of well-known answers, and fixed entries. */
    int d[4] = {0, 0, 0, 0};
    CHECK_MPI(MPI_Dims_create(24, 3, d));
    CHECK(d[0] == 4 && d[1] == 3 && d[2] == 2, "24 in 3: %d %d %d", d[0], d[1], d[2]);
    d[0] = 0, d[1] = 3, d[2] = 0;
    CHECK_MPI(MPI_Dims_create(6, 3, d));
    CHECK(d[0] == 2 && d[1] == 3 && d[2] == 1, "6 in (0,3,0): %d %d %d", d[0], d[1], d[2]);
    d[0] = 0, d[1] = 0, d[2] = 0, d[3] = 0;
    CHECK_MPI(MPI_Dims_create(7, 2, d));
    CHECK(d[0] == 7 && d[1] == 1, "7 in 2: %d %d", d[0], d[1]);
    d[0] = 0, d[1] = 0, d[2] = 0, d[3] = 0;
    CHECK_MPI(MPI_Dims_create(256, 4, d));
    CHECK(d[0] == 4 && d[1] == 4 && d[2] == 4 && d[3] == 4, "256 in 4");
    d[0] = 2, d[1] = 0, d[2] = 5;
    CHECK_MPI(MPI_Dims_create(60, 3, d));
    CHECK(d[0] == 2 && d[1] == 6 && d[2] == 5, "60 in (2,0,5): %d", d[1]);
    d[0] = 3, d[1] = 2;
    CHECK_MPI(MPI_Dims_create(6, 2, d));
    CHECK(d[0] == 3 && d[1] == 2, "all fixed and right: unchanged");
    /* errors */
    d[0] = 0, d[1] = 3, d[2] = 0;
    CHECK(mt_class(MPI_Dims_create(7, 3, d)) == MPI_ERR_DIMS, "3 does not divide 7");
    d[0] = 3, d[1] = 3;
    CHECK(mt_class(MPI_Dims_create(6, 2, d)) == MPI_ERR_DIMS, "all fixed, wrong product");
    d[0] = -1, d[1] = 0;
    CHECK(mt_class(MPI_Dims_create(6, 2, d)) == MPI_ERR_DIMS, "a negative dim");
    CHECK(mt_class(MPI_Dims_create(6, -1, d)) == MPI_ERR_DIMS, "ndims < 0");
    d[0] = 0, d[1] = 0;
    CHECK(mt_class(MPI_Dims_create(-6, 2, d)) == MPI_ERR_ARG, "nnodes < 0");
  }
}

/* Checks a Cartesian communicator of `dims`/`periods` (3-D) against arithmetic, and sends along
 * every shift. */
static void check_cart(MPI_Comm cart, const int *dims, const int *periods, int rank) {
  int coords[3], c[3], d[3], p[3], nd = -1, r, dim, disp, src, dst, status, i;
  const int n = dims[0] * dims[1] * dims[2];
  int size;
  CHECK_MPI(MPI_Comm_size(cart, &size));
  CHECK(size == n, "cart size %d, expected %d", size, n);
  CHECK_MPI(MPI_Topo_test(cart, &status));
  CHECK(status == MPI_CART, "Topo_test %d", status);
  CHECK_MPI(MPI_Cartdim_get(cart, &nd));
  CHECK(nd == 3, "Cartdim_get %d", nd);
  /* row-major: rank = (c0 * d1 + c1) * d2 + c2 */
  coords[2] = rank % dims[2];
  coords[1] = (rank / dims[2]) % dims[1];
  coords[0] = rank / (dims[1] * dims[2]);
  CHECK_MPI(MPI_Cart_get(cart, 3, d, p, c));
  for (i = 0; i < 3; ++i)
    CHECK(d[i] == dims[i] && !!p[i] == !!periods[i] && c[i] == coords[i], "Cart_get dim %d", i);
  for (r = 0; r < n; ++r) {
    CHECK_MPI(MPI_Cart_coords(cart, r, 3, c));
    CHECK(c[2] == r % dims[2] && c[1] == (r / dims[2]) % dims[1] && c[0] == r / (dims[1] * dims[2]),
          "Cart_coords(%d)", r);
    CHECK_MPI(MPI_Cart_rank(cart, c, &i));
    CHECK(i == r, "Cart_rank(coords of %d) = %d", r, i);
  }
  for (dim = 0; dim < 3; ++dim)
    for (disp = -2; disp <= 2; ++disp) {
      int want_src, want_dst, up = coords[dim] + disp, down = coords[dim] - disp;
      CHECK_MPI(MPI_Cart_shift(cart, dim, disp, &src, &dst));
      memcpy(c, coords, sizeof c);
      if (periods[dim] || (up >= 0 && up < dims[dim])) {
        c[dim] = imod(up, dims[dim]);
        want_dst = (c[0] * dims[1] + c[1]) * dims[2] + c[2];
      } else {
        want_dst = MPI_PROC_NULL;
      }
      memcpy(c, coords, sizeof c);
      if (periods[dim] || (down >= 0 && down < dims[dim])) {
        c[dim] = imod(down, dims[dim]);
        want_src = (c[0] * dims[1] + c[1]) * dims[2] + c[2];
      } else {
        want_src = MPI_PROC_NULL;
      }
      CHECK(src == want_src && dst == want_dst, "Cart_shift(%d, %d): (%d, %d), expected (%d, %d)",
            dim, disp, src, dst, want_src, want_dst);
      {
        int got = -7;
        CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, dst, dim, &got, 1, MPI_INT, src, dim, cart,
                               MPI_STATUS_IGNORE));
        CHECK(got == (src == MPI_PROC_NULL ? -7 : src), "shift message from %d: %d", src, got);
      }
    }
  /* Periodic dimensions wrap in Cart_rank; non-periodic ones reject out-of-range coordinates. */
  memcpy(c, coords, sizeof c);
  c[0] = -1;
  if (periods[0]) {
    CHECK_MPI(MPI_Cart_rank(cart, c, &i));
    CHECK(i == ((dims[0] - 1) * dims[1] + coords[1]) * dims[2] + coords[2], "wrap -1: %d", i);
  } else {
    CHECK(mt_class(MPI_Cart_rank(cart, c, &i)) == MPI_ERR_ARG, "coords out of a fixed dimension");
  }
}

int main(int argc, char **argv) {
  int rank, size, i, status;
  MPI_Comm cart, sub, d;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  check_dims();

  /* ---- Cartesian ---- */
  {
    int dims[3] = {0, 0, 0}, kinds;
    const int patterns[3][3] = {{1, 1, 1}, {0, 0, 0}, {1, 0, 1}};
    CHECK_MPI(MPI_Dims_create(size, 3, dims));
    for (kinds = 0; kinds < 3; ++kinds) {
      CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 3, dims, patterns[kinds], 0, &cart));
      check_cart(cart, dims, patterns[kinds], rank);
      /* A dup keeps the topology. */
      CHECK_MPI(MPI_Comm_dup(cart, &d));
      check_cart(d, dims, patterns[kinds], rank);
      CHECK_MPI(MPI_Comm_free(&d));
      /* Cart_sub keeping dimensions 0 and 2. */
      {
        const int keep[3] = {1, 0, 1};
        int c[2], sd[2], sp[2], sc[2], ssize, srank, nd;
        const int c0 = rank / (dims[1] * dims[2]), c2 = rank % dims[2];
        CHECK_MPI(MPI_Cart_sub(cart, keep, &sub));
        CHECK_MPI(MPI_Comm_size(sub, &ssize));
        CHECK_MPI(MPI_Comm_rank(sub, &srank));
        CHECK(ssize == dims[0] * dims[2] && srank == c0 * dims[2] + c2, "Cart_sub: %d of %d", srank,
              ssize);
        CHECK_MPI(MPI_Cartdim_get(sub, &nd));
        CHECK(nd == 2, "sub has 2 dims");
        CHECK_MPI(MPI_Cart_get(sub, 2, sd, sp, sc));
        CHECK(sd[0] == dims[0] && sd[1] == dims[2] && sp[0] == patterns[kinds][0] &&
                  sp[1] == patterns[kinds][2] && sc[0] == c0 && sc[1] == c2,
              "Cart_get on the sub-grid");
        CHECK_MPI(MPI_Cart_coords(sub, srank, 2, c));
        CHECK(c[0] == c0 && c[1] == c2, "coords in the sub-grid");
        {
          int sum = 0, want = 0, me = rank, q;
          CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, sub));
          for (q = 0; q < size; ++q)
            if ((q / dims[2]) % dims[1] == (rank / dims[2]) % dims[1]) want += q;
          CHECK(sum == want, "sub-grid members: sum %d, expected %d", sum, want);
        }
        CHECK_MPI(MPI_Comm_free(&sub));
      }
      {
        const int none[3] = {0, 0, 0};
        int ssize, nd;
        CHECK_MPI(MPI_Cart_sub(cart, none, &sub));
        CHECK_MPI(MPI_Comm_size(sub, &ssize));
        CHECK_MPI(MPI_Cartdim_get(sub, &nd));
        CHECK(ssize == 1 && nd == 0, "Cart_sub keeping nothing: size %d, %d dims", ssize, nd);
        CHECK_MPI(MPI_Comm_free(&sub));
      }
      CHECK_MPI(MPI_Comm_free(&cart));
    }
    /* A grid smaller than the communicator: the last rank is left out. */
    if (size > 1) {
      const int n1 = size - 1, per = 0;
      int newrank;
      CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, &n1, &per, 1, &cart));
      CHECK((rank == size - 1) == (cart == MPI_COMM_NULL), "grid of size-1 ranks");
      if (cart != MPI_COMM_NULL) CHECK_MPI(MPI_Comm_free(&cart));
      CHECK_MPI(MPI_Cart_map(MPI_COMM_WORLD, 1, &n1, &per, &newrank));
      CHECK(newrank == (rank == size - 1 ? MPI_UNDEFINED : rank), "Cart_map %d", newrank);
    }
    /* errors */
    {
      int bad[2] = {size, 2}, per[2] = {0, 0}, src, dst, c[3];
      CHECK(mt_class(MPI_Cart_create(MPI_COMM_WORLD, 2, bad, per, 0, &cart)) == MPI_ERR_ARG,
            "a grid larger than the communicator");
      bad[1] = 0;
      CHECK(mt_class(MPI_Cart_create(MPI_COMM_WORLD, 2, bad, per, 0, &cart)) == MPI_ERR_DIMS,
            "a zero dimension");
      CHECK(mt_class(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &src, &dst)) == MPI_ERR_TOPOLOGY,
            "Cart_shift without a topology");
      CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 3, dims, patterns[0], 0, &cart));
      CHECK(mt_class(MPI_Cart_coords(cart, size, 3, c)) == MPI_ERR_RANK, "Cart_coords(size)");
      CHECK(mt_class(MPI_Cart_shift(cart, 3, 1, &src, &dst)) == MPI_ERR_ARG, "direction 3");
      CHECK(mt_class(MPI_Graphdims_get(cart, &src, &dst)) == MPI_ERR_TOPOLOGY, "graph on a grid");
      CHECK_MPI(MPI_Topo_test(MPI_COMM_WORLD, &status));
      CHECK(status == MPI_UNDEFINED, "no topology on MPI_COMM_WORLD");
      CHECK_MPI(MPI_Comm_free(&cart));
    }
  }

  /* ---- graph: node i is linked to i+1 and i-1 (mod size) ---- */
  {
    int *index = malloc((size_t)size * sizeof(int)),
        *edges = malloc(2 * (size_t)size * sizeof(int));
    int nn, ne, cnt, nb[2], got[2], want[2], *gi, *ge, newrank;
    MPI_Request req[4];
    for (i = 0; i < size; ++i) {
      index[i] = 2 * (i + 1);
      edges[2 * i] = (i + 1) % size;
      edges[2 * i + 1] = imod(i - 1, size);
    }
    CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &cart));
    CHECK_MPI(MPI_Topo_test(cart, &status));
    CHECK(status == MPI_GRAPH, "Topo_test %d", status);
    CHECK_MPI(MPI_Graphdims_get(cart, &nn, &ne));
    CHECK(nn == size && ne == 2 * size, "Graphdims_get %d %d", nn, ne);
    gi = malloc((size_t)size * sizeof(int));
    ge = malloc(2 * (size_t)size * sizeof(int));
    CHECK_MPI(MPI_Graph_get(cart, size, 2 * size, gi, ge));
    CHECK(memcmp(gi, index, (size_t)size * sizeof(int)) == 0 &&
              memcmp(ge, edges, 2 * (size_t)size * sizeof(int)) == 0,
          "Graph_get");
    CHECK_MPI(MPI_Graph_neighbors_count(cart, rank, &cnt));
    CHECK(cnt == 2, "2 neighbours, got %d", cnt);
    CHECK_MPI(MPI_Graph_neighbors(cart, rank, 2, nb));
    CHECK(nb[0] == (rank + 1) % size && nb[1] == imod(rank - 1, size), "Graph_neighbors");
    /* Each rank sends its rank to both neighbours: it hears from both (the graph is symmetric). */
    CHECK_MPI(MPI_Irecv(&got[0], 1, MPI_INT, nb[0], 0, cart, &req[0]));
    CHECK_MPI(MPI_Irecv(&got[1], 1, MPI_INT, nb[1], 1, cart, &req[1]));
    CHECK_MPI(MPI_Isend(&rank, 1, MPI_INT, nb[1], 0, cart, &req[2]));
    CHECK_MPI(MPI_Isend(&rank, 1, MPI_INT, nb[0], 1, cart, &req[3]));
    CHECK_MPI(MPI_Waitall(4, req, MPI_STATUSES_IGNORE));
    want[0] = nb[0];
    want[1] = nb[1];
    CHECK(got[0] == want[0] && got[1] == want[1], "graph messages");
    CHECK_MPI(MPI_Comm_dup(cart, &d));
    CHECK_MPI(MPI_Topo_test(d, &status));
    CHECK(status == MPI_GRAPH, "dup keeps the graph");
    CHECK_MPI(MPI_Comm_free(&d));
    CHECK_MPI(MPI_Comm_free(&cart));
    CHECK_MPI(MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, &newrank));
    CHECK(newrank == rank, "Graph_map");
    edges[0] = size;
    CHECK(mt_class(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &cart)) == MPI_ERR_RANK,
          "an edge to a node that does not exist");
    CHECK(mt_class(MPI_Graph_create(MPI_COMM_WORLD, size + 1, index, edges, 0, &cart)) ==
              MPI_ERR_ARG,
          "more nodes than ranks");
    free(index);
    free(edges);
    free(gi);
    free(ge);
  }

  /* ---- distributed graph, adjacent: in from r-1, r-2; out to r+1, r+2; weighted ---- */
  {
    int src[2] = {imod(rank - 1, size), imod(rank - 2, size)};
    int dst[2] = {(rank + 1) % size, (rank + 2) % size};
    int sw[2] = {10 * src[0], 10 * src[1] + 1}, dw[2] = {7, 8};
    int in, out, weighted, s[2], t[2], a[2], b[2];
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, sw, 2, dst, dw, MPI_INFO_NULL,
                                             0, &cart));
    CHECK_MPI(MPI_Topo_test(cart, &status));
    CHECK(status == MPI_DIST_GRAPH, "Topo_test %d", status);
    CHECK_MPI(MPI_Dist_graph_neighbors_count(cart, &in, &out, &weighted));
    CHECK(in == 2 && out == 2 && weighted, "counts %d %d %d", in, out, weighted);
    CHECK_MPI(MPI_Dist_graph_neighbors(cart, 2, s, a, 2, t, b));
    CHECK(s[0] == src[0] && s[1] == src[1] && t[0] == dst[0] && t[1] == dst[1], "neighbours");
    CHECK(a[0] == sw[0] && a[1] == sw[1] && b[0] == 7 && b[1] == 8, "weights");
    CHECK(mt_class(MPI_Dist_graph_neighbors(cart, 1, s, a, 2, t, b)) == MPI_ERR_ARG,
          "maxindegree too small");
    CHECK_MPI(MPI_Comm_free(&cart));
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, MPI_UNWEIGHTED, 2, dst,
                                             MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &cart));
    CHECK_MPI(MPI_Dist_graph_neighbors_count(cart, &in, &out, &weighted));
    CHECK(in == 2 && out == 2 && !weighted, "unweighted counts %d %d %d", in, out, weighted);
    CHECK_MPI(MPI_Comm_free(&cart));
    src[0] = size;
    CHECK(mt_class(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, MPI_UNWEIGHTED, 2, dst,
                                                  MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &cart)) ==
              MPI_ERR_RANK,
          "a source that is not a rank");
  }

  /* ---- distributed graph, general: r gives the edges r->r+1 and r->r+3 (weight 100r+dest);
   * and a second graph whose edges i->i+1 are all given by rank 0 ---- */
  {
    int srcs[1] = {rank}, deg[1] = {2}, dsts[2] = {(rank + 1) % size, (rank + 3) % size};
    int w[2] = {100 * rank + dsts[0], 100 * rank + dsts[1]};
    int in, out, weighted, s[2], sw[2], t[2], tw[2], want_s[2], k;
    CHECK_MPI(
        MPI_Dist_graph_create(MPI_COMM_WORLD, 1, srcs, deg, dsts, w, MPI_INFO_NULL, 0, &cart));
    CHECK_MPI(MPI_Dist_graph_neighbors_count(cart, &in, &out, &weighted));
    CHECK(in == 2 && out == 2 && weighted, "general: counts %d %d %d", in, out, weighted);
    CHECK_MPI(MPI_Dist_graph_neighbors(cart, 2, s, sw, 2, t, tw));
    /* The order of the lists is the library's; each edge comes with its weight. */
    for (k = 0; k < 2; ++k) {
      CHECK(sw[k] == 100 * s[k] + rank, "in-edge from %d has weight %d", s[k], sw[k]);
      CHECK(tw[k] == 100 * rank + t[k], "out-edge to %d has weight %d", t[k], tw[k]);
    }
    want_s[0] = imod(rank - 1, size);
    want_s[1] = imod(rank - 3, size);
    qsort(want_s, 2, sizeof(int), cmp_int);
    qsort(s, 2, sizeof(int), cmp_int);
    CHECK(s[0] == want_s[0] && s[1] == want_s[1], "in-neighbours {%d,%d}, expected {%d,%d}", s[0],
          s[1], want_s[0], want_s[1]);
    qsort(t, 2, sizeof(int), cmp_int);
    qsort(dsts, 2, sizeof(int), cmp_int);
    CHECK(t[0] == dsts[0] && t[1] == dsts[1], "out-neighbours");
    CHECK_MPI(MPI_Comm_free(&cart));
  }
  {
    int *srcs = malloc((size_t)size * sizeof(int)), *deg = malloc((size_t)size * sizeof(int));
    int *dsts = malloc((size_t)size * sizeof(int)), in, out, weighted, s, t;
    for (i = 0; i < size; ++i) {
      srcs[i] = i;
      deg[i] = 1;
      dsts[i] = (i + 1) % size;
    }
    CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, rank == 0 ? size : 0, srcs, deg, dsts,
                                    MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &cart));
    CHECK_MPI(MPI_Dist_graph_neighbors_count(cart, &in, &out, &weighted));
    CHECK(in == 1 && out == 1 && !weighted, "edges from rank 0: %d %d %d", in, out, weighted);
    CHECK_MPI(MPI_Dist_graph_neighbors(cart, 1, &s, MPI_UNWEIGHTED, 1, &t, MPI_UNWEIGHTED));
    CHECK(s == imod(rank - 1, size) && t == (rank + 1) % size, "ring given by rank 0: %d %d", s, t);
    {
      int got = -1;
      CHECK_MPI(
          MPI_Sendrecv(&rank, 1, MPI_INT, t, 3, &got, 1, MPI_INT, s, 3, cart, MPI_STATUS_IGNORE));
      CHECK(got == s, "ring message %d", got);
    }
    CHECK(mt_class(MPI_Cart_shift(cart, 0, 1, &s, &t)) == MPI_ERR_TOPOLOGY, "shift on a graph");
    CHECK_MPI(MPI_Comm_free(&cart));
    free(srcs);
    free(deg);
    free(dsts);
  }

  mt_ok("comm_topo");
  MPI_Finalize();
  return 0;
}
