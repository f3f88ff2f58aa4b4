#pragma once
// The TargetSet contract (gravity/targets.hpp) of the solvers that sum every
// pair (reference, direct; CPU and GPU), checked the same way for each:
//  - random subsets of 0, 1, 7, 1 %, 50 % and 100 % of the sources, in
//    random order: every target's accelerations and potential have the bits
//    of the all-targets solve, and its counters (N - 1 particle-particle
//    interactions) equal it, the totals their sum;
//  - points that are no source: on a source, its accelerations bit for bit
//    (the term of zero separation adds exactly zero) and its potential less
//    the term of that source, -m phi(0); anywhere, N interactions each;
//  - bad sets refused with the messages of targets.hpp.
// `solve` runs the solver under test: solve(targets, out, options), targets
// and out host arrays (a GPU test may route them through device arrays).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "orrery/core/error.hpp"
#include "orrery/core/particles.hpp"
#include "orrery/core/solver_report.hpp"
#include "orrery/gravity/force_solver.hpp"
#include "orrery/gravity/targets.hpp"
#include "support/random_subset.hpp"

namespace orrery::testing {

template <class Real>
using TargetSolve = std::function<SolverReport(const gravity::TargetSet<Real>&, const AccelerationsView<Real>&,
                                               const gravity::SolveOptions&)>;

template <class Real>
bool same_bits(Real a, Real b) {
  return std::memcmp(&a, &b, sizeof(Real)) == 0;
}

/// Output arrays poisoned with NaN, so that an entry left unwritten fails.
template <class Real>
Accelerations<Real> poisoned(std::int64_t n) {
  Accelerations<Real> a(static_cast<std::size_t>(n));
  for (auto* v : {&a.ax, &a.ay, &a.az, &a.potential}) v->assign(v->size(), std::nan(""));
  return a;
}

/// phi_at_zero: the potential one source of unit mass gives at its own
/// position (-1/eps for Plummer softening), for the points placed on sources.
template <class Real>
void expect_all_pairs_targets_contract(const TargetSolve<Real>& solve, const Particles<Real>& p, double phi_at_zero,
                                       const std::string& name) {
  const std::int64_t n = p.size();
  gravity::SolveOptions options;
  options.per_target_counts = true;
  Accelerations<Real> whole = poisoned<Real>(n);
  const SolverReport all = solve(gravity::TargetSet<Real>{}, whole.view(), options);
  ASSERT_EQ(all.per_target.size(), static_cast<std::size_t>(n)) << name;
  for (const std::int64_t k : {std::int64_t(0), std::int64_t(1), std::int64_t(7), n / 100, n / 2, n}) {
    SCOPED_TRACE(name + ", " + std::to_string(k) + " targets");
    const auto idx = random_subset(n, k, 200 + static_cast<std::uint64_t>(k));
    Accelerations<Real> sub = poisoned<Real>(k);
    const SolverReport r = solve(gravity::TargetSet<Real>::of_sources(k, idx.data()), sub.view(), options);
    ASSERT_EQ(r.per_target.size(), static_cast<std::size_t>(k));
    InteractionCounts total;
    for (std::int64_t j = 0; j < k; ++j) {
      const std::int64_t i = idx[j];
      ASSERT_TRUE(same_bits(sub.ax[j], whole.ax[i]) && same_bits(sub.ay[j], whole.ay[i]) &&
                  same_bits(sub.az[j], whole.az[i]) && same_bits(sub.potential[j], whole.potential[i]))
          << "target " << j << " (source " << i << "): ax " << sub.ax[j] << " vs " << whole.ax[i] << ", potential "
          << sub.potential[j] << " vs " << whole.potential[i];
      ASSERT_EQ(r.per_target[j], all.per_target[i]) << "target " << j;
      total += r.per_target[j];
    }
    EXPECT_EQ(r.total, total);
  }
  // Points: 7 on sources, 7 elsewhere (between two sources, so inside the system).
  const auto on = random_subset(n, 7, 300);
  std::vector<Real> x, y, z;
  for (const std::int64_t i : on) {
    x.push_back(p.x[i]);
    y.push_back(p.y[i]);
    z.push_back(p.z[i]);
  }
  for (std::int64_t j = 0; j < 7; ++j) {
    const std::int64_t a = on[j], b = on[(j + 1) % 7];
    x.push_back((p.x[a] + p.x[b]) / 2);
    y.push_back((p.y[a] + p.y[b]) / 2);
    z.push_back((p.z[a] + p.z[b]) / 2);
  }
  const auto m = static_cast<std::int64_t>(x.size());
  Accelerations<Real> at = poisoned<Real>(m);
  const SolverReport rp =
      solve(gravity::TargetSet<Real>::of_points(m, x.data(), y.data(), z.data()), at.view(), options);
  ASSERT_EQ(rp.per_target.size(), static_cast<std::size_t>(m)) << name;
  for (std::int64_t j = 0; j < m; ++j) {
    EXPECT_EQ(rp.per_target[j].particle_interactions, static_cast<std::uint64_t>(n)) << name << ", point " << j;
    EXPECT_TRUE(std::isfinite(at.ax[j]) && std::isfinite(at.ay[j]) && std::isfinite(at.az[j]) &&
                std::isfinite(at.potential[j]))
        << name << ", point " << j;
    if (j >= 7) continue;
    const std::int64_t i = on[j];
    EXPECT_TRUE(same_bits(at.ax[j], whole.ax[i]) && same_bits(at.ay[j], whole.ay[i]) && same_bits(at.az[j], whole.az[i]))
        << name << ", point " << j << " on source " << i << ": ax " << at.ax[j] << " vs " << whole.ax[i];
    const double own = static_cast<double>(p.mass[i]) * phi_at_zero;
    EXPECT_NEAR(at.potential[j], whole.potential[i] + own, 1e-5 * std::abs(whole.potential[i]))
        << name << ", point " << j;
  }
  EXPECT_EQ(rp.total.particle_interactions, static_cast<std::uint64_t>(n * m)) << name;
}

/// Bad target sets are refused with the message every solver gives: a
/// source listed twice, an index past the sources, an output of another
/// size, a point that is not finite. `p` holds 100 particles.
template <class Real>
void expect_bad_target_sets_refused(gravity::ForceSolver<Real>& solver, const Particles<Real>& p) {
  ASSERT_EQ(p.size(), 100);
  const auto message = [&](const gravity::TargetSet<Real>& t, std::int64_t n) {
    Accelerations<Real> a(static_cast<std::size_t>(n));
    try {
      solver.solve(p.sources(), t, a.view());
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  using Set = gravity::TargetSet<Real>;
  const std::vector<std::int64_t> twice{3, 5, 3}, outside{2, 100};
  EXPECT_NE(message(Set::of_sources(3, twice.data()), 3).find("source 3 is listed twice"), std::string::npos);
  EXPECT_NE(message(Set::of_sources(2, outside.data()), 2).find("target 1 names source 100"), std::string::npos);
  EXPECT_NE(message(Set::of_sources(2, outside.data()), 5).find("5 entries for 2 targets"), std::string::npos);
  const Real nan = std::numeric_limits<Real>::quiet_NaN(), zero = 0;
  EXPECT_NE(message(Set::of_points(1, &nan, &zero, &zero), 1).find("target point 0"), std::string::npos);
}

/// The same through a ForceSolver's host TargetSet solve.
template <class Real>
void expect_all_pairs_targets_contract(gravity::ForceSolver<Real>& solver, const Particles<Real>& p,
                                       double phi_at_zero, const std::string& name) {
  const auto sources = p.sources();
  expect_all_pairs_targets_contract<Real>(
      [&](const gravity::TargetSet<Real>& t, const AccelerationsView<Real>& out, const gravity::SolveOptions& o) {
        return solver.solve(sources, t, out, o);
      },
      p, phi_at_zero, name);
}

}  // namespace orrery::testing
