// src/comm/context.cpp — context id agreement (see context.hpp).
#include "comm/context.hpp"

#include "coll/coll.hpp"
#include "core/rank.hpp"

#include <algorithm>

namespace ampi::comm {

namespace {

const coll::Reducer &max_u32() {
  static const coll::Reducer max{datatype::reduction(MPI_MAX, MPI_UINT32_T), sizeof(std::uint32_t)};
  return max;
}

bool overlaps(std::uint32_t a, std::uint32_t b, std::uint32_t n) {
  return a < b + n && b < a + n;
}

} // namespace

std::uint32_t max_over_inter(const Comm &inter, int tag, std::uint32_t v) {
  std::uint32_t mine = v, theirs = 0;
  coll::allreduce(*inter.local, tag, &v, &mine, 1, max_u32());
  // The remote group's maximum, from the intercommunicator's allreduce.
  coll::allreduce(inter, tag, &mine, &theirs, 1, max_u32());
  return std::max(mine, theirs);
}

// The step (in units of n) by which round `round` of the agreement `key` moves its proposal up:
// the same at every member, and unlikely to be the same for two agreements in one round.
std::uint32_t spread(std::uint64_t key, std::uint32_t round) {
  std::uint64_t x = key ^ (0x9E3779B97F4A7C15ull * (round + 1));
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return 1 + static_cast<std::uint32_t>(x % 64);
}

std::uint32_t agree_context(Rank &self, const MaxOver &max_over, std::uint32_t n,
                            std::uint64_t key) {
  RankState &st = self.comm;
  st.agreements.push_back(key);
  std::uint32_t id = 0;
  for (std::uint32_t round = 0;; ++round) {
    // The step stays out of next_context: the other agreement of a crossing pair proposes above
    // next_context at this rank, and carrying our step there would hand both the same sum.
    const std::uint32_t proposal = st.next_context + (round ? n * spread(key, round) : 0);
    st.next_context += n; // an overlapping agreement of this rank proposes above it
    id = max_over(proposal);
    st.next_context = std::max(st.next_context, id + n);
    const bool clash = std::any_of(st.taken.begin(), st.taken.end(), [&](const auto &t) {
      return !t.retry && overlaps(t.first, id, std::max(t.count, n));
    });
    st.taken.push_back({id, n, clash});
    if (max_over(clash ? 1u : 0u) == 0) break; // kept (our vote was no): later ones avoid it
    // Other entries may have come and gone meanwhile: find ours again by value (an equal entry
    // of another agreement is interchangeable with it).
    st.taken.erase(std::find_if(st.taken.begin(), st.taken.end(), [&](const auto &t) {
      return t.first == id && t.count == n && t.retry == clash;
    }));
  }
  st.agreements.erase(std::find(st.agreements.begin(), st.agreements.end(), key));
  if (st.agreements.empty()) st.taken.clear();
  return id;
}

std::uint32_t agree_context(Rank &self, const Comm &parent, std::uint32_t n, int tag) {
  if (tag < 0) tag = coll::kBlockingTag;
  const std::uint64_t key = std::uint64_t{parent.context} << 32 | static_cast<std::uint32_t>(tag);
  if (parent.inter())
    return agree_context(
        self, [&](std::uint32_t v) { return max_over_inter(parent, tag, v); }, n, key);
  return agree_context(
      self,
      [&](std::uint32_t v) {
        coll::allreduce(parent, tag, nullptr, &v, 1, max_u32());
        return v;
      },
      n, key);
}

} // namespace ampi::comm
