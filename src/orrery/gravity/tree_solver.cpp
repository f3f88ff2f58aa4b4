#include "orrery/gravity/tree_solver.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <chrono>
#include <memory>
#include <vector>

#include "orrery/core/error.hpp"
#include "orrery/bh/leaf_order.hpp"
#include "orrery/bh/octree_build.hpp"
#include "orrery/bh/walk.hpp"
#include "orrery/bh/walk_all.hpp"
#include "orrery/bh/walk_per_type.hpp"
#include "orrery/gravity/solve_arguments.hpp"

namespace orrery::gravity {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// The largest |a| of n accelerations (bh::acceleration_magnitude): an exact
/// maximum, whatever the order and the threads; a NaN never wins.
template <class Real>
double largest_magnitude(std::int64_t n, const Real* ax, const Real* ay, const Real* az) {
  double largest = 0.0;
#pragma omp parallel for schedule(static) reduction(max : largest)
  for (std::int64_t i = 0; i < n; ++i) {
    const double a = bh::acceleration_magnitude(ax[i], ay[i], az[i]);
    largest = a > largest ? a : largest;
  }
  return largest;
}

/// scale[w] = bh::relative_scale of the acceleration at from[w] (or at w
/// when from is null), floored at bh::kRelativeFloor times `largest`: the
/// bits the GPU solver computes (tree_gpu_solver.cu).
template <class Real>
void relative_scales(std::int64_t n, const std::int32_t* from, const Real* ax, const Real* ay, const Real* az,
                     double largest, Real* scale) {
  const double floor = bh::relative_floor(largest);
#pragma omp parallel for schedule(static)
  for (std::int64_t w = 0; w < n; ++w) {
    const std::int64_t j = from != nullptr ? from[w] : w;
    scale[w] = bh::relative_scale(ax[j], ay[j], az[j], floor);
  }
}

/// The walk order of a subset of the sources: the targets' sorted source
/// indices ascending (the tree's key order, so a group's walks are alike)
/// in `source` and, for each, its place in the caller's target list in
/// `place`. `rank` and `slot` are scratch of at least order.size() entries
/// after the call; `slot` must be -1 everywhere on entry and is again on
/// return, also when it throws InputError (for an index out of range or
/// listed twice): resetting only what was set keeps a small subset's cost
/// off the O(N) fill.
void subset_order(std::int64_t count, const std::int64_t* index, const std::vector<std::int32_t>& order,
                  std::vector<std::int32_t>& rank, std::vector<std::int32_t>& slot, std::vector<std::int32_t>& source,
                  std::vector<std::int32_t>& place) {
  const auto n = static_cast<std::int64_t>(order.size());
  if (rank.size() < order.size()) rank.resize(order.size());
  if (slot.size() < order.size()) slot.resize(order.size(), -1);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) rank[order[i]] = static_cast<std::int32_t>(i);
  const auto unset = [&](std::int64_t listed) {
    for (std::int64_t k = 0; k < listed; ++k) slot[rank[index[k]]] = -1;
  };
  for (std::int64_t k = 0; k < count; ++k) {
    const std::int64_t j = index[k];
    if (j < 0 || j >= n) {
      unset(k);
      throw InputError(target_out_of_range(k, j, n));
    }
    std::int32_t& s = slot[rank[j]];
    if (s >= 0) {
      unset(k);
      throw InputError(target_listed_twice(j, k));
    }
    s = static_cast<std::int32_t>(k);
  }
  source.clear();
  place.clear();
  for (std::int64_t i = 0; i < n; ++i) {
    if (slot[i] < 0) continue;
    source.push_back(static_cast<std::int32_t>(i));
    place.push_back(slot[i]);
    slot[i] = -1;
  }
}

}  // namespace

bh::TreeSolverConfig tree_solver_config(const GravityConfig& g) {
  bh::TreeSolverConfig c;
  c.tree.theta = g.theta;
  c.tree.leaf_capacity = g.leaf_capacity;
  c.tree.multipole = tree_multipole(g.multipole_order);
  c.tree.opening = g.opening;
  c.tree.tolerance = g.tolerance;
  c.tree.relative_cap = g.relative_cap;
  c.tree.group_opening = g.group_opening;
  c.tree.list_walk = g.list_walk;
  c.softening = g.softening;
  c.softening_kind = g.softening_kernel;
  c.math = g.math;
  if (g.per_type_softening()) c.per_type = g.softening_classes();
  return c;
}

template <class Real>
TreeSolver<Real>::TreeSolver(const bh::TreeSolverConfig& config) : config_(config) {
  validated_softening(config.softening);
  if (config_.per_type && config_.per_type->uniform()) config_.per_type.reset();  // the one-softening walk
  if (config_.per_type) validated_softening_classes(*config_.per_type);
  if (config_.per_type && config_.tree.group_opening != 0)
    throw InputError("gravity.group_opening = " + std::to_string(config_.tree.group_opening) +
                     " is not supported with a softening per particle type; accepted with one: group_opening = 0");
  if (config_.per_type && config_.tree.list_walk)
    throw InputError("gravity.list_walk = true is not supported with a softening per particle type; accepted with "
                     "one: list_walk = false");
}

template <class Real>
std::string TreeSolver<Real>::name() const {
  return std::string("tree/cpu/") + std::string(to_string(config_.tree.multipole));
}

template <class Real>
SolverReport TreeSolver<Real>::solve(const SourcesView<Real>& s, const AccelerationsView<Real>& out,
                                     const SolveOptions& options) {
  return solve(s, TargetSet<Real>{}, out, options);
}

template <class Real>
SolverReport TreeSolver<Real>::solve(const SourcesView<Real>& s, const TargetSet<Real>& targets,
                                     const AccelerationsView<Real>& out, const SolveOptions& options) {
  const std::int64_t n = targets.all() ? s.count : targets.count;
  if (out.count != n)
    throw InputError("accelerations hold " + std::to_string(out.count) + " entries for " + std::to_string(n) +
                     (targets.all() ? " sources" : " targets") + "; they must be equal");
  if (!targets.all() && targets.index == nullptr && (targets.y == nullptr || targets.z == nullptr))
    throw InputError("target points need x, y and z; accepted: three arrays of targets.count positions");
  SolverReport report;
  tree_ = bh::build_octree(s, config_.tree, &report, options.cube ? &*options.cube : nullptr);
  // The walk's targets and where each one's results go (the caller's index
  // in `out`): every source in key order, a subset in key order, or the
  // points in the order given.
  Scratch& w = scratch_;
  bh::WalkTargets<Real> walk = bh::every_source(tree_.view());
  const std::int32_t* place = tree_.order.data();
  if (targets.index != nullptr) {
    subset_order(targets.count, targets.index, tree_.order, w.rank, w.slot, w.source, w.place);
    walk = {static_cast<std::int32_t>(n), w.source.data()};
    place = w.place.data();
  } else if (targets.x != nullptr) {
    check_target_points(targets);
    walk = {static_cast<std::int32_t>(n), nullptr, targets.x, targets.y, targets.z};
    place = nullptr;
  } else if (config_.tree.list_walk) {
    // The list walk's groups: every source in the Hilbert order of its leaf
    // (docs/adr/0019), as the GPU solver walks them.
    w.source = bh::hilbert_leaf_order(tree_.view());
    w.place.resize(w.source.size());
    for (std::size_t k = 0; k < w.source.size(); ++k) w.place[k] = tree_.order[w.source[k]];
    walk = {static_cast<std::int32_t>(n), w.source.data()};
    place = w.place.data();
  }
  const auto size = static_cast<std::size_t>(n);
  for (auto* v : {&w.ax, &w.ay, &w.az}) {
    if (v->size() < size) v->resize(size);
  }
  if (options.potential && w.pot.size() < size) w.pot.resize(size);
  if (w.counts.size() < size) w.counts.resize(size);
  Real *ax = w.ax.data(), *ay = w.ay.data(), *az = w.az.data(), *pot = options.potential ? w.pot.data() : nullptr;
  InteractionCounts* counts = w.counts.data();
  // The walk of a set of targets: with one softening, or with a softening
  // per type (bh/walk_per_type.hpp), chosen once per solve.
  const std::vector<std::uint8_t> source_class =
      config_.per_type ? config_.per_type->of_sources(s.count, name()) : std::vector<std::uint8_t>{};
  const auto walk_set = [&](const bh::WalkTargets<Real>& w, bool potential, Real* wx, Real* wy, Real* wz, Real* wp,
                            InteractionCounts* wc, const Real* ws) {
    if (config_.per_type)
      bh::walk_targets_per_type(tree_, w, config_, source_class.data(), potential, wx, wy, wz, wp, wc, ws);
    else
      bh::walk_targets(tree_, w, config_, potential, wx, wy, wz, wp, wc, ws);
  };
  // The relative opening's scales, in walk order (see the class comment).
  const bool relative = config_.tree.opening == bh::Opening::relative;
  Real* scale = nullptr;
  if (relative) {
    if (w.scale.size() < size) w.scale.resize(size);
    scale = w.scale.data();
    const double given = options.largest_previous_acceleration;
    if (options.previous_accelerations) {
      const auto ts = std::chrono::steady_clock::now();
      const double largest = given >= 0 ? given : largest_magnitude(n, out.ax, out.ay, out.az);
      relative_scales(n, place, out.ax, out.ay, out.az, largest, scale);
      report.add_phase("relative scales", seconds_since(ts));
    } else {
      // The bootstrap: the geometric walk at theta supplies a_old. For a
      // subset, of every source, so that the floor (the largest |a_old|) is
      // the whole set's.
      const auto tb = std::chrono::steady_clock::now();
      const bool points = walk.x != nullptr;
      const std::int64_t m = points ? n : s.count;
      std::vector<Real> bx(m), by(m), bz(m);
      std::vector<InteractionCounts> bc(m);
      if (targets.all() && walk.source != nullptr) {
        // Every source in the list walk's order: its groups, as the GPU
        // solver's bootstrap walks them; the results back in sorted order.
        std::vector<Real> wx(m), wy(m), wz(m);
        walk_set(walk, false, wx.data(), wy.data(), wz.data(), nullptr, bc.data(), nullptr);
        for (std::int64_t k = 0; k < m; ++k) bx[walk.source[k]] = wx[k], by[walk.source[k]] = wy[k], bz[walk.source[k]] = wz[k];
      } else {
        walk_set(points ? walk : bh::every_source(tree_.view()), false, bx.data(), by.data(), bz.data(), nullptr,
                 bc.data(), nullptr);
      }
      const double largest = given >= 0 ? given : largest_magnitude(m, bx.data(), by.data(), bz.data());
      relative_scales(n, points ? nullptr : walk.source, bx.data(), by.data(), bz.data(), largest, scale);
      report.add_phase("bootstrap walk", seconds_since(tb));
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  walk_set(walk, options.potential, ax, ay, az, pot, counts, scale);
  const auto t1 = std::chrono::steady_clock::now();
  report.add_phase("walk", std::chrono::duration<double>(t1 - t0).count());
  if (options.per_target_counts) report.per_target.resize(n);
  InteractionCounts total;
  for (std::int64_t i = 0; i < n; ++i) total += counts[i];
  report.total = total;
#pragma omp parallel for schedule(static)
  for (std::int64_t w = 0; w < n; ++w) {
    const std::int64_t o = place != nullptr ? place[w] : w;
    out.ax[o] = ax[w];
    out.ay[o] = ay[w];
    out.az[o] = az[w];
    if (options.potential && out.potential) out.potential[o] = pot[w];
    if (options.per_target_counts) report.per_target[o] = counts[w];
  }
  report.add_phase("scatter", seconds_since(t1));
  return report;
}

template class TreeSolver<float>;
template class TreeSolver<double>;

}  // namespace orrery::gravity
