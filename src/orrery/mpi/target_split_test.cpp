// The split of the targets over the ranks, without ranks: Morton order equal
// to the tree's, and cuts that balance exact integer work.
#include <gtest/gtest.h>

#include <numeric>

#include "orrery/bh/octree_build.hpp"
#include "orrery/bh/tree_params.hpp"
#include "orrery/core/error.hpp"
#include "orrery/mpi/target_split.hpp"
#include "support/test_particles.hpp"

namespace orrery::mpi {
namespace {

TEST(MortonOrder, EveryTargetIsInTheTreesOrder) {
  const auto p = testing::plummer<float>(2000, 3);
  const auto order = morton_order(p.sources());
  const auto tree = bh::build_octree(p.sources(), bh::TreeParams{});
  ASSERT_EQ(order.size(), tree.order.size());
  for (std::size_t k = 0; k < order.size(); ++k) ASSERT_EQ(order[k], tree.order[k]) << "place " << k;
}

TEST(MortonOrder, ASubsetIsOrderedAsTheTreeOrdersItsMembers) {
  const auto p = testing::plummer<double>(1000, 4);
  const std::vector<std::int64_t> subset = {900, 3, 500, 42, 7, 999};
  const auto tree = bh::build_octree(p.sources(), bh::TreeParams{});
  const auto order = subset_in_order(morton_order(p.sources()), subset);
  std::vector<std::int64_t> expected;  // the subset's members in the tree's order, as places in the subset
  for (const auto i : tree.order)
    for (std::size_t k = 0; k < subset.size(); ++k)
      if (subset[k] == i) expected.push_back(static_cast<std::int64_t>(k));
  EXPECT_EQ(order, expected);
  EXPECT_THROW(subset_in_order(morton_order(p.sources()), std::vector<std::int64_t>{5, 6, 5}), InputError);
}

TEST(BalancedCuts, EachPartHoldsItsShareOfTheWork) {
  std::vector<std::uint32_t> work(1000);
  for (std::size_t i = 0; i < work.size(); ++i) work[i] = static_cast<std::uint32_t>(1 + (i * 7919) % 500);
  const std::uint64_t total = std::accumulate(work.begin(), work.end(), std::uint64_t{0});
  for (int parts = 1; parts <= 8; ++parts) {
    const auto cuts = balanced_cuts(work, parts);
    ASSERT_EQ(cuts.size(), static_cast<std::size_t>(parts) + 1);
    EXPECT_EQ(cuts.front(), 0);
    EXPECT_EQ(cuts.back(), 1000);
    for (int r = 0; r < parts; ++r) {
      std::uint64_t share = 0;
      for (auto k = cuts[r]; k < cuts[r + 1]; ++k) share += work[k];
      // Within one item (at most 500) of the ideal share.
      EXPECT_LE(share, total / parts + 500) << parts << " parts, part " << r;
      EXPECT_GE(share + 500, total / parts) << parts << " parts, part " << r;
    }
  }
}

TEST(BalancedCuts, NoWorkSplitsByCountAndMorePartsThanItemsLeaveSomeEmpty) {
  EXPECT_EQ(balanced_cuts(std::vector<std::uint32_t>(10, 0), 3), (std::vector<std::int64_t>{0, 3, 6, 10}));
  EXPECT_EQ(balanced_cuts(std::vector<std::uint32_t>{5, 5}, 4), (std::vector<std::int64_t>{0, 1, 1, 2, 2}));
  EXPECT_EQ(balanced_cuts(std::vector<std::uint32_t>{}, 2), (std::vector<std::int64_t>{0, 0, 0}));
  EXPECT_THROW(balanced_cuts(std::vector<std::uint32_t>{1}, 0), InputError);
}

}  // namespace
}  // namespace orrery::mpi
