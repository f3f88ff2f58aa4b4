#pragma once
// The CPU walk of a set of targets with a softening per particle type
// (core/softening_classes.hpp, docs/softening.md): GADGET-4's rule, a pair
// takes the larger of its two softenings and a cell the largest of its
// particles', combined with the target's. Each target is one walk_target
// (walk.hpp) over the threads, with its TargetSoftenings; the one-softening
// walk (walk_all.hpp) stays as it is and a solve picks one of the two once.
// As GADGET-4 (gravtree/gwalk.cc), a cell whose particles' softenings differ
// is opened, not used, when its largest softening exceeds the target's and
// the target lies within it (walk.hpp, opened_by_softening).
// With every type's softening equal this walk gives walk_targets' bits
// (walk_target equals the group walk bit for bit, and each pair's policy is
// built as the one-softening walk builds its one).
#include <cstdint>
#include <vector>

#include "orrery/bh/octree.hpp"
#include "orrery/bh/tree_config.hpp"
#include "orrery/bh/walk_targets.hpp"
#include "orrery/core/softening_classes.hpp"
#include "orrery/core/solver_report.hpp"

namespace orrery::bh {

/// What the walks read of each node's softenings, [num_nodes] each.
template <class Real>
struct NodeSoftenings {
  std::vector<std::uint8_t> largest;  // the class of the largest softening among its particles (SofteningClasses::larger)
  std::vector<Real> mixed_eps2;       // that softening squared when its particles' softenings differ, else 0
};

/// The node softenings of tree t whose particles' classes are sorted_class
/// ([num_particles], sorted order).
template <class Real>
NodeSoftenings<Real> node_softenings(const OctreeView<Real>& t, const SofteningClasses& classes,
                                     const std::uint8_t* sorted_class);

/// walk_targets (walk_all.hpp) with config.per_type's softenings (set:
/// InputError otherwise); source_class: [num_particles] the class of each
/// source in the caller's order (SofteningClasses::of_sources). A point
/// target has no softening of its own: its pairs take the source's or cell's.
template <class Real>
void walk_targets_per_type(const Octree<Real>& tree, const WalkTargets<Real>& targets, const TreeSolverConfig& config,
                           const std::uint8_t* source_class, bool potential, Real* ax, Real* ay, Real* az, Real* pot,
                           InteractionCounts* per_target, const Real* scale = nullptr);

}  // namespace orrery::bh
