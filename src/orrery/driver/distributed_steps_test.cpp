// A short leapfrog run over the distributed tree on K ranks
// (orrery_driver_distributed_test.npK, K = 1..5) against one process's
// integrate::Simulation with the CPU TreeSolver: every particle's final
// position and velocity bit for bit, ids kept through every migration, on
// colliding Plummer spheres (geometric, float) and a Hernquist halo
// (relative, quadrupole, double: each solve reads the previous accelerations);
// a snapshot of the gathered state with one process's bytes for every K;
// a restart from the gathered state, dealt to the ranks anew, continuing
// with the bits of the run that never stopped.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "orrery/driver/distributed_steps.hpp"
#include "orrery/gravity/tree_solver.hpp"
#include "orrery/core/error.hpp"
#include "orrery/ic/collision.hpp"
#include "orrery/ic/hernquist.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/ic/plummer.hpp"
#include "orrery/integrate/simulation.hpp"
#include "orrery/io/snapshot.hpp"
#include "orrery/io/test_files.hpp"
#include "support/replicated_checks.hpp"

namespace orrery::driver {
namespace {

template <class Real>
bool same(Real a, Real b) {
  return std::memcmp(&a, &b, sizeof(Real)) == 0;
}

bh::TreeSolverConfig tree_config(bh::Opening opening, int multipole) {
  auto g = testing::checked_tree("cpu", opening);
  g.multipole_order = multipole;
  return gravity::tree_solver_config(g);
}

template <class Real>
void expect_run_like_one_process(const Particles<Real>& p, bh::Opening opening, int multipole, int steps) {
  const auto comm = mpi::Communicator::world();
  const auto config = tree_config(opening, multipole);
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

/// The state of two gathered runs is the same, bit for bit, field by field.
template <class Real>
bool same_state(const mpi::RankParticles<Real>& a, const mpi::RankParticles<Real>& b) {
  bool ok = a.size() == b.size();
  mpi::for_each_field(
      [&](const auto& u, const auto& v) { ok = ok && u.size() == v.size() && std::memcmp(u.data(), v.data(), u.size() * sizeof(u[0])) == 0; },
      a, b);
  return ok;
}

TEST(DistributedSteps, CollidingPlummerSpheresRunAsOneProcess) {
  expect_run_like_one_process(ic::to_precision<float>(ic::plummer_collision(2000, 5)), bh::Opening::geometric, 1, 6);
}

TEST(DistributedSteps, HernquistHaloWithTheRelativeOpeningRunsAsOneProcess) {
  expect_run_like_one_process(ic::to_precision<double>(ic::hernquist_sphere(2000, 5)), bh::Opening::relative, 2, 4);
}

}  // namespace
}  // namespace orrery::driver

namespace orrery::driver {
namespace {

// The gathered state of a K-rank run, written as a snapshot, is the file one
// process's Simulation writes, byte for byte.
TEST(DistributedSteps, TheSnapshotOfTheGatheredStateIsOneProcesssFile) {
  const auto comm = mpi::Communicator::world();
  const auto p = ic::to_precision<double>(ic::hernquist_sphere(1500, 7));
  const auto config = tree_config(bh::Opening::geometric, 1);
  integrate::SimulationState state;
  state.dt = 1.0 / 64;
  integrate::Simulation<double> one(p, std::make_unique<gravity::TreeSolver<double>>(config), state);
  DistributedSteps<double> run(mpi::share_of(p, comm.rank(), comm.size()), config, comm, state.dt);
  for (int s = 0; s < 3; ++s) one.step(), run.step();
  const mpi::RankParticles<double> all = run.gathered();
  if (comm.rank() != 0) return;
  io::testing::ScratchDir dir;
  io::SnapshotInfo info;
  info.step = 3;
  info.time = 3 * state.dt;
  io::write_snapshot(dir.path() / "one.h5", one.particles(), info);
  io::write_snapshot(dir.path() / "ranks.h5", all.p, info);
  EXPECT_EQ(io::testing::read_bytes(dir.path() / "ranks.h5"), io::testing::read_bytes(dir.path() / "one.h5"));
}

// Six steps against three, a gather, the state dealt anew (in blocks, the
// last rank first: another decomposition, as another K gives) and three more.
void expect_restart_continues(bh::Opening opening) {
  const auto comm = mpi::Communicator::world();
  const auto p = ic::to_precision<double>(ic::plummer_collision(1500, 7));
  const auto config = tree_config(opening, 2);
  const double dt = 1.0 / 64;
  DistributedSteps<double> whole(mpi::share_of(p, comm.rank(), comm.size()), config, comm, dt);
  DistributedSteps<double> first(mpi::share_of(p, comm.rank(), comm.size()), config, comm, dt);
  for (int s = 0; s < 3; ++s) whole.step(), first.step();
  const mpi::RankParticles<double> saved = first.gathered();
  const std::int64_t n = saved.size(), block = (n + comm.size() - 1) / comm.size();
  const std::int64_t b = std::min(n, block * (comm.size() - 1 - comm.rank())), e = std::min(n, b + block);
  std::vector<std::int64_t> mine;
  for (std::int64_t i = b; i < e; ++i) mine.push_back(i);
  DistributedSteps<double> second(mpi::permuted(saved, mine), config, comm, dt, true);
  for (int s = 0; s < 3; ++s) whole.step(), second.step();
  const auto a = whole.gathered(), c = second.gathered();
  EXPECT_TRUE(same_state(a, c)) << "opening " << int(opening) << ": the restarted run left the uninterrupted one";
}

TEST(DistributedSteps, ARestartOnAnotherDecompositionContinuesBitForBit) {
  expect_restart_continues(bh::Opening::geometric);
  expect_restart_continues(bh::Opening::relative);
}

}  // namespace
}  // namespace orrery::driver

namespace orrery::driver {
namespace {

// Block time steps over the distributed tree (distributed_block_steps.hpp)
// against one process's integrate::BlockLeapfrog with the CPU TreeSolver:
// every particle's state and bin bit for bit after a few block steps whose
// substeps walk a few active particles (several bins occupied: asserted, so
// the subset solves ran), and the same histogram and evaluations.
template <class Real>
void expect_block_steps_like_one_process(const Particles<Real>& p, bh::Opening opening, int multipole,
                                         integrate::StepRule rule, int steps) {
  const auto comm = mpi::Communicator::world();
  const auto config = tree_config(opening, multipole);
  const double dt_max = 1.0 / 16;
  const integrate::BlockStepConfig block{rule, 1e-6};
  integrate::SimulationState state;
  state.dt = dt_max;
  integrate::Simulation<Real> one(p, std::make_unique<gravity::TreeSolver<Real>>(config), state);
  one.use_block_steps(block);
  DistributedSteps<Real> run(mpi::share_of(p, comm.rank(), comm.size()), config, comm, dt_max);
  run.use_block_steps(block);
  std::vector<std::int64_t> substeps;
  run.block_steps()->on_substep = [&](const integrate::Substep& s) { substeps.push_back(s.active); };
  for (int s = 0; s < steps; ++s) {
    one.step();
    run.step(false, s * dt_max, s);
  }
  const auto histogram = run.block_steps()->histogram(run.particles(), comm);
  EXPECT_EQ(histogram, one.time_bin_histogram());
  EXPECT_GE(std::count_if(histogram.begin(), histogram.end(), [](std::int64_t c) { return c > 0; }), 3)
      << "fewer than three bins occupied: the substeps were not subset solves";
  EXPECT_GT(substeps.size(), static_cast<std::size_t>(steps)) << "no substeps below the longest step";
  EXPECT_EQ(run.block_steps()->target_evaluations(), one.block_steps()->target_evaluations());
  const mpi::RankParticles<Real> got = run.gathered();
  const Particles<Real>& want = one.particles();
  const std::vector<integrate::TimeBin>& bins = one.time_bins();
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < want.size(); ++i)
    wrong += !(got.p.id[i] == want.id[i] && same(got.p.x[i], want.x[i]) && same(got.p.y[i], want.y[i]) &&
               same(got.p.z[i], want.z[i]) && same(got.p.vx[i], want.vx[i]) && same(got.p.vy[i], want.vy[i]) &&
               same(got.p.vz[i], want.vz[i]) && got.bin[i] == bins[i] && same(got.a.ax[i], one.accelerations().ax[i]));
  EXPECT_EQ(wrong, 0) << "particles whose state or bin is not one process's (of " << want.size() << ")";
}

TEST(DistributedBlockSteps, CollidingPlummerSpheresRunAsOneProcess) {
  expect_block_steps_like_one_process(ic::to_precision<float>(ic::plummer_collision(1500, 5)), bh::Opening::geometric, 1,
                                      {integrate::StepCriterion::softening, 0.025, 0.01}, 2);
}

TEST(DistributedBlockSteps, HernquistHaloWithTheRelativeOpeningRunsAsOneProcess) {
  expect_block_steps_like_one_process(ic::to_precision<double>(ic::hernquist_sphere(1500, 5)), bh::Opening::relative, 2,
                                      {integrate::StepCriterion::dynamical, 0.02, 0}, 2);
}

}  // namespace
}  // namespace orrery::driver

namespace orrery::driver {
namespace {

// A particle whose step the bins do not hold (two particles 1e-4 apart,
// softening 0.001, dt_min = dt_max / 64): every rank stops with an
// InputError at the same substep; the rank holding the particle one
// process names first says exactly what one process says, the others that
// they stop.
TEST(DistributedBlockSteps, AStepBelowDtMinStopsEveryRankNamingOneProcesssParticle) {
  const auto comm = mpi::Communicator::world();
  auto p = ic::to_precision<float>(ic::plummer_sphere(50, 2));
  p.x[7] = p.x[8] + 1e-4f;
  p.y[7] = p.y[8];
  p.z[7] = p.z[8];
  auto g = testing::checked_tree("cpu", bh::Opening::geometric);
  g.softening = 0.001;
  const auto config = gravity::tree_solver_config(g);
  const integrate::BlockStepConfig block{{integrate::StepCriterion::softening, 0.025, 0.001}, 1.0 / 1024};
  integrate::SimulationState state;
  state.dt = 1.0 / 16;
  const auto message = [](auto&& step) {
    try {
      step();
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  integrate::Simulation<float> one(p, std::make_unique<gravity::TreeSolver<float>>(config), state);
  one.use_block_steps(block);
  const std::string want = message([&] { one.step(); });
  ASSERT_NE(want.find("integration.dt_min"), std::string::npos) << want;
  DistributedSteps<float> run(mpi::share_of(p, comm.rank(), comm.size()), config, comm, state.dt);
  run.use_block_steps(block);
  const std::string got = message([&] { run.step(); });
  std::vector<std::uint64_t> naming = {got == want ? 1u : 0u};
  comm.sum(naming);
  EXPECT_EQ(naming[0], 1u) << "rank " << comm.rank() << ": " << got;
  if (got != want) {
    EXPECT_NE(got.find(" stops: particle "), std::string::npos) << got;
  }
}

}  // namespace
}  // namespace orrery::driver
