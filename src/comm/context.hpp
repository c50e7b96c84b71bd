// src/comm/context.hpp — agreeing on context ids for new communicators: every member proposes
// the next id it has never used, and all take the largest (an allreduce over the parent), so no
// rank ever holds two communicators with the same id.
#pragma once

#include "comm/comm.hpp"

#include <cstdint>

namespace ampi {
class Rank;
}

namespace ampi::comm {

std::uint32_t agree_context(Rank &self, const Comm &parent);

} // namespace ampi::comm
