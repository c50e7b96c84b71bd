// Unit tests of ampi::matching::Engine: exact and wildcard matching, MPI ordering rules
// (non-overtaking, earliest-posted receive wins), context isolation, cancel/remove, probe,
// in-order visiting, bucket cleanup under ever-new tags, and destruction with linked entries.
#include "matching/engine.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace ampi::matching {
namespace {

struct Recv : PostedReceive {
  Recv(std::uint32_t context, int source, int tag) { pattern = {context, source, tag}; }
};

struct Msg : UnexpectedMessage {
  Msg(std::uint32_t context, int source, int tag) { envelope = {context, source, tag}; }
};

std::vector<const PostedReceive *> posted_order(const Engine &e) {
  std::vector<const PostedReceive *> v;
  e.for_each_posted([&](const PostedReceive &r) { v.push_back(&r); });
  return v;
}

std::vector<const UnexpectedMessage *> unexpected_order(const Engine &e) {
  std::vector<const UnexpectedMessage *> v;
  e.for_each_unexpected([&](const UnexpectedMessage &m) { v.push_back(&m); });
  return v;
}

TEST(MatchingMatches, Table) {
  const Envelope e{7, 3, 5};
  EXPECT_TRUE(matches({7, 3, 5}, e));
  EXPECT_TRUE(matches({7, kAnySource, 5}, e));
  EXPECT_TRUE(matches({7, 3, kAnyTag}, e));
  EXPECT_TRUE(matches({7, kAnySource, kAnyTag}, e));
  EXPECT_FALSE(matches({8, kAnySource, kAnyTag}, e));
  EXPECT_FALSE(matches({7, 4, kAnyTag}, e));
  EXPECT_FALSE(matches({7, kAnySource, 6}, e));
  EXPECT_FALSE(matches({7, 3, 6}, e));
  EXPECT_TRUE(matches({0, 0, 0}, {0, 0, 0}));
}

TEST(MatchingEngine, EmptyEngine) {
  Engine e;
  EXPECT_EQ(e.posted_count(), 0u);
  EXPECT_EQ(e.unexpected_count(), 0u);
  EXPECT_EQ(e.take_posted({0, 0, 0}), nullptr);
  EXPECT_EQ(e.take_unexpected({0, 0, 0}), nullptr);
  EXPECT_EQ(e.take_unexpected({0, kAnySource, kAnyTag}), nullptr);
  EXPECT_EQ(e.peek_unexpected({0, kAnySource, 0}), nullptr);
  EXPECT_TRUE(posted_order(e).empty());
  EXPECT_TRUE(unexpected_order(e).empty());
}

TEST(MatchingEngine, ExactReceivePostedFirst) {
  Engine e;
  Recv r{1, 2, 3};
  e.add_posted(r);
  EXPECT_EQ(e.posted_count(), 1u);
  EXPECT_EQ(e.take_posted({1, 2, 4}), nullptr);
  EXPECT_EQ(e.take_posted({1, 4, 3}), nullptr);
  EXPECT_EQ(e.take_posted({2, 2, 3}), nullptr);
  EXPECT_EQ(e.take_posted({1, 2, 3}), &r);
  EXPECT_EQ(e.posted_count(), 0u);
  EXPECT_EQ(e.take_posted({1, 2, 3}), nullptr);
}

TEST(MatchingEngine, ExactMessageArrivedFirst) {
  Engine e;
  Msg m{1, 2, 3};
  e.add_unexpected(m);
  EXPECT_EQ(e.unexpected_count(), 1u);
  EXPECT_EQ(e.take_unexpected({1, 2, 4}), nullptr);
  EXPECT_EQ(e.take_unexpected({1, 3, 3}), nullptr);
  EXPECT_EQ(e.take_unexpected({0, 2, 3}), nullptr);
  EXPECT_EQ(e.take_unexpected({1, 2, 3}), &m);
  EXPECT_EQ(e.unexpected_count(), 0u);
  EXPECT_EQ(e.take_unexpected({1, 2, 3}), nullptr);
}

// Zero-byte messages are ordinary: the engine never looks at payloads; source 0 / tag 0 and
// context 0 are ordinary values too.
TEST(MatchingEngine, ZeroValuedEnvelope) {
  Engine e;
  Msg m{0, 0, 0};
  e.add_unexpected(m);
  EXPECT_EQ(e.take_unexpected({0, 0, 0}), &m);
  Recv r{0, 0, 0};
  e.add_posted(r);
  EXPECT_EQ(e.take_posted({0, 0, 0}), &r);
}

struct WildcardCase {
  const char *name;
  int source;
  int tag;
};

void PrintTo(const WildcardCase &c, std::ostream *os) {
  *os << c.name;
}

class MatchingWildcard : public ::testing::TestWithParam<WildcardCase> {};

// For each wildcard combination: which of a set of messages a receive matches, from both sides.
TEST_P(MatchingWildcard, MatchesBothSides) {
  const int src = GetParam().source;
  const int tag = GetParam().tag;
  const Pattern p{5, src, tag};
  const std::vector<Envelope> envs = {{5, 1, 1}, {5, 1, 2}, {5, 2, 1}, {5, 2, 2}, {6, 1, 1}};
  for (const Envelope &env : envs) {
    SCOPED_TRACE(testing::Message()
                 << "env " << env.context << "," << env.source << "," << env.tag);
    const bool expect = env.context == 5 && (src == kAnySource || src == env.source) &&
                        (tag == kAnyTag || tag == env.tag);
    {
      Engine e;
      Recv r{p.context, p.source, p.tag};
      e.add_posted(r);
      EXPECT_EQ(e.take_posted(env), expect ? &r : nullptr);
      EXPECT_EQ(e.posted_count(), expect ? 0u : 1u);
    }
    {
      Engine e;
      Msg m{env.context, env.source, env.tag};
      e.add_unexpected(m);
      EXPECT_EQ(e.peek_unexpected(p), expect ? &m : nullptr);
      EXPECT_EQ(e.take_unexpected(p), expect ? &m : nullptr);
      EXPECT_EQ(e.unexpected_count(), expect ? 0u : 1u);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, MatchingWildcard,
                         ::testing::Values(WildcardCase{"exact", 1, 1},
                                           WildcardCase{"any_source", kAnySource, 1},
                                           WildcardCase{"any_tag", 1, kAnyTag},
                                           WildcardCase{"any_both", kAnySource, kAnyTag}),
                         [](const auto &p) { return std::string(p.param.name); });

TEST(MatchingEngine, NonOvertakingExact) {
  Engine e;
  Msg a{1, 3, 7}, b{1, 3, 7}, c{1, 3, 7};
  e.add_unexpected(a);
  e.add_unexpected(b);
  e.add_unexpected(c);
  EXPECT_EQ(e.take_unexpected({1, 3, 7}), &a);
  EXPECT_EQ(e.take_unexpected({1, 3, 7}), &b);
  EXPECT_EQ(e.take_unexpected({1, 3, 7}), &c);
}

TEST(MatchingEngine, NonOvertakingWildcardReceives) {
  Engine e;
  Msg other_src{1, 4, 9}, a{1, 3, 8}, b{1, 3, 7}, c{1, 5, 7};
  e.add_unexpected(other_src);
  e.add_unexpected(a);
  e.add_unexpected(b);
  e.add_unexpected(c);
  // ANY_TAG from source 3: arrival order among source 3.
  EXPECT_EQ(e.take_unexpected({1, 3, kAnyTag}), &a);
  EXPECT_EQ(e.take_unexpected({1, 3, kAnyTag}), &b);
  EXPECT_EQ(e.take_unexpected({1, 3, kAnyTag}), nullptr);
  // ANY_SOURCE with tag 7: the earliest arrived.
  EXPECT_EQ(e.take_unexpected({1, kAnySource, 7}), &c);
  EXPECT_EQ(e.take_unexpected({1, kAnySource, kAnyTag}), &other_src);
  EXPECT_EQ(e.unexpected_count(), 0u);
}

TEST(MatchingEngine, PostedReceivesFifoPerPattern) {
  Engine e;
  Recv a{1, 2, 3}, b{1, 2, 3}, wa{1, kAnySource, 3}, wb{1, kAnySource, 3};
  e.add_posted(a);
  e.add_posted(b);
  EXPECT_EQ(e.take_posted({1, 2, 3}), &a);
  EXPECT_EQ(e.take_posted({1, 2, 3}), &b);
  e.add_posted(wa);
  e.add_posted(wb);
  EXPECT_EQ(e.take_posted({1, 9, 3}), &wa);
  EXPECT_EQ(e.take_posted({1, 0, 3}), &wb);
}

TEST(MatchingEngine, EarliestPostedWinsExactFirst) {
  Engine e;
  Recv exact{1, 2, 3}, wild{1, kAnySource, kAnyTag};
  e.add_posted(exact);
  e.add_posted(wild);
  EXPECT_EQ(e.take_posted({1, 2, 3}), &exact);
  EXPECT_EQ(e.take_posted({1, 2, 3}), &wild);
  EXPECT_EQ(e.posted_count(), 0u);
}

TEST(MatchingEngine, EarliestPostedWinsWildcardFirst) {
  for (const Pattern wp :
       {Pattern{1, kAnySource, 3}, Pattern{1, 2, kAnyTag}, Pattern{1, kAnySource, kAnyTag}}) {
    Engine e;
    Recv wild{wp.context, wp.source, wp.tag}, exact{1, 2, 3};
    e.add_posted(wild);
    e.add_posted(exact);
    EXPECT_EQ(e.take_posted({1, 2, 3}), &wild);
    EXPECT_EQ(e.take_posted({1, 2, 3}), &exact);
  }
}

TEST(MatchingEngine, EarliestPostedSkipsNonMatchingWildcards) {
  Engine e;
  Recv w_other_tag{1, kAnySource, 9}, w_other_ctx{2, kAnySource, kAnyTag}, exact{1, 2, 3},
      w_late{1, 2, kAnyTag};
  e.add_posted(w_other_tag);
  e.add_posted(w_other_ctx);
  e.add_posted(exact);
  e.add_posted(w_late);
  EXPECT_EQ(e.take_posted({1, 2, 3}), &exact);
  EXPECT_EQ(e.take_posted({1, 2, 3}), &w_late);
  EXPECT_EQ(e.take_posted({1, 2, 3}), nullptr);
  EXPECT_EQ(e.posted_count(), 2u);
}

TEST(MatchingEngine, ContextsIsolate) {
  Engine e;
  Msg m1{1, 0, 0}, m2{2, 0, 0};
  e.add_unexpected(m1);
  e.add_unexpected(m2);
  EXPECT_EQ(e.take_unexpected({2, kAnySource, kAnyTag}), &m2);
  EXPECT_EQ(e.take_unexpected({2, 0, 0}), nullptr);
  EXPECT_EQ(e.take_unexpected({3, kAnySource, kAnyTag}), nullptr);
  EXPECT_EQ(e.take_unexpected({1, 0, 0}), &m1);

  Recv r1{1, kAnySource, kAnyTag}, r2{2, 0, 0};
  e.add_posted(r1);
  e.add_posted(r2);
  EXPECT_EQ(e.take_posted({2, 0, 0}), &r2);
  EXPECT_EQ(e.take_posted({3, 0, 0}), nullptr);
  EXPECT_EQ(e.take_posted({1, 0, 0}), &r1);
}

TEST(MatchingEngine, CancelPostedReceive) {
  Engine e;
  Recv exact{1, 2, 3}, wild{1, kAnySource, 3}, never{1, 2, 3};
  EXPECT_FALSE(e.remove_posted(never));
  e.add_posted(exact);
  e.add_posted(wild);
  EXPECT_TRUE(e.remove_posted(exact));
  EXPECT_FALSE(e.remove_posted(exact));
  EXPECT_EQ(e.posted_count(), 1u);
  EXPECT_EQ(e.take_posted({1, 2, 3}), &wild);
  EXPECT_FALSE(e.remove_posted(wild)); // already matched
  e.add_posted(wild);
  EXPECT_TRUE(e.remove_posted(wild));
  EXPECT_EQ(e.take_posted({1, 2, 3}), nullptr);
  EXPECT_EQ(e.posted_count(), 0u);
  // A cancelled receive can be posted again; it is then the latest.
  Recv other{1, 2, 3};
  e.add_posted(exact);
  e.add_posted(other);
  EXPECT_TRUE(e.remove_posted(exact));
  e.add_posted(exact);
  EXPECT_EQ(e.take_posted({1, 2, 3}), &other);
  EXPECT_EQ(e.take_posted({1, 2, 3}), &exact);
}

TEST(MatchingEngine, RemoveUnexpected) {
  Engine e;
  Msg a{1, 2, 3}, b{1, 2, 3}, c{1, 4, 3}, never{1, 2, 3};
  EXPECT_FALSE(e.remove_unexpected(never));
  e.add_unexpected(a);
  e.add_unexpected(b);
  e.add_unexpected(c);
  EXPECT_TRUE(e.remove_unexpected(a));
  EXPECT_FALSE(e.remove_unexpected(a));
  EXPECT_EQ(e.unexpected_count(), 2u);
  EXPECT_EQ(e.peek_unexpected({1, kAnySource, 3}), &b);
  EXPECT_EQ(e.take_unexpected({1, 2, 3}), &b);
  EXPECT_FALSE(e.remove_unexpected(b));
  EXPECT_EQ(e.take_unexpected({1, kAnySource, kAnyTag}), &c);
  EXPECT_EQ(e.unexpected_count(), 0u);
}

TEST(MatchingEngine, PeekLeavesInPlace) {
  Engine e;
  Msg a{1, 2, 3}, b{1, 2, 4};
  e.add_unexpected(a);
  e.add_unexpected(b);
  EXPECT_EQ(e.peek_unexpected({1, 2, 4}), &b);
  EXPECT_EQ(e.peek_unexpected({1, 2, 4}), &b);
  EXPECT_EQ(e.peek_unexpected({1, kAnySource, kAnyTag}), &a);
  EXPECT_EQ(e.peek_unexpected({1, 2, 5}), nullptr);
  EXPECT_EQ(e.unexpected_count(), 2u);
  EXPECT_EQ(unexpected_order(e), (std::vector<const UnexpectedMessage *>{&a, &b}));
  // Matched probe: peek, then remove that very message.
  UnexpectedMessage *m = e.peek_unexpected({1, 2, kAnyTag});
  ASSERT_EQ(m, &a);
  EXPECT_TRUE(e.remove_unexpected(*m));
  EXPECT_EQ(e.take_unexpected({1, 2, kAnyTag}), &b);
}

TEST(MatchingEngine, ForEachVisitsInOrder) {
  Engine e;
  Recv r0{1, 5, 5}, r1{1, kAnySource, 5}, r2{1, 6, 6}, r3{1, 5, 5}, r4{2, 5, kAnyTag};
  for (Recv *r : {&r0, &r1, &r2, &r3, &r4})
    e.add_posted(*r);
  EXPECT_EQ(posted_order(e), (std::vector<const PostedReceive *>{&r0, &r1, &r2, &r3, &r4}));
  EXPECT_TRUE(e.remove_posted(r2));
  EXPECT_EQ(posted_order(e), (std::vector<const PostedReceive *>{&r0, &r1, &r3, &r4}));

  Msg m0{1, 5, 5}, m1{1, 6, 5}, m2{1, 5, 5}, m3{3, 0, 0};
  for (Msg *m : {&m0, &m1, &m2, &m3})
    e.add_unexpected(*m);
  EXPECT_EQ(unexpected_order(e), (std::vector<const UnexpectedMessage *>{&m0, &m1, &m2, &m3}));
  EXPECT_EQ(e.take_unexpected({1, 5, 5}), &m0);
  EXPECT_EQ(unexpected_order(e), (std::vector<const UnexpectedMessage *>{&m1, &m2, &m3}));
}

// Programs that use ever-new tags must not grow the bucket map without bound, and sweeping
// must never drop buckets that still hold entries.
TEST(MatchingEngine, BucketCleanupWithManyDistinctTags) {
  Engine e;
  Msg kept_msg{1, 0, 1'000'000};
  Recv kept_recv{1, 1, 1'000'000};
  e.add_unexpected(kept_msg);
  e.add_posted(kept_recv);
  std::size_t max_buckets = 0;
  for (int tag = 0; tag < 100'000; ++tag) {
    Msg m{1, 0, tag};
    e.add_unexpected(m);
    ASSERT_EQ(e.take_unexpected({1, 0, tag}), &m);
    Recv r{1, 2, tag};
    e.add_posted(r);
    ASSERT_EQ(e.take_posted({1, 2, tag}), &r);
    max_buckets = std::max(max_buckets, e.bucket_count());
  }
  EXPECT_LE(max_buckets, 4u * 2 + 1024 + 2);
  EXPECT_EQ(e.unexpected_count(), 1u);
  EXPECT_EQ(e.posted_count(), 1u);
  EXPECT_EQ(e.take_unexpected({1, 0, 1'000'000}), &kept_msg);
  EXPECT_EQ(e.take_posted({1, 1, 1'000'000}), &kept_recv);

  // Many live entries with distinct tags: all stay matchable through sweeps.
  std::vector<std::unique_ptr<Msg>> live;
  for (int tag = 0; tag < 20'000; ++tag) {
    live.push_back(std::make_unique<Msg>(2, 0, tag));
    e.add_unexpected(*live.back());
  }
  for (int tag = 0; tag < 20'000; ++tag)
    ASSERT_EQ(e.take_unexpected({2, 0, tag}), live[static_cast<std::size_t>(tag)].get());
  EXPECT_EQ(e.unexpected_count(), 0u);
}

// Ping-pong on a fixed set of tags keeps its (empty) buckets: no churn.
TEST(MatchingEngine, EmptyBucketsKeptForReuse) {
  Engine e;
  for (int i = 0; i < 1000; ++i) {
    Recv r{1, 0, i % 4};
    e.add_posted(r);
    ASSERT_EQ(e.take_posted({1, 0, i % 4}), &r);
  }
  EXPECT_EQ(e.bucket_count(), 4u);
}

// take_unexpected_or_post (one lookup for MPI_Irecv) = take_unexpected, then add_posted when
// nothing waits: the same messages taken, the same receives posted, in the same order, for exact
// and wildcard patterns.
TEST(MatchingEngine, TakeUnexpectedOrPost) {
  Engine e;
  Msg m1(1, 2, 3), m2(1, 2, 3), other(1, 2, 4);
  e.add_unexpected(m1);
  e.add_unexpected(other);
  e.add_unexpected(m2);
  Recv exact(1, 2, 3), wild(1, kAnySource, 4), again(1, 2, 3), later(1, kAnySource, kAnyTag);
  EXPECT_EQ(e.take_unexpected_or_post(exact), &m1); // the earliest of its bucket, not posted
  EXPECT_EQ(e.take_unexpected_or_post(wild), &other);
  EXPECT_EQ(e.take_unexpected_or_post(again), &m2);
  EXPECT_EQ(e.unexpected_count(), 0u);
  EXPECT_EQ(e.posted_count(), 0u);
  // Nothing waits now: both are posted, in order, and an arrival takes the earliest.
  EXPECT_EQ(e.take_unexpected_or_post(exact), nullptr);
  EXPECT_EQ(e.take_unexpected_or_post(later), nullptr);
  EXPECT_EQ(e.posted_count(), 2u);
  EXPECT_EQ(posted_order(e), (std::vector<const PostedReceive *>{&exact, &later}));
  EXPECT_EQ(e.take_posted({1, 2, 3}), &exact);
  EXPECT_EQ(e.take_posted({1, 2, 3}), &later);
  EXPECT_EQ(e.posted_count(), 0u);
}

// take_unexpected_or_post's inline case (an exact receive into the last bucket used, which holds
// no message) and its neighbours: a message in the last bucket is taken, not passed by; a receive
// for another bucket, and one posted after a wildcard receive, keep posting order.
TEST(MatchingEngine, TakeUnexpectedOrPostLastBucket) {
  Engine e;
  Recv first(1, 2, 3);
  EXPECT_EQ(e.take_unexpected_or_post(first), nullptr); // creates (1, 2, 3), now the last bucket
  EXPECT_EQ(e.take_posted({1, 2, 3}), &first);
  Recv again(1, 2, 3);
  EXPECT_EQ(e.take_unexpected_or_post(again), nullptr); // the inline case
  EXPECT_EQ(e.posted_count(), 1u);
  EXPECT_EQ(e.take_posted({1, 2, 3}), &again);
  Msg m(1, 2, 3);
  e.add_unexpected(m); // into the last bucket
  Recv takes(1, 2, 3);
  EXPECT_EQ(e.take_unexpected_or_post(takes), &m);
  EXPECT_EQ(e.posted_count(), 0u);
  Recv wild(1, kAnySource, 3), other(1, 2, 4), exact(1, 2, 3);
  EXPECT_EQ(e.take_unexpected_or_post(wild), nullptr);
  EXPECT_EQ(e.take_unexpected_or_post(other), nullptr);
  EXPECT_EQ(e.take_unexpected_or_post(exact), nullptr);
  EXPECT_EQ(posted_order(e), (std::vector<const PostedReceive *>{&wild, &other, &exact}));
  EXPECT_EQ(e.take_posted({1, 2, 3}), &wild); // posted first
  EXPECT_EQ(e.take_posted({1, 2, 3}), &exact);
  EXPECT_EQ(e.take_posted({1, 2, 4}), &other);
  EXPECT_EQ(e.posted_count(), 0u);
}

TEST(MatchingEngine, DestructionWithLinkedEntries) {
  Recv exact{1, 2, 3}, wild{1, kAnySource, kAnyTag};
  Msg m1{1, 2, 4}, m2{1, 5, 4};
  {
    auto e = std::make_unique<Engine>();
    e->add_posted(exact);
    e->add_posted(wild);
    e->add_unexpected(m1);
    e->add_unexpected(m2);
  } // engine destroyed with all four entries linked
  // The entries are unlinked and usable with another engine.
  Engine e2;
  EXPECT_FALSE(e2.remove_posted(exact));
  EXPECT_FALSE(e2.remove_posted(wild));
  EXPECT_FALSE(e2.remove_unexpected(m1));
  EXPECT_FALSE(e2.remove_unexpected(m2));
  e2.add_unexpected(m2);
  e2.add_unexpected(m1);
  EXPECT_EQ(e2.take_unexpected({1, kAnySource, 4}), &m2);
  e2.add_posted(wild);
  EXPECT_EQ(e2.take_posted({1, 2, 3}), &wild);
  // Entries outlive a destroyed engine they were queued in.
  auto e3 = std::make_unique<Engine>();
  e3->add_posted(exact);
  e3.reset();
}

} // namespace
} // namespace ampi::matching
