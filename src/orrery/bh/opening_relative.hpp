#pragma once
// GADGET's relative criterion (docs/adr/0007): accept a cell only if also
// mass * side^2 <= tolerance * |a_old| * d^4, a_old the target's
// acceleration of the previous evaluation, theta then being the geometric
// cap (GADGET's ErrTolThetaMax) and the angle of the bootstrap evaluation
// that supplies a_old when there is none. Written as d^2 > crit_rel * scale:
// crit_rel = side * sqrt(mass / tolerance) per node and a per-target scale
// 1 / sqrt(|a_old|) (relative_scale), both rounded once from double, so every
// backend decides with the same bits; with G = 1 the tolerance is unit-free,
// as GADGET's (docs/adr/0015).
#include "orrery/bh/tree_params.hpp"
#include "orrery/core/exact_math.hpp"

namespace orrery::bh {

/// crit_rel of a cell of side `side` and mass `mass`, in double.
ORRERY_HDI double relative_coefficient(double mass, double side, double tolerance) {
  return xm::mul(side, xm::sqrt(xm::div(mass, tolerance)));
}

/// The cap's factor on crit2 for a cap angle of `fraction` times theta
/// (TreeParams::relative_cap, in [0, 1]): 1 / fraction^2 in double, rounded
/// once to Real; fraction 0 gives +inf (no cap). cap2 * crit2 is (side /
/// (fraction theta) + delta / fraction)^2: Barnes' test at fraction * theta
/// with delta / fraction. Fraction 0.5 gives 4, exactly.
template <class Real>
ORRERY_HDI Real relative_cap_factor(double fraction) {
  return static_cast<Real>(xm::div(1.0, xm::mul(fraction, fraction)));  // 1 / 0 = +inf
}

/// The relative test at a cell: d^2 > crit_rel * scale, or d^2 > cap2 *
/// crit2, the cap: the relative criterion opens no cell that Barnes'
/// criterion at relative_cap * theta (relative_cap_factor) would accept.
/// Without the cap the few groups of a dense centre walk several times the
/// mean and alone set the GPU walk's time, and on a uniform distribution the
/// relative rule opens more than the geometric one at the same accuracy
/// (docs/adr/0015); the capped targets keep the accuracy of the geometric
/// walk at the cap's angle. The two comparisons are exact: this is d^2 >
/// min(crit_rel * scale, cap2 * crit2) without the minimum (one instruction
/// fewer per node on the GPU).
template <class Real>
ORRERY_HDI bool relative_far(Real d2, Real crit_rel, Real scale, Real crit2, Real cap2) {
  return (d2 > xm::mul(crit_rel, scale)) | (d2 > xm::mul(cap2, crit2));
}

struct RelativeOpening {
  static constexpr Opening kind = Opening::relative;
  static constexpr bool kScaled = true;
  /// Barnes' test at theta and the relative test with its cap (cap2: the
  /// tree's OctreeView::cap2).
  template <class Real>
  ORRERY_HDI static bool far(Real d2, Real crit2, Real crit_rel, Real scale, Real cap2) {
    return (d2 > crit2) & relative_far(d2, crit_rel, scale, crit2, cap2);
  }
};

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

/// The relative criterion's per-target factor from the target's acceleration
/// in the previous evaluation, in double, rounded to Real (every backend
/// computes these bits): 1 / sqrt(max(|a_old|, floor)), so that d^2 >
/// crit_rel * scale is GADGET's d^4 > mass side^2 / (tolerance |a_old|)
/// (docs/adr/0015: until then it was 1 / max(|a_old|, floor), a rule whose
/// tolerance had units). A zero acceleration (with a zero floor) gives the
/// largest finite Real: the target then accepts only cells whose coefficient
/// is zero (massless), or whose product overflows to never (the cap's
/// acceptance aside).
template <class Real>
ORRERY_HDI Real relative_scale(Real ax, Real ay, Real az, double floor = 0.0) {
  const double m = acceleration_magnitude(ax, ay, az);
  const double a = m > floor ? m : floor;
  const double s = xm::div(1.0, xm::sqrt(a));
  constexpr double cap = sizeof(Real) == 4 ? 3.4028234663852886e38 : 1.7976931348623157e308;
  return static_cast<Real>(s < cap ? s : cap);
}

}  // namespace orrery::bh
