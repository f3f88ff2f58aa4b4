// The CPU solver's SIMD group walk (group_walk.hpp) against the shared scalar
// walk (bh::walk_target) that the GPU reproduces: the same bits for every
// target and the same counters, for every configuration the solver dispatches.
#include "orrery/bh/group_walk.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "orrery/gravity/dispatch.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/ic/plummer.hpp"
#include "orrery/bh/octree_build.hpp"
#include "support/test_inputs.hpp"
#include "orrery/gravity/tree_solver.hpp"
#include "orrery/bh/walk_isa.hpp"
#include "support/walk_test_configs.hpp"

namespace orrery::bh {
namespace {

void check_all_configurations(const Particles<float>& p, const std::string& name, Opening opening) {
  testing::expect_walks_same_as_walk_target<float>(p, name, opening);
  testing::expect_walks_same_as_walk_target<double>(p, name, opening);
}

TEST(GroupWalk, BitIdenticalToWalkTargetOnStructuredInputs) {
  for (const auto& in : testing::structured_inputs()) {
    check_all_configurations(in.particles, in.name, Opening::geometric);
  }
}

TEST(GroupWalk, BitIdenticalToWalkTargetOnAPlummerSphere) {
  // 3001: the last group is partly padding.
  check_all_configurations(ic::to_precision<float>(ic::plummer_sphere(3001, 7)), "plummer_3001", Opening::geometric);
}

// The relative opening on the AVX2 build (the AVX-512 build: walk_isa_test):
// each lane's opening test is bh::accepts' with its own scale, so the
// walks are walk_target's with those scales, bit for bit. Scales from a real
// evaluation, and 0, the largest Real and tiny ones (relative_test_scales).
TEST(GroupWalk, RelativeOpeningBitIdenticalToWalkTarget) {
  const testing::IsaScope scope(WalkIsa::avx2);
  for (const auto& in : testing::walk_test_inputs()) check_all_configurations(in.particles, in.name, Opening::relative);
}

// The relative walk is another walk: on a Plummer sphere its scales change
// which cells are accepted (else the test above would not test the relative
// part), while with every scale 0 it is exactly the geometric walk of the
// same tree built without the relative opening.
TEST(GroupWalk, RelativeOpeningChangesTheWalkAndScaleZeroDoesNot) {
  const auto p = ic::to_precision<float>(ic::plummer_sphere(3001, 7));
  testing::for_each_walk_config<float>(
      "plummer_3001",
      [&](const TreeSolverConfig& c, const std::string& what) {
        const auto tree = build_octree(p.sources(), c.tree);
        TreeSolverConfig g = c;
        g.tree.opening = Opening::geometric;
        const auto geometric = testing::sorted_walk<float>(build_octree(p.sources(), g.tree), g, nullptr);
        const auto zero = testing::sorted_walk<float>(tree, c, nullptr);
        EXPECT_EQ(std::memcmp(zero.ax.data(), geometric.ax.data(), zero.ax.size() * sizeof(float)), 0) << what;
        EXPECT_EQ(zero.counts, geometric.counts) << what;
        const auto scale = testing::relative_test_scales(tree, c);
        const auto rel = testing::sorted_walk<float>(tree, c, scale.data());
        std::uint64_t differ = 0;
        for (std::size_t i = 0; i < scale.size(); ++i)
          differ += rel.counts[i].cell_interactions != geometric.counts[i].cell_interactions;
        EXPECT_GT(differ, scale.size() / 2) << what;
      },
      Opening::relative);
}

}  // namespace
}  // namespace orrery::bh
