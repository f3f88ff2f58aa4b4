// The held nodes' pre-order by a merge (preorder_merge.hpp), without ranks:
// against a sort of every node, and its errors.
#include "orrery/mpi/preorder_merge.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "orrery/core/error.hpp"

namespace orrery::mpi {
namespace {

using Cell = std::pair<std::uint64_t, std::int32_t>;

/// Records of `cells`, each with mass, crit_rel and quadrupole components
/// telling which cell it is (c.first + c.second), so a copy can be checked.
NodeRecords<float> records(const std::vector<Cell>& cells, std::uint8_t complete) {
  NodeRecords<float> r;
  r.resize(static_cast<std::int64_t>(cells.size()), true, true);
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const auto tag = static_cast<float>(cells[i].first + static_cast<std::uint64_t>(cells[i].second));
    r.key[i] = cells[i].first, r.level[i] = cells[i].second, r.count[i] = static_cast<std::int64_t>(i);
    r.mass[i] = tag, r.com_x[i] = tag + 1, r.com_y[i] = tag + 2, r.com_z[i] = tag + 3, r.crit2[i] = tag + 4;
    r.crit_rel[i] = tag + 5, r.complete[i] = complete;
    for (int c = 0; c < bh::kQuadComponents; ++c) r.quad[i * bh::kQuadComponents + c] = tag + 6 + float(c);
  }
  return r;
}

struct Merge {
  NodeRecords<float> out;
  std::vector<int> origin;
};

Merge merged(const NodeRecords<float>& top, const std::vector<NodeRecords<float>>& lists, int rank) {
  std::vector<const NodeRecords<float>*> p;
  for (const auto& l : lists) p.push_back(&l);
  Merge m;
  const auto runs = preorder_runs(top, std::span<const NodeRecords<float>* const>(p), rank);
  copy_runs(std::span<const NodeRun<float>>(runs), m.out, m.origin, true, true);
  return m;
}

// Distinct random cells, sorted by (key, level), dealt out: some to the top
// tree's internal nodes (anywhere in the order), the rest in consecutive
// pieces to 5 ranks (some empty); the top also holds leaves (not complete)
// that are list nodes. The merge gives the sort of all of them, each record
// copied whole, with the rank it came from; larger than kParallelLoop, so
// the copy runs in pieces on the threads.
TEST(PreorderRuns, MergesTheTopNodesIntoTheRanksListsAsASortWould) {
  std::mt19937_64 rng(7);
  std::vector<Cell> all;
  for (int i = 0; i < 60000; ++i) all.push_back({rng() % 200000, static_cast<std::int32_t>(rng() % 21)});
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  std::vector<Cell> top_cells, top_leaves;
  std::vector<std::vector<Cell>> rank_cells(5);
  std::vector<int> want_origin;
  const int rank = 2;
  const std::size_t cut[] = {0, all.size() / 3, all.size() / 3, all.size() / 2, 9 * all.size() / 10, all.size()};
  for (int r = 0; r < 5; ++r)
    for (std::size_t i = cut[r]; i < cut[r + 1]; ++i) {
      if (rng() % 50 == 0) {
        top_cells.push_back(all[i]);
        want_origin.push_back(rank);
        continue;
      }
      rank_cells[r].push_back(all[i]);
      want_origin.push_back(r);
      if (rng() % 100 == 0) top_leaves.push_back(all[i]);
    }
  ASSERT_TRUE(rank_cells[1].empty());
  ASSERT_GT(top_cells.size(), 100U);
  // The top tree's records: its internal nodes and its leaves, in pre-order.
  NodeRecords<float> top = records(top_cells, 1);
  const NodeRecords<float> leaves = records(top_leaves, 0);
  {
    std::vector<std::pair<Cell, std::int64_t>> at;  // (cell, record), 0.. internal, then leaves
    for (std::size_t i = 0; i < top_cells.size(); ++i) at.push_back({top_cells[i], static_cast<std::int64_t>(i)});
    for (std::size_t i = 0; i < top_leaves.size(); ++i)
      at.push_back({top_leaves[i], -1 - static_cast<std::int64_t>(i)});
    std::sort(at.begin(), at.end());
    NodeRecords<float> both;
    both.resize(static_cast<std::int64_t>(at.size()), true, true);
    for (std::size_t i = 0; i < at.size(); ++i) {
      if (at[i].second >= 0)
        both.set(static_cast<std::int64_t>(i), top, at[i].second);
      else
        both.set(static_cast<std::int64_t>(i), leaves, -1 - at[i].second);
    }
    top = std::move(both);
  }
  std::vector<NodeRecords<float>> lists;
  for (const auto& c : rank_cells) lists.push_back(records(c, 1));

  const Merge m = merged(top, lists, rank);
  const NodeRecords<float> want = records(all, 1);
  ASSERT_EQ(m.out.size(), want.size());
  for (std::int64_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(m.out.key[i], want.key[i]) << i;
    ASSERT_EQ(m.out.level[i], want.level[i]) << i;
    ASSERT_EQ(m.out.mass[i], want.mass[i]) << i;
    ASSERT_EQ(m.out.com_z[i], want.com_z[i]) << i;
    ASSERT_EQ(m.out.crit_rel[i], want.crit_rel[i]) << i;
    ASSERT_EQ(m.out.quad[i * bh::kQuadComponents + 5], want.quad[i * bh::kQuadComponents + 5]) << i;
    ASSERT_EQ(m.out.complete[i], 1) << i;
    ASSERT_EQ(m.origin[static_cast<std::size_t>(i)], want_origin[static_cast<std::size_t>(i)]) << i;
  }
}

std::string error_of(const NodeRecords<float>& top, const std::vector<NodeRecords<float>>& lists) {
  try {
    merged(top, lists, 1);
  } catch (const RuntimeFailure& e) {
    return e.what();
  }
  return "no error";
}

// A node held twice (a top node that a rank also sent; one node sent by two
// ranks) and a list out of pre-order stop with the node and the ranks named.
TEST(PreorderRuns, NamesANodeHeldTwiceAndAListOutOfOrder) {
  const NodeRecords<float> none = records({}, 1);
  const NodeRecords<float> top = records({{0, 0}, {64, 2}}, 1);
  EXPECT_EQ(error_of(top, {records({{0, 1}, {64, 2}}, 1)}),
            "rank 1 holds node (key 64, level 2) from ranks 1 and 0; accepted: every node once");
  EXPECT_EQ(error_of(none, {records({{0, 1}, {8, 3}}, 1), records({{8, 3}, {9, 3}}, 1)}),
            "rank 1 holds node (key 8, level 3) from ranks 0 and 1; accepted: every node once");
  EXPECT_EQ(error_of(none, {records({{0, 1}}, 1), records({{9, 3}, {8, 3}}, 1)}),
            "rank 1: node (key 8, level 3) of rank 1 comes after node (key 9, level 3) of rank 1, before it in "
            "pre-order; accepted: each rank's nodes in pre-order (key, level), the ranks' domains in rank order");
  EXPECT_EQ(error_of(none, {records({{9, 3}}, 1), records({}, 1), records({{8, 4}}, 1)}),
            "rank 1: node (key 8, level 4) of rank 2 comes after node (key 9, level 3) of rank 0, before it in "
            "pre-order; accepted: each rank's nodes in pre-order (key, level), the ranks' domains in rank order");
}

}  // namespace
}  // namespace orrery::mpi
