#pragma once
// The opening criterion: which cells a target accepts as one particle-cell
// interaction instead of opening them (DESIGN §3). One policy type per
// criterion, used unchanged by every walk on both backends (walk.hpp's
// walk_target, the CPU group walk, the GPU coherent and independent walks):
//
//   struct Criterion {
//     static constexpr Opening kind;      // its TreeParams::opening
//     static constexpr bool kScaled;      // reads a per-node coefficient (OctreeView::crit_rel)
//                                         // and a per-target scale
//     static bool far(Real d2, Real crit2, Real crit_rel, Real scale, Real cap2);
//   };
//
// far() is the criterion's whole decision given the squared distance d2 from
// the target to the cell's centre of mass: a walk accepts the cell when far()
// holds and the target is not one of the cell's particles (accepts_node).
// cap2 is the tree's OctreeView::cap2 (the relative opening's cap; ignored
// by the geometric criterion). Every criterion's far() is non-decreasing in
// d2 and non-increasing in scale, which is what makes the conservative box test of opening_box.hpp
// exact for any criterion. The per-node values are computed in double by the
// tree build (build_steps.hpp's store_moments) and rounded once.
//
// Criteria: opening_geometric.hpp (Barnes'), opening_relative.hpp (GADGET's,
// docs/adr/0007); for a box of targets rather than one, opening_box.hpp.
// Adding a criterion: a header like those, a line in with_opening below, an
// Opening value (octree.hpp), and its tests.
#include <cstdint>

#include "orrery/bh/octree.hpp"
#include "orrery/bh/opening_geometric.hpp"
#include "orrery/bh/opening_relative.hpp"

namespace orrery::bh {

/// Whether sorted particle i is one of the node's particles [first, first +
/// count): one unsigned comparison (i - first wraps past count when i < first;
/// i = -1, a target that is no source, is never one).
ORRERY_HDI bool holds(std::int32_t first, std::int32_t count, std::int32_t i) {
  return static_cast<std::uint32_t>(i - first) < static_cast<std::uint32_t>(count);
}

/// Accepts the node (centre of mass, crit2, crit_rel, particles [first, first
/// + count)) for sorted target i at (tx, ty, tz) with the criterion's scale
/// and the tree's cap2:
/// the criterion's far() at |target - com|^2, and the target not one of the
/// cell's particles. Membership is the integer test holds(): exact, so a
/// target never accepts a cell that contains it, whatever the rounding of
/// the centre of mass.
template <class Criterion, class Real>
ORRERY_HDI bool accepts_node(Real com_x, Real com_y, Real com_z, Real crit2, Real crit_rel, Real scale, Real cap2,
                             std::int32_t first, std::int32_t count, std::int32_t i, Real tx, Real ty, Real tz) {
  const Real d2 = xm::norm2(xm::sub(com_x, tx), xm::sub(com_y, ty), xm::sub(com_z, tz));
  return Criterion::far(d2, crit2, crit_rel, scale, cap2) & !holds(first, count, i);
}

/// The criterion of a tree: relative when it was built with crit_rel.
template <class Real>
ORRERY_HDI bool has_relative_opening(const OctreeView<Real>& t) {
  return t.crit_rel != nullptr;
}

/// Calls f(Criterion{}) for the tree's criterion and returns what f returns:
/// the run-time choice made once, outside any walk.
template <class Real, class F>
decltype(auto) with_opening(const OctreeView<Real>& t, F&& f) {
  if (has_relative_opening(t)) return f(RelativeOpening{});
  return f(GeometricOpening{});
}

}  // namespace orrery::bh
