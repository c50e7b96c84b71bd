// tests/lb/strategy_test.cpp — the strategies' plans: names, none, rotate, pinned ranks, bad input.
#include "lb/strategy.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

using ampi::lb::plan;
using ampi::lb::RankLoad;
using ampi::lb::Strategy;

TEST(LbStrategy, NamesRoundTrip) {
  for (Strategy s : {Strategy::none, Strategy::rotate}) {
    Strategy back{};
    ASSERT_TRUE(ampi::lb::parse(ampi::lb::name(s), back));
    EXPECT_EQ(back, s);
  }
  Strategy out = Strategy::rotate;
  EXPECT_FALSE(ampi::lb::parse("greedyy", out));
  EXPECT_EQ(out, Strategy::rotate); // untouched on failure
}

TEST(LbStrategy, NoneKeepsEveryRank) {
  const std::vector<RankLoad> r{{0, 4.0, true}, {0, 1.0, true}, {1, 0.5, true}};
  EXPECT_EQ(plan(Strategy::none, r, 2), (std::vector<int>{0, 0, 1}));
}

TEST(LbStrategy, RotateMovesMovableRanksToTheNextPe) {
  const std::vector<RankLoad> r{{0, 1, true}, {1, 1, true}, {2, 1, false}, {2, 1, true}};
  EXPECT_EQ(plan(Strategy::rotate, r, 3), (std::vector<int>{1, 2, 2, 0}));
}

TEST(LbStrategy, RejectsBadInput) {
  const std::vector<RankLoad> r{{3, 1, true}};
  EXPECT_THROW(plan(Strategy::none, r, 2), std::invalid_argument);
  EXPECT_THROW(plan(Strategy::none, r, 0), std::invalid_argument);
}
