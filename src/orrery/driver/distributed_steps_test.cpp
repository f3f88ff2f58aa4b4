// A short leapfrog run over the distributed tree on K ranks
// (orrery_driver_distributed_test.npK, K = 1..5) against one process's
// integrate::Simulation with the CPU TreeSolver: every particle's final
// position and velocity bit for bit, ids kept through every migration, on
// colliding Plummer spheres (geometric, float) and a Hernquist halo
// (relative, quadrupole, double: each solve reads the previous accelerations).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "orrery/driver/distributed_steps.hpp"
#include "orrery/gravity/tree_solver.hpp"
#include "orrery/ic/collision.hpp"
#include "orrery/ic/hernquist.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/integrate/simulation.hpp"
#include "support/replicated_checks.hpp"

namespace orrery::driver {
namespace {

template <class Real>
bool same(Real a, Real b) {
  return std::memcmp(&a, &b, sizeof(Real)) == 0;
}

template <class Real>
void expect_run_like_one_process(const Particles<Real>& p, bh::Opening opening, int multipole, int steps) {
  const auto comm = mpi::Communicator::world();
  auto g = testing::checked_tree("cpu", opening);
  g.multipole_order = multipole;
  const auto config = gravity::tree_solver_config(g);
  const double dt = 1.0 / 64;
  integrate::SimulationState state;
  state.dt = dt;
  integrate::Simulation<Real> one(p, std::make_unique<gravity::TreeSolver<Real>>(config), state);
  for (int s = 0; s < steps; ++s) one.step();

  // Every K-th particle: the first solve migrates them.
  mpi::RankParticles<Real> mine = mpi::share_of(p, comm.rank(), comm.size());
  DistributedSteps<Real> run(std::move(mine), config, comm, dt);
  for (int s = 0; s < steps; ++s) run.step();

  const Particles<Real>& want = one.particles();
  const Particles<Real>& got = run.particles().p;
  std::int64_t wrong = 0;
  std::vector<std::uint64_t> seen(static_cast<std::size_t>(p.size()), 0);
  for (std::int64_t k = 0; k < got.size(); ++k) {
    const auto i = static_cast<std::size_t>(run.particles().index[k]);
    ++seen[i];
    wrong += !(got.id[k] == want.id[i] && same(got.x[k], want.x[i]) && same(got.y[k], want.y[i]) && same(got.z[k], want.z[i]) &&
               same(got.vx[k], want.vx[i]) && same(got.vy[k], want.vy[i]) && same(got.vz[k], want.vz[i]) &&
               same(got.mass[k], want.mass[i]));
  }
  EXPECT_EQ(wrong, 0) << "particles of rank " << comm.rank() << " whose state is not one process's";
  comm.sum(seen);
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](std::uint64_t c) { return c == 1; }))
      << "an id is held by no rank or by two";
}

TEST(DistributedSteps, CollidingPlummerSpheresRunAsOneProcess) {
  expect_run_like_one_process(ic::to_precision<float>(ic::plummer_collision(2000, 5)), bh::Opening::geometric, 1, 6);
}

TEST(DistributedSteps, HernquistHaloWithTheRelativeOpeningRunsAsOneProcess) {
  expect_run_like_one_process(ic::to_precision<double>(ic::hernquist_sphere(2000, 5)), bh::Opening::relative, 2, 4);
}

}  // namespace
}  // namespace orrery::driver
