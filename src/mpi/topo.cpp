// src/mpi/topo.cpp — virtual topologies: Cartesian (MPI_Cart_*, MPI_Dims_create), graph
// (MPI_Graph_*), distributed graph (MPI_Dist_graph_*) and MPI_Topo_test. A topology is a
// comm::Topology attached to a new communicator (reorder is accepted and ignored: ranks keep
// their order); it carries this rank's neighbour lists for the neighbourhood collectives.
#include "coll/coll.hpp"
#include "comm/context.hpp"
#include "comm/topology.hpp"
#include "core/rank.hpp"
#include "mpi/comm_util.hpp"

#include <algorithm>
#include <climits>
#include <functional>
#include <vector>

using namespace ampi;
using namespace ampi::mpi;
using comm::Topology;

namespace {

using Kind = Topology::Kind;

// Row-major coordinates of `rank` in a grid of `dims`.
std::vector<int> cart_coords(const std::vector<int> &dims, int rank) {
  std::vector<int> c(dims.size());
  for (std::size_t i = dims.size(); i-- > 0;) {
    c[i] = rank % dims[i];
    rank /= dims[i];
  }
  return c;
}

// The rank at `coords`, wrapping periodic dimensions; MPI_PROC_NULL when a coordinate falls off
// a non-periodic one.
int cart_rank(const Topology &t, const std::vector<int> &coords) {
  int r = 0;
  for (std::size_t i = 0; i < t.dims.size(); ++i) {
    int c = coords[i];
    if (c < 0 || c >= t.dims[i]) {
      if (!t.periods[i]) return MPI_PROC_NULL;
      c %= t.dims[i];
      if (c < 0) c += t.dims[i];
    }
    r = r * t.dims[i] + c;
  }
  return r;
}

// The ranks `disp` steps down (source) and up (dest) dimension `d` from `rank`.
void cart_shift(const Topology &t, int rank, int d, int disp, int *source, int *dest) {
  std::vector<int> c = cart_coords(t.dims, rank);
  const int at = c[static_cast<std::size_t>(d)];
  c[static_cast<std::size_t>(d)] = at + disp;
  *dest = cart_rank(t, c);
  c[static_cast<std::size_t>(d)] = at - disp;
  *source = cart_rank(t, c);
}

std::shared_ptr<const Topology> make_cart(std::vector<int> dims, std::vector<int> periods,
                                          int rank) {
  auto t = std::make_shared<Topology>();
  t->kind = Kind::Cart;
  t->dims = std::move(dims);
  t->periods = std::move(periods);
  for (int d = 0; d < static_cast<int>(t->dims.size()); ++d) {
    int lo, hi;
    cart_shift(*t, rank, d, 1, &lo, &hi);
    t->sources.push_back(lo);
    t->sources.push_back(hi);
  }
  t->destinations = t->sources;
  return t;
}

std::shared_ptr<const Topology> make_graph(std::vector<int> index, std::vector<int> edges,
                                           int rank) {
  auto t = std::make_shared<Topology>();
  t->kind = Kind::Graph;
  t->index = std::move(index);
  t->edges = std::move(edges);
  const int from = rank == 0 ? 0 : t->index[static_cast<std::size_t>(rank - 1)];
  t->sources.assign(t->edges.begin() + from,
                    t->edges.begin() + t->index[static_cast<std::size_t>(rank)]);
  t->destinations = t->sources;
  return t;
}

// The topology of `c` of kind `k`, or nullptr after raising MPI_ERR_TOPOLOGY.
const Topology *find_topo(const comm::Comm &c, Kind k, const char *fn, int *err) {
  if (!c.topology || c.topology->kind != k) {
    static constexpr const char *kNames[] = {"a Cartesian", "a graph", "a distributed graph"};
    *err = raise(c.handle, MPI_ERR_TOPOLOGY, fn, "%s has no %s topology", comm_label(c),
                 kNames[static_cast<int>(k)]);
    return nullptr;
  }
  return c.topology.get();
}

#define AMPI_TOPO_OR_RETURN(t, c, kind, fn)                                                        \
  const Topology *t = find_topo(*c, kind, fn, &err_);                                              \
  if (!t) return err_;

// Checks ndims/dims/periods of MPI_Cart_create/MPI_Cart_map; the number of grid points via
// `points`. MPI_SUCCESS or the raised error.
int check_cart(MPI_Comm comm, int size, int ndims, const int dims[], const int periods[],
               int *points, const char *fn) {
  if (ndims < 0) return raise(comm, MPI_ERR_DIMS, fn, "ndims=%d is negative", ndims);
  if (ndims > 0 && (!dims || !periods))
    return raise(comm, MPI_ERR_ARG, fn, "dims or periods is NULL");
  long long n = 1;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] <= 0)
      return raise(comm, MPI_ERR_DIMS, fn, "dims[%d]=%d is not positive", i, dims[i]);
    n *= dims[i];
    if (n > size)
      return raise(comm, MPI_ERR_ARG, fn,
                   "the grid has more points than the communicator has ranks (%d)", size);
  }
  *points = static_cast<int>(n);
  return MPI_SUCCESS;
}

// Checks nnodes/index/edges of MPI_Graph_create/MPI_Graph_map.
int check_graph(MPI_Comm comm, int size, int nnodes, const int index[], const int edges[],
                const char *fn) {
  if (nnodes < 0 || nnodes > size)
    return raise(comm, MPI_ERR_ARG, fn, "nnodes=%d is not in 0..%d (the communicator's size)",
                 nnodes, size);
  if (nnodes > 0 && !index) return raise(comm, MPI_ERR_ARG, fn, "index=NULL");
  for (int i = 0; i < nnodes; ++i)
    if (index[i] < (i ? index[i - 1] : 0))
      return raise(comm, MPI_ERR_ARG, fn, "index[%d]=%d is smaller than the one before", i,
                   index[i]);
  const int nedges = nnodes ? index[nnodes - 1] : 0;
  if (nedges > 0 && !edges) return raise(comm, MPI_ERR_ARG, fn, "edges=NULL");
  for (int e = 0; e < nedges; ++e)
    if (edges[e] < 0 || edges[e] >= nnodes)
      return raise(comm, MPI_ERR_RANK, fn, "edges[%d]=%d is not a node (0..%d)", e, edges[e],
                   nnodes - 1);
  return MPI_SUCCESS;
}

// Checks a list of `n` neighbours (ranks of a communicator of `size`) and its weights.
int check_neighbours(MPI_Comm comm, int size, int n, const int ranks[], const int weights[],
                     const char *what, const char *fn) {
  if (n < 0) return raise(comm, MPI_ERR_ARG, fn, "%s degree %d is negative", what, n);
  if (n > 0 && !ranks) return raise(comm, MPI_ERR_ARG, fn, "%s list is NULL", what);
  for (int i = 0; i < n; ++i)
    if (ranks[i] < 0 || ranks[i] >= size)
      return raise(comm, MPI_ERR_RANK, fn, "%s[%d]=%d is not a rank (0..%d)", what, i, ranks[i],
                   size - 1);
  if (n > 0 && (!weights || weights == MPI_WEIGHTS_EMPTY))
    return raise(comm, MPI_ERR_ARG, fn, "%s weights are NULL or MPI_WEIGHTS_EMPTY", what);
  if (weights != MPI_UNWEIGHTED && weights != MPI_WEIGHTS_EMPTY)
    for (int i = 0; i < n; ++i)
      if (weights[i] < 0)
        return raise(comm, MPI_ERR_ARG, fn, "%s weight [%d]=%d is negative", what, i, weights[i]);
  return MPI_SUCCESS;
}

// A communicator over the first `points` ranks of `c` (MPI_COMM_NULL for the others) with
// topology `make(rank)`.
int create_topo_comm(Rank &self, const comm::Comm &c, int points,
                     const std::function<std::shared_ptr<const Topology>(int)> &make,
                     MPI_Comm *newcomm) {
  comm::Comm *d = split_comm(self, c, c.rank < points ? 0 : MPI_UNDEFINED, c.rank);
  if (!d) {
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  d->topology = make(d->rank);
  *newcomm = d->handle;
  return MPI_SUCCESS;
}

} // namespace

// ---- Cartesian ----------------------------------------------------------------------------

namespace {
// Virtual topologies are defined on intracommunicators only.
int not_intra(MPI_Comm h, const comm::Comm &c, const char *fn) {
  return raise(h, MPI_ERR_COMM, fn,
               "%s is an intercommunicator (topologies need an intracommunicator)", comm_label(c));
}
} // namespace

extern "C" int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                                int reorder, MPI_Comm *comm_cart) {
  static constexpr const char *fn = "MPI_Cart_create";
  (void)reorder;
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm_old, fn)
  if (c->inter()) return not_intra(comm_old, *c, fn);
  if (!comm_cart) return raise(comm_old, MPI_ERR_ARG, fn, "comm_cart=NULL");
  int points = 0;
  if (int e = check_cart(comm_old, c->size(), ndims, dims, periods, &points, fn)) return e;
  std::vector<int> d(dims, dims + ndims), p(static_cast<std::size_t>(ndims));
  for (int i = 0; i < ndims; ++i)
    p[static_cast<std::size_t>(i)] = periods[i] != 0;
  return create_topo_comm(
      *self, *c, points, [&](int rank) { return make_cart(d, p, rank); }, comm_cart);
}
AMPI_PMPI_ALIAS(MPI_Cart_create)

extern "C" int PMPI_Dims_create(int nnodes, int ndims, int dims[]) {
  static constexpr const char *fn = "MPI_Dims_create";
  enter(fn);
  if (nnodes <= 0)
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "nnodes=%d is not positive", nnodes);
  if (ndims < 0) return raise(MPI_COMM_WORLD, MPI_ERR_DIMS, fn, "ndims=%d is negative", ndims);
  if (ndims > 0 && !dims) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "dims=NULL");
  long long fixed = 1;
  int free_dims = 0;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] < 0)
      return raise(MPI_COMM_WORLD, MPI_ERR_DIMS, fn, "dims[%d]=%d is negative", i, dims[i]);
    if (dims[i] == 0)
      ++free_dims;
    else if (nnodes % dims[i] != 0 || nnodes % (fixed * dims[i]) != 0)
      return raise(MPI_COMM_WORLD, MPI_ERR_DIMS, fn,
                   "the fixed dims do not divide nnodes=%d (dims[%d]=%d)", nnodes, i, dims[i]);
    else
      fixed *= dims[i];
  }
  const int rest = static_cast<int>(nnodes / fixed);
  if (free_dims == 0) {
    if (rest != 1)
      return raise(MPI_COMM_WORLD, MPI_ERR_DIMS, fn,
                   "the product of dims is %lld, not nnodes=%d, and none is free", fixed, nnodes);
    return MPI_SUCCESS;
  }
  // The most balanced factorisation of `rest` into free_dims factors: the smallest largest
  // factor, then the largest smallest one, found by a search over non-increasing divisor chains.
  // Only divisors of `rest` can be factors: list them once, largest first.
  std::vector<int> divisors, large;
  for (int f = 1; static_cast<long long>(f) * f <= rest; ++f)
    if (rest % f == 0) {
      divisors.push_back(f);
      if (f != rest / f) large.push_back(rest / f);
    }
  std::reverse(divisors.begin(), divisors.end());
  large.insert(large.end(), divisors.begin(), divisors.end());
  divisors = std::move(large); // descending
  std::vector<int> best, cur;
  std::function<void(int, int, int)> search = [&](int left, int slots, int max_factor) {
    if (slots == 1) {
      if (left > max_factor) return;
      cur.push_back(left);
      if (best.empty() || cur.front() < best.front() ||
          (cur.front() == best.front() && cur.back() > best.back()))
        best = cur;
      cur.pop_back();
      return;
    }
    for (int f : divisors) {
      if (f > max_factor || left % f) continue;
      // The largest of the remaining factors is at least left^(1/slots).
      long long pow = 1;
      for (int s = 0; s < slots && pow < left; ++s)
        pow *= f;
      if (pow < left) break; // f^slots < left: no smaller f works either
      if (!best.empty() && cur.empty() && f > best.front()) continue;
      cur.push_back(f);
      search(left / f, slots - 1, f);
      cur.pop_back();
    }
  };
  search(rest, free_dims, rest);
  for (int i = 0, k = 0; i < ndims; ++i)
    if (dims[i] == 0) dims[i] = best[static_cast<std::size_t>(k++)];
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Dims_create)

extern "C" int PMPI_Cartdim_get(MPI_Comm comm, int *ndims) {
  static constexpr const char *fn = "MPI_Cartdim_get";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  AMPI_TOPO_OR_RETURN(t, c, Kind::Cart, fn)
  if (!ndims) return raise(comm, MPI_ERR_ARG, fn, "ndims=NULL");
  *ndims = static_cast<int>(t->dims.size());
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Cartdim_get)

extern "C" int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
  static constexpr const char *fn = "MPI_Cart_get";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  AMPI_TOPO_OR_RETURN(t, c, Kind::Cart, fn)
  const int n = static_cast<int>(t->dims.size());
  if (maxdims < n)
    return raise(comm, MPI_ERR_ARG, fn, "maxdims=%d is less than the topology's %d dimensions",
                 maxdims, n);
  if (n > 0 && (!dims || !periods || !coords))
    return raise(comm, MPI_ERR_ARG, fn, "dims, periods or coords is NULL");
  const std::vector<int> co = cart_coords(t->dims, c->rank);
  for (int i = 0; i < n; ++i) {
    dims[i] = t->dims[static_cast<std::size_t>(i)];
    periods[i] = t->periods[static_cast<std::size_t>(i)];
    coords[i] = co[static_cast<std::size_t>(i)];
  }
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Cart_get)

extern "C" int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank) {
  static constexpr const char *fn = "MPI_Cart_rank";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  AMPI_TOPO_OR_RETURN(t, c, Kind::Cart, fn)
  if (!rank || (!coords && !t->dims.empty()))
    return raise(comm, MPI_ERR_ARG, fn, "coords or rank is NULL");
  std::vector<int> co(coords, coords + t->dims.size());
  for (std::size_t i = 0; i < co.size(); ++i)
    if (!t->periods[i] && (co[i] < 0 || co[i] >= t->dims[i]))
      return raise(comm, MPI_ERR_ARG, fn,
                   "coords[%zu]=%d is outside 0..%d of a non-periodic dimension", i, co[i],
                   t->dims[i] - 1);
  *rank = cart_rank(*t, co);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Cart_rank)

extern "C" int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
  static constexpr const char *fn = "MPI_Cart_coords";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  AMPI_TOPO_OR_RETURN(t, c, Kind::Cart, fn)
  const int n = static_cast<int>(t->dims.size());
  if (rank < 0 || rank >= c->size())
    return raise(comm, MPI_ERR_RANK, fn, "rank=%d is not in 0..%d", rank, c->size() - 1);
  if (maxdims < n)
    return raise(comm, MPI_ERR_ARG, fn, "maxdims=%d is less than the topology's %d dimensions",
                 maxdims, n);
  if (n > 0 && !coords) return raise(comm, MPI_ERR_ARG, fn, "coords=NULL");
  const std::vector<int> co = cart_coords(t->dims, rank);
  std::copy(co.begin(), co.end(), coords);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Cart_coords)

extern "C" int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source,
                               int *rank_dest) {
  static constexpr const char *fn = "MPI_Cart_shift";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  AMPI_TOPO_OR_RETURN(t, c, Kind::Cart, fn)
  if (direction < 0 || direction >= static_cast<int>(t->dims.size()))
    return raise(comm, MPI_ERR_ARG, fn, "direction=%d is not in 0..%d", direction,
                 static_cast<int>(t->dims.size()) - 1);
  if (!rank_source || !rank_dest)
    return raise(comm, MPI_ERR_ARG, fn, "rank_source or rank_dest is NULL");
  cart_shift(*t, c->rank, direction, disp, rank_source, rank_dest);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Cart_shift)

extern "C" int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm) {
  static constexpr const char *fn = "MPI_Cart_sub";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  AMPI_TOPO_OR_RETURN(t, c, Kind::Cart, fn)
  if (!newcomm || (!remain_dims && !t->dims.empty()))
    return raise(comm, MPI_ERR_ARG, fn, "remain_dims or newcomm is NULL");
  // Colour: my position along the dropped dimensions; the kept ones keep the row-major order,
  // which is the parent's rank order.
  const std::vector<int> co = cart_coords(t->dims, c->rank);
  std::vector<int> dims, periods;
  int color = 0;
  for (std::size_t i = 0; i < t->dims.size(); ++i) {
    if (remain_dims[i]) {
      dims.push_back(t->dims[i]);
      periods.push_back(t->periods[i]);
    } else {
      color = color * t->dims[i] + co[i];
    }
  }
  comm::Comm *d = split_comm(*self, *c, color, c->rank);
  d->topology = make_cart(std::move(dims), std::move(periods), d->rank);
  *newcomm = d->handle;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Cart_sub)

extern "C" int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                             int *newrank) {
  static constexpr const char *fn = "MPI_Cart_map";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  if (!newrank) return raise(comm, MPI_ERR_ARG, fn, "newrank=NULL");
  int points = 0;
  if (int e = check_cart(comm, c->size(), ndims, dims, periods, &points, fn)) return e;
  *newrank = c->rank < points ? c->rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Cart_map)

// ---- graph --------------------------------------------------------------------------------

extern "C" int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[],
                                 const int edges[], int reorder, MPI_Comm *comm_graph) {
  static constexpr const char *fn = "MPI_Graph_create";
  (void)reorder;
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm_old, fn)
  if (c->inter()) return not_intra(comm_old, *c, fn);
  if (!comm_graph) return raise(comm_old, MPI_ERR_ARG, fn, "comm_graph=NULL");
  if (int e = check_graph(comm_old, c->size(), nnodes, index, edges, fn)) return e;
  std::vector<int> ix(index, index + nnodes);
  std::vector<int> ed(edges, edges + (nnodes ? index[nnodes - 1] : 0));
  return create_topo_comm(
      *self, *c, nnodes, [&](int rank) { return make_graph(ix, ed, rank); }, comm_graph);
}
AMPI_PMPI_ALIAS(MPI_Graph_create)

extern "C" int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges) {
  static constexpr const char *fn = "MPI_Graphdims_get";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  AMPI_TOPO_OR_RETURN(t, c, Kind::Graph, fn)
  if (!nnodes || !nedges) return raise(comm, MPI_ERR_ARG, fn, "nnodes or nedges is NULL");
  *nnodes = static_cast<int>(t->index.size());
  *nedges = static_cast<int>(t->edges.size());
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Graphdims_get)

extern "C" int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]) {
  static constexpr const char *fn = "MPI_Graph_get";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  AMPI_TOPO_OR_RETURN(t, c, Kind::Graph, fn)
  if (maxindex < 0 || maxedges < 0 || (maxindex > 0 && !index) || (maxedges > 0 && !edges))
    return raise(comm, MPI_ERR_ARG, fn, "maxindex=%d, maxedges=%d or an array is NULL", maxindex,
                 maxedges);
  std::copy_n(t->index.begin(), std::min<std::size_t>(t->index.size(), maxindex), index);
  std::copy_n(t->edges.begin(), std::min<std::size_t>(t->edges.size(), maxedges), edges);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Graph_get)

extern "C" int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors) {
  static constexpr const char *fn = "MPI_Graph_neighbors_count";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  AMPI_TOPO_OR_RETURN(t, c, Kind::Graph, fn)
  if (rank < 0 || rank >= c->size())
    return raise(comm, MPI_ERR_RANK, fn, "rank=%d is not in 0..%d", rank, c->size() - 1);
  if (!nneighbors) return raise(comm, MPI_ERR_ARG, fn, "nneighbors=NULL");
  const std::size_t r = static_cast<std::size_t>(rank);
  *nneighbors = t->index[r] - (r ? t->index[r - 1] : 0);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Graph_neighbors_count)

extern "C" int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
  static constexpr const char *fn = "MPI_Graph_neighbors";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  AMPI_TOPO_OR_RETURN(t, c, Kind::Graph, fn)
  if (rank < 0 || rank >= c->size())
    return raise(comm, MPI_ERR_RANK, fn, "rank=%d is not in 0..%d", rank, c->size() - 1);
  if (maxneighbors < 0 || (maxneighbors > 0 && !neighbors))
    return raise(comm, MPI_ERR_ARG, fn, "maxneighbors=%d or neighbors is NULL", maxneighbors);
  const std::size_t r = static_cast<std::size_t>(rank);
  const int from = r ? t->index[r - 1] : 0;
  const int n = std::min(t->index[r] - from, maxneighbors);
  std::copy_n(t->edges.begin() + from, n, neighbors);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Graph_neighbors)

extern "C" int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                              int *newrank) {
  static constexpr const char *fn = "MPI_Graph_map";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  if (!newrank) return raise(comm, MPI_ERR_ARG, fn, "newrank=NULL");
  if (int e = check_graph(comm, c->size(), nnodes, index, edges, fn)) return e;
  *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Graph_map)

// ---- distributed graph --------------------------------------------------------------------

namespace {

// A communicator with the group of `c` and the distributed-graph topology `t` (collective).
int create_dist_graph(Rank &self, const comm::Comm &c, std::shared_ptr<Topology> t,
                      MPI_Comm *newcomm) {
  const std::uint32_t context = comm::agree_context(self, c);
  comm::Comm &d = install_comm(self, c, c.group, c.rank, context);
  t->kind = Kind::DistGraph;
  d.topology = std::move(t);
  *newcomm = d.handle;
  return MPI_SUCCESS;
}

} // namespace

extern "C" int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                               const int sourceweights[], int outdegree,
                                               const int destinations[], const int destweights[],
                                               MPI_Info info, int reorder,
                                               MPI_Comm *comm_dist_graph) {
  static constexpr const char *fn = "MPI_Dist_graph_create_adjacent";
  (void)reorder;
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm_old, fn)
  if (c->inter()) return not_intra(comm_old, *c, fn);
  if (!comm_dist_graph) return raise(comm_old, MPI_ERR_ARG, fn, "comm_dist_graph=NULL");
  if (!find_hints(*self, info, fn, &err_)) return err_;
  if (int e =
          check_neighbours(comm_old, c->size(), indegree, sources, sourceweights, "sources", fn))
    return e;
  if (int e = check_neighbours(comm_old, c->size(), outdegree, destinations, destweights,
                               "destinations", fn))
    return e;
  auto t = std::make_shared<Topology>();
  t->sources.assign(sources, sources + indegree);
  t->destinations.assign(destinations, destinations + outdegree);
  t->weighted = sourceweights != MPI_UNWEIGHTED && destweights != MPI_UNWEIGHTED;
  if (t->weighted) {
    if (indegree > 0) t->source_weights.assign(sourceweights, sourceweights + indegree);
    if (outdegree > 0) t->destination_weights.assign(destweights, destweights + outdegree);
  }
  return create_dist_graph(*self, *c, std::move(t), comm_dist_graph);
}
AMPI_PMPI_ALIAS(MPI_Dist_graph_create_adjacent)

extern "C" int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[],
                                      const int degrees[], const int destinations[],
                                      const int weights[], MPI_Info info, int reorder,
                                      MPI_Comm *comm_dist_graph) {
  static constexpr const char *fn = "MPI_Dist_graph_create";
  (void)reorder;
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm_old, fn)
  if (c->inter()) return not_intra(comm_old, *c, fn);
  if (!comm_dist_graph) return raise(comm_old, MPI_ERR_ARG, fn, "comm_dist_graph=NULL");
  if (!find_hints(*self, info, fn, &err_)) return err_;
  if (n < 0) return raise(comm_old, MPI_ERR_ARG, fn, "n=%d is negative", n);
  if (n > 0 && (!sources || !degrees))
    return raise(comm_old, MPI_ERR_ARG, fn, "sources or degrees is NULL");
  int nedges = 0;
  for (int i = 0; i < n; ++i) {
    if (degrees[i] < 0)
      return raise(comm_old, MPI_ERR_ARG, fn, "degrees[%d]=%d is negative", i, degrees[i]);
    if (sources[i] < 0 || sources[i] >= c->size())
      return raise(comm_old, MPI_ERR_RANK, fn, "sources[%d]=%d is not a rank", i, sources[i]);
    nedges += degrees[i];
  }
  if (int e =
          check_neighbours(comm_old, c->size(), nedges, destinations, weights, "destinations", fn))
    return e;
  const bool weighted = weights != MPI_UNWEIGHTED;
  // Every rank learns every edge (one allgather of the counts, one of the edges padded to the
  // longest list), then keeps those that start or end at itself, in (giver, position) order.
  struct Edge {
    int from, to, weight;
  };
  std::vector<Edge> mine;
  for (int i = 0, k = 0; i < n; ++i)
    for (int j = 0; j < degrees[i]; ++j, ++k)
      mine.push_back({sources[i], destinations[k], weighted && nedges ? weights[k] : 1});
  struct Count {
    int edges, weighted;
  };
  const Count my_count{nedges, weighted};
  std::vector<Count> counts(static_cast<std::size_t>(c->size()));
  coll::allgather(*c, &my_count, counts.data(), sizeof(Count));
  int longest = 0;
  bool any_weighted = false;
  for (const Count &k : counts) {
    longest = std::max(longest, k.edges);
    any_weighted = any_weighted || k.weighted;
  }
  auto t = std::make_shared<Topology>();
  t->weighted = any_weighted;
  if (longest > 0) {
    mine.resize(static_cast<std::size_t>(longest));
    std::vector<Edge> all(static_cast<std::size_t>(longest) * static_cast<std::size_t>(c->size()));
    coll::allgather(*c, mine.data(), all.data(), sizeof(Edge) * static_cast<std::size_t>(longest));
    for (int r = 0; r < c->size(); ++r)
      for (int k = 0; k < counts[static_cast<std::size_t>(r)].edges; ++k) {
        const Edge &e = all[static_cast<std::size_t>(r) * static_cast<std::size_t>(longest) +
                            static_cast<std::size_t>(k)];
        if (e.to == c->rank) {
          t->sources.push_back(e.from);
          if (any_weighted) t->source_weights.push_back(e.weight);
        }
        if (e.from == c->rank) {
          t->destinations.push_back(e.to);
          if (any_weighted) t->destination_weights.push_back(e.weight);
        }
      }
  }
  return create_dist_graph(*self, *c, std::move(t), comm_dist_graph);
}
AMPI_PMPI_ALIAS(MPI_Dist_graph_create)

extern "C" int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree,
                                               int *weighted) {
  static constexpr const char *fn = "MPI_Dist_graph_neighbors_count";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  AMPI_TOPO_OR_RETURN(t, c, Kind::DistGraph, fn)
  if (!indegree || !outdegree || !weighted)
    return raise(comm, MPI_ERR_ARG, fn, "indegree, outdegree or weighted is NULL");
  *indegree = static_cast<int>(t->sources.size());
  *outdegree = static_cast<int>(t->destinations.size());
  *weighted = t->weighted;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Dist_graph_neighbors_count)

extern "C" int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[],
                                         int sourceweights[], int maxoutdegree, int destinations[],
                                         int destweights[]) {
  static constexpr const char *fn = "MPI_Dist_graph_neighbors";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  AMPI_TOPO_OR_RETURN(t, c, Kind::DistGraph, fn)
  const int in = static_cast<int>(t->sources.size()),
            out = static_cast<int>(t->destinations.size());
  if (maxindegree < in || maxoutdegree < out)
    return raise(comm, MPI_ERR_ARG, fn,
                 "maxindegree=%d or maxoutdegree=%d is less than the degree (%d in, %d out)",
                 maxindegree, maxoutdegree, in, out);
  if ((in > 0 && !sources) || (out > 0 && !destinations))
    return raise(comm, MPI_ERR_ARG, fn, "sources or destinations is NULL");
  std::copy_n(t->sources.begin(), in, sources);
  std::copy_n(t->destinations.begin(), out, destinations);
  if (t->weighted) {
    if (sourceweights && sourceweights != MPI_UNWEIGHTED && sourceweights != MPI_WEIGHTS_EMPTY)
      std::copy_n(t->source_weights.begin(), in, sourceweights);
    if (destweights && destweights != MPI_UNWEIGHTED && destweights != MPI_WEIGHTS_EMPTY)
      std::copy_n(t->destination_weights.begin(), out, destweights);
  }
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Dist_graph_neighbors)

extern "C" int PMPI_Topo_test(MPI_Comm comm, int *status) {
  static constexpr const char *fn = "MPI_Topo_test";
  auto self = enter(fn);
  AMPI_COMM_OR_RETURN(*self, c, comm, fn)
  if (!status) return raise(comm, MPI_ERR_ARG, fn, "status=NULL");
  if (!c->topology)
    *status = MPI_UNDEFINED;
  else
    switch (c->topology->kind) {
    case Kind::Cart:
      *status = MPI_CART;
      break;
    case Kind::Graph:
      *status = MPI_GRAPH;
      break;
    case Kind::DistGraph:
      *status = MPI_DIST_GRAPH;
      break;
    }
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Topo_test)
