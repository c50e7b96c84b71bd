// tests/lb/strategy_test.cpp — the strategies' plans: names, none, rotate, greedy (against a
// brute-force optimum), refine (few moves), pinned ranks, groups, determinism, bad input, notes.
#include "lb/strategy.hpp"
#include "settings/settings.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string_view>
#include <vector>

using ampi::lb::Options;
using ampi::lb::plan;
using ampi::lb::RankLoad;
using ampi::lb::Strategy;

namespace {

double max_load(const std::vector<RankLoad> &r, const std::vector<int> &to, int npes) {
  const std::vector<double> l = ampi::lb::pe_loads(r, npes, to);
  return *std::max_element(l.begin(), l.end());
}

int moves(const std::vector<RankLoad> &r, const std::vector<int> &to) {
  int n = 0;
  for (std::size_t i = 0; i < r.size(); ++i)
    n += to[i] != r[i].pe;
  return n;
}

// The smallest possible max PE load over every placement of the ranks (npes^n of them).
double brute_force_optimum(const std::vector<RankLoad> &r, int npes) {
  std::vector<int> to(r.size(), 0);
  double best = 1e300;
  for (;;) {
    best = std::min(best, max_load(r, to, npes));
    std::size_t k = 0;
    while (k < to.size() && ++to[k] == npes)
      to[k++] = 0;
    if (k == to.size()) break;
  }
  return best;
}

std::vector<RankLoad> random_loads(std::mt19937 &gen, int n, int npes) {
  std::uniform_real_distribution<double> w(0.1, 4.0);
  std::uniform_int_distribution<int> pe(0, npes - 1);
  std::vector<RankLoad> r;
  for (int i = 0; i < n; ++i)
    r.push_back({pe(gen), w(gen), true});
  return r;
}

void expect_valid(const std::vector<RankLoad> &r, const std::vector<int> &to, int npes) {
  ASSERT_EQ(to.size(), r.size());
  for (std::size_t i = 0; i < r.size(); ++i) {
    EXPECT_GE(to[i], 0);
    EXPECT_LT(to[i], npes);
    if (!r[i].movable) EXPECT_EQ(to[i], r[i].pe) << "pinned rank " << i << " moved";
  }
}

} // namespace

TEST(LbStrategy, NamesRoundTrip) {
  for (Strategy s : {Strategy::none, Strategy::greedy, Strategy::refine, Strategy::rotate}) {
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
  const std::vector<RankLoad> neg{{0, -1, true}};
  EXPECT_THROW(plan(Strategy::greedy, neg, 2), std::invalid_argument);
  const std::vector<RankLoad> ok{{0, 1, true}};
  EXPECT_THROW(plan(Strategy::greedy, ok, 3, Options{.pes_per_group = 2}), std::invalid_argument);
  EXPECT_THROW(plan(Strategy::refine, ok, 2, Options{.background = {1.0}}), std::invalid_argument);
}

// Greedy's known example: 4 ranks of 3 and 4 ranks of 1 on two PEs, all on PE 0.
TEST(LbStrategy, GreedyBalancesASimpleCase) {
  std::vector<RankLoad> r;
  for (int i = 0; i < 8; ++i)
    r.push_back({0, i < 4 ? 3.0 : 1.0, true});
  const std::vector<int> to = plan(Strategy::greedy, r, 2);
  expect_valid(r, to, 2);
  EXPECT_DOUBLE_EQ(max_load(r, to, 2), 8.0);
}

// LPT is within (4/3 - 1/(3m)) of the optimal makespan (Graham 1969); checked against the
// brute-force optimum of random small inputs, and it never does worse than where ranks were.
TEST(LbStrategy, GreedyWithinGrahamBoundOfOptimum) {
  std::mt19937 gen(12345);
  for (int trial = 0; trial < 200; ++trial) {
    const int npes = 2 + trial % 3;
    const int n = npes == 4 ? 7 : 8;
    const std::vector<RankLoad> r = random_loads(gen, n, npes);
    const std::vector<int> to = plan(Strategy::greedy, r, npes);
    expect_valid(r, to, npes);
    const double opt = brute_force_optimum(r, npes);
    const double bound = (4.0 / 3.0 - 1.0 / (3.0 * npes)) * opt;
    EXPECT_LE(max_load(r, to, npes), bound * (1 + 1e-12)) << "trial " << trial;
  }
}

// Many ranks: greedy ends within one rank's load of perfect (the last rank placed tops the least
// loaded PE).
TEST(LbStrategy, GreedyOnManyRanksIsNearlyEven) {
  std::mt19937 gen(7);
  for (int npes : {2, 4, 8}) {
    const std::vector<RankLoad> r = random_loads(gen, 64, npes);
    const std::vector<int> to = plan(Strategy::greedy, r, npes);
    expect_valid(r, to, npes);
    double total = 0, heaviest = 0;
    for (const RankLoad &x : r) {
      total += x.busy_seconds;
      heaviest = std::max(heaviest, x.busy_seconds);
    }
    EXPECT_LE(max_load(r, to, npes), total / npes + heaviest);
    EXPECT_LT(ampi::lb::imbalance(ampi::lb::pe_loads(r, npes, to)), 1.15);
  }
}

// Even loads already evenly placed: greedy's renaming of PEs keeps everybody where they are.
TEST(LbStrategy, GreedyMovesNobodyWhenEvenAndEvenlyPlaced) {
  std::vector<RankLoad> r;
  for (int i = 0; i < 16; ++i)
    r.push_back({i / 8, 1.0, true});
  EXPECT_EQ(moves(r, plan(Strategy::greedy, r, 2)), 0);
}

TEST(LbStrategy, NothingMeasuredMovesNobody) {
  std::vector<RankLoad> r;
  for (int i = 0; i < 10; ++i)
    r.push_back({0, 0.0, true});
  for (Strategy s : {Strategy::greedy, Strategy::refine})
    EXPECT_EQ(moves(r, plan(s, r, 4)), 0) << ampi::lb::name(s);
}

TEST(LbStrategy, PinnedRanksStayAndCount) {
  // PE 0 holds a pinned rank of 10: every movable rank should go to PE 1 under greedy.
  std::vector<RankLoad> r{{0, 10.0, false}};
  for (int i = 0; i < 5; ++i)
    r.push_back({0, 1.0, true});
  for (Strategy s : {Strategy::greedy, Strategy::refine}) {
    const std::vector<int> to = plan(s, r, 2);
    expect_valid(r, to, 2);
    for (std::size_t i = 1; i < r.size(); ++i)
      EXPECT_EQ(to[i], 1) << ampi::lb::name(s) << " rank " << i;
  }
}

TEST(LbStrategy, BackgroundLoadCounts) {
  std::vector<RankLoad> r;
  for (int i = 0; i < 4; ++i)
    r.push_back({i % 2, 1.0, true});
  // PE 1 is busy with something else worth two ranks: 3 of the 4 ranks belong on PE 0 (3 + 0
  // against 1 + 2).
  for (Strategy s : {Strategy::greedy, Strategy::refine}) {
    const std::vector<int> to = plan(s, r, 2, Options{.background = {0.0, 2.0}});
    EXPECT_EQ(std::count(to.begin(), to.end(), 0), 3) << ampi::lb::name(s);
    EXPECT_EQ(moves(r, to), 1) << ampi::lb::name(s);
  }
}

TEST(LbStrategy, GroupsKeepRanksInTheirProcess) {
  std::mt19937 gen(99);
  const int npes = 6, per = 3; // 2 processes of 3 PEs
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<RankLoad> r = random_loads(gen, 40, npes);
    for (Strategy s : {Strategy::greedy, Strategy::refine}) {
      const std::vector<int> to = plan(s, r, npes, Options{.pes_per_group = per});
      expect_valid(r, to, npes);
      for (std::size_t i = 0; i < r.size(); ++i)
        EXPECT_EQ(to[i] / per, r[i].pe / per) << ampi::lb::name(s) << " rank " << i;
    }
  }
}

// Within the tolerance already: refine has nothing to do, and greedy keeps the placement rather
// than reshuffle it from scratch.
TEST(LbStrategy, BalancedInputMovesNobody) {
  std::mt19937 gen(3);
  std::uniform_real_distribution<double> jitter(0.98, 1.02);
  std::vector<RankLoad> r;
  for (int i = 0; i < 64; ++i)
    r.push_back({i % 4, jitter(gen), true});
  for (Strategy s : {Strategy::greedy, Strategy::refine})
    EXPECT_EQ(moves(r, plan(s, r, 4)), 0) << ampi::lb::name(s);
}

// One PE of eight holds half as much work again as the others: refine moves a few ranks off it
// and no other, and ends within the tolerance.
TEST(LbStrategy, RefineMovesFewWhenOnePeIsOverloaded) {
  std::vector<RankLoad> r;
  for (int i = 0; i < 128; ++i)
    r.push_back({i / 16, i < 16 ? 1.5 : 1.0, true});
  const std::vector<int> to = plan(Strategy::refine, r, 8);
  expect_valid(r, to, 8);
  for (std::size_t i = 16; i < r.size(); ++i)
    EXPECT_EQ(to[i], r[i].pe) << "rank " << i << " was on a PE that was not overloaded";
  // 24 on PE 0, average 17, limit 17.85: 6.15 must leave, in ranks of 1.5: 5 of them.
  EXPECT_EQ(moves(r, to), 5);
  EXPECT_LE(ampi::lb::imbalance(ampi::lb::pe_loads(r, 8, to)), 1.0 + 0.05 + 1e-9);
  EXPECT_GT(moves(r, plan(Strategy::greedy, r, 8)), 5); // greedy does not mind moving many
}

// The stencil benchmark's pattern: weights 1..4 by rank, blocks of 16 ranks on each of 2 PEs.
TEST(LbStrategy, RefineEvensTheStencilPattern) {
  std::vector<RankLoad> r;
  for (int i = 0; i < 32; ++i)
    r.push_back({i / 16, 1.0 + 3.0 * i / 31.0, true});
  const std::vector<int> to = plan(Strategy::refine, r, 2);
  expect_valid(r, to, 2);
  EXPECT_LE(ampi::lb::imbalance(ampi::lb::pe_loads(r, 2, to)), 1.05 + 1e-9);
  EXPECT_LT(moves(r, to), 8);
}

TEST(LbStrategy, RefineNeverMakesItWorse) {
  std::mt19937 gen(2024);
  for (int trial = 0; trial < 300; ++trial) {
    const int npes = 2 + trial % 7;
    const std::vector<RankLoad> r = random_loads(gen, 5 + trial % 40, npes);
    const std::vector<int> to = plan(Strategy::refine, r, npes);
    expect_valid(r, to, npes);
    EXPECT_LE(max_load(r, to, npes), max_load(r, std::vector<int>(), npes) + 1e-12);
    EXPECT_LE(moves(r, to), static_cast<int>(r.size()));
  }
}

TEST(LbStrategy, SameInputSamePlan) {
  std::mt19937 gen(5);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<RankLoad> r = random_loads(gen, 50, 4);
    for (std::size_t i = 0; i < r.size(); i += 5)
      r[i].busy_seconds = r[0].busy_seconds; // ties, broken by rank
    for (Strategy s : {Strategy::greedy, Strategy::refine}) {
      const std::vector<int> a = plan(s, r, 4);
      const std::vector<RankLoad> copy = r;
      EXPECT_EQ(a, plan(s, copy, 4));
    }
  }
}

TEST(LbStrategy, DescribeSaysWhatMoved) {
  const std::vector<RankLoad> r{{0, 3.0, true}, {0, 1.0, true}};
  const std::vector<int> to = plan(Strategy::greedy, r, 2);
  const std::string note = ampi::lb::describe(Strategy::greedy, r, to, 2);
  EXPECT_NE(note.find("lb greedy: moved 1 of 2 ranks"), std::string::npos) << note;
  EXPECT_NE(note.find("max/avg load 2.00 before, 1.50 predicted after"), std::string::npos) << note;
  EXPECT_NE(note.find("(PE loads 4 0 s -> 3 1 s)"), std::string::npos) << note;
}

// AMPI_LB's row of the settings table and lb::parse know the same names (PeConfig::from_settings
// relies on it: the table refuses what parse would not know).
TEST(LbStrategy, SettingsChoicesAreStrategies) {
  const ampi::settings::Declaration *row = nullptr;
  for (const ampi::settings::Declaration &d : ampi::settings::kTable)
    if (d.name == "AMPI_LB") row = &d;
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->default_text, "none");
  std::string_view rest = row->choices;
  int names = 0;
  while (!rest.empty()) {
    const std::size_t cut = rest.find_first_of("|/");
    const std::string_view one = rest.substr(0, cut);
    Strategy s{};
    EXPECT_TRUE(ampi::lb::parse(one, s)) << one;
    ++names;
    rest = cut == std::string_view::npos ? std::string_view{} : rest.substr(cut + 1);
  }
  EXPECT_EQ(names, 4);
}
