#include "orrery/integrate/simulation.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <numbers>

#include "orrery/core/error.hpp"
#include "orrery/gravity/direct_solver.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/ic/plummer.hpp"
#include "orrery/integrate/diagnostics_output.hpp"

namespace orrery::integrate {
namespace {

using Solver = gravity::DirectSolver<float, PlummerSoftening<float>>;

Simulation<float> make_sim(Particles<float> p, SimulationState state = {.dt = 1.0 / 64}) {
  return Simulation<float>(std::move(p), std::make_unique<Solver>(0.05f), state);
}

bool same_bits(const Particles<float>& a, const Particles<float>& b) {
  const auto eq = [](const std::vector<float>& u, const std::vector<float>& v) {
    return u.size() == v.size() && std::memcmp(u.data(), v.data(), u.size() * sizeof(float)) == 0;
  };
  return eq(a.x, b.x) && eq(a.y, b.y) && eq(a.z, b.z) && eq(a.vx, b.vx) && eq(a.vy, b.vy) && eq(a.vz, b.vz);
}

TEST(Simulation, RestartFromStateContinuesBitIdentically) {
  const auto p0 = ic::to_precision<float>(ic::plummer_sphere(300, 4));
  auto unbroken = make_sim(p0);
  unbroken.run_until(0.5);
  auto first = make_sim(p0);
  first.run_until(0.25);
  auto resumed = make_sim(first.particles(), first.state());
  EXPECT_DOUBLE_EQ(resumed.time(), 0.25);
  resumed.run_until(0.5);
  EXPECT_EQ(resumed.step_count(), unbroken.step_count());
  EXPECT_EQ(resumed.time(), unbroken.time());
  EXPECT_TRUE(same_bits(resumed.particles(), unbroken.particles()));
}

TEST(Simulation, BitIdenticalOnOneTwoAndAllThreads) {
  const auto p0 = ic::to_precision<float>(ic::plummer_sphere(500, 6));
  const int all = omp_get_max_threads();
  std::vector<Particles<float>> results;
  for (int threads : {1, 2, std::max(all, 3)}) {
    omp_set_num_threads(threads);
    auto sim = make_sim(p0);
    sim.run_until(0.25);
    results.push_back(sim.particles());
  }
  omp_set_num_threads(all);
  EXPECT_TRUE(same_bits(results[0], results[1]));
  EXPECT_TRUE(same_bits(results[0], results[2]));
}

TEST(Simulation, KeplerCircularOrbitReturnsAfterOnePeriod) {
  // Two unit masses on a circular orbit of separation 1: period 2 pi / sqrt(2).
  Particles<double> p(2);
  p.x = {-0.5, 0.5};
  p.y = {0, 0};
  p.z = {0, 0};
  const double v = std::sqrt(0.5);  // each moves at sqrt(G M_total / d) / 2
  p.vx = {0, 0};
  p.vy = {-v, v};
  p.vz = {0, 0};
  p.mass = {1, 1};
  p.id = {1, 2};
  const double period = 2 * std::numbers::pi / std::sqrt(2.0);
  Simulation<double> sim(p, std::make_unique<gravity::DirectSolver<double, PlummerSoftening<double>>>(0.0),
                         {.dt = period / 2000});
  sim.run_until(period);
  EXPECT_EQ(sim.step_count(), 2000);
  EXPECT_NEAR(sim.particles().x[1], 0.5, 1e-4);
  EXPECT_NEAR(sim.particles().y[1], 0.0, 1e-2);
}

TEST(Simulation, OutputsRunOnScheduleFirstAndLastStep) {
  auto sim = make_sim(ic::to_precision<float>(ic::plummer_sphere(64, 1)), {.dt = 0.1});
  std::vector<std::int64_t> steps;
  std::vector<double> errors;
  sim.add_output(diagnostics_output<float>(nullptr, 0.25, [&](const diag::Diagnostics& d) {
    steps.push_back(d.step);
    errors.push_back(d.relative_energy_error);
  }));
  sim.run_until(1.05);  // 11 steps: time 0.0 ... 1.1
  EXPECT_EQ(sim.step_count(), 11);
  // Crossings of 0.25, 0.5, 0.75, 1.0 at steps 3, 5, 8, 10; the last step 11.
  EXPECT_EQ(steps, (std::vector<std::int64_t>{0, 3, 5, 8, 10, 11}));
  EXPECT_EQ(errors[0], 0.0);
  EXPECT_FALSE(std::isnan(sim.state().initial_energy));
  EXPECT_GT(sim.timers().seconds("force"), 0.0);
}

TEST(Simulation, RejectsNonPositiveStep) {
  EXPECT_THROW(make_sim(Particles<float>(2), {.dt = 0.0}), InputError);
  EXPECT_THROW(make_sim(Particles<float>(2), {.dt = -1.0}), InputError);
}

}  // namespace
}  // namespace orrery::integrate
