// The distributed tree with each rank's walk on the GPU (mpi/let_walk_gpu.hpp;
// ranks sharing the one GPU where there are fewer GPUs than ranks) against
// one process's GPU tree solver, bit for bit: orrery_mpi_distributed_gpu_test.npK,
// K = 1, 2, 4, label gpu. Skips without a GPU. Accelerations, potentials and
// the particle-cell and particle-particle counts of every target; not the
// node visits, which the coherent walk counts for a target's group (a
// rank's groups begin at its domain's edge). In exact mode the results are
// also the CPU tree solver's. Each rank builds its subtrees on the device too
// (LetWalk::build_run), so these also check that build against one process.
#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "orrery/gravity/tree_gpu_solver.hpp"
#include "orrery/gravity/tree_solver.hpp"
#include "orrery/ic/collision.hpp"
#include "orrery/ic/hernquist.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/mpi/distributed_tree.hpp"
#include "orrery/mpi/key_order.hpp"
#include "orrery/mpi/let_walk_gpu.hpp"
#include "orrery/mpi/migrate.hpp"
#include "support/missing_node_checks.hpp"
#include "support/rank_gpu_test.hpp"
#include "support/replicated_checks.hpp"

namespace orrery {
namespace {

using DistributedGpuTree = testing::RankGpuTest;

/// This rank's particles' results, placed at their one-process indices of a
/// copy of `want` (so that it differs from `want` only where they differ).
template <class Real>
void expect_rank_is(const mpi::RankParticles<Real>& s, const SolverReport& got, const Accelerations<Real>& want,
                    const SolverReport& want_report, const std::string& what) {
  std::int64_t wrong = 0;
  for (std::int64_t k = 0; k < s.size(); ++k) {
    const auto i = static_cast<std::size_t>(s.index[k]);
    const InteractionCounts& a = got.per_target[k];
    const InteractionCounts& b = want_report.per_target[i];
    const bool ok = testing::same_bits(std::vector<Real>{s.a.ax[k], s.a.ay[k], s.a.az[k], s.a.potential[k]},
                                       std::vector<Real>{want.ax[i], want.ay[i], want.az[i], want.potential[i]}) &&
                    a.cell_interactions == b.cell_interactions && a.particle_interactions == b.particle_interactions;
    if (!ok && wrong++ == 0)
      ADD_FAILURE() << what << ": particle " << i << " ax = " << s.a.ax[k] << " want " << want.ax[i] << ", cells "
                    << a.cell_interactions << " want " << b.cell_interactions;
  }
  EXPECT_EQ(wrong, 0) << what;
  EXPECT_EQ(got.total.cell_interactions, want_report.total.cell_interactions) << what;
  EXPECT_EQ(got.total.particle_interactions, want_report.total.particle_interactions) << what;
}

/// run_particles: the most particles of one build of the rank's subtrees on
/// its device (mpi::DistributedOptions::build_run_particles; 0: the GPU
/// backend's, one build a domain; small: many builds of other sizes by one
/// bh::DeviceOctree).
/// device_places: the assembly leaves the held particles where they lie and
/// the walk places them on its device (DistributedOptions::walk_places_particles,
/// the default; false: the host places them in the assembly);
/// device_keys: the decomposition's keys made on the device, which keeps the
/// sorted positions for the build (DistributedOptions::decomposition_on_device;
/// unset: its default, on for one rank).
template <class Real>
void expect_bits(const std::string& which, std::int64_t n, bh::Opening opening, int multipole, MathMode math,
                 std::int32_t run_particles = 0, bool device_places = true,
                 std::optional<bool> device_keys = {}) {
  const auto comm = mpi::Communicator::world();
  const std::string what = which + "/" + std::to_string(sizeof(Real) * 8) + "/opening " +
                           std::to_string(int(opening)) + "/multipole " + std::to_string(multipole) + "/" +
                           std::string(to_string(math)) + "/K " + std::to_string(comm.size()) + "/runs of " +
                           std::to_string(run_particles) + (device_places ? "" : "/placed by the host") +
                           (device_keys ? (*device_keys ? "/keys on the device" : "/keys on the host") : "");
  const Particles<Real> p =
      ic::to_precision<Real>(which == "collision" ? ic::plummer_collision(n, 19) : ic::hernquist_sphere(n, 19));
  auto g = testing::checked_tree("cuda", opening);
  g.multipole_order = multipole;
  g.math = math;
  const gravity::GpuTreeSolverConfig config = gravity::gpu_tree_config(g);
  gravity::GpuTreeSolver<Real> one(config);
  gravity::TreeSolver<Real> cpu(config.tree);
  mpi::DistributedOptions runs;
  runs.build_run_particles = run_particles;
  runs.walk_places_particles = device_places;
  runs.decomposition_on_device = device_keys;
  mpi::DistributedTree<Real> dist(config.tree, comm, runs, mpi::gpu_let_walk<Real>(config));
  EXPECT_EQ(dist.walk_backend(), "cuda/coherent32");
  EXPECT_EQ(mpi::gpu_let_walk<Real>(config)->build_run_particles(), std::numeric_limits<std::int32_t>::max());
  mpi::RankParticles<Real> s = mpi::share_of(p, comm.rank(), comm.size());
  Accelerations<Real> want(static_cast<std::size_t>(n)), on_cpu(static_cast<std::size_t>(n));
  gravity::SolveOptions o;
  o.per_target_counts = true;
  for (int evaluation = 0; evaluation < (opening == bh::Opening::relative ? 2 : 1); ++evaluation) {
    o.previous_accelerations = evaluation > 0;  // the second reads the first's accelerations
    const SolverReport want_report = one.solve(p.sources(), want.view(true), o);
    const SolverReport got = dist.solve(s, o);
    expect_rank_is(s, got, want, want_report, what + "/evaluation " + std::to_string(evaluation));
    if (math == MathMode::exact) {
      const SolverReport cpu_report = cpu.solve(p.sources(), on_cpu.view(true), o);
      expect_rank_is(s, got, on_cpu, cpu_report, what + "/the CPU's/evaluation " + std::to_string(evaluation));
    }
  }
}

TEST_F(DistributedGpuTree, GeometricIsOneProcessGpuBitForBit) {
  expect_bits<float>("hernquist", 20000, bh::Opening::geometric, 1, MathMode::fast);
  expect_bits<float>("collision", 20000, bh::Opening::geometric, 2, MathMode::fast);
  expect_bits<double>("hernquist", 8000, bh::Opening::geometric, 2, MathMode::exact);
  expect_bits<float>("collision", 20000, bh::Opening::geometric, 2, MathMode::exact, 1500);
}

TEST_F(DistributedGpuTree, RelativeIsOneProcessGpuBitForBit) {
  expect_bits<float>("hernquist", 20000, bh::Opening::relative, 1, MathMode::fast);
  expect_bits<float>("collision", 8000, bh::Opening::relative, 2, MathMode::exact);
  expect_bits<double>("hernquist", 8000, bh::Opening::relative, 1, MathMode::exact, 700);
}

// The walk's particles placed on the device (docs/adr/0021 phase 1; the
// default, which the tests above take: the own ones copied there from the
// domain's one build, or, builds in runs, uploaded from the host, with the
// received ones and the sentinel) and placed by the host in the assembly
// (walk_places_particles off): the same bits.
TEST_F(DistributedGpuTree, TheParticlesPlacedByTheHostAreOneProcessGpuBitForBit) {
  expect_bits<float>("hernquist", 20000, bh::Opening::geometric, 2, MathMode::fast, 0, false);
  expect_bits<float>("collision", 20000, bh::Opening::geometric, 1, MathMode::exact, 1500, false);
  expect_bits<double>("hernquist", 8000, bh::Opening::relative, 2, MathMode::exact, 0, false);
}

// The decomposition's keys made on the device and the sorted positions kept
// there for the build (docs/adr/0021 phase 3), with the particles placed
// there too or not; one build a domain reads them, builds in runs upload
// theirs. Two solves with a drift between them: the second sorts particles
// out of order and (K > 1) migrates some, after which the kept positions are
// not read.
TEST_F(DistributedGpuTree, TheKeysMadeOnTheDeviceAreOneProcessGpuBitForBit) {
  expect_bits<float>("hernquist", 20000, bh::Opening::geometric, 2, MathMode::fast, 0, false, true);
  expect_bits<float>("collision", 20000, bh::Opening::geometric, 1, MathMode::exact, 0, true, true);
  expect_bits<double>("hernquist", 8000, bh::Opening::relative, 2, MathMode::exact, 700, true, true);
  const auto comm = mpi::Communicator::world();
  Particles<float> p = ic::to_precision<float>(ic::plummer_collision(20000, 19));
  const gravity::GpuTreeSolverConfig config =
      gravity::gpu_tree_config(testing::checked_tree("cuda", bh::Opening::geometric));
  gravity::GpuTreeSolver<float> one(config);
  mpi::DistributedOptions device;
  device.walk_places_particles = true;
  device.decomposition_on_device = true;
  mpi::DistributedTree<float> dist(config.tree, comm, device, mpi::gpu_let_walk<float>(config));
  mpi::RankParticles<float> s = mpi::share_of(p, comm.rank(), comm.size());
  gravity::SolveOptions o;
  o.per_target_counts = true;
  Accelerations<float> want(static_cast<std::size_t>(p.size()));
  for (int solve = 0; solve < 2; ++solve) {
    const SolverReport want_report = one.solve(p.sources(), want.view(true), o);
    const SolverReport got = dist.solve(s, o);
    expect_rank_is(s, got, want, want_report, "two solves, solve " + std::to_string(solve));
    for (std::int64_t i = 0; i < p.size(); ++i) p.x[i] += 0.5f * p.vx[i], p.y[i] += 0.5f * p.vy[i];
    for (std::int64_t k = 0; k < s.size(); ++k) s.p.x[k] += 0.5f * s.p.vx[k], s.p.y[k] += 0.5f * s.p.vy[k];
  }
}

// order_particles keeping the positions on the device: the host's keys,
// order and answer to "in order already", on particles out of order, in
// order, and none.
TEST_F(DistributedGpuTree, TheDeviceOrdersParticlesAsTheHost) {
  const gravity::GpuTreeSolverConfig config =
      gravity::gpu_tree_config(testing::checked_tree("cuda", bh::Opening::geometric));
  const auto walk = mpi::gpu_let_walk<double>(config);
  const auto expect_host_order = [&](const mpi::RankParticles<double>& s, const bh::Cube& cube,
                                     const std::string& what) {
    std::vector<std::uint64_t> want_keys, got_keys;
    std::vector<std::int32_t> want, got;
    const std::span<const std::uint64_t> index(s.index);
    const bool want_in_order = mpi::sort_by_key_and_tie(mpi::position_keys(s.p.sources(), cube), index, want_keys, want);
    std::vector<std::string> laps;
    const bool got_in_order = walk->order_particles(s.p.sources(), index, cube, got_keys, got,
                                                    [&laps](const char* name) { laps.emplace_back(name); }, true);
    EXPECT_EQ(got_in_order, want_in_order) << what;
    EXPECT_EQ(got, want) << what;
    EXPECT_EQ(got_keys, want_keys) << what;
    EXPECT_EQ(laps, std::vector<std::string>{"keys"}) << what;
  };
  const Particles<double> p = ic::hernquist_sphere(100003, 19);
  mpi::RankParticles<double> s = mpi::share_of(p, 0, 1);
  const bh::Cube cube{-600, -600, -600, 1200};  // holds the halo's particles (its truncation radius)
  expect_host_order(s, cube, "out of order");
  std::vector<std::uint64_t> keys;
  mpi::ByteBuffer scratch;
  std::vector<double> spare;
  mpi::sort_by_key_in_place(s, cube, keys, scratch, spare);
  expect_host_order(s, cube, "in order");
  expect_host_order(mpi::RankParticles<double>{}, cube, "no particles");
}

// The decomposition's sort on a GPU rank's device (LetWalk::sort_particle_keys)
// against the host's sort_by_key_and_tie: the same order, sorted keys and
// answer to "already in order", on keys with long runs of equal ones (the
// index decides), nearly sorted keys (a drift after the last sort), keys
// already in order (no device work: the identity) and none.
TEST_F(DistributedGpuTree, TheDeviceSortsParticleKeysAsTheHost) {
  const gravity::GpuTreeSolverConfig config =
      gravity::gpu_tree_config(testing::checked_tree("cuda", bh::Opening::geometric));
  const auto walk = mpi::gpu_let_walk<float>(config);
  const auto expect_host_order = [&](const std::vector<std::uint64_t>& keys, const std::vector<std::uint64_t>& index,
                                     const std::string& what) {
    std::vector<std::uint64_t> want_keys, got_keys;
    std::vector<std::int32_t> want, got;
    const bool want_in_order = mpi::sort_by_key_and_tie(keys, std::span<const std::uint64_t>(index), want_keys, want);
    const bool got_in_order =
        walk->sort_particle_keys(std::vector<std::uint64_t>(keys), std::span<const std::uint64_t>(index), got_keys, got);
    EXPECT_EQ(got_in_order, want_in_order) << what;
    EXPECT_EQ(got, want) << what;
    EXPECT_EQ(got_keys, want_keys) << what;
  };
  std::mt19937_64 rng(7);
  const std::size_t n = 300001;
  std::vector<std::uint64_t> keys(n), index(n);
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = (rng() % 1000) << 50;  // about 300 particles a key
    index[i] = (rng() >> 1) % (std::uint64_t(1) << 40);
  }
  expect_host_order(keys, index, "equal keys");
  std::vector<std::int32_t> by;
  std::vector<std::uint64_t> sorted;
  mpi::sort_by_key_and_tie(keys, std::span<const std::uint64_t>(index), sorted, by);
  std::vector<std::uint64_t> index_sorted(n);
  for (std::size_t k = 0; k < n; ++k) index_sorted[k] = index[static_cast<std::size_t>(by[k])];
  expect_host_order(sorted, index_sorted, "in order");
  for (std::size_t k = 0; k + 1 < n; k += 53) sorted[k] += std::uint64_t(1) << 51;  // nearly in order
  expect_host_order(sorted, index_sorted, "nearly in order");
  expect_host_order({}, {}, "no particles");
}

// The benchmark's split of the walk (mpi_let_bench --backend cuda): every
// solve adds to each of the three steps, in their order; the CPU's has none.
TEST_F(DistributedGpuTree, TheWalkSplitsItsTimeIntoUploadKernelAndDownload) {
  const auto comm = mpi::Communicator::world();
  const Particles<float> p = ic::to_precision<float>(ic::hernquist_sphere(20000, 19));
  const gravity::GpuTreeSolverConfig config =
      gravity::gpu_tree_config(testing::checked_tree("cuda", bh::Opening::geometric));
  const std::shared_ptr<mpi::LetWalk<float>> walk = mpi::gpu_let_walk<float>(config);
  EXPECT_TRUE(walk->step_seconds().size() == 3 && walk->step_seconds()[0].second == 0.0);
  mpi::DistributedTree<float> dist(config.tree, comm, {}, walk);
  mpi::RankParticles<float> s = mpi::share_of(p, comm.rank(), comm.size());
  std::vector<std::pair<std::string, double>> before = walk->step_seconds();
  for (int solve = 0; solve < 2; ++solve) {
    dist.solve(s);
    const auto now = walk->step_seconds();
    ASSERT_EQ(now.size(), 3u);
    for (std::size_t k = 0; k < 3; ++k) {
      EXPECT_EQ(now[k].first, (std::vector<std::string>{"upload", "kernel", "download"}[k]));
      EXPECT_GT(now[k].second, before[k].second) << now[k].first << ", solve " << solve;
    }
    before = now;
  }
  EXPECT_TRUE(mpi::cpu_let_walk<float>(config.tree)->step_seconds().empty());
}

// A walk that opens a node its rank was not sent stops with the error that
// names it, on the GPU as on the CPU (the boxes shrunk to their centres).
TEST_F(DistributedGpuTree, AWalkThatWantsANodeNotSentStopsNamingIt) {
  const auto comm = mpi::Communicator::world();
  const Particles<double> p = ic::hernquist_sphere(3000, 19);
  const gravity::GpuTreeSolverConfig config =
      gravity::gpu_tree_config(testing::checked_tree("cuda", bh::Opening::geometric));
  mpi::DistributedOptions aggressive;
  aggressive.let_shrink = 0.0;
  aggressive.walk_places_particles = false;  // placed by the assembly
  mpi::DistributedTree<double> dist(config.tree, comm, aggressive, mpi::gpu_let_walk<double>(config));
  mpi::RankParticles<double> s = mpi::share_of(p, comm.rank(), comm.size());
  testing::expect_missing_node_named(dist, s, comm);
  aggressive.walk_places_particles = true;  // placed on the device; the host places them to search for the node
  mpi::DistributedTree<double> placing(config.tree, comm, aggressive, mpi::gpu_let_walk<double>(config));
  mpi::RankParticles<double> t = mpi::share_of(p, comm.rank(), comm.size());
  testing::expect_missing_node_named(placing, t, comm);
}

}  // namespace
}  // namespace orrery
