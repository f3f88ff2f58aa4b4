#pragma once
// Barnes-Hut on the CPU: builds the octree (bh/octree_build.hpp) and walks it
// for every target in parallel (bh/walk_all.hpp). This solver defines the
// physics every other tree backend reproduces: same tree, same terms, same order.
#include <string>

#include "orrery/bh/octree.hpp"
#include "orrery/bh/tree_config.hpp"
#include "orrery/gravity/force_solver.hpp"
#include "orrery/gravity/gravity_config.hpp"

namespace orrery::gravity {


/// The tree solver's parameters from a force configuration (gravity.theta,
/// gravity.leaf_capacity, gravity.multipole (multipole_order 1 or 2),
/// gravity.softening, gravity.softening_kernel, gravity.math).
bh::TreeSolverConfig tree_solver_config(const gravity::GravityConfig& config);

/// With TreeParams::opening == bh::Opening::relative (docs/adr/0007) a solve
/// walks the tree with every target's scale bh::relative_scale(a_old,
/// floor), floor = bh::kRelativeFloor times the largest |a_old| of all
/// targets (an exact maximum; the GPU solver computes the same bits):
///  - options.previous_accelerations: a_old is what out.ax/ay/az hold on
///    entry (caller's order), read before anything is written to them
///    (report phase "relative scales");
///  - otherwise it bootstraps: a first walk with every scale 0 (the
///    geometric walk at theta, accelerations only) gives a_old, then the
///    relative walk runs (phase "bootstrap walk", the scales included).
/// The result and the report's counters are those of the relative walk
/// alone, bit-identical to bh::walk_target(..., scale) per target.
/// The geometric opening ignores previous_accelerations.
template <class Real>
class TreeSolver final : public gravity::ForceSolver<Real> {
 public:
  explicit TreeSolver(const bh::TreeSolverConfig& config);
  std::string name() const override;
  SolverReport solve(const SourcesView<Real>& sources, const AccelerationsView<Real>& out,
                              const gravity::SolveOptions& options = {}) override;
  /// The tree of the last solve (for tests, diagnostics and the GPU cross-checks).
  const bh::Octree<Real>& last_tree() const { return tree_; }

 private:
  bh::TreeSolverConfig config_;
  bh::Octree<Real> tree_;
};

}  // namespace orrery::gravity
