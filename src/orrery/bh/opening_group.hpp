#pragma once
// Group opening (docs/adr/0017): the targets of a group decide together at
// every node, as Bonsai's walk does: a cell is accepted for all of them when
// the criterion accepts it at the group's box (the smallest distance from the
// box of their positions to the cell's centre of mass, the largest of their
// scales) and no target of the group is one of the cell's particles;
// otherwise every target opens it. All targets of a group then visit the
// same nodes: a GPU warp's lanes disagree only between its groups (measured:
// not faster than each target's own walk at equal accuracy,
// docs/performance/gpu_tree.md).
//
// Each target still sums only cells that its own criterion accepts (the box
// test is conservative, opening_box.hpp): the group's cells are its own walk's
// or their descendants, so a target's force is at least as accurate as its own
// walk's, for more interactions. With one target a group is the target's own
// walk, bit for bit (box_gap's |c - t| rounds as the point walk's, and the
// index range of one target is holds()'s membership test).
//
// The result of a target depends on the other targets of its group: the
// groups are fixed by the tree, TreeParams::group_opening (G) and the walk's
// target order (WalkTargets: the runs of consecutive targets of one group
// cell, the largest node of at most G particles, within each block [k, k +
// 32), k a multiple of 32; a point is a group of one), so every backend forms
// the same groups and computes the same function of the input.
#include <algorithm>
#include <cstdint>
#include <limits>

#include "orrery/bh/opening_box.hpp"

namespace orrery::bh {

/// What a group's decision at a node reads of its targets: their box, their
/// largest scale (a scaled criterion's; 0 otherwise), and the range [lo, hi]
/// of their sorted source indices (lo > hi when none is a source).
template <class Real>
struct TargetGroup {
  TargetBox<Real> box;
  Real max_scale;
  std::int32_t lo, hi;
};

/// The group cell of sorted source i (Bonsai's groups are tree cells): the
/// largest node holding i with at most `most` particles
/// (TreeParams::group_opening), or the leaf holding it where none is that
/// small; -1 for a point that is no source (i < 0). A group's targets are
/// the runs of consecutive targets of one group cell within each block of
/// kOpeningGroup (starts_group), so a group is never wider than a cell of
/// the tree: 32 consecutive targets in key order can straddle a jump of the
/// curve (the last of one octant, the first of the next), and such a group's
/// box would open most of the tree.
template <class Real>
ORRERY_HDI std::int32_t group_cell(const OctreeView<Real>& t, std::int32_t i, std::int32_t most) {
  if (i < 0) return -1;
  std::int32_t n = 0;
  while (t.count[n] > most && t.next[n] != n + 1) {
    std::int32_t c = n + 1;  // the first child; its siblings follow by next
    while (!holds(t.first[c], t.count[c], i)) c = t.next[c];
    n = c;
  }
  return n;
}

/// Whether target k starts a group of the walk's targets: the first of its
/// block of kOpeningGroup, a point (a group of one), or a group cell other
/// than the target before it (cell: group_cell of each target's self()).
ORRERY_HDI bool starts_group(std::int32_t k, std::int32_t cell, std::int32_t cell_before) {
  return (k % kOpeningGroup == 0) | (cell < 0) | (cell != cell_before);
}

/// The group of one target: a point box, its scale, its own index (-1, a
/// point that is no source, gives an empty range).
template <class Real>
ORRERY_HDI TargetGroup<Real> group_of_one(Real tx, Real ty, Real tz, Real scale, std::int32_t i) {
  const std::int32_t lo = i >= 0 ? i : std::numeric_limits<std::int32_t>::max();
  return {{tx, ty, tz, tx, ty, tz}, scale, lo, i};
}

/// The group of two groups: the union of their boxes and index ranges, the
/// larger scale (exact, in any order: min and max only).
template <class Real>
ORRERY_HDI TargetGroup<Real> merge_groups(const TargetGroup<Real>& a, const TargetGroup<Real>& b) {
  return {{a.box.lo_x < b.box.lo_x ? a.box.lo_x : b.box.lo_x, a.box.lo_y < b.box.lo_y ? a.box.lo_y : b.box.lo_y,
           a.box.lo_z < b.box.lo_z ? a.box.lo_z : b.box.lo_z, a.box.hi_x > b.box.hi_x ? a.box.hi_x : b.box.hi_x,
           a.box.hi_y > b.box.hi_y ? a.box.hi_y : b.box.hi_y, a.box.hi_z > b.box.hi_z ? a.box.hi_z : b.box.hi_z},
          a.max_scale > b.max_scale ? a.max_scale : b.max_scale,
          a.lo < b.lo ? a.lo : b.lo,
          a.hi > b.hi ? a.hi : b.hi};
}

/// Whether a target of the group is one of the node's particles [first,
/// first + count): the index ranges overlap (conservative for a subset of
/// targets, whose range may hold indices that are not targets).
ORRERY_HDI bool group_holds(std::int32_t first, std::int32_t count, std::int32_t lo, std::int32_t hi) {
  return (first <= hi) & (lo - first < count);
}

/// Accepts the node (centre of mass, crit2, crit_rel, particles [first,
/// first + count)) for every target of the group under Criterion; cap2: the
/// tree's OctreeView::cap2.
template <class Criterion, class Real>
ORRERY_HDI bool accepts_group(Real com_x, Real com_y, Real com_z, Real crit2, Real crit_rel, Real cap2,
                              std::int32_t first, std::int32_t count, const TargetGroup<Real>& g) {
  const Real d2 = box_distance2(g.box, com_x, com_y, com_z);
  return Criterion::far(d2, crit2, crit_rel, g.max_scale, cap2) & !group_holds(first, count, g.lo, g.hi);
}

}  // namespace orrery::bh
