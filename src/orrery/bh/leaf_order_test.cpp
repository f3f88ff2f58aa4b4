// The host's Hilbert order of the leaves (leaf_order.hpp): a permutation of
// the sources in which each leaf's particles are together and in sorted
// order, and the leaves' cells follow the curve, found here by descending
// the tree from each particle rather than by sorting the leaves.
#include "orrery/bh/leaf_order.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "orrery/bh/octree_build.hpp"
#include "orrery/bh/opening.hpp"
#include "support/test_inputs.hpp"

namespace orrery::bh {
namespace {

/// The leaf holding sorted particle i: the deepest node whose range holds it.
std::int32_t leaf_of(const Octree<float>& t, std::int32_t i) {
  std::int32_t leaf = 0;
  for (std::int32_t k = 0; k < t.num_nodes();) {
    if (holds(t.first[k], t.count[k], i)) {
      leaf = k;
      ++k;  // into its children
    } else {
      k = t.next[k];
    }
  }
  return leaf;
}

void expect_leaves_along_the_curve(const Particles<float>& p, int leaf_capacity, const std::string& what) {
  TreeParams params;
  params.leaf_capacity = leaf_capacity;
  const Octree<float> t = build_octree(p.sources(), params);
  const std::vector<std::int32_t> order = hilbert_leaf_order(t.view());
  ASSERT_EQ(order.size(), t.x.size()) << what;
  std::vector<std::int32_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t k = 0; k < sorted.size(); ++k) ASSERT_EQ(sorted[k], std::int32_t(k)) << what << ": not a permutation";
  std::int32_t leaf = -1;
  std::uint64_t key = 0;
  for (std::size_t w = 0; w < order.size(); ++w) {
    const std::int32_t l = leaf_of(t, order[w]);
    ASSERT_EQ(t.next[l], l + 1) << what << ": particle " << order[w] << "'s deepest node is no leaf";
    if (l == leaf) {  // the same leaf: its next particle
      ASSERT_EQ(order[w], order[w - 1] + 1) << what << ": walk position " << w;
      continue;
    }
    ASSERT_EQ(order[w], t.first[l]) << what << ": leaf " << l << " entered at particle " << order[w];
    const std::uint64_t h = cell_hilbert_key(t.key[l], t.level[l]);
    if (leaf >= 0) ASSERT_LT(key, h) << what << ": leaf " << l << " out of Hilbert order at walk position " << w;
    leaf = l;
    key = h;
  }
}

TEST(HilbertLeafOrder, TakesWholeLeavesAlongTheCurve) {
  for (int capacity : {1, 8, 32})
    expect_leaves_along_the_curve(testing::uniform_cube(5000, 21), capacity,
                                  "uniform cube, leaf capacity " + std::to_string(capacity));
  for (const auto& in : testing::structured_inputs()) expect_leaves_along_the_curve(in.particles, 16, in.name);
}

}  // namespace
}  // namespace orrery::bh
