// Block time steps on a Hernquist halo (issue 17): over 10 dynamical times at
// the half-mass radius, the 1 % and 10 % Lagrangian radii drift less with
// block steps than with the global step of equal cost, and no more than the
// floor that softening and two-body relaxation set at this N and softening.
//
// The run: Orrery's Hernquist halo (scale radius a = 1/3, truncated at 100 a),
// N = 4000, seed 1, Plummer softening 0.005, the CPU direct solver in single
// precision (exact forces; a subset costs its share of N^2, so a substep's
// cost is its active fraction's), t = 0 .. 10.25 (41 block steps of
// dt_max = 1/4; 10 t_dyn = 10.2 with t_dyn = sqrt(r_h^3 / (G M / 2)) = 1.02 at
// r_h = (1 + sqrt 2) a). Block steps: the softening criterion at eta = 0.1;
// the bins reach 5 (dt_max / 32 = 1/128 in the cusp, where the criterion asks
// for sqrt(2 eta eps / |a|) = 0.0105 at |a| = G M / a^2 = 9).
//
// Drift: the Lagrangian radii about the density centre (shrinking spheres,
// diag::density_centre), averaged over the samples at every 1/4 of the last
// two time units, over those of the initial state, minus 1. About the centre
// of mass the inner radii would be noise: at N = 4000 the centre of mass of
// this halo sits ~0.05 from the cusp (its <r^2> = 2 a r_cut), beyond the 1 %
// radius a / 9 = 0.037 itself, and the initial 1 % radius about it measured
// 0.075 (twice the profile's) for seed 1.
//
// Equal cost: the global run takes S = round(E - 1) steps of 10.25 / S, E the
// block run's force evaluations per particle (1 for the initial evaluation
// plus every solved target over N), so that its E = S + 1 is the block run's
// to within 0.5 (measured E = 483.1: S = 482, dt = 0.0213).
//
// The floor, measured: the global step at dt = 1/128 (below every block
// step but the deepest bin's, which it equals; 1313 evaluations per
// particle), run here; at dt = 1/256 (seed 1) it gives +0.210 and -0.022
// against +0.154 and +0.011 at 1/128: 1/128 is converged to within the
// scatter of equally accurate runs. Measured (drift of r1 and r10; seed 1 is
// this test's, seeds 2 and 3 the same runs with another sample):
//
//   seed  block eta 0.1     global, equal cost   floor, dt = 1/128
//   1     +0.173  -0.003    +0.511  +0.104       +0.154  +0.011
//   2     +0.377  +0.019    +0.566  +0.140       +0.351  +0.037
//   3     +0.144  +0.058    +0.409  +0.190       +0.208  +0.092
//
// Equally accurate runs (block against the floor, the floor at 1/128
// against 1/256) differ by at most 0.064 (r1) and 0.034 (r10): the chaos of
// N-body orbits and the sampling noise of 40 and 400 particles. The
// tolerances are 1.6 and 1.5 times that: kNoise1 = 0.1, kNoise10 = 0.05.
// The global step of equal cost is 0.20-0.36 (r1) and 0.093-0.103 (r10)
// above the floor on all three seeds, twice the tolerances: every assertion
// below holds on the three seeds, and the floor's fails for the global run.
//
// The floor, estimated: two-body relaxation t_relax ~ N(<r) / (8 ln N(<r))
// t_cross(r), t_cross = r / v_c: at the 1 % radius (r = a / 9 = 0.037, 40
// particles, v_c = sqrt(G M(<r) / r) = 0.52) t_relax ~ 0.1; at the 10 % radius
// (r = 0.154, 400 particles, v_c = 0.81) t_relax ~ 1.6. Over 10.25 time
// units both shells relax many times, and relaxation flattens a cusp into a
// core (Diemand et al. 2004, MNRAS 348, 977): the radii grow, the inner one
// most, as the floor runs show (+15 %..+35 % at r1 across seeds). Softening
// flattens the cusp inside a few eps: 3 eps = 0.015 holds M(<r) = (r / (r +
// a))^2 = 0.19 % of the mass (8 particles), well inside the 1 % shell at
// 7.4 eps, so at this N the floor is relaxation's, not softening's. A halo
// whose radii this integrator test could resolve to a few per cent needs
// t_relax(r1) >> 10: N > 10^6, not a CI test.
//
// Why a small softening (the bench's 0.005; larger ones not measured here):
// the criterion's step sqrt(2 eta eps / |a|) grows only as (r + a) / a
// outwards (|a| = G M / (r + a)^2), and the mass average of a / (r + a) is
// 1/3, so block steps cost about a third of the cusp's step given to every
// particle (483 against 1313 evaluations here): the global step of equal cost
// is 2-3 times the cusp's. That hurts only where the cusp's step barely
// resolves the cusp, which eps decides; with a large eps both runs would sit
// at the floor. CI: three runs, ~2300 evaluations of 4000 particles,
// 26 s of CPU time in Release (~15 s on two idle cores).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "orrery/diag/lagrangian_radii.hpp"
#include "orrery/gravity/solver_factory.hpp"
#include "orrery/ic/hernquist.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/integrate/simulation.hpp"

namespace orrery {
namespace {

constexpr std::int64_t kN = 4000;
constexpr double kSoftening = 0.005;
constexpr double kEta = 0.1;
constexpr double kDtMax = 0.25;
constexpr double kTEnd = 10.25;        // 41 dt_max: 10 t_dyn(r_h) = 10.2 and a synchronisation point
constexpr double kSampleEvery = 0.25;  // every block step
constexpr double kLateFrom = kTEnd - 2.0;
constexpr double kNoise1 = 0.1, kNoise10 = 0.05;  // see above

struct HaloDrift {
  double evaluations = 0;  // force evaluations per particle
  double r1 = 0, r10 = 0;  // drift of the 1 % and 10 % Lagrangian radii
};

HaloDrift hernquist_drift(bool block, double dt) {
  gravity::GravityConfig g;
  g.solver = "direct";
  g.softening = kSoftening;
  integrate::Simulation<float> sim(ic::to_precision<float>(ic::hernquist_sphere(kN, 1)),
                                   gravity::make_solver<float>(g),
                                   integrate::SimulationState{.dt = block ? kDtMax : dt});
  if (block)
    sim.use_block_steps({.rule = {integrate::StepCriterion::softening, kEta, kSoftening}, .dt_min = 1e-6});
  const double fractions[] = {0.01, 0.1};
  const auto radii = [&] {
    return diag::lagrangian_radii(sim.particles(), fractions, diag::density_centre(sim.particles()));
  };
  const auto r0 = radii();
  double sum1 = 0, sum10 = 0;
  int samples = 0;
  double next = kSampleEvery;
  const std::int64_t steps = sim.steps_until(kTEnd);
  for (std::int64_t k = 0; k < steps; ++k) {
    sim.step();
    if (sim.time() < next - 1e-9) continue;
    next += kSampleEvery;
    if (sim.time() < kLateFrom - 1e-9) continue;
    const auto r = radii();
    sum1 += r[0] / r0[0];
    sum10 += r[1] / r0[1];
    ++samples;
  }
  HaloDrift d;
  d.evaluations = block ? 1.0 + static_cast<double>(sim.block_steps()->target_evaluations()) / kN
                        : static_cast<double>(steps + 1);
  d.r1 = sum1 / samples - 1;
  d.r10 = sum10 / samples - 1;
  return d;
}

TEST(BlockStepsPhysics, HernquistLagrangianRadiiDriftLessThanTheGlobalStepOfEqualCost) {
  const auto block = hernquist_drift(true, 0);
  const double global_steps = std::round(block.evaluations - 1);
  const auto global = hernquist_drift(false, kTEnd / global_steps);
  const auto floor = hernquist_drift(false, 1.0 / 128);
  for (const auto& [name, d] : {std::pair{"block", block}, std::pair{"global", global}, std::pair{"floor", floor}}) {
    std::printf("%-6s evaluations/particle %7.1f  drift r1 %+.3f  r10 %+.3f\n", name, d.evaluations, d.r1, d.r10);
    RecordProperty(std::string(name) + "_r1_drift", std::to_string(d.r1));
    RecordProperty(std::string(name) + "_r10_drift", std::to_string(d.r10));
  }
  // Equal cost, counted.
  EXPECT_NEAR(global.evaluations, block.evaluations, 0.5);
  // Block steps drift less, by more than equally accurate runs differ.
  EXPECT_LT(std::abs(block.r1) + kNoise1, std::abs(global.r1));
  EXPECT_LT(std::abs(block.r10) + kNoise10, std::abs(global.r10));
  // Block steps are at the floor; the global step of equal cost is not.
  EXPECT_LT(std::abs(block.r1 - floor.r1), kNoise1);
  EXPECT_LT(std::abs(block.r10 - floor.r10), kNoise10);
  EXPECT_GT(global.r1 - floor.r1, kNoise1);
  EXPECT_GT(global.r10 - floor.r10, kNoise10);
}

}  // namespace
}  // namespace orrery
