// The CPU solver's SIMD group walk (group_walk.hpp) against the shared scalar
// walk (gravity::walk_target) that the GPU reproduces: the same bits for every
// target and the same counters, for every configuration the solver dispatches.
#include "orrery/tree/group_walk.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "orrery/gravity/dispatch.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/ic/plummer.hpp"
#include "orrery/tree/octree_build.hpp"
#include "orrery/tree/test_inputs.hpp"
#include "orrery/tree/tree_solver.hpp"
#include "orrery/tree/walk_test_configs.hpp"

namespace orrery::tree {
namespace {

template <bool Quad, MathMode Mode, class Real, class Softening>
void expect_same_as_walk_target(const Octree<Real>& tree, const Softening& soft, const std::vector<Real>& ax,
                                const std::vector<Real>& ay, const std::vector<Real>& az, const std::vector<Real>& pot,
                                const std::vector<gravity::InteractionCounts>& counts, const std::string& what) {
  const auto v = tree.view();
  for (std::int32_t i = 0; i < static_cast<std::int32_t>(v.num_particles); ++i) {
    gravity::WalkCounts c;
    const auto a = gravity::walk_target<true, Quad, Mode>(v, soft, i, c);
    ASSERT_EQ(std::memcmp(&a.ax, &ax[i], sizeof(Real)), 0) << what << " target " << i << ": " << a.ax << " vs " << ax[i];
    ASSERT_EQ(std::memcmp(&a.ay, &ay[i], sizeof(Real)), 0) << what << " target " << i;
    ASSERT_EQ(std::memcmp(&a.az, &az[i], sizeof(Real)), 0) << what << " target " << i;
    ASSERT_EQ(std::memcmp(&a.pot, &pot[i], sizeof(Real)), 0) << what << " target " << i;
    ASSERT_EQ(counts[i], (gravity::InteractionCounts{c.node_visits, c.cell_interactions, c.particle_interactions}))
        << what << " target " << i;
  }
}

template <class Real>
void check_all_configurations(const Particles<float>& input, const std::string& name) {
  const auto p = testing::converted<Real>(input);
  testing::for_each_walk_config<Real>(name, [&](const TreeSolverConfig& c, const std::string& what) {
    const auto tree = build_octree(p.sources(), c.tree);
    const auto n = static_cast<std::size_t>(p.size());
    std::vector<Real> ax(n), ay(n), az(n), pot(n);
    std::vector<gravity::InteractionCounts> counts(n);
    walk_all(tree, c, true, ax.data(), ay.data(), az.data(), pot.data(), counts.data());
    testing::with_walk_parameters<Real>(c, [&](auto quad, auto mode, auto soft) {
      expect_same_as_walk_target<decltype(quad)::value, decltype(mode)::value>(tree, soft, ax, ay, az, pot, counts,
                                                                                what);
    });
  });
}

TEST(GroupWalk, BitIdenticalToWalkTargetOnStructuredInputs) {
  for (const auto& in : testing::structured_inputs()) {
    check_all_configurations<float>(in.particles, in.name);
    check_all_configurations<double>(in.particles, in.name);
  }
}

TEST(GroupWalk, BitIdenticalToWalkTargetOnAPlummerSphere) {
  // 3001: the last group is partly padding.
  const auto p = ic::to_precision<float>(ic::plummer_sphere(3001, 7));
  check_all_configurations<float>(p, "plummer_3001");
  check_all_configurations<double>(p, "plummer_3001");
}

}  // namespace
}  // namespace orrery::tree
