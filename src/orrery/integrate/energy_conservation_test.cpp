#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "orrery/gravity/direct_solver.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/ic/plummer.hpp"
#include "orrery/integrate/diagnostics_output.hpp"

namespace orrery::integrate {
namespace {

// The acceptance test: a 4096-particle Plummer sphere, Plummer
// softening 0.05, dt = 1/128, 10 N-body time units (1280 steps, 2.1e10
// interactions), single-precision direct summation: |dE/E| < 1e-4 throughout.
TEST(EnergyConservation, Plummer4096TenTimeUnits) {
  auto p = ic::to_precision<float>(ic::plummer_sphere(4096, 1));
  Simulation<float> sim(std::move(p), std::make_unique<gravity::DirectSolver<float, PlummerSoftening<float>>>(0.05f),
                        {.dt = 1.0 / 128});
  double worst = 0;
  int rows = 0;
  sim.add_output(diagnostics_output<float>(nullptr, 0.5, [&](const diag::Diagnostics& d) {
    worst = std::max(worst, std::abs(d.relative_energy_error));
    ++rows;
    // Sanity of the system itself: still near virial equilibrium and bound.
    EXPECT_NEAR(d.virial_ratio, 1.0, 0.15) << d.time;
    EXPECT_LT(d.total, 0.0);
  }));
  sim.run_until(10.0);
  EXPECT_EQ(sim.step_count(), 1280);
  EXPECT_EQ(rows, 21);
  EXPECT_LT(worst, 1e-4);
  RecordProperty("max_relative_energy_error", std::to_string(worst));
}

}  // namespace
}  // namespace orrery::integrate
