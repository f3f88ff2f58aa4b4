#pragma once
// The walk configurations the CPU bit-identity tests cover (group_walk_test,
// walk_isa_test): the four expansions (monopole to hexadecapole) x Plummer and spline softening x
// exact and fast math, at theta 0.6, leaf capacity 8, softening 0.02, with
// the geometric or the relative opening (tolerance 0.005); the
// run-time-to-template dispatch to the scalar walk they compare against; and
// the comparison of walk_all with that walk, geometric or relative.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "orrery/core/math_mode.hpp"
#include "orrery/core/softening.hpp"
#include "orrery/bh/walk.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/ic/plummer.hpp"
#include "orrery/bh/octree_build.hpp"
#include "support/test_inputs.hpp"
#include "orrery/bh/walk_all.hpp"
#include "orrery/gravity/tree_solver.hpp"
#include "orrery/bh/walk_isa.hpp"

namespace orrery::testing {

/// The relative opening's tolerance of the test configurations: large enough
/// that on the test inputs the geometric test decides some cells and the
/// relative test others.
inline constexpr double kTestTolerance = 0.005;

/// Calls f(config, name), name = input_name plus the configuration and Real.
template <class Real, class F>
void for_each_walk_config(const std::string& input_name, F&& f, bh::Opening opening = bh::Opening::geometric) {
  for (auto mp : {bh::Multipole::monopole, bh::Multipole::quadrupole, bh::Multipole::octupole,
                  bh::Multipole::hexadecapole}) {
    for (auto kind : {SofteningKind::plummer, SofteningKind::spline}) {
      for (auto mode : {MathMode::exact, MathMode::fast}) {
        bh::TreeSolverConfig c;
        c.tree = {0.6, 8, mp, opening, kTestTolerance};
        c.softening = 0.02;
        c.softening_kind = kind;
        c.math = mode;
        f(c, input_name + " " + std::string(to_string(mp)) + " " + std::string(to_string(kind)) + " " +
                 std::string(to_string(mode)) + " " + std::string(to_string(opening)) +
                 (sizeof(Real) == 4 ? " float" : " double"));
      }
    }
  }
}

/// Calls f(multipole, mode, softening) with c's multipole and math mode as
/// compile-time constants (std::integral_constant) and its
/// softening policy, as the solver dispatches them.
template <class Real, class F>
void with_walk_parameters(const bh::TreeSolverConfig& c, F&& f) {
  orrery::with_softening<Real>(c.softening_kind, Real(c.softening), [&](auto soft) {
    orrery::with_math_mode(c.math, [&](auto mode) {
      bh::with_multipole(c.tree.multipole, [&](auto multipole) { f(multipole, mode, soft); });
    });
  });
}

/// The bit-identity tests' inputs: the random and degenerate ones (one
/// point, a line, a disk, an outlier, ...) and a 3001-particle Plummer
/// sphere (3001: the last group is partly padding).
inline std::vector<NamedInput> walk_test_inputs() {
  auto inputs = structured_inputs();
  inputs.push_back({"plummer_3001", ic::to_precision<float>(ic::plummer_sphere(3001, 7))});
  return inputs;
}

/// Sets the walk's instruction set for one scope; back to automatic after.
class IsaScope {
 public:
  explicit IsaScope(bh::WalkIsa isa) { bh::set_walk_isa(isa); }
  ~IsaScope() { bh::set_walk_isa(bh::WalkIsa::automatic); }
  IsaScope(const IsaScope&) = delete;
  IsaScope& operator=(const IsaScope&) = delete;
};

/// walk_all's output in sorted order.
template <class Real>
struct SortedWalk {
  std::vector<Real> ax, ay, az, pot;
  std::vector<InteractionCounts> counts;
};

template <class Real>
SortedWalk<Real> sorted_walk(const bh::Octree<Real>& tree, const bh::TreeSolverConfig& c, const Real* scale) {
  const auto n = static_cast<std::size_t>(tree.view().num_particles);
  SortedWalk<Real> w{std::vector<Real>(n), std::vector<Real>(n), std::vector<Real>(n), std::vector<Real>(n),
                     std::vector<InteractionCounts>(n)};
  bh::walk_all(tree, c, true, w.ax.data(), w.ay.data(), w.az.data(), w.pot.data(), w.counts.data(), scale);
  return w;
}

/// Per-target scales of the relative opening for a tree, sorted order: the
/// bh::relative_scale of the accelerations of a real evaluation (the
/// walk at theta), except for targets whose scale is 0 (every 5th: the
/// geometric walk), whose acceleration is 0 (every 7th: the largest Real)
/// or NaN (every 13th: the same), or huge (every 11th: 1e30, a tiny scale).
template <class Real>
std::vector<Real> relative_test_scales(const bh::Octree<Real>& tree, const bh::TreeSolverConfig& c) {
  const auto w = sorted_walk<Real>(tree, c, nullptr);
  std::vector<Real> scale(w.ax.size());
  for (std::size_t i = 0; i < scale.size(); ++i) {
    Real ax = w.ax[i], ay = w.ay[i], az = w.az[i];
    if (i % 7 == 3) ax = ay = az = Real(0);
    if (i % 11 == 4) ax = ay = az = Real(1e30);
    if (i % 13 == 5) ax = std::numeric_limits<Real>::quiet_NaN();
    scale[i] = i % 5 == 2 ? Real(0) : bh::relative_scale(ax, ay, az);
  }
  return scale;
}

/// Sorted target i's walk_target (with scale[i] when scale is not null)
/// against w: the same bits and the same counters.
template <bh::Multipole M, MathMode Mode, class Real, class Softening>
void expect_same_as_walk_target(const bh::Octree<Real>& tree, const Softening& soft, const SortedWalk<Real>& w,
                                const Real* scale, const std::string& what) {
  const auto v = tree.view();
  for (std::int32_t i = 0; i < static_cast<std::int32_t>(v.num_particles); ++i) {
    bh::WalkCounts c;
    const auto a = bh::walk_target<true, M, Mode>(v, soft, i, c, scale ? scale[i] : Real(0));
    ASSERT_EQ(std::memcmp(&a.ax, &w.ax[i], sizeof(Real)), 0) << what << " target " << i << ": " << a.ax << " vs " << w.ax[i];
    ASSERT_EQ(std::memcmp(&a.ay, &w.ay[i], sizeof(Real)), 0) << what << " target " << i;
    ASSERT_EQ(std::memcmp(&a.az, &w.az[i], sizeof(Real)), 0) << what << " target " << i;
    ASSERT_EQ(std::memcmp(&a.pot, &w.pot[i], sizeof(Real)), 0) << what << " target " << i;
    ASSERT_EQ(w.counts[i], (InteractionCounts{c.node_visits, c.cell_interactions, c.particle_interactions}))
        << what << " target " << i;
  }
}

/// walk_all on the instruction set in use against walk_target, for every
/// configuration of for_each_walk_config with the given opening; relative
/// trees with the scales of relative_test_scales.
template <class Real>
void expect_walks_same_as_walk_target(const Particles<float>& input, const std::string& name, bh::Opening opening) {
  const auto p = converted<Real>(input);
  for_each_walk_config<Real>(
      name,
      [&](const bh::TreeSolverConfig& c, const std::string& what) {
        const auto tree = bh::build_octree(p.sources(), c.tree);
        ASSERT_EQ(tree.crit_rel.empty(), opening == bh::Opening::geometric) << what;
        const auto scale = opening == bh::Opening::relative ? relative_test_scales(tree, c) : std::vector<Real>();
        const Real* s = scale.empty() ? nullptr : scale.data();
        const auto w = sorted_walk(tree, c, s);
        with_walk_parameters<Real>(c, [&](auto multipole, auto mode, auto soft) {
          expect_same_as_walk_target<decltype(multipole)::value, decltype(mode)::value>(tree, soft, w, s, what);
        });
      },
      opening);
}

}  // namespace orrery::testing
