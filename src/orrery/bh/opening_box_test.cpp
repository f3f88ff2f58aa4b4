// The box criterion (opening_box.hpp) against the point criteria it bounds:
// on trees of clustered and uniform particles, for boxes from a hundredth of
// the cube to half of it (and 1e-4 of it around single particles), every node the box test accepts is accepted by
// every target inside the box (random points, the corners and the centre,
// and the tree's own particles inside the box, with their membership), for
// the geometric criterion at theta 0.5, 0.9 and 1.5 (where Barnes' test alone may
// accept a cell holding a point) and the relative one with random scales;
// and a box that contains another accepts no node the inner one opens.
#include "orrery/bh/opening_box.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "orrery/bh/octree_build.hpp"
#include "orrery/bh/walk.hpp"
#include "orrery/core/rng.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/ic/plummer.hpp"
#include "support/test_inputs.hpp"

namespace orrery::bh {
namespace {

struct Target {
  float x, y, z;
  std::int32_t self;  // sorted index, or -1 for a point that is no source
  float scale;
};

/// Counts of one tree's check: nodes the box test accepted, and of those
/// nodes, how many carried targets (so the check had something to refute).
struct Tally {
  long accepted = 0, checked_pairs = 0, failures = 0;
};

template <class Criterion>
Tally check_boxes(const Octree<float>& tree, std::uint64_t seed) {
  const OctreeView<float> t = tree.view();
  Rng rng(seed);
  Tally tally;
  for (int k = 0; k < 80; ++k) {
    // A box around a random particle (most are in the dense centre) or a
    // random point of the cube, of half-size from 1e-4 to 0.5 of the cube.
    const double half = tree.cube.side * std::pow(10.0, rng.uniform(-4.0, std::log10(0.5)));
    const bool at_particle = k % 2 == 0;
    const std::int64_t j = static_cast<std::int64_t>(rng.uniform() * double(t.num_particles)) % t.num_particles;
    const double c[3] = {at_particle ? double(t.x[j]) : tree.cube.x0 + rng.uniform() * tree.cube.side,
                         at_particle ? double(t.y[j]) : tree.cube.y0 + rng.uniform() * tree.cube.side,
                         at_particle ? double(t.z[j]) : tree.cube.z0 + rng.uniform() * tree.cube.side};
    const TargetBox<float> box{float(c[0] - half), float(c[1] - half), float(c[2] - half),
                               float(c[0] + half), float(c[1] + half), float(c[2] + half)};
    std::vector<Target> targets;
    const float max_scale = Criterion::kScaled ? float(rng.uniform(0.1, 10.0)) : 0.0f;
    const auto scale = [&] { return Criterion::kScaled ? float(rng.uniform()) * max_scale : 0.0f; };
    const auto inside = [](float lo, float hi, double u) {
      return std::clamp(static_cast<float>(double(lo) + u * (double(hi) - double(lo))), lo, hi);
    };
    for (int corner = 0; corner < 8; ++corner)
      targets.push_back({corner & 1 ? box.hi_x : box.lo_x, corner & 2 ? box.hi_y : box.lo_y,
                         corner & 4 ? box.hi_z : box.lo_z, -1, max_scale});
    targets.push_back({inside(box.lo_x, box.hi_x, 0.5), inside(box.lo_y, box.hi_y, 0.5),
                       inside(box.lo_z, box.hi_z, 0.5), -1, scale()});
    for (int r = 0; r < 48; ++r)
      targets.push_back({inside(box.lo_x, box.hi_x, rng.uniform()), inside(box.lo_y, box.hi_y, rng.uniform()),
                         inside(box.lo_z, box.hi_z, rng.uniform()), -1, scale()});
    for (std::int32_t i = 0; i < t.num_particles && targets.size() < 400; ++i) {
      const bool in = t.x[i] >= box.lo_x && t.x[i] <= box.hi_x && t.y[i] >= box.lo_y && t.y[i] <= box.hi_y &&
                      t.z[i] >= box.lo_z && t.z[i] <= box.hi_z;
      if (in) targets.push_back({t.x[i], t.y[i], t.z[i], i, scale()});
    }
    for (std::int32_t n = 0; n < t.num_nodes; ++n) {
      if (!accepts_box<Criterion>(t, tree.cube, n, box, max_scale)) continue;
      ++tally.accepted;
      for (const Target& p : targets) {
        ++tally.checked_pairs;
        if (!accepts<Criterion>(t, n, p.self, p.x, p.y, p.z, p.scale)) {
          ADD_FAILURE() << "box " << k << " accepts node " << n << " but the target (" << p.x << ", " << p.y << ", "
                        << p.z << "), source " << p.self << ", scale " << p.scale << " opens it";
          if (++tally.failures > 5) return tally;
        }
      }
    }
  }
  return tally;
}

TreeParams params(double theta, Opening opening) {
  TreeParams p;
  p.theta = theta;
  p.opening = opening;
  p.tolerance = 0.005;
  p.leaf_capacity = 8;
  return p;
}

std::vector<testing::NamedInput> inputs() {
  return {{"plummer_20000", ic::to_precision<float>(ic::plummer_sphere(20000, 41))},
          {"uniform_8000", testing::uniform_cube(8000, 42)}};
}

TEST(OpeningBox, NeverAcceptsACellThatATargetInsideTheBoxWouldOpen_Geometric) {
  for (const auto& in : inputs()) {
    for (const double theta : {0.5, 0.9, 1.5}) {
      SCOPED_TRACE(in.name + " theta " + std::to_string(theta));
      const Octree<float> tree = build_octree(in.particles.sources(), params(theta, Opening::geometric));
      const Tally tally = check_boxes<GeometricOpening>(tree, 7);
      // Not vacuous: boxes accepted cells, and those had targets to refute them.
      EXPECT_GT(tally.accepted, 100);
      EXPECT_GT(tally.checked_pairs, 10 * tally.accepted);
    }
  }
}

TEST(OpeningBox, NeverAcceptsACellThatATargetInsideTheBoxWouldOpen_Relative) {
  for (const auto& in : inputs()) {
    SCOPED_TRACE(in.name);
    const Octree<float> tree = build_octree(in.particles.sources(), params(1.0, Opening::relative));
    const Tally tally = check_boxes<RelativeOpening>(tree, 8);
    EXPECT_GT(tally.accepted, 100);
    EXPECT_GT(tally.checked_pairs, 10 * tally.accepted);
  }
}

TEST(OpeningBox, ABoxThatIsOnePointAcceptsWhatThatPointAcceptsOutsideTheCellsItReaches) {
  // The box test's only slack against the point test is the widened cell:
  // for a degenerate box at a point outside every widened cell it considers,
  // it decides as the point does.
  const auto p = ic::to_precision<float>(ic::plummer_sphere(5000, 43));
  const Octree<float> tree = build_octree(p.sources(), params(0.6, Opening::geometric));
  const OctreeView<float> t = tree.view();
  const float x = 3.0f, y = -2.5f, z = 1.75f;  // outside the Plummer core
  const TargetBox<float> box{x, y, z, x, y, z};
  long same = 0;
  for (std::int32_t n = 0; n < t.num_nodes; ++n) {
    if (box_reaches_cell(box, t.key[n], t.level[n], tree.cube)) continue;
    EXPECT_EQ(accepts_box<GeometricOpening>(t, tree.cube, n, box, 0.0f), accepts<GeometricOpening>(t, n, -1, x, y, z, 0.0f))
        << "node " << n;
    ++same;
  }
  EXPECT_GT(same, t.num_nodes / 2);
}

// What a local essential tree's selection reads for its unions of boxes
// (mpi/let.cpp): a box that contains another, at a scale no smaller,
// accepts only nodes the inner box accepts. Boxes share faces (a union's
// bounds are its boxes') or reach past them, for both criteria.
template <class Criterion>
void check_containing_boxes(const Octree<float>& tree, std::uint64_t seed) {
  const OctreeView<float> t = tree.view();
  Rng rng(seed);
  long accepted = 0;
  for (int k = 0; k < 60; ++k) {
    const double half = tree.cube.side * std::pow(10.0, rng.uniform(-4.0, std::log10(0.3)));
    const std::int64_t j = static_cast<std::int64_t>(rng.uniform() * double(t.num_particles)) % t.num_particles;
    const TargetBox<float> inner{float(t.x[j] - half), float(t.y[j] - half), float(t.z[j] - half),
                                 float(t.x[j] + half), float(t.y[j] + half), float(t.z[j] + half)};
    // Each side of the outer box is the inner's or further out.
    const auto out = [&](float v, float dir) { return k % 3 == 0 ? v : float(v + dir * rng.uniform() * half); };
    const TargetBox<float> outer{out(inner.lo_x, -1), out(inner.lo_y, -1), out(inner.lo_z, -1),
                                 out(inner.hi_x, 1),  out(inner.hi_y, 1),  out(inner.hi_z, 1)};
    const float inner_scale = Criterion::kScaled ? float(rng.uniform(0.1, 10.0)) : 0.0f;
    const float outer_scale = Criterion::kScaled && k % 2 == 1 ? inner_scale * float(rng.uniform(1.0, 2.0)) : inner_scale;
    for (std::int32_t n = 0; n < t.num_nodes; ++n) {
      if (!accepts_box<Criterion>(t, tree.cube, n, outer, outer_scale)) continue;
      ++accepted;
      ASSERT_TRUE(accepts_box<Criterion>(t, tree.cube, n, inner, inner_scale)) << "box " << k << ", node " << n;
    }
  }
  EXPECT_GT(accepted, 100);  // not vacuous
}

TEST(OpeningBox, ABoxThatContainsAnotherAcceptsOnlyWhatTheInnerOneAccepts) {
  for (const auto& in : inputs()) {
    SCOPED_TRACE(in.name);
    check_containing_boxes<GeometricOpening>(build_octree(in.particles.sources(), params(0.7, Opening::geometric)), 9);
    check_containing_boxes<RelativeOpening>(build_octree(in.particles.sources(), params(1.0, Opening::relative)), 10);
  }
}

}  // namespace
}  // namespace orrery::bh
