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

/// Records what each solve is told and sees; writes ax = the solve's number
/// (1, 2, ...) to every particle (ay = az = 0), potentials = -that number.
class SpySolver final : public gravity::ForceSolver<double> {
 public:
  std::vector<bool> previous;  // per solve: options.previous_accelerations
  std::vector<double> seen;    // per solve: out.ax[0] on entry
  std::string name() const override { return "spy"; }
  SolverReport solve(const SourcesView<double>&, const AccelerationsView<double>& out,
                              const gravity::SolveOptions& options) override {
    previous.push_back(options.previous_accelerations);
    seen.push_back(out.ax[0]);
    const double k = static_cast<double>(previous.size());
    for (std::int64_t i = 0; i < out.count; ++i) {
      out.ax[i] = k;
      out.ay[i] = out.az[i] = 0;
      if (options.potential) out.potential[i] = -k;
    }
    return {};
  }
};

struct Spied {
  Simulation<double> sim;
  SpySolver* spy;
};

Spied spied_simulation() {
  auto spy = std::make_unique<SpySolver>();
  auto* raw = spy.get();
  return {Simulation<double>(ic::plummer_sphere(8, 2), std::move(spy), {.dt = 0.01}), raw};
}

// The relative opening (docs/adr/0007) reads the previous evaluation's
// accelerations: told so from the second evaluation of the same particles on.
TEST(Simulation, SolvesReadThePreviousEvaluationFromTheSecondOn) {
  auto [sim, spy] = spied_simulation();
  sim.step();  // evaluates (bootstrap), kick, drift, evaluates, kick
  sim.step();
  EXPECT_EQ(spy->previous, (std::vector<bool>{false, true, true}));
  EXPECT_EQ(spy->seen[1], 1.0);
  EXPECT_EQ(spy->seen[2], 2.0);
  EXPECT_EQ(sim.accelerations().ax[0], 3.0);
}

// Potentials asked for after the fact come from an extra solve that leaves
// the accelerations the run integrates with (and the next solve reads) alone.
TEST(Simulation, ALatePotentialSolveLeavesTheAccelerations) {
  auto [sim, spy] = spied_simulation();
  sim.step();
  EXPECT_EQ(sim.potentials()[0], -3.0);
  EXPECT_EQ(spy->previous.back(), true);
  EXPECT_EQ(spy->seen.back(), 2.0);
  EXPECT_EQ(sim.accelerations().ax[0], 2.0);
  sim.step();
  EXPECT_EQ(spy->seen.back(), 2.0);  // solve 4 read solve 2's accelerations, not the extra solve's
  EXPECT_EQ(spy->previous.size(), 4u);
}

// Restored accelerations (a checkpoint's) are kicked with and then read as
// the previous evaluation's: no bootstrap solve.
TEST(Simulation, RestoredAccelerationsAreUsedAndReadAsThePreviousOnes) {
  auto [sim, spy] = spied_simulation();
  Accelerations<double> a(8);
  std::fill(a.ax.begin(), a.ax.end(), 7.0);
  sim.restore_accelerations(a);
  EXPECT_EQ(sim.accelerations().ax[0], 7.0);
  const double vx0 = sim.particles().vx[0];
  sim.step();
  EXPECT_EQ(spy->previous, (std::vector<bool>{true}));
  EXPECT_EQ(spy->seen[0], 7.0);
  EXPECT_EQ(sim.particles().vx[0], std::fma(1.0, 0.005, std::fma(7.0, 0.005, vx0)));  // leapfrog.hpp's kicks
  EXPECT_THROW(sim.restore_accelerations(Accelerations<double>(7)), InputError);
  a.ay.pop_back();  // the message names each array's size, not only ax's
  try {
    sim.restore_accelerations(a);
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("ax, ay, az of 8, 7, 8 values for 8 particles; accepted: one per particle"),
              std::string::npos)
        << e.what();
  }
}

TEST(Simulation, RejectsNonPositiveStep) {
  EXPECT_THROW(make_sim(Particles<float>(2), {.dt = 0.0}), InputError);
  EXPECT_THROW(make_sim(Particles<float>(2), {.dt = -1.0}), InputError);
}

}  // namespace
}  // namespace orrery::integrate
