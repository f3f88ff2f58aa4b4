#pragma once
// The bit-identity check of the MPI replicated solver (mpi/replicated_solver.hpp),
// written once for the CPU and GPU tests: on every rank, the gathered result
// of the K-rank solve must equal, bit for bit, the solve of one process
// (the wrapped solver alone, every target) on the same rank, for the
// accelerations, the potentials and every counter (the coherent GPU walk's
// node visits apart: Visits); over two evaluations, the
// second at drifted positions reading the first as its previous one (the
// relative opening's path), for every source, a subset, and points.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "orrery/bh/opening_relative.hpp"
#include "orrery/gravity/force_solver.hpp"
#include "orrery/gravity/gravity_config.hpp"
#include "orrery/io/test_files.hpp"
#include "orrery/mpi/communicator.hpp"
#include "orrery/mpi/replicated_solver.hpp"
#include "support/random_subset.hpp"
#include "support/test_particles.hpp"

namespace orrery::testing {

using io::testing::same_bits;

template <class Real>
using SolverMaker = std::function<std::unique_ptr<gravity::ForceSolver<Real>>()>;

/// The tree configuration of the checks: theta 0.6, leaf capacity 8, the
/// relative opening's tolerance 0.005 (where some cells are decided by each test).
inline gravity::GravityConfig checked_tree(const std::string& backend, bh::Opening opening) {
  gravity::GravityConfig g;
  g.solver = "tree";
  g.backend = backend;
  g.theta = 0.6;
  g.leaf_capacity = 8;
  g.opening = opening;
  g.tolerance = 0.005;
  return g;
}

/// Which node visits a check compares. The coherent GPU walk reports for each
/// target the visits of its group (the lanes that share one node index), so
/// they depend on which targets are walked together, which a split changes;
/// its cell and particle terms, like every other solver's visits, do not.
enum class Visits { exact, of_the_group };

/// Every component of `got` equals `want` picked at `places` (null: all), bit for bit.
template <class Real>
void expect_same(const Accelerations<Real>& got, SolverReport got_report, const Accelerations<Real>& want,
                 SolverReport want_report, const std::vector<std::int64_t>* places, const std::string& what,
                 Visits visits) {
  if (visits == Visits::of_the_group) {
    for (auto* r : {&got_report, &want_report}) {
      for (auto& c : r->per_target) c.node_visits = 0;
      r->total.node_visits = 0;
    }
  }
  Accelerations<Real> picked = want;
  std::vector<InteractionCounts> counts = want_report.per_target;
  if (places) {
    picked = Accelerations<Real>(places->size());
    counts.assign(places->size(), {});
    for (std::size_t k = 0; k < places->size(); ++k) {
      const auto j = static_cast<std::size_t>((*places)[k]);
      picked.ax[k] = want.ax[j], picked.ay[k] = want.ay[j], picked.az[k] = want.az[j];
      picked.potential[k] = want.potential[j];
      counts[k] = want_report.per_target[j];
    }
  }
  EXPECT_TRUE(same_bits(got.ax, picked.ax)) << what << ": ax";
  EXPECT_TRUE(same_bits(got.ay, picked.ay)) << what << ": ay";
  EXPECT_TRUE(same_bits(got.az, picked.az)) << what << ": az";
  EXPECT_TRUE(same_bits(got.potential, picked.potential)) << what << ": potential";
  EXPECT_EQ(got_report.per_target, counts) << what << ": per-target counters";
  if (!places) {
    EXPECT_EQ(got_report.total, want_report.total) << what << ": total counters";
  }
}

template <class Real>
double largest_magnitude(const Accelerations<Real>& a) {
  double m = 0;
  for (std::int64_t i = 0; i < a.size(); ++i) m = std::max(m, bh::acceleration_magnitude(a.ax[i], a.ay[i], a.az[i]));
  return m;
}

/// The whole check for one solver configuration, on `n` Plummer particles.
template <class Real>
void expect_replicated_bits(const SolverMaker<Real>& make, std::int64_t n, const std::string& name,
                            Visits visits = Visits::exact) {
  const auto comm = mpi::Communicator::world();
  Particles<Real> p = plummer<Real>(n, 2026);
  auto one = make();
  mpi::ReplicatedSolver<Real> spread(make(), comm);
  gravity::SolveOptions options;
  options.per_target_counts = true;  // and potentials, the default
  const auto subset = random_subset(n, n * 2 / 5, 7);
  Accelerations<Real> want(static_cast<std::size_t>(n)), got(static_cast<std::size_t>(n));
  Accelerations<Real> got_subset(subset.size());
  for (int evaluation = 0; evaluation < 2; ++evaluation) {
    const std::string what = name + ", K = " + std::to_string(comm.size()) + ", evaluation " + std::to_string(evaluation);
    options.previous_accelerations = evaluation > 0;
    options.largest_previous_acceleration = -1;
    // The subset's previous accelerations and the largest |a| of all: as a caller of a subset solve gives them.
    for (std::size_t k = 0; k < subset.size(); ++k) {
      const auto j = static_cast<std::size_t>(subset[k]);
      got_subset.ax[k] = want.ax[j], got_subset.ay[k] = want.ay[j], got_subset.az[k] = want.az[j];
    }
    const double largest = largest_magnitude(want);
    got = want;
    const SolverReport want_report = one->solve(p.sources(), want.view(true), options);
    const SolverReport got_report = spread.solve(p.sources(), got.view(true), options);
    expect_same(got, got_report, want, want_report, nullptr, what + ", every source", visits);

    gravity::SolveOptions subset_options = options;
    if (evaluation > 0) subset_options.largest_previous_acceleration = largest;
    const auto targets = gravity::TargetSet<Real>::of_sources(static_cast<std::int64_t>(subset.size()), subset.data());
    const auto subset_report = spread.solve(p.sources(), targets, got_subset.view(true), subset_options);
    expect_same(got_subset, subset_report, want, want_report, &subset, what + ", a subset", visits);
    const auto& cuts = spread.last_cuts();
    ASSERT_EQ(cuts.size(), static_cast<std::size_t>(comm.size()) + 1);
    EXPECT_EQ(cuts.back(), static_cast<std::int64_t>(subset.size())) << what;
    // Drift: the next evaluation is at new positions and reads this one's accelerations.
    for (std::int64_t i = 0; i < n; ++i) {
      p.x[i] += static_cast<Real>(0.01) * p.vx[i];
      p.y[i] += static_cast<Real>(0.01) * p.vy[i];
      p.z[i] += static_cast<Real>(0.01) * p.vz[i];
    }
  }
  // Points that are no sources: a few particles' positions, shifted, the
  // second half far outside the sphere, where |a| is small: a rank whose share
  // held only those would see another relative floor than the whole set.
  std::vector<Real> px(64), py(64), pz(64);
  for (std::size_t k = 0; k < px.size(); ++k)
    px[k] = p.x[k] + Real(k < 32 ? 0.01 : 6.0), py[k] = p.y[k], pz[k] = p.z[k];
  const auto points = gravity::TargetSet<Real>::of_points(64, px.data(), py.data(), pz.data());
  Accelerations<Real> want_points(64), got_points(64);
  gravity::SolveOptions plain;
  plain.per_target_counts = true;
  const auto want_report = one->solve(p.sources(), points, want_points.view(true), plain);
  const auto got_report = spread.solve(p.sources(), points, got_points.view(true), plain);
  expect_same(got_points, got_report, want_points, want_report, nullptr, name + ", points", visits);
}

}  // namespace orrery::testing
