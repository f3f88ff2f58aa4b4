#include "orrery/gravity/tree_solver.hpp"

#include <gtest/gtest.h>

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "orrery/core/error.hpp"
#include "orrery/gravity/solver_factory.hpp"
#include "orrery/bh/walk.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/ic/plummer.hpp"
#include "orrery/bh/octree_build.hpp"
#include "support/test_inputs.hpp"
#include "support/walk_test_configs.hpp"

namespace orrery::gravity {
namespace {

// Accuracy against the reference (theta = 0, monopole, quadrupole) is in
// tree_accuracy_test.cpp; this file tests the solver's interface.

TEST(TreeSolver, FiniteOnDegenerateInputs) {
  for (const auto& in : testing::structured_inputs()) {
    for (auto mp : {bh::Multipole::monopole, bh::Multipole::quadrupole}) {
      bh::TreeSolverConfig c;
      c.tree.multipole = mp;
      TreeSolver<float> s(c);
      Accelerations<float> out(in.particles.size());
      s.solve(in.particles.sources(), out.view());
      for (std::int64_t i = 0; i < out.size(); ++i) {
        ASSERT_TRUE(std::isfinite(out.ax[i]) && std::isfinite(out.ay[i]) && std::isfinite(out.az[i]) &&
                    std::isfinite(out.potential[i]))
            << in.name << " " << i;
      }
    }
  }
}

TEST(TreeSolver, MadeByTheFactoryFromTheGravityConfig) {
  gravity::GravityConfig g;
  g.solver = "tree";
  g.theta = 0.7;
  g.leaf_capacity = 4;
  g.multipole_order = 2;
  g.softening = 0.02;
  g.math = MathMode::exact;
  const auto c = tree_solver_config(g);
  EXPECT_EQ(c.tree.theta, 0.7);
  EXPECT_EQ(c.tree.leaf_capacity, 4);
  EXPECT_EQ(c.tree.multipole, bh::Multipole::quadrupole);
  EXPECT_EQ(c.softening, 0.02);
  EXPECT_EQ(c.math, MathMode::exact);
  const auto solver = gravity::make_solver<float>(g);
  EXPECT_EQ(solver->name(), "tree/cpu/quadrupole");
  const auto p = testing::uniform_cube(500, 4);
  Accelerations<float> out(p.size());
  const auto rep = solver->solve(p.sources(), out.view());
  EXPECT_GT(rep.total.cell_interactions, 0u);
  g.theta = -1;
  EXPECT_THROW(gravity::make_solver<float>(g)->solve(p.sources(), out.view()), InputError);
}

bh::TreeSolverConfig relative_config(bh::Multipole mp) {
  bh::TreeSolverConfig c;
  c.tree = {0.7, 8, mp, bh::Opening::relative, 0.005};
  c.softening = 0.02;
  return c;
}

/// What a relative solve must give: the tree's walk (walk_all) with the
/// scales of `previous` (caller's order; bh::relative_scale, floored at
/// kRelativeFloor times the largest magnitude), in the caller's order,
/// per-target counters included.
struct Expected {
  Accelerations<float> acc;
  std::vector<InteractionCounts> counts;
};

Expected manual_relative_solve(const Particles<float>& p, const bh::TreeSolverConfig& c,
                               const Accelerations<float>& previous) {
  const auto tree = bh::build_octree(p.sources(), c.tree);
  const auto n = static_cast<std::size_t>(p.size());
  double largest = 0;
  for (std::size_t i = 0; i < n; ++i)
    largest = std::max(largest, bh::acceleration_magnitude(previous.ax[i], previous.ay[i], previous.az[i]));
  std::vector<float> scale(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto o = tree.order[i];
    scale[i] = bh::relative_scale(previous.ax[o], previous.ay[o], previous.az[o], bh::kRelativeFloor * largest);
  }
  const auto w = testing::sorted_walk<float>(tree, c, scale.data());
  Expected e{Accelerations<float>(n), std::vector<InteractionCounts>(n)};
  for (std::size_t i = 0; i < n; ++i) {
    const auto o = tree.order[i];
    e.acc.ax[o] = w.ax[i];
    e.acc.ay[o] = w.ay[i];
    e.acc.az[o] = w.az[i];
    e.acc.potential[o] = w.pot[i];
    e.counts[o] = w.counts[i];
  }
  return e;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

void expect_equal(const Accelerations<float>& a, const SolverReport& r, const Expected& e) {
  EXPECT_TRUE(same_bits(a.ax, e.acc.ax));
  EXPECT_TRUE(same_bits(a.ay, e.acc.ay));
  EXPECT_TRUE(same_bits(a.az, e.acc.az));
  EXPECT_TRUE(same_bits(a.potential, e.acc.potential));
  EXPECT_EQ(r.per_target, e.counts);
  InteractionCounts total;
  for (const auto& c : e.counts) total += c;
  EXPECT_EQ(r.total, total);
}

// previous_accelerations: the scales come from what out holds on entry, in
// the caller's order (a Plummer sphere's accelerations a step "earlier":
// those of the geometric solve, some of them zero or doubled).
TEST(TreeSolver, RelativeWithPreviousAccelerationsWalksWithTheirScales) {
  const auto p = ic::to_precision<float>(ic::plummer_sphere(3001, 9));
  for (auto mp : {bh::Multipole::monopole, bh::Multipole::quadrupole}) {
    auto c = relative_config(mp);
    c.tree.opening = bh::Opening::geometric;
    Accelerations<float> previous(p.size());
    TreeSolver<float>(c).solve(p.sources(), previous.view());
    // Some zero (floored) and some twice as large (one of them the largest).
    for (std::int64_t i = 0; i < p.size(); i += 17) previous.ax[i] = previous.ay[i] = previous.az[i] = 0.0f;
    for (std::int64_t i = 5; i < p.size(); i += 23) previous.ax[i] *= 2.0f;
    c.tree.opening = bh::Opening::relative;
    Accelerations<float> a = previous;
    const auto r = TreeSolver<float>(c).solve(p.sources(), a.view(),
                                              {.potential = true, .per_target_counts = true, .previous_accelerations = true});
    expect_equal(a, r, manual_relative_solve(p, c, previous));
  }
}

// Without previous accelerations the solver bootstraps: the walk with every
// scale 0 (the geometric walk at theta) supplies them, then the relative
// walk runs; the counters are the second walk's.
TEST(TreeSolver, RelativeWithoutPreviousAccelerationsBootstraps) {
  const auto p = ic::to_precision<float>(ic::plummer_sphere(3001, 9));
  for (auto mp : {bh::Multipole::monopole, bh::Multipole::quadrupole}) {
    const auto c = relative_config(mp);
    const auto tree = bh::build_octree(p.sources(), c.tree);
    const auto zero = testing::sorted_walk<float>(tree, c, nullptr);
    Accelerations<float> bootstrap(p.size());
    for (std::int64_t i = 0; i < p.size(); ++i) {
      const auto o = tree.order[i];
      bootstrap.ax[o] = zero.ax[i];
      bootstrap.ay[o] = zero.ay[i];
      bootstrap.az[o] = zero.az[i];
    }
    const Expected e = manual_relative_solve(p, c, bootstrap);
    // Junk in out: it must not be read.
    Accelerations<float> a(p.size());
    std::fill(a.ax.begin(), a.ax.end(), 1e30f);
    const auto r = TreeSolver<float>(c).solve(p.sources(), a.view(), {.potential = true, .per_target_counts = true});
    expect_equal(a, r, e);
    EXPECT_NE(r.per_target, zero.counts) << "the relative walk should differ from the bootstrap's";
    const auto phase = std::find_if(r.phase_seconds.begin(), r.phase_seconds.end(),
                                    [](const auto& ph) { return ph.first == "bootstrap walk"; });
    EXPECT_NE(phase, r.phase_seconds.end());
  }
}

// The geometric opening reads nothing from out: previous_accelerations
// changes nothing there.
TEST(TreeSolver, GeometricIgnoresPreviousAccelerations) {
  const auto p = testing::uniform_cube(1000, 3);
  bh::TreeSolverConfig c;
  Accelerations<float> a(p.size()), b(p.size());
  std::fill(b.ax.begin(), b.ax.end(), 1e30f);
  const auto ra = TreeSolver<float>(c).solve(p.sources(), a.view(), {.per_target_counts = true});
  const auto rb =
      TreeSolver<float>(c).solve(p.sources(), b.view(), {.per_target_counts = true, .previous_accelerations = true});
  EXPECT_TRUE(same_bits(a.ax, b.ax) && same_bits(a.ay, b.ay) && same_bits(a.az, b.az));
  EXPECT_EQ(ra.per_target, rb.per_target);
}

/// Solving with c is refused by an InputError naming `key` and what it accepts.
void expect_refused(const bh::TreeSolverConfig& c, double value, const char* key, const char* accepted) {
  const auto p = testing::uniform_cube(100, 5);
  Accelerations<float> out(p.size());
  try {
    TreeSolver<float>(c).solve(p.sources(), out.view());
    ADD_FAILURE() << key << " " << value << " was accepted";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(key), std::string::npos) << m;
    EXPECT_NE(m.find(accepted), std::string::npos) << m;
  }
}

/// Solves `p` with `c` into `out` and with each target's own walk
/// (quadrupole, the defaults otherwise); expects `c` to sum more particle
/// terms, and returns the median of |a_c - a_own| / |a_own|.
double median_difference_from_own_walk(const bh::TreeSolverConfig& c, const Particles<float>& p,
                                       Accelerations<float>& out) {
  Accelerations<float> own(p.size());
  bh::TreeSolverConfig o;
  o.tree.multipole = bh::Multipole::quadrupole;
  const SolverReport a = TreeSolver<float>(o).solve(p.sources(), own.view());
  const SolverReport b = TreeSolver<float>(c).solve(p.sources(), out.view());
  EXPECT_GT(b.total.particle_interactions, a.total.particle_interactions);
  std::vector<double> rel(p.size());
  for (std::size_t i = 0; i < p.size(); ++i)
    rel[i] = std::hypot(double(out.ax[i]) - own.ax[i], double(out.ay[i]) - own.ay[i], double(out.az[i]) - own.az[i]) /
             std::hypot(double(own.ax[i]), double(own.ay[i]), double(own.az[i]));
  std::nth_element(rel.begin(), rel.begin() + rel.size() / 2, rel.end());
  return rel[rel.size() / 2];
}

/// The tree solver of `g` with a softening per type (two types' softenings
/// differ) is refused with `message`.
void expect_per_type_refused(gravity::GravityConfig g, const std::string& message) {
  g.solver = "tree";
  g.softening_per_type[2] = 0.01;
  g.type_counts = {0, 50, 50, 0, 0, 0};
  try {
    TreeSolver<float> solver(tree_solver_config(g));
    ADD_FAILURE() << "accepted with a softening per type: " << message;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

TEST(TreeSolver, RelativeToleranceMustBePositiveAndFinite) {
  const auto p = testing::uniform_cube(100, 5);
  Accelerations<float> out(p.size());
  for (double tol : {0.0, -0.001, std::nan(""), std::numeric_limits<double>::infinity()}) {
    auto c = relative_config(bh::Multipole::monopole);
    c.tree.tolerance = tol;
    expect_refused(c, tol, "gravity.tolerance", "> 0");
    // The geometric opening has no tolerance to check.
    c.tree.opening = bh::Opening::geometric;
    EXPECT_NO_THROW(TreeSolver<float>(c).solve(p.sources(), out.view())) << tol;
  }
}

TEST(TreeSolver, RelativeCapMustBeInZeroToOne) {
  for (double cap : {-0.1, 1.01, std::nan("")}) {
    auto c = relative_config(bh::Multipole::monopole);
    c.tree.relative_cap = cap;
    expect_refused(c, cap, "gravity.relative_cap", "[0, 1]");
  }
}

// The list walk (docs/adr/0019): the monopole and the quadrupole, one
// softening, not with group opening; refused by name otherwise. With it the
// solver gives each source its group's sums in the caller's order: more
// particle terms than the own walk and the same field to the expansion's
// accuracy, and the same bits on 1 and 2 threads.
TEST(TreeSolver, ListWalkIsRefusedWhereItDoesNotApplyAndDeterministic) {
  bh::TreeSolverConfig c;
  c.tree.list_walk = true;
  c.tree.multipole = bh::Multipole::octupole;
  expect_refused(c, 1, "gravity.list_walk = true is not supported with gravity.multipole = \"octupole\"",
                 "monopole, quadrupole");
  c.tree.multipole = bh::Multipole::quadrupole;
  c.tree.group_opening = bh::kOpeningGroup;
  expect_refused(c, 1, "gravity.list_walk = true and gravity.group_opening = 32", "accepted: one of them");
  c.tree.group_opening = 0;
  gravity::GravityConfig g;
  g.list_walk = true;
  expect_per_type_refused(g, "gravity.list_walk = true is not supported with a softening per particle type");
  const auto p = testing::uniform_cube(3000, 5);
  Accelerations<float> listed(p.size()), again(p.size());
  const double median = median_difference_from_own_walk(c, p, listed);
  EXPECT_LT(median, 2e-3) << "the list walk's field is not the own walk's to the expansion's accuracy";
  EXPECT_GT(median, 0.0) << "the list walk gave the own walk's bits: it did not run";
  const int threads = omp_get_max_threads();
  omp_set_num_threads(threads > 1 ? 1 : 2);
  TreeSolver<float>(c).solve(p.sources(), again.view());
  omp_set_num_threads(threads);
  for (std::size_t i = 0; i < p.size(); ++i)
    ASSERT_EQ(std::memcmp(&again.ax[i], &listed.ax[i], sizeof(float)), 0) << "particle " << i << ": thread count";
}

// Group opening (docs/adr/0017): 0 or a power of two from 32 to 4096, the
// monopole and the quadrupole, one softening; refused by name otherwise. With it the solver
// gives walk_targets' group-opening sums (the walk's own tests), and more
// particle terms than each target's own walk.
TEST(TreeSolver, GroupOpeningIsRefusedWhereItDoesNotApply) {
  bh::TreeSolverConfig c;
  c.tree.group_opening = 31;
  expect_refused(c, 31, "gravity.group_opening = 31", "accepted: 0");
  c.tree.group_opening = bh::kOpeningGroup;
  c.tree.multipole = bh::Multipole::hexadecapole;
  expect_refused(c, 32, "gravity.group_opening", "monopole, quadrupole");
  c.tree.multipole = bh::Multipole::quadrupole;
  gravity::GravityConfig g;
  g.group_opening = bh::kOpeningGroup;
  expect_per_type_refused(g, "gravity.group_opening = 32 is not supported with a softening per particle type");
  const auto p = testing::uniform_cube(3000, 5);
  Accelerations<float> grouped(p.size());
  // Another function of the input, but the same field to the expansion's accuracy.
  const double median = median_difference_from_own_walk(c, p, grouped);
  EXPECT_LT(median, 2e-3);
  EXPECT_GT(median, 0.0) << "group opening summed the very terms of the own walk";
}

// The cap (docs/adr/0015): relative_cap 1 accepts every cell Barnes' test at
// theta accepts, so the relative walk is the geometric walk at theta, bit for
// bit; a smaller cap lets the relative test open more (more interactions, in
// the order of the caps), and 0 (no cap) the most.
TEST(TreeSolver, RelativeCapBoundsWhatTheRelativeTestOpens) {
  const auto p = ic::to_precision<float>(ic::plummer_sphere(3001, 9));
  auto c = relative_config(bh::Multipole::quadrupole);
  c.tree.opening = bh::Opening::geometric;
  Accelerations<float> g(p.size());
  const auto rg = TreeSolver<float>(c).solve(p.sources(), g.view(), {.per_target_counts = true});
  c.tree.opening = bh::Opening::relative;
  c.tree.tolerance = 1e-4;  // strict: the relative test alone would open deep
  std::uint64_t previous = 0;
  for (double cap : {1.0, 0.7, 0.5, 0.0}) {
    c.tree.relative_cap = cap;
    Accelerations<float> a(p.size());
    const auto r = TreeSolver<float>(c).solve(p.sources(), a.view(), {.per_target_counts = true});
    const std::uint64_t work = r.total.cell_interactions + r.total.particle_interactions;
    if (cap == 1.0) {
      EXPECT_TRUE(same_bits(a.ax, g.ax) && same_bits(a.ay, g.ay) && same_bits(a.az, g.az));
      EXPECT_EQ(r.per_target, rg.per_target);
    } else {
      EXPECT_GT(work, previous) << "cap " << cap;
    }
    previous = work;
  }
}

}  // namespace
}  // namespace orrery::gravity
