#include "orrery/integrate/block_leapfrog.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "orrery/core/error.hpp"
#include "orrery/gravity/solver_factory.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/ic/kepler.hpp"
#include "orrery/ic/plummer.hpp"
#include "orrery/integrate/diagnostics_output.hpp"
#include "orrery/integrate/simulation.hpp"

namespace orrery::integrate {
namespace {

template <class Real>
bool same_bits(const std::vector<Real>& u, const std::vector<Real>& v) {
  return u.size() == v.size() && std::memcmp(u.data(), v.data(), u.size() * sizeof(Real)) == 0;
}
template <class Real>
bool same_bits(const Particles<Real>& a, const Particles<Real>& b) {
  return same_bits(a.x, b.x) && same_bits(a.y, b.y) && same_bits(a.z, b.z) && same_bits(a.vx, b.vx) &&
         same_bits(a.vy, b.vy) && same_bits(a.vz, b.vz);
}

gravity::GravityConfig tree_config(double softening) {
  gravity::GravityConfig g;
  g.solver = "tree";
  g.softening = softening;
  g.opening = bh::Opening::relative;  // the opening that reads the previous evaluation: the hardest to keep
  g.theta = 1.0;
  return g;
}

template <class Real>
Simulation<Real> make_sim(const Particles<double>& p, const gravity::GravityConfig& g, double dt) {
  return Simulation<Real>(ic::to_precision<Real>(p), gravity::make_solver<Real>(g), SimulationState{.dt = dt});
}

TEST(TimeBins, BinsNestAndLongerStepsWaitForBothEnds) {
  constexpr int deepest = 3;  // ticks 0..8, bin 3 steps by 1 tick, bin 0 by 8
  EXPECT_EQ(bin_ticks(0, deepest), 8);
  EXPECT_EQ(bin_ticks(3, deepest), 1);
  EXPECT_TRUE(bin_ends_at(2, 6, deepest));
  EXPECT_FALSE(bin_ends_at(1, 6, deepest));
  EXPECT_EQ(shallowest_bin_ending_at(6, deepest), 2);
  EXPECT_EQ(shallowest_bin_ending_at(4, deepest), 1);
  EXPECT_EQ(shallowest_bin_ending_at(8, deepest), 0);
  EXPECT_EQ(next_bin(3, 0, 6, deepest), 2);  // wants bin 0, may go only to bin 2 at tick 6
  EXPECT_EQ(next_bin(2, 3, 6, deepest), 3);  // a shorter step at once
  EXPECT_EQ(next_bin(3, 1, 8, deepest), 1);  // at the block step's end, anywhere
  EXPECT_EQ(bin_of_step(1.0, 1.0, deepest), 0);
  EXPECT_EQ(bin_of_step(0.49, 1.0, deepest), 2);
  EXPECT_EQ(bin_of_step(0.01, 1.0, deepest), deepest + 1);  // below dt_min
  EXPECT_EQ(deepest_bin(1.0, 0.125), 3);
  EXPECT_EQ(deepest_bin(1.0, 0.126), 2);
}

TEST(StepCriteria, SofteningIsGadgetsAndDynamicalIsTheKeplerTime) {
  const StepRule gadget{StepCriterion::softening, 0.025, 0.05};
  EXPECT_DOUBLE_EQ(criterion_step(gadget, 3.0, 0.0, 4.0, 0.0), std::sqrt(2 * 0.025 * 0.05 / 5.0));
  // A point mass M = 2 at r = 0.5: |a| = 8, |phi| = 4; 1 / sqrt(G rho_enc) = sqrt(4 pi / 3) sqrt(r^3 / M).
  const StepRule zemp{StepCriterion::dynamical, 0.1, 0.0};
  EXPECT_NEAR(criterion_step(zemp, 0.0, 8.0, 0.0, -4.0), 0.1 * std::sqrt(4 * M_PI / 3 * 0.125 / 2.0), 1e-15);
  EXPECT_TRUE(std::isinf(criterion_step(zemp, 0.0, 0.0, 0.0, -1.0)));
}

// One bin: every particle's step is dt_max, and a block step is the global step.
TEST(BlockLeapfrog, OneBinIsTheGlobalStepBitForBit) {
  const auto p0 = ic::plummer_sphere(300, 3);
  const double dt = 1.0 / 64;
  auto global = make_sim<float>(p0, tree_config(0.05), dt);
  auto block = make_sim<float>(p0, tree_config(0.05), dt);
  // A step far below what any particle asks for (eta huge), and no deeper bin allowed.
  block.use_block_steps({.rule = {StepCriterion::softening, 1e6, 0.05}, .dt_min = dt});
  for (auto* s : {&global, &block}) s->add_output(diagnostics_output<float>(nullptr, 4 * dt));
  global.run_until(0.25);
  block.run_until(0.25);
  ASSERT_EQ(block.step_count(), global.step_count());
  EXPECT_TRUE(same_bits(block.particles(), global.particles()));
  EXPECT_TRUE(same_bits(block.accelerations().ax, global.accelerations().ax));
  EXPECT_EQ(block.block_steps()->histogram()[0], 300);
}

double worst_energy_error(Simulation<double>& sim, double t_end, double interval) {
  double worst = 0;
  sim.add_output(diagnostics_output<double>(nullptr, interval, [&](const diag::Diagnostics& d) {
    worst = std::max(worst, std::abs(d.relative_energy_error));
  }));
  sim.run_until(t_end);
  return worst;
}

struct KeplerResult {
  double block_error = 0;
  double global_error = 0;
  double evaluations_per_body = 0;
};

// Ten orbits of a Kepler pair without softening: block steps with the
// dynamical criterion against the global step of the same number of force
// evaluations. Energies at every synchronisation point (64 per orbit, the
// worst of them, pericentre passages included). eta = 5e-4: the error of the
// block steps falls as eta^2 (measured at e = 0.99: 6.1e-3 at eta = 0.004,
// 1.6e-3 at 0.002, 4.1e-4 at 0.001, 4.8e-5 at 0.0005), from the steps
// that change where the orbit's time scale does, which breaks the
// leapfrog's time symmetry.
KeplerResult kepler_ten_orbits(double e) {
  const auto p = ic::kepler_orbit({.eccentricity = e});
  const double period = ic::kepler_period(1.0);
  gravity::GravityConfig g;
  g.solver = "direct";
  g.softening = 0;
  g.precision = gravity::Precision::double_;
  const double dt_max = period / 64;
  auto block = make_sim<double>(p, g, dt_max);
  block.use_block_steps({.rule = {StepCriterion::dynamical, 5e-4, 0.0}, .dt_min = dt_max / 1e9});
  KeplerResult r;
  r.block_error = worst_energy_error(block, 10 * period, dt_max);
  // The initial evaluation and one per target of every substep.
  r.evaluations_per_body = (2.0 + static_cast<double>(block.block_steps()->target_evaluations())) / 2.0;
  auto global = make_sim<double>(p, g, 10 * period / std::ceil(r.evaluations_per_body - 1));
  r.global_error = worst_energy_error(global, 10 * period, dt_max);
  return r;
}

// Block steps below 1e-4, the global step of equal cost at least ten times worse.
void expect_block_far_better(double e) {
  const auto r = kepler_ten_orbits(e);
  testing::Test::RecordProperty("block_error", std::to_string(r.block_error));
  testing::Test::RecordProperty("global_error", std::to_string(r.global_error));
  testing::Test::RecordProperty("evaluations_per_body", std::to_string(r.evaluations_per_body));
  EXPECT_LT(r.block_error, 1e-4);
  EXPECT_GT(r.global_error, 10 * r.block_error);
}

TEST(BlockLeapfrog, KeplerE09TenOrbitsWithoutSoftening) { expect_block_far_better(0.9); }
TEST(BlockLeapfrog, KeplerE099TenOrbitsWithoutSoftening) { expect_block_far_better(0.99); }

}  // namespace
}  // namespace orrery::integrate
