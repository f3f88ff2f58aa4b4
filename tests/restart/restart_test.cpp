// Contract 6: 2k steps in one go and k steps + checkpoint + restore + k
// steps give identical bits, for every solver this build has (the CUDA ones
// where a device is present, skipped elsewhere), in both precisions. The restored run is a new Simulation built from the
// checkpoint alone (particles, SimulationState), with a fresh solver.
#include <gtest/gtest.h>

#include <cstring>

#include "orrery/core/error.hpp"

#include "orrery/gravity/solver_factory.hpp"
#include "orrery/ic/plummer.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/integrate/simulation.hpp"
#include "orrery/io/checkpoint.hpp"
#include "orrery/io/test_files.hpp"

namespace orrery {
namespace {

gravity::GravityConfig config_for(const std::string& solver_backend) {
  gravity::GravityConfig g;
  const auto slash = solver_backend.find('/');
  g.solver = solver_backend.substr(0, slash);
  g.backend = solver_backend.substr(slash + 1);
  g.softening = 0.05;
  return g;
}

template <class Real>
void restart_is_bit_identical(const std::string& solver_backend) {
  io::testing::ScratchDir dir;
  const auto g = config_for(solver_backend);
  const auto initial = ic::to_precision<Real>(ic::plummer_sphere(300, 7));
  integrate::SimulationState state;
  state.dt = 1.0 / 64;
  state.rng_state = {11, 12, 13, 14};
  constexpr int k = 20;

  integrate::Simulation<Real> straight(initial, gravity::make_solver<Real>(g), state);
  for (int s = 0; s < 2 * k; ++s) straight.step();

  integrate::Simulation<Real> first(initial, gravity::make_solver<Real>(g), state);
  for (int s = 0; s < k; ++s) first.step();
  first.state().initial_energy = -0.25;  // something a run keeps across restarts
  io::Checkpoint<Real> c;
  c.config = "[gravity]\nsolver = \"" + g.solver + "\"\n";
  c.state = first.state();
  c.particles = first.particles();
  const auto path = io::write_rotating_checkpoint(dir.path(), c, 2);

  const auto back = io::read_checkpoint<Real>(path);
  io::require_same_build(back.build, io::BuildFingerprint::current<Real>(), path);
  EXPECT_EQ(back.state.initial_energy, -0.25);
  EXPECT_EQ(back.state.rng_state, state.rng_state);
  integrate::Simulation<Real> resumed(back.particles, gravity::make_solver<Real>(g), back.state);
  for (int s = 0; s < k; ++s) resumed.step();

  EXPECT_EQ(resumed.step_count(), straight.step_count());
  EXPECT_EQ(resumed.time(), straight.time());
  io::testing::expect_same_particles(straight.particles(), resumed.particles());
}

class Restart : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    try {
      gravity::make_solver<float>(config_for(GetParam()));
    } catch (const InputError& e) {
      GTEST_SKIP() << GetParam() << " is not usable here: " << e.what();
    }
  }
};

TEST_P(Restart, ContinuesBitIdenticallyDouble) { restart_is_bit_identical<double>(GetParam()); }
TEST_P(Restart, ContinuesBitIdenticallyFloat) { restart_is_bit_identical<float>(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Solvers, Restart, ::testing::ValuesIn(gravity::available_solvers()),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& ch : name) ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                           return name;
                         });

}  // namespace
}  // namespace orrery
