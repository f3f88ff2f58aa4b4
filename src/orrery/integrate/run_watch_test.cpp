// The run watch: which criterion a run is watched with, the smallest step
// and the particle it names, the warning when dt is larger, and the energy
// error past the limit, with the words a user reads.
#include "orrery/integrate/run_watch.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace orrery::integrate {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(RunWatch, SoftenedRunsAreWatchedWithGadgetsCriterionUnsoftenedOnesWithTheDynamicalOne) {
  EXPECT_EQ(watched_rule(0.05).criterion, StepCriterion::softening);
  EXPECT_EQ(watched_rule(0.05).eta, 0.025);
  EXPECT_EQ(watched_rule(0.05).softening, 0.05);
  EXPECT_EQ(watched_rule(0.0).criterion, StepCriterion::dynamical);
}

// Two bodies of mass 1/2 at separation r: |a| = 0.5 / r^2, phi = -0.5 / r each.
Accelerations<double> pair_at(double r, std::vector<double>& phi) {
  Accelerations<double> a(3);
  a.ax = {0.5 / (r * r), -0.5 / (r * r), 0.0};  // the third particle feels nothing
  phi = {-0.5 / r, -0.5 / r, 0.0};
  return a;
}

TEST(RunWatch, TheSmallestStepIsTheCriterionsAndNamesTheFirstParticleAskingForIt) {
  std::vector<double> phi;
  const auto a = pair_at(0.01, phi);
  const SmallestStep dyn = smallest_step(watched_rule(0.0), a, phi);
  EXPECT_EQ(dyn.particle, 0);
  const double want = 0.025 * std::sqrt(4 * M_PI / 3) * std::sqrt(0.5 / 0.01) / (0.5 / 1e-4);  // 0.0724 r^1.5
  EXPECT_NEAR(dyn.step, want, 1e-12 * want);
  const SmallestStep soft = smallest_step(watched_rule(0.05), a, phi);
  EXPECT_NEAR(soft.step, std::sqrt(2 * 0.025 * 0.05 / (0.5 / 1e-4)), 1e-15);
  Accelerations<double> none(2);
  const std::vector<double> zero(2, 0.0);
  EXPECT_EQ(smallest_step(watched_rule(0.0), none, zero).particle, -1);
}

TEST(RunWatch, WarnsWhenTheStepIsLargerNamingDtTheParticleAndTheTime) {
  std::vector<double> phi;
  const auto a = pair_at(0.01, phi);
  const StepRule rule = watched_rule(0.0);
  const SmallestStep s = smallest_step(rule, a, phi);
  EXPECT_FALSE(step_warning(s.step, rule, s, 3.125, 400));  // equal: resolved
  const auto w = step_warning(0.0078125, rule, s, 3.125, 400);
  ASSERT_TRUE(w);
  EXPECT_TRUE(has(*w, "integration.dt = 0.0078125 is larger than the step 7.24e-05")) << *w;
  EXPECT_TRUE(has(*w, "dynamical criterion")) << *w;
  EXPECT_TRUE(has(*w, "particle 0 at t = 3.125 (step 400)")) << *w;
  EXPECT_TRUE(has(*w, "accepted without this warning: integration.dt <= 7.24e-05")) << *w;
  EXPECT_FALSE(step_warning(1.0, rule, smallest_step(rule, Accelerations<double>(2), std::vector<double>(2)), 0, 0));
}

TEST(RunWatch, AnEnergyErrorPastTheLimitNamesTheStepTimeAndError) {
  diag::Diagnostics row;
  row.time = 3.125;
  row.step = 400;
  row.relative_energy_error = -0.398;
  const auto e = energy_error_excess(row, 0.01);
  ASSERT_TRUE(e);
  EXPECT_TRUE(has(*e, "|dE/E| = 0.398 at step 400 (t = 3.125) exceeds integration.max_energy_error = 0.01")) << *e;
  EXPECT_TRUE(has(*e, "accepted: ")) << *e;
  EXPECT_FALSE(energy_error_excess(row, 0.0)) << "0 is no limit";
  EXPECT_FALSE(energy_error_excess(row, 0.5));
  row.relative_energy_error = 0.01;
  EXPECT_FALSE(energy_error_excess(row, 0.01)) << "the limit itself is accepted";
  row.relative_energy_error = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(energy_error_excess(row, 0.01)) << "a NaN energy is past every limit";
}

}  // namespace
}  // namespace orrery::integrate
