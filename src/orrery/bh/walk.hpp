#pragma once
// The stackless Barnes-Hut walk of one target, written once for the CPU
// solver and the GPU's independent walk (DESIGN §4), and the per-node steps
// the GPU's coherent walk shares with it.
//
// At node n the target either accepts the cell (one particle-cell
// interaction, then jump to next[n]), or sums a leaf's particles (then jump
// to next[n]), or descends to n + 1. The nodes visited and the order of the
// terms depend only on the tree and the target: every backend and traversal
// sums the same terms in the same order (contracts 1 and 2).
// `soft` is the softening policy, or with a softening per type the target's
// TargetSoftenings (core/pair_softening.hpp): a leaf's particle then takes
// the pair's softening, a cell its largest particle's combined with the target's.
#include <cstdint>

#include "orrery/bh/interactions.hpp"
#include "orrery/bh/opening.hpp"
#include "orrery/core/pair_softening.hpp"
#include "orrery/core/solver_report.hpp"

namespace orrery::bh {

/// Per-target counters of one walk (contract 2).
struct WalkCounts {
  std::uint32_t node_visits = 0;
  std::uint32_t cell_interactions = 0;
  std::uint32_t particle_interactions = 0;
};

/// The opening test of walk_target: node n of the tree for target i with
/// the criterion's scale (read by a scaled criterion only).
template <class Criterion, class Real>
ORRERY_HDI bool accepts(const OctreeView<Real>& t, std::int32_t n, std::int32_t i, Real tx, Real ty, Real tz,
                        Real scale) {
  return accepts_node<Criterion>(t.com_x[n], t.com_y[n], t.com_z[n], t.crit2[n],
                                 Criterion::kScaled ? t.crit_rel[n] : Real(0), scale, t.cap2, t.first[n], t.count[n],
                                 i, tx, ty, tz);
}

/// Whether the softening opens node n for the target at (tx, ty, tz): never
/// with one softening (this overload compiles to nothing); with a softening
/// per type GADGET-4's rule for cells of mixed softenings (softening_opens).
template <class Real, class Softening>
ORRERY_HDI bool opened_by_softening(const OctreeView<Real>&, const Softening&, std::int32_t, Real, Real, Real) {
  return false;
}
template <class Real, class Policy>
ORRERY_HDI bool opened_by_softening(const OctreeView<Real>& t, const TargetSoftenings<Policy, Real>& soft,
                                    std::int32_t n, Real tx, Real ty, Real tz) {
  return softening_opens(soft, n, xm::norm2(xm::sub(t.com_x[n], tx), xm::sub(t.com_y[n], ty), xm::sub(t.com_z[n], tz)));
}

/// Node n's moments above the monopole (null for a monopole tree).
template <Multipole M, class Real>
ORRERY_HDI const Real* node_moments(const OctreeView<Real>& t, std::int32_t n) {
  if constexpr (M == Multipole::monopole) return nullptr;
  else return t.quad + std::int64_t(n) * moment_components(M);
}

/// The trace add_cell_terms takes: the quadrupole's (orders 3 and 4 take
/// their traces themselves), 0 otherwise.
template <Multipole M, class Real>
ORRERY_HDI Real cell_trace(const Real* q) {
  if constexpr (M == Multipole::quadrupole) return quadrupole_trace(q);
  else return Real(0);
}

/// The particle-cell interaction of target (tx, ty, tz) with node n.
template <bool Pot, Multipole M, MathMode Mode, class Real, class Softening>
ORRERY_HDI void add_cell(Accumulator<Real>& acc, const OctreeView<Real>& t, const Softening& soft,
                         std::int32_t n, Real tx, Real ty, Real tz) {
  const Real* q = node_moments<M>(t, n);
  const Real trace = cell_trace<M>(q);
  add_cell_terms<Pot, M, Mode>(acc, node_softening(soft, n), tx, ty, tz, t.com_x[n], t.com_y[n], t.com_z[n], t.mass[n], q,
                                  trace, true);
}

/// The particle-particle interactions of sorted target i with the leaf n,
/// in sorted order, the target itself masked out.
template <bool Pot, MathMode Mode, class Real, class Softening>
ORRERY_HDI void add_leaf(Accumulator<Real>& acc, const OctreeView<Real>& t, const Softening& soft,
                         std::int32_t n, std::int32_t i, Real tx, Real ty, Real tz) {
  const std::int32_t f = t.first[n], e = f + t.count[n];
  for (std::int32_t j = f; j < e; ++j)
    add_particle<Pot, Mode>(acc, source_softening(soft, j), tx, ty, tz, t.x[j], t.y[j], t.z[j], t.m[j], j != i);
}

/// What walk_point calls at each leaf it sums (before summing it): nothing,
/// unless a caller asks (an MPI rank names a node whose contents it was not
/// sent, mpi/let.hpp).
struct NoLeafHook {
  ORRERY_HDI void operator()(std::int32_t) const {}
};

/// The walk of a target at (tx, ty, tz) whose sorted source index is i (-1
/// for a point that is no source), with the opening criterion fixed (its
/// scale read by a scaled criterion only).
template <bool Pot, Multipole M, class Criterion, MathMode Mode, class Real, class Softening, class LeafHook = NoLeafHook>
ORRERY_HDI Accumulator<Real> walk_point(const OctreeView<Real>& t, const Softening& soft, std::int32_t i, Real tx,
                                        Real ty, Real tz, WalkCounts& counts, Real scale,
                                        const LeafHook& at_leaf = LeafHook{}) {
  Accumulator<Real> acc;
  std::int32_t n = 0;
  while (n < t.num_nodes) {
    ++counts.node_visits;
    const bool accept = accepts<Criterion>(t, n, i, tx, ty, tz, scale) & !opened_by_softening(t, soft, n, tx, ty, tz);
    const bool leaf = t.next[n] == n + 1;
    // The branch is the walk itself: accepting, summing a leaf and descending
    // are different work, not different values.
    if (accept) {
      add_cell<Pot, M, Mode>(acc, t, soft, n, tx, ty, tz);
      ++counts.cell_interactions;
    } else if (leaf) {
      at_leaf(n);
      add_leaf<Pot, Mode>(acc, t, soft, n, i, tx, ty, tz);
      counts.particle_interactions += t.count[n] - holds(t.first[n], t.count[n], i);
    }
    n = (accept | leaf) ? t.next[n] : n + 1;
  }
  return acc;
}

/// The walk of sorted source i with the opening criterion fixed.
template <bool Pot, Multipole M, class Criterion, MathMode Mode, class Real, class Softening>
ORRERY_HDI Accumulator<Real> walk_target_opening(const OctreeView<Real>& t, const Softening& soft, std::int32_t i,
                                                 WalkCounts& counts, Real scale) {
  return walk_point<Pot, M, Criterion, Mode>(t, soft, i, t.x[i], t.y[i], t.z[i], counts, scale);
}

/// The whole walk of a target at (tx, ty, tz) with sorted source index i
/// (-1: a point that is no source); scale is its relative_scale (read only
/// when the tree has the relative opening; 0 there gives the geometric
/// walk). The opening is chosen once per target, not per node: a GPU
/// thread's walk loop then holds one opening test.
template <bool Pot, Multipole M, MathMode Mode, class Real, class Softening>
ORRERY_HDI Accumulator<Real> walk_target_at(const OctreeView<Real>& t, const Softening& soft, std::int32_t i, Real tx,
                                            Real ty, Real tz, WalkCounts& counts, Real scale = Real(0)) {
  if (has_relative_opening(t)) return walk_point<Pot, M, RelativeOpening, Mode>(t, soft, i, tx, ty, tz, counts, scale);
  return walk_point<Pot, M, GeometricOpening, Mode>(t, soft, i, tx, ty, tz, counts, scale);
}

/// The whole walk of sorted source i (walk_target_at at its position).
template <bool Pot, Multipole M, MathMode Mode, class Real, class Softening>
ORRERY_HDI Accumulator<Real> walk_target(const OctreeView<Real>& t, const Softening& soft, std::int32_t i,
                                         WalkCounts& counts, Real scale = Real(0)) {
  return walk_target_at<Pot, M, Mode>(t, soft, i, t.x[i], t.y[i], t.z[i], counts, scale);
}

}  // namespace orrery::bh
