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
#include <cstdint>

#include "orrery/bh/interactions.hpp"
#include "orrery/core/solver_report.hpp"

namespace orrery::bh {

/// Per-target counters of one walk (contract 2).
struct WalkCounts {
  std::uint32_t node_visits = 0;
  std::uint32_t cell_interactions = 0;
  std::uint32_t particle_interactions = 0;
};

/// The relative test at a cell (docs/adr/0007): d^2 > crit_rel * scale,
/// the target's scale being relative_scale's, or d^2 > 4 crit2, the cap: the
/// relative criterion opens no cell that Barnes' criterion at theta / 2
/// (with 2 delta) would accept. Without the cap the few groups of a dense
/// centre walk several times the mean and alone set the GPU walk's time;
/// their accuracy stays that of the geometric walk at theta / 2. The two
/// comparisons are exact: this is d^2 > min(crit_rel * scale, 4 crit2)
/// without the minimum (one instruction fewer per node on the GPU).
template <class Real>
ORRERY_HDI bool relative_far(Real d2, Real crit_rel, Real scale, Real crit2) {
  return (d2 > xm::mul(crit_rel, scale)) | (d2 > xm::mul(Real(4), crit2));
}

/// Whether sorted particle i is one of the node's particles [first, first +
/// count): one unsigned comparison (i - first wraps past count when i < first).
ORRERY_HDI bool holds(std::int32_t first, std::int32_t count, std::int32_t i) {
  return static_cast<std::uint32_t>(i - first) < static_cast<std::uint32_t>(count);
}

/// Opening criterion: accept node n for sorted target i at (tx, ty, tz) when
/// |target - com|^2 > crit2[n] (Barnes' d > size/theta + delta, squared) and
/// the target is not one of the cell's particles. Membership is the integer
/// test first <= i < first + count (holds): exact, so a
/// target never accepts a cell that contains it, whatever the rounding of
/// the centre of mass. With the relative opening (Rel) the cell must also
/// pass relative_far for the target's scale.
template <bool Rel, class Real>
ORRERY_HDI bool accepts_node(Real com_x, Real com_y, Real com_z, Real crit2, Real crit_rel, Real scale,
                             std::int32_t first, std::int32_t count, std::int32_t i, Real tx, Real ty, Real tz) {
  const Real d2 = xm::norm2(xm::sub(com_x, tx), xm::sub(com_y, ty), xm::sub(com_z, tz));
  bool far = d2 > crit2;
  if constexpr (Rel) far = far & relative_far(d2, crit_rel, scale, crit2);
  return far & !holds(first, count, i);
}

/// |a| in double, as the relative criterion reads it.
template <class Real>
ORRERY_HDI double acceleration_magnitude(Real ax, Real ay, Real az) {
  return xm::sqrt(xm::norm2(double(ax), double(ay), double(az)));
}

/// The relative criterion's floor on |a_old|, as a fraction of the largest
/// |a_old| of the evaluation (docs/adr/0007). A target whose acceleration
/// nearly cancels (the centre of a cluster) would otherwise open the tree
/// almost to a direct sum, and its group alone outlast every other group of
/// the GPU walk; with the floor it is held to an absolute tolerance of
/// tolerance * kRelativeFloor * max |a_old|. The maximum is exact and
/// independent of the order of the reduction, so every backend has its bits.
inline constexpr double kRelativeFloor = 0.05;

/// The floor of an evaluation whose largest |a_old| is `largest`.
ORRERY_HDI double relative_floor(double largest) { return xm::mul(kRelativeFloor, largest); }

/// The relative criterion's per-target factor: 1/sqrt(max(|a_old|, floor))
/// of the target's acceleration in the previous evaluation, in double,
/// rounded to Real (every backend computes these bits). A zero acceleration
/// (with a zero floor) gives the largest finite Real: the target then accepts
/// only cells whose coefficient is zero (massless), or whose product
/// overflows to never.
template <class Real>
ORRERY_HDI Real relative_scale(Real ax, Real ay, Real az, double floor = 0.0) {
  const double m = acceleration_magnitude(ax, ay, az);
  const double a = m > floor ? m : floor;
  const double s = xm::div(1.0, a);
  constexpr double cap = sizeof(Real) == 4 ? 3.4028234663852886e38 : 1.7976931348623157e308;
  return static_cast<Real>(s < cap ? s : cap);
}

/// The opening test of walk_target: node n of the tree for target i, with
/// the relative part (Rel: the tree has crit_rel) for the target's scale.
template <bool Rel, class Real>
ORRERY_HDI bool accepts(const bh::OctreeView<Real>& t, std::int32_t n, std::int32_t i, Real tx, Real ty, Real tz,
                        Real scale) {
  return accepts_node<Rel>(t.com_x[n], t.com_y[n], t.com_z[n], t.crit2[n], Rel ? t.crit_rel[n] : Real(0), scale,
                           t.first[n], t.count[n], i, tx, ty, tz);
}

/// The particle-cell interaction of target (tx, ty, tz) with node n.
template <bool Pot, bool Quad, MathMode Mode, class Real, class Softening>
ORRERY_HDI void add_cell(Accumulator<Real>& acc, const bh::OctreeView<Real>& t, const Softening& soft,
                         std::int32_t n, Real tx, Real ty, Real tz) {
  const Real* q = nullptr;
  Real trace = 0;
  if constexpr (Quad) {
    q = t.quad + std::int64_t(n) * bh::kQuadComponents;
    trace = quadrupole_trace(q);
  }
  add_cell_terms<Pot, Quad, Mode>(acc, soft, tx, ty, tz, t.com_x[n], t.com_y[n], t.com_z[n], t.mass[n], q, trace, true);
}

/// The particle-particle interactions of sorted target i with the leaf n,
/// in sorted order, the target itself masked out.
template <bool Pot, MathMode Mode, class Real, class Softening>
ORRERY_HDI void add_leaf(Accumulator<Real>& acc, const bh::OctreeView<Real>& t, const Softening& soft,
                         std::int32_t n, std::int32_t i, Real tx, Real ty, Real tz) {
  const std::int32_t f = t.first[n], e = f + t.count[n];
  for (std::int32_t j = f; j < e; ++j) add_particle<Pot, Mode>(acc, soft, tx, ty, tz, t.x[j], t.y[j], t.z[j], t.m[j], j != i);
}

/// The walk of sorted target i with the opening test fixed (Rel: the
/// relative one, with the target's scale).
template <bool Pot, bool Quad, bool Rel, MathMode Mode, class Real, class Softening>
ORRERY_HDI Accumulator<Real> walk_target_opening(const bh::OctreeView<Real>& t, const Softening& soft, std::int32_t i,
                                                 WalkCounts& counts, Real scale) {
  const Real tx = t.x[i], ty = t.y[i], tz = t.z[i];
  Accumulator<Real> acc;
  std::int32_t n = 0;
  while (n < t.num_nodes) {
    ++counts.node_visits;
    const bool accept = accepts<Rel>(t, n, i, tx, ty, tz, scale);
    const bool leaf = t.next[n] == n + 1;
    // The branch is the walk itself: accepting, summing a leaf and descending
    // are different work, not different values.
    if (accept) {
      add_cell<Pot, Quad, Mode>(acc, t, soft, n, tx, ty, tz);
      ++counts.cell_interactions;
    } else if (leaf) {
      add_leaf<Pot, Mode>(acc, t, soft, n, i, tx, ty, tz);
      counts.particle_interactions += t.count[n] - holds(t.first[n], t.count[n], i);
    }
    n = (accept | leaf) ? t.next[n] : n + 1;
  }
  return acc;
}

/// The whole walk of sorted target i; scale is its relative_scale (read only
/// when the tree has the relative opening; 0 there gives the geometric walk).
/// The opening is chosen once per target, not per node: a GPU thread's walk
/// loop then holds one opening test.
template <bool Pot, bool Quad, MathMode Mode, class Real, class Softening>
ORRERY_HDI Accumulator<Real> walk_target(const bh::OctreeView<Real>& t, const Softening& soft, std::int32_t i,
                                         WalkCounts& counts, Real scale = Real(0)) {
  if (t.crit_rel != nullptr) return walk_target_opening<Pot, Quad, true, Mode>(t, soft, i, counts, scale);
  return walk_target_opening<Pot, Quad, false, Mode>(t, soft, i, counts, scale);
}

}  // namespace orrery::bh
