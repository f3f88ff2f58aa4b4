#pragma once
// The opening criteria for a box of targets instead of one: whether a cell
// may be used as one particle-cell interaction by EVERY target inside an
// axis-aligned box. This is the conservative test a local essential tree
// needs (MPI: a rank exports a cell to another rank when the cell is
// accepted for every target of that rank's domain, and its contents
// otherwise); DESIGN §3.
//
// For any criterion of opening.hpp: far() at the smallest squared distance
// from the box to the cell's centre of mass and at the largest scale of the
// box's targets, and the box not reaching into the cell (so no target in it
// is one of the cell's particles). Why this never accepts a cell that a
// target inside the box would open: for a point t in the box, each
// component |t - com| is at least the box's gap on that axis with the same
// rounding (IEEE subtraction is monotone in each argument, and |c - t| is
// computed as the point walk does), so its d^2 (norm2, monotone in each
// component) is at least the box's; far() is non-decreasing in d^2 and
// non-increasing in scale (opening.hpp); and a particle of the cell lies in
// the cell's cube, widened here by one finest grid cell of the tree's cube to
// hold the particles whose key rounding put them on the cell's boundary.
#include <cstdint>

#include "orrery/bh/build_steps.hpp"
#include "orrery/bh/octree.hpp"
#include "orrery/bh/opening.hpp"

namespace orrery::bh {

/// The targets' box, [lo, hi] on each axis (lo <= hi).
template <class Real>
struct TargetBox {
  Real lo_x, lo_y, lo_z, hi_x, hi_y, hi_z;
};

/// The distance from [lo, hi] to c on one axis, as the point walk rounds
/// |c - t| for the nearest t of the box (0 when c is inside).
template <class Real>
ORRERY_HDI Real box_gap(Real lo, Real hi, Real c) {
  const Real below = xm::sub(lo, c), above = xm::sub(c, hi);
  return c < lo ? below : (c > hi ? above : Real(0));
}

/// The smallest squared distance from the box to (cx, cy, cz), as the point
/// walk rounds d^2: never larger than the d^2 of any point inside the box.
template <class Real>
ORRERY_HDI Real box_distance2(const TargetBox<Real>& b, Real cx, Real cy, Real cz) {
  return xm::norm2(box_gap(b.lo_x, b.hi_x, cx), box_gap(b.lo_y, b.hi_y, cy), box_gap(b.lo_z, b.hi_z, cz));
}

/// A cell of the key cube widened by one finest grid cell on each side:
/// its centre and half side.
struct WidenedCell {
  double cx, cy, cz, half;
};

ORRERY_HDI WidenedCell widened_cell(std::uint64_t key, std::int32_t level, const Cube& cube) {
  const CellGeometry g = cell_geometry(key, level, cube);
  return {g.cx, g.cy, g.cz, xm::add(xm::mul(g.side, 0.5), xm::mul(cube.side, 1.0 / double(kGridSize)))};
}

/// What the box test reads of node n of tree t (key cube `cube`), read once
/// for the tests of one node against many boxes (a local essential tree's
/// selection, mpi/let.cpp): the centre of mass, the criterion's
/// coefficients, and the widened cell.
template <class Real>
struct BoxTestNode {
  Real com_x, com_y, com_z, crit2, crit_rel;
  WidenedCell cell;
};

template <class Criterion, class Real>
ORRERY_HDI BoxTestNode<Real> box_test_node(const OctreeView<Real>& t, const Cube& cube, std::int32_t n) {
  return {t.com_x[n], t.com_y[n], t.com_z[n], t.crit2[n], Criterion::kScaled ? t.crit_rel[n] : Real(0),
          widened_cell(t.key[n], t.level[n], cube)};
}

/// Whether the box reaches into the widened cell.
template <class Real>
ORRERY_HDI bool box_reaches_cell(const TargetBox<Real>& b, const WidenedCell& c) {
  const double half = c.half;
  const auto overlaps = [half](double lo, double hi, double centre) {
    return (double(lo) <= xm::add(centre, half)) & (double(hi) >= xm::sub(centre, half));
  };
  return overlaps(b.lo_x, b.hi_x, c.cx) & overlaps(b.lo_y, b.hi_y, c.cy) & overlaps(b.lo_z, b.hi_z, c.cz);
}

/// Whether the box reaches into the cell (key, level) of `cube`, widened by
/// one finest grid cell on each side.
template <class Real>
ORRERY_HDI bool box_reaches_cell(const TargetBox<Real>& b, std::uint64_t key, std::int32_t level, const Cube& cube) {
  return box_reaches_cell(b, widened_cell(key, level, cube));
}

/// accepts_box below for the node box_test_node read (the same test, the
/// same operations); cap2: the tree's OctreeView::cap2.
template <class Criterion, class Real>
ORRERY_HDI bool accepts_box(const BoxTestNode<Real>& node, Real cap2, const TargetBox<Real>& b, Real max_scale) {
  const Real d2 = box_distance2(b, node.com_x, node.com_y, node.com_z);
  return Criterion::far(d2, node.crit2, node.crit_rel, max_scale, cap2) & !box_reaches_cell(b, node.cell);
}

/// Accepts node n of tree t (whose key cube is `cube`) for every target in
/// the box under Criterion; max_scale: the largest scale of those targets
/// (read by a scaled criterion only).
template <class Criterion, class Real>
ORRERY_HDI bool accepts_box(const OctreeView<Real>& t, const Cube& cube, std::int32_t n, const TargetBox<Real>& b,
                            Real max_scale) {
  return accepts_box<Criterion>(box_test_node<Criterion>(t, cube, n), t.cap2, b, max_scale);
}

}  // namespace orrery::bh
