// The distributed tree with local essential trees against one process's
// TreeSolver, bit for bit (run under mpiexec with K = 1..5:
// orrery_mpi_distributed_test.npK): accelerations, potentials and every
// target's counters on clustered inputs (a Hernquist halo, two colliding
// Plummer spheres), both criteria, both multipole orders; every node a rank
// holds against the one-process tree's; the error of a walk that opens a
// node that was not sent; particles that move across domains between solves;
// the same bits on any number of OpenMP threads per rank.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "orrery/core/error.hpp"
#include "orrery/gravity/tree_solver.hpp"
#include "orrery/ic/collision.hpp"
#include "orrery/ic/hernquist.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/mpi/distributed_tree.hpp"
#include "orrery/bh/build_steps.hpp"
#include "orrery/mpi/global_tree.hpp"
#include "support/missing_node_checks.hpp"
#include "orrery/bh/opening_relative.hpp"
#include "orrery/mpi/migrate.hpp"
#include "support/random_subset.hpp"
#include "support/replicated_checks.hpp"

namespace orrery {
namespace {

template <class Real>
bool same(Real a, Real b) {
  return std::memcmp(&a, &b, sizeof(Real)) == 0;
}

/// The drift between two solves, the same arithmetic everywhere.
template <class Real>
void drift_half(Real& x, Real v) {
  x += Real(0.5) * v;
}

/// "hernquist", "collision", or "one point" (a Hernquist halo's masses and
/// velocities, every position the same: DESIGN contract 7's degenerate case).
template <class Real>
Particles<Real> input(const std::string& which, std::int64_t n) {
  Particles<Real> p =
      ic::to_precision<Real>(which == "collision" ? ic::plummer_collision(n, 19) : ic::hernquist_sphere(n, 19));
  if (which == "one point")
    for (std::int64_t i = 0; i < n; ++i) p.x[i] = p.y[i] = p.z[i] = Real(0.25);
  return p;
}

template <class Real>
mpi::RankParticles<Real> dealt(const Particles<Real>& p, const mpi::Communicator& comm) {
  return mpi::share_of(p, comm.rank(), comm.size());
}

bh::TreeSolverConfig config(bh::Opening opening, int multipole) {
  auto g = testing::checked_tree("cpu", opening);
  g.multipole_order = multipole;
  return gravity::tree_solver_config(g);
}

/// Every particle this rank holds has one process's bits and counters, and
/// every node it holds is one process's node with its bits.
template <class Real>
void expect_one_process(const mpi::RankParticles<Real>& s, const SolverReport& got, const Accelerations<Real>& want,
                        const SolverReport& want_report, const gravity::TreeSolver<Real>& one,
                        const mpi::DistributedTree<Real>& dist, const std::string& what) {
  EXPECT_EQ(got.total, want_report.total) << what;
  std::int64_t wrong = 0;
  for (std::int64_t k = 0; k < s.size(); ++k) {
    const auto i = static_cast<std::size_t>(s.index[k]);
    const bool ok = s.p.id[k] == i + 1 && same(s.a.ax[k], want.ax[i]) && same(s.a.ay[k], want.ay[i]) && same(s.a.az[k], want.az[i]) &&
                    same(s.a.potential[k], want.potential[i]) && got.per_target[k] == want_report.per_target[i];
    if (!ok && wrong++ == 0)
      ADD_FAILURE() << what << ": particle " << i << " a = " << s.a.ax[k] << " want " << want.ax[i] << ", visits "
                    << got.per_target[k].node_visits << " want " << want_report.per_target[i].node_visits;
  }
  EXPECT_EQ(wrong, 0) << what;
  const bh::Octree<Real>& t = one.last_tree();
  std::map<std::pair<std::uint64_t, std::int32_t>, std::int32_t> at;
  for (std::int32_t n = 0; n < t.num_nodes(); ++n) at[{t.key[n], t.level[n]}] = n;
  const bh::Octree<Real>& mine = dist.last_tree().tree;
  std::int64_t unknown = 0, differ = 0;
  for (std::int32_t n = 0; n < mine.num_nodes(); ++n) {
    const auto f = at.find({mine.key[n], mine.level[n]});
    if (f == at.end()) {
      ++unknown;
      continue;
    }
    const std::int32_t o = f->second;
    differ += !(same(mine.mass[n], t.mass[o]) && same(mine.com_x[n], t.com_x[o]) && same(mine.com_y[n], t.com_y[o]) &&
                same(mine.com_z[n], t.com_z[o]) && same(mine.crit2[n], t.crit2[o]));
    if (!t.quad.empty()) differ += !same(mine.quad[std::size_t(n) * 6 + 3], t.quad[std::size_t(o) * 6 + 3]);
    if (!t.crit_rel.empty()) differ += !same(mine.crit_rel[n], t.crit_rel[o]);
  }
  EXPECT_EQ(unknown, 0) << what << ": nodes that the one-process tree does not have";
  EXPECT_EQ(differ, 0) << what << ": nodes whose moments differ from the one-process tree's";
}

/// A walk that takes its tree with the held particles where they lie
/// (mpi::DistributedOptions::walk_places_particles), as a GPU rank's does,
/// and places them itself from mpi::HeldParticles alone into a copy of the
/// tree, which the CPU walk then walks: the host's model of the GPU's
/// placement, which checks that the pieces describe the tree's particles.
template <class Real>
class PlacingWalk final : public mpi::LetWalk<Real> {
 public:
  explicit PlacingWalk(const bh::TreeSolverConfig& config) : cpu_(mpi::cpu_let_walk<Real>(config)) {}
  std::string backend() const override { return "test/placing"; }
  bool places_particles() const override { return true; }
  void walk(const bh::Octree<Real>& tree, const mpi::HeldParticles<Real>* held, std::span<const std::int32_t> targets,
            bool potential, Real* ax, Real* ay, Real* az, Real* pot, InteractionCounts* counts,
            const Real* scale) override {
    EXPECT_NE(held, nullptr) << "the walk that places the particles was given them placed";
    if (held == nullptr) return cpu_->walk(tree, nullptr, targets, potential, ax, ay, az, pot, counts, scale);
    EXPECT_TRUE(tree.x.empty() && tree.y.empty() && tree.z.empty() && tree.m.empty() && tree.order.empty())
        << "a tree whose particles are held elsewhere has particle arrays";
    placed_ = tree;
    for (auto* v : {&placed_.x, &placed_.y, &placed_.z, &placed_.m}) v->assign(static_cast<std::size_t>(held->held) + 1, Real(7));
    mpi::place_held(*held, placed_.x.data(), placed_.y.data(), placed_.z.data(), placed_.m.data());
    placed_.order.resize(placed_.x.size());
    for (std::size_t j = 0; j < placed_.order.size(); ++j) placed_.order[j] = static_cast<std::int32_t>(j);
    ++walks_;
    cpu_->walk(placed_, nullptr, targets, potential, ax, ay, az, pot, counts, scale);
  }
  /// The tree of the last walk, its particles placed here.
  const bh::Octree<Real>& placed() const { return placed_; }
  int walks() const { return walks_; }

 private:
  std::unique_ptr<mpi::LetWalk<Real>> cpu_;
  bh::Octree<Real> placed_;
  int walks_ = 0;
};

/// A backend that keeps the decomposition's sorted positions where it sorts
/// them (DistributedOptions::decomposition_on_device), as a GPU rank's keeps
/// them on its device, here on the host: order_particles keeps a copy of x,
/// y, z, m in the order and the sorted keys' address; build_run, given a run
/// whose keys lie in those, checks that the kept copy is the run, the rule a
/// GPU rank's build relies on to read it (the solver calls
/// particles_changed() where a migration moved any), then builds on the host.
template <class Real>
class KeepingWalk final : public mpi::LetWalk<Real> {
 public:
  explicit KeepingWalk(const bh::TreeSolverConfig& config) : cpu_(mpi::cpu_let_walk<Real>(config)) {}
  std::string backend() const override { return "test/keeping"; }
  void walk(const bh::Octree<Real>& tree, const mpi::HeldParticles<Real>* held, std::span<const std::int32_t> targets,
            bool potential, Real* ax, Real* ay, Real* az, Real* pot, InteractionCounts* counts,
            const Real* scale) override {
    cpu_->walk(tree, held, targets, potential, ax, ay, az, pot, counts, scale);
  }
  bool order_particles(const SourcesView<Real>& p, std::span<const std::uint64_t> index, const bh::Cube& cube,
                       std::vector<std::uint64_t>& sorted_keys, std::vector<std::int32_t>& order,
                       const std::function<void(const char*)>& lap, bool keep_positions) override {
    kept_keys_ = nullptr;
    const bool in_order =
        mpi::LetWalk<Real>::order_particles(p, index, cube, sorted_keys, order, lap, keep_positions);
    asked_to_keep_.push_back(keep_positions);
    if (!keep_positions) return in_order;
    const Real* in[4] = {p.x, p.y, p.z, p.mass};
    for (int c = 0; c < 4; ++c) {
      kept_[c].resize(order.size());
      for (std::size_t k = 0; k < order.size(); ++k) kept_[c][k] = in[c][order[k]];
    }
    kept_keys_ = sorted_keys.data();
    kept_count_ = sorted_keys.size();
    return in_order;
  }
  void particles_changed() override {
    kept_keys_ = nullptr;
    ++changes_;
  }
  bh::Octree<Real> build_run(const SourcesView<Real>& run, std::span<const std::uint64_t> keys,
                             const bh::TreeParams& params, const bh::Cube* cube) override {
    const std::uint64_t* kept = kept_keys_;
    if (kept != nullptr && keys.size() == static_cast<std::size_t>(run.count) && keys.data() >= kept &&
        keys.data() + keys.size() <= kept + kept_count_) {
      const std::size_t at = static_cast<std::size_t>(keys.data() - kept);
      const Real* now[4] = {run.x, run.y, run.z, run.mass};
      for (int c = 0; c < 4; ++c)
        EXPECT_EQ(std::memcmp(kept_[c].data() + at, now[c], keys.size() * sizeof(Real)), 0)
            << "the kept sorted particles are not the run built from them (field " << c << ")";
      ++kept_builds_;
    }
    return mpi::LetWalk<Real>::build_run(run, keys, params, cube);
  }
  int kept_builds() const { return kept_builds_; }
  int changes() const { return changes_; }
  /// keep_positions of each order_particles call so far.
  const std::vector<bool>& asked_to_keep() const { return asked_to_keep_; }

 private:
  std::unique_ptr<mpi::LetWalk<Real>> cpu_;
  std::vector<Real> kept_[4];
  const std::uint64_t* kept_keys_ = nullptr;
  std::size_t kept_count_ = 0;
  int kept_builds_ = 0, changes_ = 0;
  std::vector<bool> asked_to_keep_;
};

/// placing_walk: the walk is PlacingWalk (the host's model of a GPU rank's
/// placement; with walk_places_particles), else the CPU's.
template <class Real>
void expect_bits(const std::string& which, std::int64_t n, bh::Opening opening, int multipole,
                 const mpi::DistributedOptions& options = {}, bool placing_walk = false) {
  const auto comm = mpi::Communicator::world();
  const std::string what = which + "/" + std::to_string(sizeof(Real) * 8) + "/opening " +
                           std::to_string(int(opening)) + "/multipole " + std::to_string(multipole) + "/K " +
                           std::to_string(comm.size()) + "/runs of " + std::to_string(options.build_run_particles);
  const Particles<Real> p = input<Real>(which, n);
  const auto cfg = config(opening, multipole);
  gravity::TreeSolver<Real> one(cfg);
  Accelerations<Real> want(static_cast<std::size_t>(n));
  gravity::SolveOptions o;
  o.per_target_counts = true;
  const SolverReport want_report = one.solve(p.sources(), want.view(true), o);
  std::shared_ptr<mpi::LetWalk<Real>> walk;
  if (placing_walk) walk = std::make_shared<PlacingWalk<Real>>(cfg);
  mpi::DistributedTree<Real> dist(cfg, comm, options, walk);
  mpi::RankParticles<Real> s = dealt(p, comm);
  const SolverReport got = dist.solve(s, o);
  expect_one_process(s, got, want, want_report, one, dist, what);
  if (opening != bh::Opening::relative) return;
  // The second evaluation reads the first's accelerations (no bootstrap).
  o.previous_accelerations = true;
  const SolverReport want2 = one.solve(p.sources(), want.view(true), o);
  const SolverReport got2 = dist.solve(s, o);
  expect_one_process(s, got2, want, want2, one, dist, what + "/previous");
}

TEST(DistributedTree, GeometricMonopoleIsOneProcessBitForBit) {
  expect_bits<float>("hernquist", 3000, bh::Opening::geometric, 1);
  expect_bits<double>("collision", 3000, bh::Opening::geometric, 1);
}

TEST(DistributedTree, GeometricQuadrupoleIsOneProcessBitForBit) {
  expect_bits<float>("collision", 3000, bh::Opening::geometric, 2);
  expect_bits<double>("hernquist", 3000, bh::Opening::geometric, 2);
}

TEST(DistributedTree, RelativeIsOneProcessBitForBit) {
  expect_bits<float>("hernquist", 3000, bh::Opening::relative, 1);
  expect_bits<double>("collision", 3000, bh::Opening::relative, 2);
}

// The assembly that leaves the held particles where they lie (the rank's
// sorted arrays, the received bytes: docs/adr/0021 phase 1; the default)
// gives the walk the same tree as the assembly that places them (the
// option off): with a walk that places them itself, and with the CPU's,
// which has the host place them after the assembly.
TEST(DistributedTree, TheParticlesPlacedByTheWalkAreOneProcessBitForBit) {
  EXPECT_TRUE(mpi::DistributedOptions{}.walk_places_particles);
  mpi::DistributedOptions pieces, placed;
  placed.walk_places_particles = false;
  expect_bits<float>("hernquist", 3000, bh::Opening::relative, 2, pieces, true);
  expect_bits<double>("collision", 3000, bh::Opening::geometric, 1, pieces, true);
  expect_bits<float>("collision", 3000, bh::Opening::relative, 1, placed);
  expect_bits<double>("hernquist", 3000, bh::Opening::geometric, 2, placed);
  const auto comm = mpi::Communicator::world();
  const auto cfg = config(bh::Opening::geometric, 2);
  const Particles<double> p = input<double>("collision", 3000);
  gravity::SolveOptions o;
  o.per_target_counts = true;
  mpi::DistributedTree<double> host(cfg, comm, placed), cpu(cfg, comm, pieces);
  auto walk = std::make_shared<PlacingWalk<double>>(cfg);
  mpi::DistributedTree<double> placing(cfg, comm, pieces, walk);
  mpi::RankParticles<double> a = dealt(p, comm), b = a, c = a;
  host.solve(a, o);
  cpu.solve(b, o);
  placing.solve(c, o);
  EXPECT_EQ(walk->walks(), 1);
  const bh::Octree<double>&want = host.last_tree().tree, &got = cpu.last_tree().tree, &model = walk->placed();
  for (const bh::Octree<double>* t : {&got, &model}) {
    const std::string what = t == &got ? "placed by the host after the assembly" : "placed by the walk";
    EXPECT_EQ(want.x, t->x) << what;
    EXPECT_EQ(want.y, t->y) << what;
    EXPECT_EQ(want.z, t->z) << what;
    EXPECT_TRUE(std::memcmp(want.m.data(), t->m.data(), want.m.size() * sizeof(double)) == 0 && want.m.size() == t->m.size())
        << what << ": the masses and the sentinel's NaN";
    EXPECT_EQ(want.order, t->order) << what;
    EXPECT_EQ(want.first, t->first) << what;
    EXPECT_EQ(want.count, t->count) << what;
    EXPECT_EQ(want.next, t->next) << what;
    EXPECT_EQ(want.key, t->key) << what;
  }
  EXPECT_EQ(host.last_tree().own, cpu.last_tree().own);
  EXPECT_EQ(host.last_tree().held.held, cpu.last_tree().held.held);
  EXPECT_TRUE(cpu.last_tree().placed);
  EXPECT_FALSE(placing.last_tree().placed);
  EXPECT_EQ(a.a.ax, c.a.ax);
  EXPECT_EQ(a.a.potential, c.a.potential);
}

// A backend that keeps the sorted positions where it sorts them
// (decomposition_on_device: a GPU rank's device) is asked to build only
// from runs that are its kept copy: checked in two solves with a drift
// between them, after which the particles are out of order and (K > 1) some
// migrate, so the second solve's build must not read the first's copy.
TEST(DistributedTree, KeptSortedPositionsAreReadOnlyWhileTheyAreTheParticles) {
  const auto comm = mpi::Communicator::world();
  const auto cfg = config(bh::Opening::geometric, 1);
  mpi::DistributedOptions keep;
  keep.decomposition_on_device = true;
  auto walk = std::make_shared<KeepingWalk<double>>(cfg);
  mpi::DistributedTree<double> dist(cfg, comm, keep, walk);
  mpi::DistributedTree<double> host(cfg, comm);
  const Particles<double> p = input<double>("collision", 6000);
  mpi::RankParticles<double> a = dealt(p, comm), b = a;
  gravity::SolveOptions o;
  o.per_target_counts = true;
  std::vector<int> kept_builds, changes;
  for (int solve = 0; solve < 2; ++solve) {
    const SolverReport got = dist.solve(a, o), want = host.solve(b, o);
    EXPECT_EQ(a.a.ax, b.a.ax) << "solve " << solve;
    EXPECT_EQ(got.total, want.total) << "solve " << solve;
    kept_builds.push_back(walk->kept_builds());
    changes.push_back(walk->changes());
    for (auto* s : {&a, &b})
      for (std::int64_t k = 0; k < s->size(); ++k)
        drift_half(s->p.x[k], s->p.vx[k]), drift_half(s->p.y[k], s->p.vy[k]), drift_half(s->p.z[k], s->p.vz[k]);
  }
  // One rank: nothing migrates, and every build reads the kept copy (one a
  // domain: the host's runs are 2^21 particles). Several: the dealt particles
  // all move to their domains in the first solve, so it changes them.
  if (comm.size() == 1) {
    EXPECT_EQ(kept_builds, (std::vector<int>{1, 2}));
    EXPECT_EQ(changes, (std::vector<int>{0, 0}));
  } else {
    EXPECT_GE(changes[0], 1);
  }
  EXPECT_EQ(walk->asked_to_keep(), (std::vector<bool>{true, true}));
  // Left unset, the option keeps them where one rank holds every particle
  // (nothing migrates) and not otherwise; set, as set.
  for (const std::optional<bool> option : {std::optional<bool>{}, std::optional<bool>{false}}) {
    mpi::DistributedOptions o2;
    o2.decomposition_on_device = option;
    auto w2 = std::make_shared<KeepingWalk<double>>(cfg);
    mpi::DistributedTree<double> d2(cfg, comm, o2, w2);
    mpi::RankParticles<double> c = dealt(p, comm);
    d2.solve(c, o);
    EXPECT_EQ(w2->asked_to_keep(), std::vector<bool>{option.value_or(comm.size() == 1)})
        << (option ? "set off" : "unset");
  }
}

// The top tree is a function of every particle's key alone: dealt to the
// ranks every K-th, or all held by the last rank, the keys give the same
// nodes, counts and escape indices (decision 1 of docs/adr/0012).
// A rank's subtrees built in many runs of top leaves (each leaf its own run,
// and runs of a few hundred particles) are the same records as in one run.
TEST(DistributedTree, SubtreesBuiltInRunsAreOneProcessBitForBit) {
  for (const std::int32_t run : {1, 300}) {
    mpi::DistributedOptions runs;
    runs.build_run_particles = run;
    expect_bits<float>("hernquist", 3000, bh::Opening::relative, 2, runs);
    expect_bits<double>("collision", 3000, bh::Opening::geometric, 1, runs);
  }
}

// Left at 0, the runs are the backend's (the host's: kBuildRunParticles);
// a negative count is refused, naming it.
TEST(DistributedTree, TheBuildRunsAreTheBackendsUnlessGiven) {
  const auto comm = mpi::Communicator::world();
  EXPECT_EQ(mpi::DistributedOptions{}.build_run_particles, 0);
  EXPECT_EQ(mpi::cpu_let_walk<double>(config(bh::Opening::geometric, 1))->build_run_particles(),
            mpi::kBuildRunParticles);
  mpi::DistributedOptions negative;
  negative.build_run_particles = -1;
  std::string message;
  try {
    mpi::DistributedTree<double> dist(config(bh::Opening::geometric, 1), comm, negative);
  } catch (const InputError& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("build_run_particles = -1 is invalid; accepted: 0 (the backend's)"), std::string::npos)
      << message;
}

TEST(DistributedTree, TheTopTreeDoesNotDependOnWhichRankHoldsWhat) {
  const auto comm = mpi::Communicator::world();
  const Particles<double> p = input<double>("collision", 3000);
  const bh::Cube cube = bh::cube_from_box(-20, -20, -20, 20, 20, 20);
  std::vector<std::uint64_t> dealt_keys, last_keys;
  for (std::int64_t i = 0; i < p.size(); ++i) {
    const std::uint64_t k = bh::position_key(p.x[i], p.y[i], p.z[i], cube);
    if (i % comm.size() == comm.rank()) dealt_keys.push_back(k);
    if (comm.rank() == comm.size() - 1) last_keys.push_back(k);
  }
  std::sort(dealt_keys.begin(), dealt_keys.end());
  std::sort(last_keys.begin(), last_keys.end());
  const mpi::TopTree a = mpi::build_top_tree(dealt_keys, 40, comm), b = mpi::build_top_tree(last_keys, 40, comm);
  EXPECT_GT(a.leaves.size(), 20u);
  EXPECT_EQ(a.key, b.key);
  EXPECT_EQ(a.level, b.level);
  EXPECT_EQ(a.count, b.count);
  EXPECT_EQ(a.next, b.next);
  EXPECT_EQ(a.leaves, b.leaves);
}

// Fewer top leaves than ranks (N = 5 and 40): some ranks own no domain and
// walk nothing, and every particle still gets one process's bits.
TEST(DistributedTree, RanksWithoutADomainWalkNothing) {
  for (const std::int64_t n : {5, 40}) expect_bits<double>("hernquist", n, bh::Opening::geometric, 2);
}

// Every particle at one point: one oversized leaf on one rank, the others idle.
TEST(DistributedTree, AllParticlesAtOnePointAreOneProcesssLeaf) {
  expect_bits<float>("one point", 200, bh::Opening::geometric, 1);
}

// A memory budget below N: one rank cannot hold the run, several can (each
// holds its domain and what the others send it, O(N/K + LET); at small N the
// LET is large: at N = 3000 a rank of two held 95 %; at 20000, 77 % on 2
// ranks, 64 % on 3, 56 % on 4, 53 % on 5).
TEST(DistributedTree, ARunPastOneRanksParticleBudgetRunsOnSeveral) {
  const auto comm = mpi::Communicator::world();
  const std::int64_t n = 20000, limit = n * 9 / 10;
  mpi::DistributedOptions budget;
  budget.max_held_particles = limit;
  mpi::DistributedTree<double> dist(config(bh::Opening::geometric, 1), comm, budget);
  mpi::RankParticles<double> s = dealt(input<double>("hernquist", n), comm);
  std::string message;
  try {
    dist.solve(s);
  } catch (const InputError& e) {
    message = e.what();
  }
  if (comm.size() == 1) {
    EXPECT_NE(message.find("holds 20000 particles (20000 of its domain, 0 received), more than the limit = 18000"),
              std::string::npos)
        << message;
    return;
  }
  EXPECT_TRUE(message.empty()) << message;
  std::vector<std::uint64_t> held = {static_cast<std::uint64_t>(dist.last_tree().tree.x.size()) - 1};
  comm.max(held);
  EXPECT_LE(held[0], static_cast<std::uint64_t>(limit));
  if (comm.rank() == 0) std::printf("K = %d: at most %llu of %lld particles held on a rank\n", comm.size(),
                                    static_cast<unsigned long long>(held[0]), static_cast<long long>(n));
}

// Boxes shrunk to their centres select too little: some walk opens a node
// that was not sent, and every rank stops, one naming the node and the ranks.
TEST(DistributedTree, AWalkThatWantsANodeNotSentStopsNamingIt) {
  const auto comm = mpi::Communicator::world();
  mpi::DistributedOptions aggressive;
  aggressive.let_shrink = 0.0;
  aggressive.walk_places_particles = false;  // placed by the assembly
  mpi::DistributedTree<double> dist(config(bh::Opening::geometric, 1), comm, aggressive);
  mpi::RankParticles<double> s = dealt(input<double>("hernquist", 3000), comm);
  testing::expect_missing_node_named(dist, s, comm);
  // The walk that places the particles itself: the host places them before
  // it searches for the node.
  aggressive.walk_places_particles = true;
  const auto cfg = config(bh::Opening::geometric, 1);
  mpi::DistributedTree<double> placing(cfg, comm, aggressive, std::make_shared<PlacingWalk<double>>(cfg));
  mpi::RankParticles<double> t = dealt(input<double>("hernquist", 3000), comm);
  testing::expect_missing_node_named(placing, t, comm);
}

// Between two solves every particle moves (a drift by a fixed velocity
// field): the second solve migrates them to their new domains, ids kept,
// and is still one process's on the moved particles.
TEST(DistributedTree, ParticlesThatCrossDomainsMigrateWithTheirIds) {
  const auto comm = mpi::Communicator::world();
  using Real = double;
  Particles<Real> p = input<Real>("collision", 2000);
  const auto cfg = config(bh::Opening::geometric, 1);
  mpi::DistributedTree<Real> dist(cfg, comm);
  mpi::RankParticles<Real> s = dealt(p, comm);
  gravity::SolveOptions o;
  o.per_target_counts = true;
  dist.solve(s, o);
  const auto drift = [](Real& x, Real v) { x = x + Real(2) * v; };
  for (std::int64_t k = 0; k < s.size(); ++k) {
    drift(s.p.x[k], s.p.vx[k]), drift(s.p.y[k], s.p.vy[k]), drift(s.p.z[k], s.p.vz[k]);
  }
  for (std::int64_t i = 0; i < p.size(); ++i) drift(p.x[i], p.vx[i]), drift(p.y[i], p.vy[i]), drift(p.z[i], p.vz[i]);
  std::vector<std::uint64_t> held = {static_cast<std::uint64_t>(s.size())};
  const SolverReport got = dist.solve(s, o);
  gravity::TreeSolver<Real> one(cfg);
  Accelerations<Real> want(static_cast<std::size_t>(p.size()));
  const SolverReport want_report = one.solve(p.sources(), want.view(true), o);
  expect_one_process(s, got, want, want_report, one, dist, "after a drift");
  // Every particle is held once, by some rank (ids checked above: the IC's, i + 1).
  std::vector<std::uint64_t> seen(static_cast<std::size_t>(p.size()), 0);
  for (const auto i : s.index) ++seen[i];
  comm.sum(seen);
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](std::uint64_t c) { return c == 1; }));
}

// The domains' starts among a rank's sorted keys are where owner_of changes,
// for the balanced cuts and for cuts with empty and uneven domains.
TEST(DomainStarts, AreWhereOwnerOfChanges) {
  const auto comm = mpi::Communicator::world();
  const int ranks = comm.size();
  mpi::RankParticles<double> s = dealt(input<double>("hernquist", 6000), comm);
  const bh::Cube cube{-600, -600, -600, 1200};
  std::vector<std::uint64_t> keys;
  mpi::ByteBuffer scratch;
  std::vector<double> spare;
  mpi::sort_by_key_in_place(s, cube, keys, scratch, spare);
  const mpi::TopTree top = mpi::build_top_tree(keys, mpi::top_bucket(6000, ranks, 16), comm);
  const auto leaves = static_cast<std::int64_t>(top.leaves.size());
  std::vector<std::int64_t> uneven(static_cast<std::size_t>(ranks) + 1);
  for (int r = 0; r <= ranks; ++r) uneven[r] = leaves * r * r / (ranks * ranks);
  for (const auto& cuts : {mpi::domain_cuts(top, std::vector<std::uint64_t>(top.leaves.size(), 0), ranks), uneven}) {
    const std::vector<std::int64_t> starts = mpi::domain_starts(top, cuts, keys);
    ASSERT_EQ(starts.size(), static_cast<std::size_t>(ranks) + 1);
    EXPECT_EQ(starts.front(), 0);
    EXPECT_EQ(starts.back(), s.size());
    for (int r = 0; r < ranks; ++r)
      for (std::int64_t k = starts[r]; k < starts[r + 1]; ++k) ASSERT_EQ(mpi::owner_of(top, cuts, keys[k]), r) << k;
  }
}

// migrate on its own, each rank's sorted particles sent as ranges: spread
// over every rank (most arrive from elsewhere: all sorted again), the first
// one in 37 of each rank but rank 0's sent to the rank before (a few
// arrivals merged into the particles that stayed), and all staying (returned
// as they are): every particle arrives once with every field, its key
// computed or kept, and each rank holds its particles in (key, index) order;
// starts that are not K + 1 rising ranges over the particles are refused.
TEST(Migrate, EveryParticleArrivesOnceInOrderWithItsFields) {
  const auto comm = mpi::Communicator::world();
  const int ranks = comm.size(), rank = comm.rank();
  const Particles<double> p = input<double>("collision", 5000);
  const bh::Cube cube{-40, -40, -40, 80};
  const auto sorted_share = [&](mpi::RankParticles<double>& s, std::vector<std::uint64_t>& keys) {
    s = dealt(p, comm);
    mpi::ByteBuffer scratch;
    std::vector<double> spare;
    mpi::sort_by_key_in_place(s, cube, keys, scratch, spare);
  };
  for (const std::string how : {"spread", "few leave", "all stay"}) {
    mpi::RankParticles<double> s;
    std::vector<std::uint64_t> keys;
    sorted_share(s, keys);
    const std::int64_t n = s.size();
    std::vector<std::int64_t> starts(static_cast<std::size_t>(ranks) + 1, n);
    for (int r = 0; r < ranks; ++r)
      starts[r] = how == "spread"      ? n * r / ranks
                  : how == "few leave" ? (r < rank ? 0 : r == rank ? (rank > 0 ? n / 37 : 0) : n)
                                       : (r <= rank ? 0 : n);
    const std::int64_t kept = starts[rank + 1] - starts[rank];
    mpi::ByteBuffer received;
    const mpi::RankParticles<double> got = mpi::migrate(std::move(s), keys, starts, cube, comm, received);
    ASSERT_EQ(keys.size(), static_cast<std::size_t>(got.size())) << how;
    if (how == "all stay") {
      EXPECT_EQ(got.size(), kept);
    }
    std::vector<std::uint64_t> seen(static_cast<std::size_t>(p.size()), 0);
    for (std::int64_t k = 0; k < got.size(); ++k) {
      const std::uint64_t i = got.index[k];
      ++seen[i];
      EXPECT_EQ(keys[k], bh::position_key(got.p.x[k], got.p.y[k], got.p.z[k], cube)) << k;
      EXPECT_TRUE(same(got.p.x[k], p.x[i]) && same(got.p.vy[k], p.vy[i]) && same(got.p.mass[k], p.mass[i]) &&
                  got.p.id[k] == p.id[i])
          << how << ": particle " << i << " on rank " << rank;
      if (k > 0) {
        EXPECT_TRUE(keys[k - 1] < keys[k] || (keys[k - 1] == keys[k] && got.index[k - 1] < i)) << how << ": " << k;
      }
    }
    comm.sum(seen);
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](std::uint64_t c) { return c == 1; })) << how;
  }
  // Refused on every rank alike, before any message.
  mpi::RankParticles<double> s;
  std::vector<std::uint64_t> keys;
  sorted_share(s, keys);
  const std::vector<std::int64_t> short_of_one(static_cast<std::size_t>(ranks) + 1, 0);
  mpi::ByteBuffer received;
  EXPECT_THROW(mpi::migrate(std::move(s), keys, short_of_one, cube, comm, received), RuntimeFailure);
}

// The bytes each part of a solve moved (the benchmark's counts): what the
// ranks sent is what they received, part by part; a rank received local
// essential trees (more than the all-to-all's sizes) exactly when it holds
// nodes of another rank; one rank moves nothing.
TEST(DistributedTree, TheBytesTheRanksSentAreTheBytesTheyReceived) {
  const auto comm = mpi::Communicator::world();
  mpi::DistributedTree<float> dist(config(bh::Opening::relative, 2), comm);
  mpi::RankParticles<float> s = dealt(input<float>("hernquist", 3000), comm);
  dist.solve(s);  // the relative opening's bootstrap: two evaluations
  const std::vector<mpi::PartTraffic>& parts = dist.last_traffic();
  std::vector<std::string> names;
  std::vector<std::uint64_t> bytes;
  for (const auto& p : parts) {
    names.push_back(p.part);
    bytes.push_back(static_cast<std::uint64_t>(p.bytes.sent));
    bytes.push_back(static_cast<std::uint64_t>(p.bytes.received));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"decomposition", "migration", "tree", "domains", "let", "walk", "domains",
                                             "let", "walk", "totals"}));
  const auto& origin = dist.last_tree().origin;
  const bool holds_others = std::any_of(origin.begin(), origin.end(), [&](int r) { return r != comm.rank(); });
  const std::int64_t counts = 4 * (comm.size() - 1);  // the all-to-all's message sizes
  EXPECT_EQ(parts[7].bytes.received > counts, holds_others);
  std::vector<std::uint64_t> all = bytes;
  comm.sum(all);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    EXPECT_EQ(all[2 * i], all[2 * i + 1]) << parts[i].part;
    if (comm.size() == 1) EXPECT_EQ(bytes[2 * i] + bytes[2 * i + 1], 0u) << parts[i].part;
    else EXPECT_GT(bytes[2 * i + 1], 0u) << parts[i].part;
  }
}

// A subset solve (block steps' substeps, active_only): every particle a
// source, a random tenth walked as targets, after an evaluation whose
// accelerations the relative opening reads. Each target gets one process's
// TreeSolver subset solve (gravity::TargetSet, the floor from every
// particle's |a_old|) bit for bit, counters too; the others keep their
// results; the local essential trees, chosen for the targets' boxes alone,
// are smaller than a whole solve's (K > 1).
template <class Real>
void expect_subset_bits(const std::string& which, std::int64_t n, bh::Opening opening, int multipole) {
  const auto comm = mpi::Communicator::world();
  const std::string what = which + "/subset/opening " + std::to_string(int(opening)) + "/K " + std::to_string(comm.size());
  const Particles<Real> p = input<Real>(which, n);
  const auto cfg = config(opening, multipole);
  gravity::TreeSolver<Real> one(cfg);
  Accelerations<Real> all(static_cast<std::size_t>(n));
  gravity::SolveOptions o;
  o.per_target_counts = true;
  one.solve(p.sources(), all.view(true), o);
  mpi::DistributedTree<Real> dist(cfg, comm);
  mpi::RankParticles<Real> s = dealt(p, comm);
  dist.solve(s, o);
  const auto let_bytes = [&] {
    std::int64_t b = 0;
    for (const auto& t : dist.last_traffic()) b += t.part == "let" ? t.bytes.sent : 0;
    return b;
  };
  const std::int64_t whole_let = let_bytes();

  std::vector<std::int64_t> chosen = testing::random_subset(n, n / 10, 11);
  std::sort(chosen.begin(), chosen.end());
  std::vector<std::int64_t> place(static_cast<std::size_t>(n), -1);  // index -> target number
  for (std::size_t j = 0; j < chosen.size(); ++j) place[chosen[j]] = static_cast<std::int64_t>(j);
  double largest = 0;
  for (std::int64_t i = 0; i < n; ++i) largest = std::max(largest, bh::acceleration_magnitude(all.ax[i], all.ay[i], all.az[i]));
  const auto m = static_cast<std::int64_t>(chosen.size());
  Accelerations<Real> want(static_cast<std::size_t>(m));
  for (std::int64_t j = 0; j < m; ++j)
    want.ax[j] = all.ax[chosen[j]], want.ay[j] = all.ay[chosen[j]], want.az[j] = all.az[chosen[j]];
  gravity::SolveOptions subset = o;
  subset.previous_accelerations = true;
  gravity::SolveOptions one_subset = subset;
  one_subset.largest_previous_acceleration = largest;
  const SolverReport want_report =
      one.solve(p.sources(), gravity::TargetSet<Real>::of_sources(m, chosen.data()), want.view(true), one_subset);

  for (std::int64_t k = 0; k < s.size(); ++k) s.active[k] = place[s.index[k]] >= 0 ? 1 : 0;
  const mpi::RankParticles<Real> before = mpi::gathered_in_index_order(s, comm);
  const SolverReport got = dist.solve(s, subset, false, true);
  EXPECT_EQ(got.total, want_report.total) << what;
  std::int64_t wrong = 0, kept = 0, j = 0;
  for (std::int64_t k = 0; k < s.size(); ++k) {
    const auto i = static_cast<std::size_t>(s.index[k]);
    if (place[i] < 0) {
      kept += same(s.a.ax[k], before.a.ax[i]) && same(s.a.ay[k], before.a.ay[i]) && same(s.a.az[k], before.a.az[i]) &&
              same(s.a.potential[k], before.a.potential[i]);
      continue;
    }
    const auto t = static_cast<std::size_t>(place[i]);
    wrong += !(same(s.a.ax[k], want.ax[t]) && same(s.a.ay[k], want.ay[t]) && same(s.a.az[k], want.az[t]) &&
               same(s.a.potential[k], want.potential[t]) && got.per_target[j++] == want_report.per_target[t]);
  }
  EXPECT_EQ(wrong, 0) << what << ": targets without one process's subset-solve bits";
  std::vector<std::uint64_t> counts = {static_cast<std::uint64_t>(s.size() - j), static_cast<std::uint64_t>(kept)};
  comm.sum(counts);
  EXPECT_EQ(counts[0], static_cast<std::uint64_t>(n - m)) << what;
  EXPECT_EQ(counts[1], counts[0]) << what << ": particles that were not targets lost their results";
  std::vector<std::uint64_t> bytes = {static_cast<std::uint64_t>(let_bytes()), static_cast<std::uint64_t>(whole_let)};
  comm.sum(bytes);
  if (comm.size() > 1) {
    EXPECT_LT(bytes[0], bytes[1]) << what << ": the subset's local essential trees are no smaller";
  }
}

TEST(DistributedTree, ASubsetSolveIsOneProcesssSubsetSolveBitForBit) {
  expect_subset_bits<double>("hernquist", 3000, bh::Opening::relative, 2);
  expect_subset_bits<float>("collision", 3000, bh::Opening::geometric, 1);
}

/// Whether two vectors hold the same bytes.
template <class T>
bool same_bytes(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

/// What a rank ends a run with: its particles (every field, in their order),
/// the counters, and the solver (its walk's tree).
template <class Real>
struct RankRun {
  mpi::RankParticles<Real> s;
  SolverReport report;
  std::unique_ptr<mpi::DistributedTree<Real>> dist;
};


/// Two solves of n particles with `threads` OpenMP threads per rank, a drift
/// between them (so that the second sorts particles out of order and
/// migrates some to other ranks).
template <class Real>
RankRun<Real> two_solves(const Particles<Real>& p, const bh::TreeSolverConfig& cfg, int threads,
                         const mpi::DistributedOptions& options = {}) {
  const auto comm = mpi::Communicator::world();
  const int before = omp_get_max_threads();
  omp_set_num_threads(threads);
  RankRun<Real> run{dealt(p, comm), {}, std::make_unique<mpi::DistributedTree<Real>>(cfg, comm, options)};
  gravity::SolveOptions o;
  o.per_target_counts = true;
  run.dist->solve(run.s, o);
  for (std::int64_t k = 0; k < run.s.size(); ++k)
    drift_half(run.s.p.x[k], run.s.p.vx[k]), drift_half(run.s.p.y[k], run.s.p.vy[k]),
        drift_half(run.s.p.z[k], run.s.p.vz[k]);
  o.previous_accelerations = true;
  run.report = run.dist->solve(run.s, o);
  omp_set_num_threads(before);
  return run;
}

// The parts of a solve around the walk (keys, sorts, migration, the local
// trees, the local essential trees' assembly) run on the rank's threads
// above some thousands of particles; every particle's bits and place, every
// counter and every node the rank holds are the same on 1, 2 and 3 threads,
// and (on 3) one process's. N = 100000: more than 16384 per rank at K = 5,
// where the loops go parallel. On 3 threads also with the held particles
// placed by the assembly (walk_places_particles off; by default they are
// left where they lie and placed after it, the nodes' searches over the
// held keys in runs).
TEST(DistributedTree, AnyThreadCountGivesTheSameBits) {
  for (const auto& [opening, multipole] : {std::pair{bh::Opening::geometric, 1}, std::pair{bh::Opening::relative, 2}}) {
    using Real = float;
    const Particles<Real> p = input<Real>("collision", 100000);
    const auto cfg = config(opening, multipole);
    const RankRun<Real> one = two_solves(p, cfg, 1);
    mpi::DistributedOptions placed;
    placed.walk_places_particles = false;
    for (const int threads : {2, 3, -3}) {
      const RankRun<Real> many = two_solves(p, cfg, std::abs(threads), threads < 0 ? placed : mpi::DistributedOptions{});
      const std::string what = "opening " + std::to_string(int(opening)) + ", " + std::to_string(std::abs(threads)) +
                               " threads" + (threads < 0 ? ", the particles placed by the assembly" : "");
      int field = 0;
      mpi::for_each_field(
          [&](const auto& a, const auto& b) { EXPECT_TRUE(same_bytes(a, b)) << what << ": particle field " << field++; },
          one.s, many.s);
      EXPECT_EQ(one.report.total, many.report.total) << what;
      EXPECT_EQ(one.report.per_target, many.report.per_target) << what;
      const mpi::AssembledTree<Real>&ta = one.dist->last_tree(), &tb = many.dist->last_tree();
      const bh::Octree<Real>&a = ta.tree, &b = tb.tree;
      EXPECT_TRUE(same_bytes(a.key, b.key) && same_bytes(a.level, b.level) && same_bytes(a.next, b.next) &&
                  same_bytes(a.first, b.first) && same_bytes(a.count, b.count))
          << what << ": the walk's tree's topology";
      EXPECT_TRUE(same_bytes(a.mass, b.mass) && same_bytes(a.com_x, b.com_x) && same_bytes(a.crit2, b.crit2) &&
                  same_bytes(a.crit_rel, b.crit_rel) && same_bytes(a.quad, b.quad))
          << what << ": the walk's tree's moments";
      EXPECT_TRUE(same_bytes(a.x, b.x) && same_bytes(a.m, b.m) && same_bytes(ta.own, tb.own) &&
                  same_bytes(ta.origin, tb.origin))
          << what << ": the walk's tree's particles";
      if (threads != 3) continue;
      Particles<Real> q = p;
      gravity::TreeSolver<Real> single(cfg);
      Accelerations<Real> want(static_cast<std::size_t>(q.size()));
      gravity::SolveOptions o;
      o.per_target_counts = true;
      single.solve(q.sources(), want.view(true), o);
      for (std::int64_t i = 0; i < q.size(); ++i)
        drift_half(q.x[i], q.vx[i]), drift_half(q.y[i], q.vy[i]), drift_half(q.z[i], q.vz[i]);
      o.previous_accelerations = true;
      const SolverReport want_report = single.solve(q.sources(), want.view(true), o);
      expect_one_process(many.s, many.report, want, want_report, single, *many.dist, what);
    }
  }
}

}  // namespace
}  // namespace orrery
