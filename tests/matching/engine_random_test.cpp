// Randomized differential test of ampi::matching::Engine: a seeded PRNG drives the Engine and a
// plain reference model of MPI matching (vectors scanned in order) side by side through
// interleaved arrivals, receives, probes, matched probes and cancels, and every operation must
// return the same entry from both. Failures name the seed and the operation index.
#include "matching/engine.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <ostream>
#include <string>
#include <vector>

namespace ampi::matching {
namespace {

struct Recv : PostedReceive {};
struct Msg : UnexpectedMessage {};

// Reference model: MPI matching stated directly.
struct Model {
  std::vector<Recv *> posted;    // posting order
  std::vector<Msg *> unexpected; // arrival order

  Recv *take_posted(const Envelope &env) {
    for (auto it = posted.begin(); it != posted.end(); ++it)
      if (matches((*it)->pattern, env)) {
        Recv *r = *it;
        posted.erase(it);
        return r;
      }
    return nullptr;
  }
  Msg *peek_unexpected(const Pattern &p) {
    for (Msg *m : unexpected)
      if (matches(p, m->envelope)) return m;
    return nullptr;
  }
  Msg *take_unexpected(const Pattern &p) {
    Msg *m = peek_unexpected(p);
    if (m) std::erase(unexpected, m);
    return m;
  }
};

class Rng { // splitmix64: deterministic on every platform
public:
  explicit Rng(std::uint64_t seed) : s_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (s_ += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
  }
  int below(int n) { return static_cast<int>(next() % static_cast<std::uint64_t>(n)); }

private:
  std::uint64_t s_;
};

struct Config {
  const char *name;
  int contexts;
  int sources;
  int tags;
  int ops;
  std::size_t pool; // entries of each kind; bounds the queue lengths
  bool expect_sweeps;
};

struct Case {
  Config config;
  std::uint64_t seed;
};

void PrintTo(const Case &c, std::ostream *os) {
  *os << "config=" << c.config.name << " seed=" << c.seed;
}

std::string case_name(const ::testing::TestParamInfo<Case> &info) {
  return std::string(info.param.config.name) + "_seed" + std::to_string(info.param.seed);
}

class MatchingRandom : public ::testing::TestWithParam<Case> {};

TEST_P(MatchingRandom, AgreesWithReferenceModel) {
  const Config cfg = GetParam().config;
  const std::uint64_t seed = GetParam().seed;
  SCOPED_TRACE(testing::Message() << "config=" << cfg.name << " seed=" << seed);
  Rng rng(seed);
  Engine engine;
  Model model;

  std::deque<Recv> recvs(cfg.pool); // stable addresses
  std::deque<Msg> msgs(cfg.pool);
  std::vector<Recv *> free_recvs;
  std::vector<Msg *> free_msgs;
  for (Recv &r : recvs)
    free_recvs.push_back(&r);
  for (Msg &m : msgs)
    free_msgs.push_back(&m);

  auto random_envelope = [&] { // half the tags from a small hot set, so that wide configs match
    const auto context = static_cast<std::uint32_t>(rng.below(cfg.contexts));
    const int source = rng.below(cfg.sources);
    const int tag = rng.below(rng.below(2) == 0 ? std::min(cfg.tags, 6) : cfg.tags);
    return Envelope{context, source, tag};
  };
  auto random_pattern = [&] { // ~30% wildcards: 12% any source, 12% any tag, 6% both
    const Envelope e = random_envelope();
    Pattern p{e.context, e.source, e.tag};
    const int w = rng.below(100);
    if (w < 18) p.source = kAnySource;
    if (w >= 12 && w < 30) p.tag = kAnyTag;
    return p;
  };
  auto take_free = [&](auto &pool) {
    const auto i = static_cast<std::size_t>(rng.below(static_cast<int>(pool.size())));
    auto *x = pool[i];
    pool[i] = pool.back();
    pool.pop_back();
    return x;
  };

  // Phases shift the balance between arrivals and receives so that both queues alternately
  // grow long and drain.
  int arrive_weight = 35, recv_weight = 35;
  std::uint64_t matched = 0, wildcard_matched = 0, sweeps = 0;
  std::size_t peak_live = 0, last_buckets = 0;
  for (int op = 0; op < cfg.ops; ++op) {
    SCOPED_TRACE(testing::Message() << "op=" << op);
    if (op % 5000 == 0) {
      static constexpr int kBalance[][2] = {{35, 35}, {55, 15}, {15, 55}, {30, 40}};
      const int b = rng.below(4);
      arrive_weight = kBalance[b][0];
      recv_weight = kBalance[b][1];
    }
    int dice = rng.below(100);
    if ((dice -= arrive_weight) < 0) { // a message arrives
      if (free_msgs.empty()) continue;
      const Envelope env = random_envelope();
      Recv *expected = model.take_posted(env);
      PostedReceive *got = engine.take_posted(env);
      ASSERT_EQ(got, expected);
      if (expected) {
        ++matched;
        wildcard_matched += expected->pattern.source < 0 || expected->pattern.tag < 0;
        free_recvs.push_back(expected);
      } else {
        Msg *m = take_free(free_msgs);
        m->envelope = env;
        model.unexpected.push_back(m);
        engine.add_unexpected(*m);
      }
    } else if ((dice -= recv_weight) < 0) { // a receive is posted
      if (free_recvs.empty()) continue;
      const Pattern p = random_pattern();
      Msg *expected = model.take_unexpected(p);
      UnexpectedMessage *got = engine.take_unexpected(p);
      ASSERT_EQ(got, expected);
      if (expected) {
        ++matched;
        free_msgs.push_back(expected);
      } else {
        Recv *r = take_free(free_recvs);
        r->pattern = p;
        model.posted.push_back(r);
        engine.add_posted(*r);
      }
    } else if ((dice -= 12) < 0) { // probe; half of them matched probes
      const Pattern p = random_pattern();
      Msg *expected = model.peek_unexpected(p);
      ASSERT_EQ(engine.peek_unexpected(p), expected);
      if (expected && rng.below(2) == 0) {
        ASSERT_TRUE(engine.remove_unexpected(*expected));
        std::erase(model.unexpected, expected);
        free_msgs.push_back(expected);
      }
    } else if ((dice -= 10) < 0) { // cancel a receive: queued or not
      if (!model.posted.empty() && rng.below(4) != 0) {
        const auto i = static_cast<std::size_t>(rng.below(static_cast<int>(model.posted.size())));
        Recv *r = model.posted[i];
        model.posted.erase(model.posted.begin() + static_cast<std::ptrdiff_t>(i));
        ASSERT_TRUE(engine.remove_posted(*r));
        free_recvs.push_back(r);
      } else if (!free_recvs.empty()) {
        ASSERT_FALSE(engine.remove_posted(*free_recvs[0]));
      }
    } else if ((dice -= 4) < 0) { // unlink a specific message: queued or not
      if (!model.unexpected.empty() && rng.below(4) != 0) {
        const auto i =
            static_cast<std::size_t>(rng.below(static_cast<int>(model.unexpected.size())));
        Msg *m = model.unexpected[i];
        model.unexpected.erase(model.unexpected.begin() + static_cast<std::ptrdiff_t>(i));
        ASSERT_TRUE(engine.remove_unexpected(*m));
        free_msgs.push_back(m);
      } else if (!free_msgs.empty()) {
        ASSERT_FALSE(engine.remove_unexpected(*free_msgs[0]));
      }
    } else { // full comparison of both queues, in order (rarely: it is O(n log n))
      if (rng.below(10) != 0) continue;
      std::vector<const PostedReceive *> posted;
      engine.for_each_posted([&](const PostedReceive &r) { posted.push_back(&r); });
      ASSERT_EQ(posted,
                std::vector<const PostedReceive *>(model.posted.begin(), model.posted.end()));
      std::vector<const UnexpectedMessage *> unexpected;
      engine.for_each_unexpected([&](const UnexpectedMessage &m) { unexpected.push_back(&m); });
      ASSERT_EQ(unexpected, std::vector<const UnexpectedMessage *>(model.unexpected.begin(),
                                                                   model.unexpected.end()));
    }
    ASSERT_EQ(engine.posted_count(), model.posted.size());
    ASSERT_EQ(engine.unexpected_count(), model.unexpected.size());
    // Bucket memory stays bounded by the live entries (see the sweep rule in engine.hpp).
    peak_live = std::max(peak_live, model.posted.size() + model.unexpected.size());
    ASSERT_LE(engine.bucket_count(), 4 * peak_live + 1025);
    sweeps += engine.bucket_count() < last_buckets;
    last_buckets = engine.bucket_count();
  }
  RecordProperty("matched", std::to_string(matched));
  RecordProperty("wildcard_matched", std::to_string(wildcard_matched));
  RecordProperty("bucket_sweeps", std::to_string(sweeps));
  RecordProperty("peak_live", std::to_string(peak_live));
  // The run must actually have exercised matching, wildcard receives included.
  EXPECT_GT(matched, static_cast<std::uint64_t>(cfg.ops) / 50);
  EXPECT_GT(wildcard_matched, 0u);
  if (cfg.expect_sweeps) {
    EXPECT_GT(sweeps, 0u);
  }
}

constexpr Config kNarrow{"narrow", 3, 8, 6, 200'000, 1024, false};
// Thousands of tags: most keys are seen once, so empty buckets pile up and get swept.
constexpr Config kWide{"wide", 2, 8, 5000, 100'000, 256, true};

INSTANTIATE_TEST_SUITE_P(Seeds, MatchingRandom,
                         ::testing::Values(Case{kNarrow, 1}, Case{kNarrow, 2}, Case{kNarrow, 3},
                                           Case{kNarrow, 20240611}, Case{kNarrow, 987654321},
                                           Case{kWide, 7}, Case{kWide, 8}),
                         case_name);

} // namespace
} // namespace ampi::matching
