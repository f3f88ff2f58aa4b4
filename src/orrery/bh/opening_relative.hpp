#pragma once
// GADGET's relative criterion (docs/adr/0007): accept a cell only if also
// mass * side^2 <= tolerance * |a_old| * d^4, a_old the target's
// acceleration of the previous evaluation, theta then being the geometric
// cap (GADGET's ErrTolThetaMax) and the angle of the bootstrap evaluation
// that supplies a_old when there is none. Written as d^2 > crit_rel * scale:
// crit_rel = side * sqrt(mass / tolerance) per node and a per-target scale
// (relative_scale), both rounded once from double, so every backend decides
// with the same bits.
#include "orrery/bh/tree_params.hpp"
#include "orrery/core/exact_math.hpp"

namespace orrery::bh {

/// crit_rel of a cell of side `side` and mass `mass`, in double.
ORRERY_HDI double relative_coefficient(double mass, double side, double tolerance) {
  return xm::mul(side, xm::sqrt(xm::div(mass, tolerance)));
}

/// The relative test at a cell: d^2 > crit_rel * scale, or d^2 > 4 crit2,
/// the cap: the relative criterion opens no cell that Barnes' criterion at
/// theta / 2 (with 2 delta) would accept. Without the cap the few groups of
/// a dense centre walk several times the mean and alone set the GPU walk's
/// time; their accuracy stays that of the geometric walk at theta / 2. The
/// two comparisons are exact: this is d^2 > min(crit_rel * scale, 4 crit2)
/// without the minimum (one instruction fewer per node on the GPU).
template <class Real>
ORRERY_HDI bool relative_far(Real d2, Real crit_rel, Real scale, Real crit2) {
  return (d2 > xm::mul(crit_rel, scale)) | (d2 > xm::mul(Real(4), crit2));
}

struct RelativeOpening {
  static constexpr Opening kind = Opening::relative;
  static constexpr bool kScaled = true;
  /// Barnes' test at theta (the cap) and the relative test.
  template <class Real>
  ORRERY_HDI static bool far(Real d2, Real crit2, Real crit_rel, Real scale) {
    return (d2 > crit2) & relative_far(d2, crit_rel, scale, crit2);
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
/// computes these bits). It is 1/max(|a_old|, floor): GADGET's rule and ADR
/// 0007 have 1/sqrt of that (d^4 >= mass side^2 / (tolerance |a|)), so the
/// criterion as built is not that rule and its tolerance is not unit-free;
/// the Barnes-Hut restructuring kept these bits (tests/golden) and left the
/// correction, which changes results, to the accuracy work of issue 21. A zero acceleration
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

}  // namespace orrery::bh
