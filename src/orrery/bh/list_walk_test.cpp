// The list walk (list_walk.hpp, docs/adr/0019) on the CPU: what makes its
// lists right (every particle once, no target in a cell it sums, no cell
// coarser than the target's own walk takes), its accuracy against the exact
// sum, and the solver's walk (chunks over the threads) against one group at a
// time.
#include "orrery/bh/list_walk.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "orrery/bh/leaf_order.hpp"
#include "orrery/bh/octree_build.hpp"
#include "orrery/bh/walk_all.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/ic/plummer.hpp"
#include "support/test_inputs.hpp"
#include "support/walk_test_configs.hpp"

namespace orrery::bh {
namespace {

/// The nodes target (i, position) takes in its own walk (walk_target's
/// decisions: accepted cells and summed leaves), in pre-order.
template <class Criterion, class Real>
std::vector<std::int32_t> own_walk(const OctreeView<Real>& t, std::int32_t i, Real tx, Real ty, Real tz, Real scale) {
  std::vector<std::int32_t> taken;
  for (std::int32_t n = 0; n < t.num_nodes;) {
    const bool take = accepts<Criterion>(t, n, i, tx, ty, tz, scale) || t.next[n] == n + 1;
    if (take) taken.push_back(n);
    n = take ? t.next[n] : n + 1;
  }
  return taken;
}

/// The walk's targets for every source: the Hilbert order of the leaves.
template <class Real>
WalkTargets<Real> hilbert_targets(const std::vector<std::int32_t>& order) {
  return {static_cast<std::int32_t>(order.size()), order.data()};
}

// Each group's lists: the cells and the leaves cover every particle exactly
// once, no cell holds one of the group's targets, and each target's every
// cell and leaf lies inside a node its own walk takes (the group opens
// at least as far as each of its targets). Both openings, on a Plummer
// sphere and every structured input, leaf capacities 1 and 16.
TEST(ListWalk, ListsCoverEveryParticleOnceAndNoCellIsCoarserThanTheTargetsOwn) {
  auto inputs = testing::structured_inputs();
  inputs.push_back({"plummer_3001", ic::to_precision<float>(ic::plummer_sphere(3001, 7))});
  for (const auto& in : inputs)
    for (const int leaf : {1, 16})
      for (const Opening opening : {Opening::geometric, Opening::relative}) {
        TreeSolverConfig c;
        c.tree.leaf_capacity = leaf;
        c.tree.opening = opening;
        c.tree.multipole = Multipole::quadrupole;
        c.tree.theta = 0.6;
        c.tree.tolerance = 0.005;
        c.tree.list_walk = true;
        const std::string what = in.name + " leaf " + std::to_string(leaf) + " " + std::string(to_string(opening));
        const Octree<float> tree = build_octree(in.particles.sources(), c.tree);
        const auto v = tree.view();
        const auto scales = opening == Opening::relative ? testing::relative_test_scales(tree, c) : std::vector<float>();
        const std::vector<std::int32_t> order = hilbert_leaf_order(v);
        const WalkTargets<float> w = hilbert_targets<float>(order);
        std::vector<WalkNode<float>> nodes(static_cast<std::size_t>(v.num_nodes));
        pack_walk_nodes(v, nodes.data());
        const auto n = static_cast<std::size_t>(w.count);
        std::vector<float> ax(n), ay(n), az(n), pot(n), scale(n, 0.0f);
        for (std::size_t k = 0; k < n; ++k) scale[k] = scales.empty() ? 0.0f : scales[static_cast<std::size_t>(order[k])];
        std::vector<InteractionCounts> counts(n);
        GroupLists lists;
        std::vector<int> covered(v.num_particles);
        with_opening(v, [&](auto criterion) {
          using Criterion = decltype(criterion);
          for (std::int32_t k0 = 0; k0 < w.count; k0 += kListGroup) {
            const int lanes = std::min(kListGroup, w.count - k0);
            walk_list_group<true, Multipole::quadrupole, MathMode::exact, float, PlummerSoftening<float>, Criterion>(
                v, nodes.data(), PlummerSoftening<float>(0.01f), w, k0, lanes, scale.data(), ax.data(), ay.data(),
                az.data(), pot.data(), counts.data(), lists);
            std::fill(covered.begin(), covered.end(), 0);
            std::vector<std::int32_t> taken = lists.cells;
            taken.insert(taken.end(), lists.leaves.begin(), lists.leaves.end());
            for (const std::int32_t node : taken)
              for (std::int32_t j = v.first[node]; j < v.first[node] + v.count[node]; ++j) ++covered[j];
            for (std::int32_t j = 0; j < v.num_particles; ++j)
              ASSERT_EQ(covered[j], 1) << what << " group at " << k0 << ": particle " << j;
            std::sort(taken.begin(), taken.end());
            std::uint64_t in_cells = 0;
            for (const std::int32_t cell : lists.cells) in_cells += v.count[cell];
            for (int l = 0; l < lanes; ++l) {
              const std::int32_t i = w.self(k0 + l);
              for (const std::int32_t cell : lists.cells)
                ASSERT_FALSE(holds(v.first[cell], v.count[cell], i)) << what << ": target " << i << " in cell " << cell;
              const auto own = own_walk<Criterion>(v, i, v.x[i], v.y[i], v.z[i], scale[k0 + l]);
              for (const std::int32_t g : taken) {
                const auto it = std::upper_bound(own.begin(), own.end(), g);
                ASSERT_NE(it, own.begin()) << what << " target " << i << " node " << g;
                ASSERT_LT(g, v.next[*(it - 1)]) << what << " target " << i << ": its group took node " << g
                                               << ", an ancestor of or beside its own node " << *(it - 1);
              }
              ASSERT_EQ(counts[k0 + l].node_visits, lists.queue.size()) << what;
              ASSERT_EQ(counts[k0 + l].cell_interactions, lists.cells.size()) << what;
              ASSERT_EQ(counts[k0 + l].particle_interactions, std::uint64_t(v.num_particles - 1) - in_cells)
                  << what << ": every particle outside the cells, itself excluded";
            }
          }
        });
      }
}

// The accuracy it buys: on a Plummer sphere, against the double direct sum,
// the list walk's median error is no larger than each target's own walk at
// the same parameters (it opens at least as far), and its forces are those
// of a tree code (median |da|/|a| below 1e-3 at theta 0.6).
TEST(ListWalk, IsAtLeastAsAccurateAsTheOwnWalk) {
  const auto p = ic::to_precision<float>(ic::plummer_sphere(4096, 3));
  TreeSolverConfig c;
  c.tree.multipole = Multipole::quadrupole;
  c.tree.theta = 0.6;
  c.tree.leaf_capacity = 16;
  c.softening = 0.01;
  const Octree<float> tree = build_octree(p.sources(), c.tree);
  const auto v = tree.view();
  const auto n = static_cast<std::size_t>(v.num_particles);
  const auto errors = [&](bool list) {
    TreeSolverConfig k = c;
    k.tree.list_walk = list;
    std::vector<float> ax(n), ay(n), az(n), pot(n);
    std::vector<InteractionCounts> counts(n);
    const std::vector<std::int32_t> order = hilbert_leaf_order(v);
    const WalkTargets<float> w = list ? hilbert_targets<float>(order) : every_source(v);
    walk_targets(tree, w, k, true, ax.data(), ay.data(), az.data(), pot.data(), counts.data());
    std::vector<double> e(n);
    for (std::size_t q = 0; q < n; ++q) {
      const std::int32_t i = list ? order[q] : static_cast<std::int32_t>(q);
      double bx = 0, by = 0, bz = 0;
      for (std::size_t j = 0; j < n; ++j) {
        if (static_cast<std::int32_t>(j) == i) continue;
        const double dx = double(v.x[j]) - v.x[i], dy = double(v.y[j]) - v.y[i], dz = double(v.z[j]) - v.z[i];
        const double r2 = dx * dx + dy * dy + dz * dz + c.softening * c.softening;
        const double f = double(v.m[j]) / (r2 * std::sqrt(r2));
        bx += f * dx, by += f * dy, bz += f * dz;
      }
      e[q] = std::hypot(ax[q] - bx, ay[q] - by, az[q] - bz) / std::hypot(bx, by, bz);
    }
    std::nth_element(e.begin(), e.begin() + e.size() / 2, e.end());
    return e[e.size() / 2];
  };
  const double own = errors(false), list = errors(true);
  EXPECT_LE(list, own) << "list walk median " << list << ", own walk " << own;
  EXPECT_LT(list, 1e-3);
  EXPECT_GT(list, 0.0) << "the list walk summed every particle: no tree code";
}

// The solver's walk (walk_targets: chunks of groups over the threads,
// relative scales) gives each target the bits and counters of
// walk_list_group called group by group, for the Hilbert order, a subset
// and points, both openings, float and double, every walk configuration of
// the monopole and quadrupole.
template <class Real>
void expect_walk_targets_equals_groups(const Particles<float>& input, const std::string& name, Opening opening) {
  const auto p = testing::converted<Real>(input);
  testing::for_each_walk_config<Real>(
      name,
      [&](const TreeSolverConfig& base, const std::string& what) {
        if (multipole_order(base.tree.multipole) > 2) return;
        TreeSolverConfig c = base;
        c.tree.list_walk = true;
        const auto tree = build_octree(p.sources(), c.tree);
        const auto v = tree.view();
        const auto sorted_scale = opening == Opening::relative ? testing::relative_test_scales(tree, c) : std::vector<Real>();
        const std::vector<std::int32_t> order = hilbert_leaf_order(v);
        std::vector<std::int32_t> subset;
        for (std::int32_t i = 0; i < v.num_particles; i += 3) subset.push_back(i);
        std::vector<Real> px, py, pz;
        for (std::int32_t i = 0; i < v.num_particles; i += 5)
          px.push_back(v.x[i] + Real(0.01)), py.push_back(v.y[i]), pz.push_back(v.z[i] - Real(0.02));
        const WalkTargets<Real> sets[] = {hilbert_targets<Real>(order),
                                          {static_cast<std::int32_t>(subset.size()), subset.data()},
                                          {static_cast<std::int32_t>(px.size()), nullptr, px.data(), py.data(), pz.data()}};
        const char* set_names[] = {"hilbert", "subset", "points"};
        std::vector<WalkNode<Real>> nodes(static_cast<std::size_t>(v.num_nodes));
        pack_walk_nodes(v, nodes.data());
        for (int s = 0; s < 3; ++s) {
          const WalkTargets<Real>& w = sets[s];
          const auto n = static_cast<std::size_t>(w.count);
          std::vector<Real> scale(n, Real(0));
          if (!sorted_scale.empty())
            for (std::size_t k = 0; k < n; ++k) scale[k] = w.self(k) >= 0 ? sorted_scale[w.self(k)] : Real(0.5);
          testing::SortedWalk<Real> got{std::vector<Real>(n), std::vector<Real>(n), std::vector<Real>(n),
                                        std::vector<Real>(n), std::vector<InteractionCounts>(n)};
          auto want = got;
          walk_targets(tree, w, c, true, got.ax.data(), got.ay.data(), got.az.data(), got.pot.data(),
                       got.counts.data(), sorted_scale.empty() ? nullptr : scale.data());
          testing::with_walk_parameters<Real>(c, [&](auto multipole, auto mode, auto soft) {
            with_opening(v, [&](auto criterion) {
              GroupLists lists;
              for (std::int32_t k0 = 0; k0 < w.count; k0 += kListGroup)
                walk_list_group<true, decltype(multipole)::value, decltype(mode)::value, Real, decltype(soft),
                                decltype(criterion)>(v, nodes.data(), soft, w, k0, std::min(kListGroup, w.count - k0),
                                                     scale.data(), want.ax.data(), want.ay.data(), want.az.data(),
                                                     want.pot.data(), want.counts.data(), lists);
            });
          });
          for (std::size_t k = 0; k < n; ++k) {
            ASSERT_EQ(std::memcmp(&got.ax[k], &want.ax[k], sizeof(Real)), 0) << what << " " << set_names[s] << " " << k;
            ASSERT_EQ(std::memcmp(&got.ay[k], &want.ay[k], sizeof(Real)), 0) << what << " " << set_names[s] << " " << k;
            ASSERT_EQ(std::memcmp(&got.az[k], &want.az[k], sizeof(Real)), 0) << what << " " << set_names[s] << " " << k;
            ASSERT_EQ(std::memcmp(&got.pot[k], &want.pot[k], sizeof(Real)), 0) << what << " " << set_names[s] << " " << k;
            ASSERT_EQ(got.counts[k], want.counts[k]) << what << " " << set_names[s] << " " << k;
          }
        }
      },
      opening);
}

TEST(ListWalk, SolverWalkEqualsGroupByGroup) {
  const auto p = ic::to_precision<float>(ic::plummer_sphere(3001, 7));
  for (const Opening opening : {Opening::geometric, Opening::relative}) {
    expect_walk_targets_equals_groups<float>(p, "plummer_3001", opening);
    expect_walk_targets_equals_groups<double>(p, "plummer_3001", opening);
  }
}

// The lanes' simd loops give each target the bits of a plain scalar sum of
// its group's lists (walk.hpp's add_cell_terms and add_particle, one target
// at a time, cells then particles into two sums): the arithmetic the GPU's
// lanes do, so the exact-mode bits the GPU test compares are this sum's.
// Both math modes, both openings, monopole and quadrupole, float and double.
template <class Real>
void expect_lanes_equal_scalar_sums(Opening opening) {
  const auto p = testing::converted<Real>(ic::to_precision<float>(ic::plummer_sphere(3001, 11)));
  testing::for_each_walk_config<Real>(
      "plummer_3001",
      [&](const TreeSolverConfig& base, const std::string& what) {
        if (multipole_order(base.tree.multipole) > 2) return;
        const auto tree = build_octree(p.sources(), base.tree);
        const auto v = tree.view();
        const auto sorted_scale = opening == Opening::relative ? testing::relative_test_scales(tree, base) : std::vector<Real>();
        const std::vector<std::int32_t> order = hilbert_leaf_order(v);
        const WalkTargets<Real> w = hilbert_targets<Real>(order);
        const auto n = static_cast<std::size_t>(w.count);
        std::vector<Real> scale(n, Real(0));
        if (!sorted_scale.empty())
          for (std::size_t k = 0; k < n; ++k) scale[k] = sorted_scale[static_cast<std::size_t>(order[k])];
        std::vector<WalkNode<Real>> nodes(static_cast<std::size_t>(v.num_nodes));
        pack_walk_nodes(v, nodes.data());
        std::vector<Real> ax(n), ay(n), az(n), pot(n);
        std::vector<InteractionCounts> counts(n);
        testing::with_walk_parameters<Real>(base, [&](auto multipole, auto mode, auto soft) {
          constexpr Multipole M = decltype(multipole)::value;
          constexpr MathMode Mode = decltype(mode)::value;
          with_opening(v, [&](auto criterion) {
            GroupLists lists;
            for (std::int32_t k0 = 0; k0 < w.count; k0 += kListGroup) {
              const int lanes = std::min(kListGroup, w.count - k0);
              walk_list_group<true, M, Mode, Real, decltype(soft), decltype(criterion)>(
                  v, nodes.data(), soft, w, k0, lanes, scale.data(), ax.data(), ay.data(), az.data(), pot.data(),
                  counts.data(), lists);
              for (int l = 0; l < lanes; ++l) {
                const std::int32_t k = k0 + l, i = w.self(k);
                Accumulator<Real> cells, particles;
                for (const std::int32_t c : lists.cells) add_cell<true, M, Mode>(cells, v, soft, c, v.x[i], v.y[i], v.z[i]);
                for (const std::int32_t leaf : lists.leaves) add_leaf<true, Mode>(particles, v, soft, leaf, i, v.x[i], v.y[i], v.z[i]);
                const Real want[4] = {xm::add(cells.ax, particles.ax), xm::add(cells.ay, particles.ay),
                                      xm::add(cells.az, particles.az), xm::add(cells.pot, particles.pot)};
                const Real got[4] = {ax[k], ay[k], az[k], pot[k]};
                for (int c = 0; c < 4; ++c)
                  ASSERT_EQ(std::memcmp(&got[c], &want[c], sizeof(Real)), 0)
                      << what << " target " << i << " component " << c << ": " << got[c] << " vs " << want[c];
              }
            }
          });
        });
      },
      opening);
}

TEST(ListWalk, LanesEqualAScalarSumOfTheLists) {
  for (const Opening opening : {Opening::geometric, Opening::relative}) {
    expect_lanes_equal_scalar_sums<float>(opening);
    expect_lanes_equal_scalar_sums<double>(opening);
  }
}

// The index runs: a group holding sorted indices 4-6 and 20 takes a cell of
// particles 7-19 (none of its own) and no cell reaching 4, 6 or 20; one
// range [4, 20] would have refused both.
TEST(ListWalk, IndexRunsHoldExactlyTheGroupsIndices) {
  const std::int32_t lo[] = {4, 20}, hi[] = {6, 20};
  EXPECT_FALSE(runs_hold(lo, hi, 2, 7, 13));   // 7..19
  EXPECT_TRUE(runs_hold(lo, hi, 2, 6, 2));     // 6..7
  EXPECT_TRUE(runs_hold(lo, hi, 2, 0, 5));     // 0..4
  EXPECT_TRUE(runs_hold(lo, hi, 2, 20, 1));    // 20
  EXPECT_FALSE(runs_hold(lo, hi, 2, 21, 100));
  EXPECT_FALSE(runs_hold(lo, hi, 0, 0, 100));  // points hold no index
}

}  // namespace
}  // namespace orrery::bh
