#pragma once
// Barnes-Hut on the CPU: builds the octree (bh/octree_build.hpp) and walks it
// for every target in parallel (bh/walk_all.hpp). This solver defines the
// physics every other tree backend reproduces: same tree, same terms, same order.
#include <cstdint>
#include <string>
#include <vector>

#include "orrery/bh/octree.hpp"
#include "orrery/bh/tree_config.hpp"
#include "orrery/gravity/force_solver.hpp"
#include "orrery/gravity/gravity_config.hpp"
#include "orrery/gravity/targets.hpp"

namespace orrery::gravity {


/// The tree solver's parameters from a force configuration (gravity.theta,
/// gravity.leaf_capacity, gravity.multipole (multipole_order 1 to 4: tree_multipole),
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
class TreeSolver final : public ForceSolver<Real> {
 public:
  explicit TreeSolver(const bh::TreeSolverConfig& config);
  std::string name() const override;
  /// Every source is a target: solve(sources, TargetSet<Real>{}, out, options).
  SolverReport solve(const SourcesView<Real>& sources, const AccelerationsView<Real>& out,
                     const SolveOptions& options = {}) override;
  /// The field of `sources` at `targets` (targets.hpp): every source, a
  /// subset of them by index, or points; `out` holds targets.count entries in
  /// the targets' order (for a relative opening with previous_accelerations,
  /// their previous accelerations on entry). Each target's result, counters
  /// included, is bit-identical to the one it gets when every source is a
  /// target (for the relative opening given the same largest previous
  /// acceleration: SolveOptions). The walk's cost is that of the targets';
  /// the tree is built over every source, and a subset's first relative
  /// evaluation (the bootstrap) walks every source once. Throws InputError
  /// for an index out of range or listed twice, and for points not finite.
  SolverReport solve(const SourcesView<Real>& sources, const TargetSet<Real>& targets,
                     const AccelerationsView<Real>& out, const SolveOptions& options = {}) override;
  /// The tree of the last solve (for tests, diagnostics and the GPU cross-checks).
  const bh::Octree<Real>& last_tree() const { return tree_; }

 private:
  bh::TreeSolverConfig config_;
  bh::Octree<Real> tree_;
  // A solve's buffers, kept across calls: a block step solves a subset at
  // every substep, and allocating and zeroing these at each call was a sixth
  // of its solves' time (docs/adr/0014). Resized, never shrunk; every entry
  // a solve reads is written first in that solve, so the results are those
  // of fresh buffers, bit for bit. slot is -1 everywhere between solves.
  struct Scratch {
    std::vector<Real> ax, ay, az, pot, scale;
    std::vector<InteractionCounts> counts;
    std::vector<std::int32_t> rank, slot, source, place;
  };
  Scratch scratch_;
};

}  // namespace orrery::gravity
