#pragma once
// The two interactions of a tree walk, written once for host and device:
// particle-particle (a source particle, softened) and particle-cell (the
// cell's monopole, softened like a particle of the cell's mass at its centre
// of mass, plus optionally its second-order term, softened consistently). Each adds its terms to
// one target's running sums with orrery::xm arithmetic, in a fixed order, so
// a target's acceleration is the same bits whichever backend sums it.
#include "orrery/core/math_mode.hpp"
#include "orrery/bh/octree.hpp"

namespace orrery::bh {

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

/// tr(S) of a cell's second moment, summed in the order add_cell_terms'
/// callers must use (a walk may store it per node).
template <class Real>
ORRERY_HDI Real quadrupole_trace(const Real* q) {
  return xm::add(xm::add(q[bh::kXX], q[bh::kYY]), q[bh::kZZ]);
}

/// Adds a cell's field to the target at (tx, ty, tz), unless `keep` is false
/// (then the sums are left bit-for-bit unchanged): its monopole, softened
/// like a particle of mass m at the centre of mass (cx, cy, cz), plus with
/// Quad the second-order term of its expansion, with second moment q
/// (S_ab = sum m d_a d_b about the centre of mass, QuadIndex order) and its
/// trace (quadrupole_trace(q)). With d = com - target, the pair factors
/// (f, phi) of soft.factors(|d|^2) and 1/s = soft.quadrupole_rinv(|d|^2):
///   a   = (m f + 15/2 (d.S.d) / s^7 - 3/2 tr(S) / s^5) d - 3 S d / s^5
///   phi = -m phi - 1/2 [3 d.S.d / s^5 - tr(S) / s^3]
/// For Plummer softening the second-order part is the exact Taylor term of
/// the softened potential (s2 = r2 + eps2); with s2 = r2 it is the Newtonian
/// quadrupole (docs/adr/0005). The monopole and the radial part of the
/// second-order term share one coefficient along d, so each component costs
/// two fused multiply-adds (docs/adr/0008). A monopole cell is add_particle.
template <bool Pot, bool Quad, MathMode Mode, class Real, class Softening>
ORRERY_HDI void add_cell_terms(Accumulator<Real>& acc, const Softening& soft, Real tx, Real ty, Real tz, Real cx,
                               Real cy, Real cz, Real m, const Real* q, Real trace, bool keep) {
  if constexpr (!Quad) {
    add_particle<Pot, Mode>(acc, soft, tx, ty, tz, cx, cy, cz, m, keep);
  } else {
    using bh::kXX;
    using bh::kXY;
    using bh::kXZ;
    using bh::kYY;
    using bh::kYZ;
    using bh::kZZ;
    const Real dx = xm::sub(cx, tx), dy = xm::sub(cy, ty), dz = xm::sub(cz, tz);
    const Real r2 = xm::norm2(dx, dy, dz);
    const auto ff = soft.template factors<Mode>(r2);
    const Real sinv = soft.template quadrupole_rinv<Mode>(r2);
    const Real sinv2 = xm::mul(sinv, sinv);
    const Real sinv3 = xm::mul(sinv2, sinv);
    const Real sinv5 = xm::mul(sinv3, sinv2);
    const Real sx = xm::fma(q[kXZ], dz, xm::fma(q[kXY], dy, xm::mul(q[kXX], dx)));
    const Real sy = xm::fma(q[kYZ], dz, xm::fma(q[kYY], dy, xm::mul(q[kXY], dx)));
    const Real sz = xm::fma(q[kZZ], dz, xm::fma(q[kYZ], dy, xm::mul(q[kXZ], dx)));
    const Real dsd_s2 = xm::mul(xm::fma(dz, sz, xm::fma(dy, sy, xm::mul(dx, sx))), sinv2);  // d.S.d / s^2
    // Along d: m f + (15/2 d.S.d / s^2 - 3/2 tr(S)) / s^5; along S d: -3 / s^5.
    const Real radial = xm::fma(m, ff.f, xm::mul(xm::fma(Real(7.5), dsd_s2, xm::mul(Real(-1.5), trace)), sinv5));
    const Real along = xm::mul(Real(-3), sinv5);
    const Real ax = xm::fma(along, sx, xm::fma(radial, dx, acc.ax));
    const Real ay = xm::fma(along, sy, xm::fma(radial, dy, acc.ay));
    const Real az = xm::fma(along, sz, xm::fma(radial, dz, acc.az));
    acc.ax = keep ? ax : acc.ax;
    acc.ay = keep ? ay : acc.ay;
    acc.az = keep ? az : acc.az;
    if constexpr (Pot) {
      // -m phi + (1/2 tr - 3/2 d.S.d / s^2) / s^3
      const Real p = xm::fma(xm::fma(Real(-1.5), dsd_s2, xm::mul(Real(0.5), trace)), sinv3, xm::fma(-m, ff.phi, acc.pot));
      acc.pot = keep ? p : acc.pot;
    }
  }
}

}  // namespace orrery::bh
