#pragma once
// Barnes' geometric criterion (DESIGN §3): accept a cell when d > side/theta
// + delta, d the distance from the target to the cell's centre of mass and
// delta the distance from the centre of mass to the cell's geometric centre
// (which guards a target next to a cell whose mass sits far from its
// centre). Compared squared: d^2 > crit2, crit2 = (side/theta + delta)^2
// stored per node, so the walk needs no square root.
#include "orrery/bh/tree_params.hpp"
#include "orrery/core/exact_math.hpp"

namespace orrery::bh {

/// crit2 of a cell of side `side`, geometric centre (gx, gy, gz) and centre
/// of mass (cx, cy, cz), in double: (side/theta + delta)^2. theta = 0 gives
/// +inf (never accept: the walk is a direct sum).
ORRERY_HDI double acceptance_radius2(double cx, double cy, double cz, double gx, double gy, double gz, double side,
                                     double theta) {
  const double delta = xm::sqrt(xm::norm2(xm::sub(cx, gx), xm::sub(cy, gy), xm::sub(cz, gz)));
  const double r = xm::add(xm::div(side, theta), delta);
  return xm::mul(r, r);
}

struct GeometricOpening {
  static constexpr Opening kind = Opening::geometric;
  static constexpr bool kScaled = false;
  template <class Real>
  ORRERY_HDI static bool far(Real d2, Real crit2, Real /*crit_rel*/, Real /*scale*/, Real /*cap2*/) {
    return d2 > crit2;
  }
};

}  // namespace orrery::bh
