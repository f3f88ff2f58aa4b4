#include "orrery/gravity/tree_solver.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

#include "orrery/core/error.hpp"
#include "orrery/bh/octree_build.hpp"
#include "orrery/bh/walk.hpp"
#include "orrery/bh/walk_all.hpp"

namespace orrery::gravity {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// scale[i] = bh::relative_scale of the acceleration at from[i] (the
/// caller's order) or at i (from null: sorted order), floored at
/// bh::kRelativeFloor times the largest magnitude: the bits the GPU
/// solver computes (tree_gpu_solver.cu).
template <class Real>
void relative_scales(std::int64_t n, const std::int32_t* from, const Real* ax, const Real* ay, const Real* az,
                     Real* scale) {
  // An exact maximum, whatever the order and the threads; a NaN never wins.
  double largest = 0.0;
#pragma omp parallel for schedule(static) reduction(max : largest)
  for (std::int64_t i = 0; i < n; ++i) {
    const double a = bh::acceleration_magnitude(ax[i], ay[i], az[i]);
    largest = a > largest ? a : largest;
  }
  const double floor = bh::relative_floor(largest);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t j = from != nullptr ? from[i] : i;
    scale[i] = bh::relative_scale(ax[j], ay[j], az[j], floor);
  }
}

}  // namespace

bh::TreeSolverConfig tree_solver_config(const GravityConfig& g) {
  bh::TreeSolverConfig c;
  c.tree.theta = g.theta;
  c.tree.leaf_capacity = g.leaf_capacity;
  c.tree.multipole = g.multipole_order >= 2 ? bh::Multipole::quadrupole : bh::Multipole::monopole;
  c.tree.opening = g.opening;
  c.tree.tolerance = g.tolerance;
  c.softening = g.softening;
  c.softening_kind = g.softening_kernel;
  c.math = g.math;
  return c;
}

template <class Real>
TreeSolver<Real>::TreeSolver(const bh::TreeSolverConfig& config) : config_(config) {
  validated_softening(config.softening);
}

template <class Real>
std::string TreeSolver<Real>::name() const {
  return std::string("tree/cpu/") + std::string(to_string(config_.tree.multipole));
}

template <class Real>
SolverReport TreeSolver<Real>::solve(const SourcesView<Real>& s, const AccelerationsView<Real>& out,
                                              const SolveOptions& options) {
  if (out.count != s.count)
    throw InputError("accelerations hold " + std::to_string(out.count) + " entries for " + std::to_string(s.count) +
                     " sources; they must be equal");
  SolverReport report;
  tree_ = bh::build_octree(s, config_.tree, &report);
  const std::int64_t n = s.count;
  std::vector<Real> ax(n), ay(n), az(n), pot(options.potential ? n : 0);
  std::vector<InteractionCounts> counts(n);
  // The relative opening's scales, in sorted order (see the class comment).
  std::vector<Real> scale;
  if (config_.tree.opening == bh::Opening::relative) {
    scale.resize(n);
    if (options.previous_accelerations) {
      const auto ts = std::chrono::steady_clock::now();
      relative_scales(n, tree_.order.data(), out.ax, out.ay, out.az, scale.data());
      report.add_phase("relative scales", seconds_since(ts));
    } else {
      const auto tb = std::chrono::steady_clock::now();
      bh::walk_all(tree_, config_, false, ax.data(), ay.data(), az.data(), static_cast<Real*>(nullptr), counts.data());
      relative_scales<Real>(n, nullptr, ax.data(), ay.data(), az.data(), scale.data());
      report.add_phase("bootstrap walk", seconds_since(tb));
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  bh::walk_all(tree_, config_, options.potential, ax.data(), ay.data(), az.data(), pot.data(), counts.data(),
           scale.empty() ? nullptr : scale.data());
  const auto t1 = std::chrono::steady_clock::now();
  report.add_phase("walk", std::chrono::duration<double>(t1 - t0).count());
  if (options.per_target_counts) report.per_target.resize(n);
  InteractionCounts total;
  for (std::int64_t i = 0; i < n; ++i) total += counts[i];
  report.total = total;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int32_t o = tree_.order[i];
    out.ax[o] = ax[i];
    out.ay[o] = ay[i];
    out.az[o] = az[i];
    if (options.potential && out.potential) out.potential[o] = pot[i];
    if (options.per_target_counts) report.per_target[o] = counts[i];
  }
  report.add_phase("scatter", seconds_since(t1));
  return report;
}

template class TreeSolver<float>;
template class TreeSolver<double>;

}  // namespace orrery::gravity
