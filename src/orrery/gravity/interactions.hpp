#pragma once
// The two interactions of a tree walk, written once for host and device:
// particle-particle (a source particle, softened) and particle-cell (the
// cell's monopole, softened like a particle of the cell's mass at its centre
// of mass, plus optionally its quadrupole, unsoftened). Each adds its terms to
// one target's running sums with orrery::xm arithmetic, in a fixed order, so
// a target's acceleration is the same bits whichever backend sums it.
#include "orrery/core/math_mode.hpp"
#include "orrery/tree/octree.hpp"

namespace orrery::gravity {

/// One target's running sums.
template <class Real>
struct Accumulator {
  Real ax = 0, ay = 0, az = 0, pot = 0;
};

/// Adds the softened field of mass m at (sx, sy, sz) to the target at
/// (tx, ty, tz), unless `keep` is false (then the sums are left bit-for-bit
/// unchanged: a select, not a branch). Pot selects whether the potential is summed.
template <bool Pot, MathMode Mode, class Real, class Softening>
ORRERY_HDI void add_particle(Accumulator<Real>& acc, const Softening& soft, Real tx, Real ty, Real tz, Real sx,
                             Real sy, Real sz, Real m, bool keep) {
  const Real dx = xm::sub(sx, tx), dy = xm::sub(sy, ty), dz = xm::sub(sz, tz);
  const auto ff = soft.template factors<Mode>(xm::norm2(dx, dy, dz));
  const Real w = xm::mul(m, ff.f);
  const Real ax = xm::fma(w, dx, acc.ax), ay = xm::fma(w, dy, acc.ay), az = xm::fma(w, dz, acc.az);
  acc.ax = keep ? ax : acc.ax;
  acc.ay = keep ? ay : acc.ay;
  acc.az = keep ? az : acc.az;
  if constexpr (Pot) {
    const Real p = xm::fma(-m, ff.phi, acc.pot);
    acc.pot = keep ? p : acc.pot;
  }
}

/// Adds the unsoftened quadrupole term of a cell with traceless quadrupole q
/// (QuadIndex order) at separation d = com - target:
///   a = -Q d / r^5 + 5/2 (d.Q.d) d / r^7,   phi = -1/2 (d.Q.d) / r^5.
template <bool Pot, MathMode Mode, class Real>
ORRERY_HDI void add_quadrupole(Accumulator<Real>& acc, const Real* q, Real dx, Real dy, Real dz) {
  // One name per using-declaration: nvcc 13.0's front end fails (internal
  // error) on the comma-separated form.
  using tree::kXX;
  using tree::kXY;
  using tree::kXZ;
  using tree::kYY;
  using tree::kYZ;
  using tree::kZZ;
  const Real r2 = xm::norm2(dx, dy, dz);
  const Real rinv = rsqrt<Mode>(r2);
  const Real rinv2 = xm::mul(rinv, rinv);
  const Real rinv5 = xm::mul(xm::mul(rinv2, rinv2), rinv);
  const Real qx = xm::fma(q[kXZ], dz, xm::fma(q[kXY], dy, xm::mul(q[kXX], dx)));
  const Real qy = xm::fma(q[kYZ], dz, xm::fma(q[kYY], dy, xm::mul(q[kXY], dx)));
  const Real qz = xm::fma(q[kZZ], dz, xm::fma(q[kYZ], dy, xm::mul(q[kXZ], dx)));
  const Real dqd = xm::fma(dz, qz, xm::fma(dy, qy, xm::mul(dx, qx)));
  const Real radial = xm::mul(xm::mul(Real(2.5), dqd), xm::mul(rinv5, rinv2));
  acc.ax = xm::add(acc.ax, xm::fma(radial, dx, -xm::mul(qx, rinv5)));
  acc.ay = xm::add(acc.ay, xm::fma(radial, dy, -xm::mul(qy, rinv5)));
  acc.az = xm::add(acc.az, xm::fma(radial, dz, -xm::mul(qz, rinv5)));
  if constexpr (Pot) acc.pot = xm::fma(Real(-0.5), xm::mul(dqd, rinv5), acc.pot);
}

}  // namespace orrery::gravity
