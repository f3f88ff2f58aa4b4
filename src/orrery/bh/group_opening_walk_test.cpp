// Group opening (opening_group.hpp, group_opening_walk.hpp, docs/adr/0017):
// the CPU walk against a scalar reference written from walk.hpp's terms, a
// group of one against walk_target, and the property that makes it sound:
// no target sums a cell its own walk would open.
#include "orrery/bh/group_opening_walk.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "orrery/bh/octree_build.hpp"
#include "orrery/bh/walk_all.hpp"
#include "orrery/core/error.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/ic/plummer.hpp"
#include "support/test_inputs.hpp"
#include "support/walk_test_configs.hpp"

namespace orrery::bh {
namespace {

/// The nodes a target's walk takes (accepted cells and summed leaves), in order.
using Taken = std::vector<std::int32_t>;

/// The reference: targets [k0, k0 + lanes) of `w` as one group, node by node
/// with accepts_group and walk.hpp's add_cell and add_leaf for each target
/// in turn (no lanes, no SIMD); their results at k0 + l, and the nodes the
/// group took.
template <bool Pot, Multipole M, MathMode Mode, class Criterion, class Real, class Softening>
Taken reference_group(const OctreeView<Real>& t, const Softening& soft, const WalkTargets<Real>& w, std::int32_t k0,
                      int lanes, const Real* scale, testing::SortedWalk<Real>& out) {
  std::vector<Real> tx(lanes), ty(lanes), tz(lanes);
  std::vector<std::int32_t> self(lanes);
  TargetGroup<Real> g{};
  for (int l = 0; l < lanes; ++l) {
    self[l] = w.self(k0 + l);
    w.position(t, k0 + l, self[l], tx[l], ty[l], tz[l]);
    const auto one = group_of_one(tx[l], ty[l], tz[l], Criterion::kScaled ? scale[k0 + l] : Real(0), self[l]);
    g = l == 0 ? one : merge_groups(g, one);
  }
  std::vector<Accumulator<Real>> acc(lanes);
  std::vector<InteractionCounts> counts(lanes);
  Taken taken;
  for (std::int32_t n = 0; n < t.num_nodes;) {
    for (auto& c : counts) ++c.node_visits;
    const bool accept = accepts_group<Criterion>(t.com_x[n], t.com_y[n], t.com_z[n], t.crit2[n],
                                                 Criterion::kScaled ? t.crit_rel[n] : Real(0), t.cap2, t.first[n],
                                                 t.count[n], g);
    const bool leaf = t.next[n] == n + 1;
    for (int l = 0; l < lanes; ++l) {
      if (accept) {
        add_cell<Pot, M, Mode>(acc[l], t, soft, n, tx[l], ty[l], tz[l]);
        ++counts[l].cell_interactions;
      } else if (leaf) {
        add_leaf<Pot, Mode>(acc[l], t, soft, n, self[l], tx[l], ty[l], tz[l]);
        counts[l].particle_interactions += t.count[n] - holds(t.first[n], t.count[n], self[l]);
      }
    }
    if (accept | leaf) taken.push_back(n);
    n = (accept | leaf) ? t.next[n] : n + 1;
  }
  for (int l = 0; l < lanes; ++l) {
    const auto k = static_cast<std::size_t>(k0 + l);
    out.ax[k] = acc[l].ax, out.ay[k] = acc[l].ay, out.az[k] = acc[l].az, out.pot[k] = acc[l].pot;
    out.counts[k] = counts[l];
  }
  return taken;
}

/// The groups of `w` (opening_group.hpp), as [begin, end) runs, found
/// target by target: a new group at each block of kOpeningGroup, at each
/// point, and where the group cell changes.
template <class Real>
std::vector<std::pair<std::int32_t, std::int32_t>> groups_of(const OctreeView<Real>& t, const WalkTargets<Real>& w,
                                                             int most) {
  std::vector<std::pair<std::int32_t, std::int32_t>> runs;
  for (std::int32_t k = 0; k < w.count; ++k) {
    const std::int32_t cell = group_cell(t, w.self(k), most);
    const bool starts = k % kOpeningGroup == 0 || cell < 0 || cell != group_cell(t, w.self(k - 1), most);
    if (starts) runs.push_back({k, k + 1});
    else runs.back().second = k + 1;
  }
  return runs;
}

/// Every target of `w` by reference_group: in its groups (group cells of at
/// most `most` particles), or (most 0) each target a group of one.
template <Multipole M, MathMode Mode, class Criterion, class Real, class Softening>
testing::SortedWalk<Real> reference_walk(const OctreeView<Real>& t, const Softening& soft, const WalkTargets<Real>& w,
                                         const Real* scale, int most, std::vector<Taken>* taken = nullptr) {
  const auto n = static_cast<std::size_t>(w.count);
  testing::SortedWalk<Real> r{std::vector<Real>(n), std::vector<Real>(n), std::vector<Real>(n), std::vector<Real>(n),
                              std::vector<InteractionCounts>(n)};
  std::vector<std::pair<std::int32_t, std::int32_t>> runs;
  if (most == 0)
    for (std::int32_t k = 0; k < w.count; ++k) runs.push_back({k, k + 1});
  else
    runs = groups_of(t, w, most);
  for (const auto& [b, e] : runs) {
    const Taken g = reference_group<true, M, Mode, Criterion>(t, soft, w, b, e - b, scale, r);
    if (taken != nullptr)
      for (std::int32_t k = b; k < e; ++k) taken->push_back(g);
  }
  return r;
}

template <class Real>
void expect_same_bits(const testing::SortedWalk<Real>& a, const testing::SortedWalk<Real>& b, const std::string& what) {
  ASSERT_EQ(a.ax.size(), b.ax.size()) << what;
  for (std::size_t i = 0; i < a.ax.size(); ++i) {
    ASSERT_EQ(std::memcmp(&a.ax[i], &b.ax[i], sizeof(Real)), 0) << what << " target " << i << ": " << a.ax[i] << " vs " << b.ax[i];
    ASSERT_EQ(std::memcmp(&a.ay[i], &b.ay[i], sizeof(Real)), 0) << what << " target " << i;
    ASSERT_EQ(std::memcmp(&a.az[i], &b.az[i], sizeof(Real)), 0) << what << " target " << i;
    ASSERT_EQ(std::memcmp(&a.pot[i], &b.pot[i], sizeof(Real)), 0) << what << " target " << i;
    ASSERT_EQ(a.counts[i], b.counts[i]) << what << " target " << i;
  }
}

/// walk_targets with group opening (the solver's walk) for `w`.
template <class Real>
testing::SortedWalk<Real> group_walk_targets(const Octree<Real>& tree, const TreeSolverConfig& c,
                                             const WalkTargets<Real>& w, const Real* scale, int most = kOpeningGroup) {
  const auto n = static_cast<std::size_t>(w.count);
  testing::SortedWalk<Real> r{std::vector<Real>(n), std::vector<Real>(n), std::vector<Real>(n), std::vector<Real>(n),
                              std::vector<InteractionCounts>(n)};
  TreeSolverConfig g = c;
  g.tree.group_opening = most;
  walk_targets(tree, w, g, true, r.ax.data(), r.ay.data(), r.az.data(), r.pot.data(), r.counts.data(), scale);
  return r;
}

/// For the monopole and quadrupole configurations of for_each_walk_config:
/// f(tree, config, scales or null, multipole, mode, softening, criterion, what).
template <class Real, class F>
void for_each_group_config(const Particles<float>& input, const std::string& name, Opening opening, F&& f) {
  const auto p = testing::converted<Real>(input);
  testing::for_each_walk_config<Real>(
      name,
      [&](const TreeSolverConfig& c, const std::string& what) {
        if (multipole_order(c.tree.multipole) > 2) return;  // group opening: the monopole and quadrupole
        const auto tree = build_octree(p.sources(), c.tree);
        const auto scale = opening == Opening::relative ? testing::relative_test_scales(tree, c) : std::vector<Real>();
        const Real* s = scale.empty() ? nullptr : scale.data();
        testing::with_walk_parameters<Real>(c, [&](auto multipole, auto mode, auto soft) {
          with_opening(tree.view(), [&](auto criterion) {
            f(tree, c, s, multipole, mode, soft, criterion, what);
          });
        });
      },
      opening);
}

/// for_each_group_config over a 3001-particle Plummer sphere (the last
/// block partly padding), with both openings.
template <class F>
void for_each_plummer_group_config(F&& f) {
  const auto p = ic::to_precision<float>(ic::plummer_sphere(3001, 7));
  for (const Opening opening : {Opening::geometric, Opening::relative})
    for_each_group_config<float>(p, "plummer_3001", opening, f);
}

// The solver's walk (SIMD lanes, chunks over the threads, padded last group)
// against the scalar reference: the same bits and counters for every
// target, every configuration, both openings, float and double.
template <class Real>
void expect_walk_all_equals_reference(const Particles<float>& input, const std::string& name, Opening opening) {
  for_each_group_config<Real>(input, name, opening, [&](const auto& tree, const auto& c, const Real* s, auto multipole,
                                                        auto mode, auto soft, auto criterion, const std::string& what) {
    const auto v = tree.view();
    const auto every = every_source(v);
    for (const int most : {kOpeningGroup, 256}) {  // group cells of at most 32 and 256 particles
      const auto got = group_walk_targets(tree, c, every, s, most);
      const auto want = reference_walk<decltype(multipole)::value, decltype(mode)::value, decltype(criterion)>(
          v, soft, every, s, most);
      expect_same_bits(got, want, what + " most " + std::to_string(most));
    }
  });
}

TEST(GroupOpening, WalkEqualsTheScalarReferenceBitForBit) {
  for (const auto& in : testing::walk_test_inputs()) {
    expect_walk_all_equals_reference<float>(in.particles, in.name, Opening::geometric);
    expect_walk_all_equals_reference<double>(in.particles, in.name, Opening::geometric);
    expect_walk_all_equals_reference<float>(in.particles, in.name, Opening::relative);
  }
}

// A group of one is the target's own walk: walk_group_opening with W = 1
// gives walk_target's bits and counters, so the group test is the point
// test where the group is a point.
TEST(GroupOpening, AGroupOfOneIsTheTargetsOwnWalk) {
  for_each_plummer_group_config([&](const auto& tree, const auto&, const float* s, auto multipole, auto mode,
                                    auto soft, auto criterion, const std::string& what) {
    constexpr Multipole M = decltype(multipole)::value;
    constexpr MathMode Mode = decltype(mode)::value;
    const auto v = tree.view();
    std::vector<WalkNode<float>> nodes(static_cast<std::size_t>(v.num_nodes));
    pack_walk_nodes(v, nodes.data());
    const auto n = static_cast<std::int32_t>(v.num_particles);
    std::vector<float> ax(n), ay(n), az(n), pot(n);
    std::vector<InteractionCounts> counts(n);
    for (std::int32_t k = 0; k < n; ++k)
      walk_group_opening<1, true, M, Mode, float, decltype(soft), 1, decltype(criterion)>(
          v, nodes.data(), soft, every_source(v), k, 1, s, ax.data(), ay.data(), az.data(), pot.data(), counts.data());
    testing::expect_same_as_walk_target<M, Mode>(tree, soft, {ax, ay, az, pot, counts}, s, what);
  });
}

// What makes group opening sound: every node a target takes in its group's
// walk lies in the subtree of a node its own walk takes (the same node, or
// a descendant). So no target uses a cell coarser than its own criterion
// allows, and the groups open more than the targets alone (more particle
// terms on these inputs).
TEST(GroupOpening, NoTargetTakesACellItsOwnWalkWouldOpen) {
  for_each_plummer_group_config([&](const auto& tree, const auto&, const float* s, auto multipole, auto mode,
                                    auto soft, auto criterion, const std::string& what) {
    constexpr Multipole M = decltype(multipole)::value;
    constexpr MathMode Mode = decltype(mode)::value;
    using Criterion = decltype(criterion);
    const auto v = tree.view();
    std::vector<Taken> group;
    const auto grouped = reference_walk<M, Mode, Criterion>(v, soft, every_source(v), s, kOpeningGroup, &group);
    std::vector<Taken> own;
    const auto alone = reference_walk<M, Mode, Criterion>(v, soft, every_source(v), s, 0, &own);
    std::uint64_t more = 0;
    for (std::size_t i = 0; i < own.size(); ++i) {
      // Both lists are in pre-order and the own walk's subtrees are
      // disjoint: each group node lies in the last own node at or before it.
      for (const std::int32_t g : group[i]) {
        const auto it = std::upper_bound(own[i].begin(), own[i].end(), g);
        ASSERT_NE(it, own[i].begin()) << what << " target " << i << " node " << g;
        const std::int32_t e = *(it - 1);
        ASSERT_LT(g, v.next[e]) << what << " target " << i << ": its group took node " << g
                                << ", an ancestor of or beside its own node " << e;
      }
      ASSERT_GE(grouped.counts[i].particle_interactions + grouped.counts[i].cell_interactions,
                alone.counts[i].particle_interactions + alone.counts[i].cell_interactions)
          << what << " target " << i;
      more += grouped.counts[i].particle_interactions > alone.counts[i].particle_interactions;
    }
    EXPECT_GT(more, own.size() / 2) << what << ": the groups opened nothing more than the targets";
  });
}

// Subsets and points: the groups are the walk's targets in their order, 32
// at a time (a subset's index range may hold sources that are not targets:
// conservative), the same bits as the reference.
TEST(GroupOpening, SubsetsAndPointsEqualTheReference) {
  const auto p = ic::to_precision<float>(ic::plummer_sphere(3001, 7));
  for_each_group_config<float>(p, "plummer_3001", Opening::geometric, [&](const auto& tree, const auto& c,
                                                                         const float* s, auto multipole, auto mode,
                                                                         auto soft, auto criterion,
                                                                         const std::string& what) {
    constexpr Multipole M = decltype(multipole)::value;
    constexpr MathMode Mode = decltype(mode)::value;
    const auto v = tree.view();
    std::vector<std::int32_t> subset;
    for (std::int32_t i = 0; i < v.num_particles; i += 3) subset.push_back(i);
    WalkTargets<float> sub{static_cast<std::int32_t>(subset.size()), subset.data()};
    expect_same_bits(group_walk_targets(tree, c, sub, s),
                     reference_walk<M, Mode, decltype(criterion)>(v, soft, sub, s, kOpeningGroup), what + " subset");
    std::vector<float> x(100), y(100), z(100);
    for (int k = 0; k < 100; ++k) x[k] = 0.05f * float(k - 50), y[k] = 0.01f * float(k), z[k] = -0.02f * float(k);
    WalkTargets<float> points{100, nullptr, x.data(), y.data(), z.data()};
    expect_same_bits(group_walk_targets(tree, c, points, s),
                     reference_walk<M, Mode, decltype(criterion)>(v, soft, points, s, kOpeningGroup), what + " points");
  });
}

// A group cell is the largest node of at most kOpeningGroup particles that
// holds the source (or its leaf): it holds it, it is that small or a leaf,
// and the node above it is larger; and the groups of every source are runs
// of at most kOpeningGroup targets, within the blocks of kOpeningGroup, that
// never straddle two cells.
TEST(GroupOpening, GroupsAreRunsOfOneGroupCellWithinEachBlock) {
  const auto p = ic::to_precision<float>(ic::plummer_sphere(3001, 7));
  for (const int leaf : {8, 40}) {
    TreeParams params{0.6, leaf};
    const auto tree = build_octree(p.sources(), params);
    const auto v = tree.view();
    for (const int most : {kOpeningGroup, 128}) {
      for (std::int32_t i = 0; i < v.num_particles; ++i) {
        const std::int32_t c = group_cell(v, i, most);
        ASSERT_TRUE(holds(v.first[c], v.count[c], i)) << "source " << i;
        ASSERT_TRUE(v.count[c] <= most || v.next[c] == c + 1) << "source " << i << " cell " << c;
        // The node above c: the last node before c whose subtree holds c.
        std::int32_t parent = -1;
        for (std::int32_t n = 0; n < c; ++n)
          if (v.next[n] > c) parent = n;
        if (parent >= 0) {
          ASSERT_GT(v.count[parent], most) << "source " << i << " cell " << c;
        }
      }
      const auto runs = groups_of(v, every_source(v), most);
      std::int32_t covered = 0;
      for (const auto& [b, e] : runs) {
        ASSERT_EQ(b, covered);
        ASSERT_LE(e - b, kOpeningGroup);
        ASSERT_EQ(b / kOpeningGroup, (e - 1) / kOpeningGroup) << "a group across two blocks";
        ASSERT_EQ(group_cell(v, b, most), group_cell(v, e - 1, most));
        covered = e;
      }
      EXPECT_EQ(covered, v.num_particles);
      EXPECT_LT(runs.size(), std::size_t(v.num_particles) / 4) << "groups of a few targets only";
      EXPECT_EQ(group_cell(v, -1, most), -1);  // a point: a group of one
    }
  }
}

// The group test on a hand-made group: a cell at the box's corner is judged
// at the corner, a cell holding a target's index is never accepted, and a
// group with no source (points) holds none.
TEST(GroupOpening, TheGroupTestOnAHandMadeGroup) {
  TargetGroup<float> g = merge_groups(group_of_one(0.0f, 0.0f, 0.0f, 0.0f, 10), group_of_one(1.0f, 1.0f, 1.0f, 0.0f, 12));
  EXPECT_EQ(g.lo, 10);
  EXPECT_EQ(g.hi, 12);
  // d^2 from the box [0, 1]^3 to (3, 1, 1) is 4: accepted when crit2 < 4.
  EXPECT_TRUE(accepts_group<GeometricOpening>(3.0f, 1.0f, 1.0f, 3.9f, 0.0f, 0.0f, 100, 5, g));
  EXPECT_FALSE(accepts_group<GeometricOpening>(3.0f, 1.0f, 1.0f, 4.0f, 0.0f, 0.0f, 100, 5, g));
  // The same cell holding index 12, 10 or 11 (a source inside the range): refused.
  EXPECT_FALSE(accepts_group<GeometricOpening>(3.0f, 1.0f, 1.0f, 0.0f, 0.0f, 0.0f, 12, 5, g));
  EXPECT_FALSE(accepts_group<GeometricOpening>(3.0f, 1.0f, 1.0f, 0.0f, 0.0f, 0.0f, 5, 6, g));
  EXPECT_FALSE(accepts_group<GeometricOpening>(3.0f, 1.0f, 1.0f, 0.0f, 0.0f, 0.0f, 11, 1, g));
  EXPECT_TRUE(accepts_group<GeometricOpening>(3.0f, 1.0f, 1.0f, 0.0f, 0.0f, 0.0f, 5, 5, g));
  EXPECT_TRUE(accepts_group<GeometricOpening>(3.0f, 1.0f, 1.0f, 0.0f, 0.0f, 0.0f, 13, 4, g));
  const TargetGroup<float> points = merge_groups(group_of_one(0.0f, 0.0f, 0.0f, 0.0f, -1), group_of_one(1.0f, 1.0f, 1.0f, 0.0f, -1));
  EXPECT_TRUE(accepts_group<GeometricOpening>(3.0f, 1.0f, 1.0f, 0.0f, 0.0f, 0.0f, 0, 1 << 30, points));
  // The largest scale of the group decides a scaled criterion.
  g = merge_groups(g, group_of_one(0.5f, 0.5f, 0.5f, 2.0f, 11));
  EXPECT_EQ(g.max_scale, 2.0f);
  // d^2 = 4 > crit_rel * scale = 1.9 * 2 accepts; 2.1 * 2 does not (crit2 1 and a cap,
  // cap2 * crit2 = 100, that decide nothing here).
  EXPECT_TRUE(accepts_group<RelativeOpening>(3.0f, 1.0f, 1.0f, 1.0f, 1.9f, 100.0f, 100, 5, g));
  EXPECT_FALSE(accepts_group<RelativeOpening>(3.0f, 1.0f, 1.0f, 1.0f, 2.1f, 100.0f, 100, 5, g));
}

TEST(GroupOpening, ParametersItDoesNotTakeAreRefusedByName) {
  TreeParams p;
  for (const int refused : {16, 48, 8192}) {
    p.group_opening = refused;
    try {
      validate_tree_params(p, 100);
      FAIL() << "no InputError for " << refused;
    } catch (const InputError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("gravity.group_opening = " + std::to_string(refused)), std::string::npos) << m;
      EXPECT_NE(m.find("a power of two from 32 to 4096"), std::string::npos) << m;
    }
  }
  p.group_opening = kOpeningGroup;
  p.multipole = Multipole::octupole;
  try {
    validate_tree_params(p, 100);
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("octupole"), std::string::npos) << m;
    EXPECT_NE(m.find("monopole, quadrupole"), std::string::npos) << m;
  }
  p.multipole = Multipole::quadrupole;
  EXPECT_NO_THROW(validate_tree_params(p, 100));
}

}  // namespace
}  // namespace orrery::bh
