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

std::uint32_t agree_context(Rank &self, const MaxOver &max_over, std::uint32_t n) {
  RankState &st = self.comm;
  ++st.agreements;
  std::uint32_t id = 0;
  for (;;) {
    const std::uint32_t proposal = st.next_context;
    st.next_context += n; // an overlapping agreement of this rank proposes above it
    id = max_over(proposal);
    st.next_context = std::max(st.next_context, id + n);
    const bool clash = std::any_of(st.taken.begin(), st.taken.end(), [&](const auto &t) {
      return overlaps(t.first, id, std::max(t.second, n));
    });
    st.taken.emplace_back(id, n);
    if (max_over(clash ? 1u : 0u) == 0) break;
    st.taken.erase(std::find(st.taken.begin(), st.taken.end(), std::pair{id, n}));
  }
  if (--st.agreements == 0) st.taken.clear();
  return id;
}

std::uint32_t agree_context(Rank &self, const Comm &parent, std::uint32_t n, int tag) {
  if (tag < 0) tag = coll::kBlockingTag;
  if (parent.inter())
    return agree_context(
        self, [&](std::uint32_t v) { return max_over_inter(parent, tag, v); }, n);
  return agree_context(
      self,
      [&](std::uint32_t v) {
        coll::allreduce(parent, tag, nullptr, &v, 1, max_u32());
        return v;
      },
      n);
}

} // namespace ampi::comm
