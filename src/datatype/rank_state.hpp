// src/datatype/rank_state.hpp — what the datatype area keeps per virtual rank: its derived
// datatypes (MPI_Datatype handles of handles::kind::datatype) and the names it gave predefined
// types. core's Rank holds one (rank.datatype).
#pragma once

#include "datatype/layout.hpp"

#include <string>
#include <vector>

namespace ampi::datatype {

struct RankState {
  TypeTable types;
  // Names given to predefined types with MPI_Type_set_name, by predefined index (empty: the
  // standard name).
  std::vector<std::string> predefined_type_names;
};

} // namespace ampi::datatype
