#pragma once
// Barnes-Hut on the CPU: builds the octree (octree_build.hpp) and walks it for
// every target in parallel (gravity/walk.hpp). This solver defines the physics
// every other tree backend reproduces: same tree, same terms, same order.
#include <string>

#include "orrery/core/math_mode.hpp"
#include "orrery/core/softening.hpp"
#include "orrery/gravity/force_solver.hpp"
#include "orrery/gravity/gravity_config.hpp"
#include "orrery/tree/octree.hpp"

namespace orrery::tree {

struct TreeSolverConfig {
  TreeParams tree;
  double softening = 0.05;
  SofteningKind softening_kind = SofteningKind::plummer;
  MathMode math = MathMode::fast;
};

/// The tree solver's parameters from a force configuration (gravity.theta,
/// gravity.leaf_capacity, gravity.multipole (multipole_order 1 or 2),
/// gravity.softening, gravity.softening_kernel, gravity.math).
TreeSolverConfig tree_solver_config(const gravity::GravityConfig& config);

/// With TreeParams::opening == Opening::relative (docs/adr/0007) a solve
/// walks the tree with every target's scale gravity::relative_scale(a_old,
/// floor), floor = gravity::kRelativeFloor times the largest |a_old| of all
/// targets (an exact maximum; the GPU solver computes the same bits):
///  - options.previous_accelerations: a_old is what out.ax/ay/az hold on
///    entry (caller's order), read before anything is written to them
///    (report phase "relative scales");
///  - otherwise it bootstraps: a first walk with every scale 0 (the
///    geometric walk at theta, accelerations only) gives a_old, then the
///    relative walk runs (phase "bootstrap walk", the scales included).
/// The result and the report's counters are those of the relative walk
/// alone, bit-identical to gravity::walk_target(..., scale) per target.
/// The geometric opening ignores previous_accelerations.
template <class Real>
class TreeSolver final : public gravity::ForceSolver<Real> {
 public:
  explicit TreeSolver(const TreeSolverConfig& config);
  std::string name() const override;
  gravity::SolverReport solve(const SourcesView<Real>& sources, const AccelerationsView<Real>& out,
                              const gravity::SolveOptions& options = {}) override;
  /// The tree of the last solve (for tests, diagnostics and the GPU cross-checks).
  const Octree<Real>& last_tree() const { return tree_; }

 private:
  TreeSolverConfig config_;
  Octree<Real> tree_;
};

/// Walks every target of a built tree; results in sorted order. Exposed for
/// tests and benchmarks that time the walk alone. scale: [num_particles],
/// sorted order, the targets' gravity::relative_scale, read only when the
/// tree has the relative opening; null there means every scale 0 (the
/// geometric walk at theta, as walk_target's default scale).
template <class Real>
void walk_all(const Octree<Real>& tree, const TreeSolverConfig& config, bool potential, Real* ax, Real* ay,
              Real* az, Real* pot, gravity::InteractionCounts* per_target, const Real* scale = nullptr);

}  // namespace orrery::tree
