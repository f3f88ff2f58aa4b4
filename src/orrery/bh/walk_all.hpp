#pragma once
// The CPU walk of every target of a built tree (groups of group_walk.hpp over
// the OpenMP threads; the templates are in walk_all_impl.hpp).
#include "orrery/bh/octree.hpp"
#include "orrery/bh/tree_config.hpp"
#include "orrery/bh/walk_targets.hpp"
#include "orrery/core/solver_report.hpp"

namespace orrery::bh {

/// Walks `targets` (walk_targets.hpp) in the tree: results, counters and
/// scales are [targets.count], in the targets' order. Each target's result
/// is bit-identical to the one it gets as one of every source. scale as
/// walk_all's. The cost is that of the targets' walks (and one copy of the
/// node records).
template <class Real>
void walk_targets(const Octree<Real>& tree, const WalkTargets<Real>& targets, const TreeSolverConfig& config,
                  bool potential, Real* ax, Real* ay, Real* az, Real* pot, InteractionCounts* per_target,
                  const Real* scale = nullptr);

/// Walks every source of a built tree as a target; results in sorted order. Exposed for
/// tests and benchmarks that time the walk alone. scale: [num_particles],
/// sorted order, the targets' relative_scale, read only when the tree has
/// the relative opening; null there means every scale 0 (the geometric walk
/// at theta, as walk_target's default scale).
template <class Real>
void walk_all(const Octree<Real>& tree, const TreeSolverConfig& config, bool potential, Real* ax, Real* ay,
              Real* az, Real* pot, InteractionCounts* per_target, const Real* scale = nullptr);

}  // namespace orrery::bh
