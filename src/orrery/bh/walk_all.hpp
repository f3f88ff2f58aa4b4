#pragma once
// The CPU walk of every target of a built tree (groups of group_walk.hpp over
// the OpenMP threads; the templates are in walk_all_impl.hpp).
#include "orrery/bh/octree.hpp"
#include "orrery/bh/tree_config.hpp"
#include "orrery/core/solver_report.hpp"

namespace orrery::bh {

/// Walks every target of a built tree; results in sorted order. Exposed for
/// tests and benchmarks that time the walk alone. scale: [num_particles],
/// sorted order, the targets' relative_scale, read only when the tree has
/// the relative opening; null there means every scale 0 (the geometric walk
/// at theta, as walk_target's default scale).
template <class Real>
void walk_all(const Octree<Real>& tree, const TreeSolverConfig& config, bool potential, Real* ax, Real* ay,
              Real* az, Real* pot, InteractionCounts* per_target, const Real* scale = nullptr);

}  // namespace orrery::bh
