// src/comm/topology.hpp — the virtual topology attached to a communicator (MPI_Cart_create,
// MPI_Graph_create, MPI_Dist_graph_create(_adjacent)): its description, and this rank's neighbour
// lists in the order the neighbourhood collectives use them.
#pragma once

#include <vector>

namespace ampi::comm {

struct Topology {
  enum class Kind { Cart, Graph, DistGraph } kind = Kind::Cart;
  // Cartesian: dimensions and periodicity.
  std::vector<int> dims;
  std::vector<int> periods;
  // Graph (MPI_Graph_create): the whole graph as given.
  std::vector<int> index;
  std::vector<int> edges;
  // This rank's neighbours, in the order MPI defines for neighbourhood collectives:
  // Cartesian: for each dimension, the rank at -1 then at +1 (MPI_PROC_NULL at a non-periodic
  // edge), the same list for sources and destinations; graph: the adjacency list for both;
  // distributed graph: the sources and destinations as given, with their weights.
  std::vector<int> sources;
  std::vector<int> destinations;
  std::vector<int> source_weights;
  std::vector<int> destination_weights;
  bool weighted = false;
};

} // namespace ampi::comm
