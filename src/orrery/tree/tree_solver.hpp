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
/// tests and benchmarks that time the walk alone.
template <class Real>
void walk_all(const Octree<Real>& tree, const TreeSolverConfig& config, bool potential, Real* ax, Real* ay,
              Real* az, Real* pot, gravity::InteractionCounts* per_target);

}  // namespace orrery::tree
