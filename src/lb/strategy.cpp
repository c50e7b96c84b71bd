// src/lb/strategy.cpp — the strategies of strategy.hpp: greedy (longest processing time first),
// refine (few moves off overloaded PEs), rotate (testing), and the note of what a plan does.
#include "lb/strategy.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>
#include <utility>

namespace ampi::lb {

bool parse(std::string_view n, Strategy &out) noexcept {
  if (n == "none")
    out = Strategy::none;
  else if (n == "greedy")
    out = Strategy::greedy;
  else if (n == "refine")
    out = Strategy::refine;
  else if (n == "rotate")
    out = Strategy::rotate;
  else
    return false;
  return true;
}

std::string_view name(Strategy s) noexcept {
  switch (s) {
  case Strategy::none:
    return "none";
  case Strategy::greedy:
    return "greedy";
  case Strategy::refine:
    return "refine";
  case Strategy::rotate:
    return "rotate";
  }
  return "?";
}

namespace {

// One group of PEs (those of one process) and the ranks that are on them now.
struct Group {
  int first_pe = 0, npes = 0;
  std::vector<std::size_t> ranks; // indices into the ranks span, ascending
};

// The loads the group's PEs start from: their background and their pinned ranks'.
std::vector<double> fixed_loads(std::span<const RankLoad> ranks, const Group &g,
                                const std::vector<double> &background) {
  std::vector<double> load(static_cast<std::size_t>(g.npes), 0.0);
  for (int p = 0; p < g.npes; ++p)
    if (static_cast<std::size_t>(g.first_pe + p) < background.size())
      load[static_cast<std::size_t>(p)] = background[static_cast<std::size_t>(g.first_pe + p)];
  for (std::size_t i : g.ranks)
    if (!ranks[i].movable)
      load[static_cast<std::size_t>(ranks[i].pe - g.first_pe)] += ranks[i].busy_seconds;
  return load;
}

// With nothing pinned and no background, a group's PEs are interchangeable: any renaming of them
// gives the same loads. Rename so that as many ranks as possible stay where they are: repeatedly
// pair the planned PE and the current PE that share the most ranks (ties: lower PEs first).
void rename_to_stay(std::span<const RankLoad> ranks, const Group &g, std::vector<int> &to) {
  const auto n = static_cast<std::size_t>(g.npes);
  std::vector<std::size_t> shared(n * n, 0); // [planned * n + current]
  for (std::size_t i : g.ranks)
    ++shared[static_cast<std::size_t>(to[i] - g.first_pe) * n +
             static_cast<std::size_t>(ranks[i].pe - g.first_pe)];
  std::vector<int> rename(n, -1);
  std::vector<bool> taken(n, false);
  std::vector<std::size_t> cells(n * n);
  std::iota(cells.begin(), cells.end(), std::size_t{0});
  std::stable_sort(cells.begin(), cells.end(),
                   [&](std::size_t a, std::size_t b) { return shared[a] > shared[b]; });
  for (std::size_t c : cells) {
    const std::size_t planned = c / n, current = c % n;
    if (rename[planned] < 0 && !taken[current]) {
      rename[planned] = static_cast<int>(current);
      taken[current] = true;
    }
  }
  for (std::size_t i : g.ranks)
    to[i] = g.first_pe + rename[static_cast<std::size_t>(to[i] - g.first_pe)];
}

// Ranks of equal busy time are interchangeable: among each such class, hand the planned PEs out
// so that a rank whose own PE is among them keeps it (greedy's round of equal ranks would
// otherwise alternate between PEs and move half of them).
void keep_equals_home(std::span<const RankLoad> ranks, const std::vector<std::size_t> &order,
                      std::vector<int> &to) {
  for (std::size_t a = 0; a < order.size();) {
    std::size_t b = a;
    while (b < order.size() && ranks[order[b]].busy_seconds == ranks[order[a]].busy_seconds)
      ++b;
    if (b - a > 1) {
      std::map<int, std::size_t> pool; // the planned PEs of the class, with their counts
      for (std::size_t k = a; k < b; ++k)
        ++pool[to[order[k]]];
      std::vector<bool> placed(b - a, false);
      for (std::size_t k = a; k < b; ++k) { // first, those whose own PE is in the pool
        auto it = pool.find(ranks[order[k]].pe);
        if (it != pool.end()) {
          to[order[k]] = it->first;
          if (--it->second == 0) pool.erase(it);
          placed[k - a] = true;
        }
      }
      for (std::size_t k = a; k < b; ++k) // then the others, lowest PEs first
        if (!placed[k - a]) {
          auto it = pool.begin();
          to[order[k]] = it->first;
          if (--it->second == 0) pool.erase(it);
        }
    }
    a = b;
  }
}

// The loads of a group's PEs with its ranks where `to` says (nullptr: where they are now).
std::vector<double> group_loads(std::span<const RankLoad> ranks, const Group &g,
                                const std::vector<double> &background, const std::vector<int> *to) {
  std::vector<double> load = fixed_loads(ranks, g, background);
  for (std::size_t i : g.ranks)
    if (ranks[i].movable)
      load[static_cast<std::size_t>((to ? (*to)[i] : ranks[i].pe) - g.first_pe)] +=
          ranks[i].busy_seconds;
  return load;
}
double group_max(std::span<const RankLoad> ranks, const Group &g,
                 const std::vector<double> &background, const std::vector<int> *to) {
  const std::vector<double> l = group_loads(ranks, g, background, to);
  return *std::max_element(l.begin(), l.end());
}

// Greedy (LPT): movable ranks by busy time, heaviest first (ties: lower rank first), each onto
// the PE with the least load so far (ties: the rank's own PE if it is among the least loaded,
// else the lowest PE). Within 4/3 of the optimal makespan when nothing is pinned (Graham 1969).
void greedy(std::span<const RankLoad> ranks, const Group &g, const std::vector<double> &background,
            std::vector<int> &to) {
  std::vector<double> load = fixed_loads(ranks, g, background);
  std::vector<std::size_t> order;
  for (std::size_t i : g.ranks)
    if (ranks[i].movable) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return ranks[a].busy_seconds > ranks[b].busy_seconds;
  });
  std::set<std::pair<double, int>> by_load; // (load, PE within the group)
  for (int p = 0; p < g.npes; ++p)
    by_load.emplace(load[static_cast<std::size_t>(p)], p);
  for (std::size_t i : order) {
    auto least = by_load.begin();
    int p = least->second;
    const int own = ranks[i].pe - g.first_pe;
    if (load[static_cast<std::size_t>(own)] == least->first) p = own; // no move for a tie
    by_load.erase({load[static_cast<std::size_t>(p)], p});
    load[static_cast<std::size_t>(p)] += ranks[i].busy_seconds;
    by_load.emplace(load[static_cast<std::size_t>(p)], p);
    to[i] = g.first_pe + p;
  }
  bool symmetric =
      std::all_of(g.ranks.begin(), g.ranks.end(), [&](std::size_t i) { return ranks[i].movable; });
  for (int p = 0; p < g.npes; ++p)
    if (static_cast<std::size_t>(g.first_pe + p) < background.size() &&
        background[static_cast<std::size_t>(g.first_pe + p)] != 0.0)
      symmetric = false;
  // (npes^2 cells: past 256 PEs in a group, the renaming would cost more than it saves.)
  if (symmetric && g.npes <= 256) rename_to_stay(ranks, g, to);
  keep_equals_home(ranks, order, to);
}
// Refine: from the current placement, while some PE's load exceeds the average by more than the
// tolerance, move one rank off the most loaded PE onto the least loaded one: the heaviest that
// leaves the receiver within the tolerance, else the one that evens the pair best; a move must
// lower the donor's load below what it was without lifting the receiver to it. Each rank moves at
// most once; a PE from which no move helps is left as it is.
void refine(std::span<const RankLoad> ranks, const Group &g, const std::vector<double> &background,
            double tolerance, std::vector<int> &to) {
  const auto n = static_cast<std::size_t>(g.npes);
  std::vector<double> load = fixed_loads(ranks, g, background);
  std::vector<std::vector<std::size_t>> on(n); // movable ranks on each PE, ascending
  for (std::size_t i : g.ranks)
    if (ranks[i].movable) {
      const auto p = static_cast<std::size_t>(ranks[i].pe - g.first_pe);
      load[p] += ranks[i].busy_seconds;
      on[p].push_back(i);
    }
  const double total = std::accumulate(load.begin(), load.end(), 0.0);
  const double limit = total / static_cast<double>(n) * (1.0 + tolerance);
  std::vector<bool> stuck(n, false);
  for (;;) {
    std::size_t donor = n, receiver = 0;
    for (std::size_t p = 0; p < n; ++p) {
      if (!stuck[p] && (donor == n || load[p] > load[donor])) donor = p;
      if (load[p] < load[receiver]) receiver = p;
    }
    if (donor == n || load[donor] <= limit) break;
    std::size_t best = 0;
    bool found = false, best_fits = false;
    double best_key = 0;
    for (std::size_t k = 0; k < on[donor].size(); ++k) {
      const double b = ranks[on[donor][k]].busy_seconds;
      const double after = std::max(load[donor] - b, load[receiver] + b);
      if (b <= 0 || !(after < load[donor])) continue;
      const bool fits = load[receiver] + b <= limit;
      // A fitting rank beats one that does not; among fitting ones the heaviest (fewest moves),
      // among the others the one leaving the pair most even. Ties: the lower rank (scan order).
      const double key = fits ? b : -after;
      if (!found || (fits && !best_fits) || (fits == best_fits && key > best_key)) {
        best = k;
        best_key = key;
        best_fits = fits;
        found = true;
      }
    }
    if (!found) {
      stuck[donor] = true;
      continue;
    }
    const std::size_t i = on[donor][best];
    on[donor].erase(on[donor].begin() + static_cast<std::ptrdiff_t>(best));
    load[donor] -= ranks[i].busy_seconds;
    load[receiver] += ranks[i].busy_seconds;
    to[i] = g.first_pe + static_cast<int>(receiver);
  }
}

} // namespace

std::vector<int> plan(Strategy s, std::span<const RankLoad> ranks, int npes,
                      const Options &options) {
  if (npes < 1) throw std::invalid_argument("lb::plan: npes < 1");
  const int per_group = options.pes_per_group > 0 ? options.pes_per_group : npes;
  if (npes % per_group != 0)
    throw std::invalid_argument("lb::plan: npes is not a multiple of pes_per_group");
  if (!options.background.empty() && options.background.size() != static_cast<std::size_t>(npes))
    throw std::invalid_argument("lb::plan: background has not npes entries");
  std::vector<int> to;
  to.reserve(ranks.size());
  for (const RankLoad &r : ranks) {
    if (r.pe < 0 || r.pe >= npes)
      throw std::invalid_argument("lb::plan: a rank's pe is out of range");
    if (!std::isfinite(r.busy_seconds) || r.busy_seconds < 0)
      throw std::invalid_argument("lb::plan: a rank's busy time is negative or not finite");
    to.push_back(r.pe);
  }
  switch (s) {
  case Strategy::none:
    break;
  case Strategy::rotate:
    for (std::size_t i = 0; i < ranks.size(); ++i)
      if (ranks[i].movable) to[i] = (ranks[i].pe + 1) % npes;
    break;
  case Strategy::greedy:
  case Strategy::refine: {
    std::vector<Group> groups(static_cast<std::size_t>(npes / per_group));
    for (std::size_t g = 0; g < groups.size(); ++g) {
      groups[g].first_pe = static_cast<int>(g) * per_group;
      groups[g].npes = per_group;
    }
    for (std::size_t i = 0; i < ranks.size(); ++i)
      groups[static_cast<std::size_t>(ranks[i].pe / per_group)].ranks.push_back(i);
    for (const Group &g : groups) {
      double moving = 0;
      for (std::size_t i : g.ranks)
        if (ranks[i].movable) moving += ranks[i].busy_seconds;
      if (moving <= 0) continue; // nothing measured: no reason to move anyone
      if (s == Strategy::greedy) {
        // Greedy starts from scratch, so it would reshuffle a group that is fine as it is (half of
        // 100,000 even ranks on 2 PEs): a group already within the tolerance of its average, or
        // one that greedy's plan does not make better, stays as it is.
        const double before = group_max(ranks, g, options.background, nullptr);
        double total = 0;
        for (const double l : group_loads(ranks, g, options.background, nullptr))
          total += l;
        if (before <= total / g.npes * (1.0 + options.tolerance)) continue;
        greedy(ranks, g, options.background, to);
        if (group_max(ranks, g, options.background, &to) >= before)
          for (std::size_t i : g.ranks)
            to[i] = ranks[i].pe;
      } else
        refine(ranks, g, options.background, options.tolerance, to);
    }
    break;
  }
  }
  return to;
}

std::vector<double> pe_loads(std::span<const RankLoad> ranks, int npes,
                             std::span<const int> placement, std::span<const double> background) {
  std::vector<double> load(static_cast<std::size_t>(std::max(npes, 0)), 0.0);
  for (std::size_t p = 0; p < load.size() && p < background.size(); ++p)
    load[p] = background[p];
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const int p = i < placement.size() ? placement[i] : ranks[i].pe;
    if (p >= 0 && p < npes) load[static_cast<std::size_t>(p)] += ranks[i].busy_seconds;
  }
  return load;
}

double imbalance(std::span<const double> loads) noexcept {
  if (loads.empty()) return 1.0;
  const double total = std::accumulate(loads.begin(), loads.end(), 0.0);
  if (total <= 0) return 1.0;
  return *std::max_element(loads.begin(), loads.end()) /
         (total / static_cast<double>(loads.size()));
}

std::string describe(Strategy s, std::span<const RankLoad> ranks, std::span<const int> plan,
                     int npes) {
  std::size_t moved = 0;
  for (std::size_t i = 0; i < ranks.size() && i < plan.size(); ++i)
    if (plan[i] != ranks[i].pe) ++moved;
  const std::vector<double> before = pe_loads(ranks, npes);
  const std::vector<double> after = pe_loads(ranks, npes, plan);
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "lb %.*s: moved %zu of %zu ranks; max/avg load %.2f before, %.2f "
                "predicted after",
                static_cast<int>(name(s).size()), name(s).data(), moved, ranks.size(),
                imbalance(before), imbalance(after));
  std::string note = buf;
  if (npes <= 16) {
    note += " (PE loads";
    for (double l : before) {
      std::snprintf(buf, sizeof buf, " %.3g", l);
      note += buf;
    }
    note += " s ->";
    for (double l : after) {
      std::snprintf(buf, sizeof buf, " %.3g", l);
      note += buf;
    }
    note += " s)";
  }
  return note;
}

} // namespace ampi::lb
