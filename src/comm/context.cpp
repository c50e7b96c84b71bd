// src/comm/context.cpp — context id agreement (see context.hpp).
#include "comm/context.hpp"

#include "coll/coll.hpp"
#include "core/rank.hpp"

namespace ampi::comm {

std::uint32_t agree_context(Rank &self, const Comm &parent) {
  std::uint32_t id = self.comm.next_context;
  const coll::Reducer max{datatype::reduction(MPI_MAX, MPI_UINT32_T), sizeof id};
  coll::allreduce(parent, nullptr, &id, 1, max);
  self.comm.next_context = id + 2;
  return id;
}

} // namespace ampi::comm
