#pragma once
// The two interactions of a tree walk, written once for host and device:
// particle-particle (a source particle, softened) and particle-cell (the
// cell's monopole, softened like a particle of the cell's mass at its centre
// of mass, plus optionally its terms of order 2 to 4, softened consistently). Each adds its terms to
// one target's running sums with orrery::xm arithmetic, in a fixed order, so
// a target's acceleration is the same bits whichever backend sums it.
#include "orrery/core/math_mode.hpp"
#include "orrery/bh/multipole_tensors.hpp"
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

/// The terms of orders 2 to N (3 or 4) of a cell's softened Cartesian
/// expansion (docs/adr/0016), for add_cell_terms: with 1/s =
/// soft.quadrupole_rinv(|d|^2), e = d / s and the moments q of the node
/// (multipole_tensors.hpp's layout: S, then the third moment O, then the
/// fourth H), the n-th order term of the acceleration is s^-(n+2) (R_n e +
/// V_n) and of the potential s^-(n+1) P_n, where, the traces taken over one
/// pair of indices (t = tr O, T = tr H, T0 = tr T):
///   n = 2: R = 15/2 eSe - 3/2 trS,  V = -3 Se,  P = -3/2 eSe + 1/2 trS
///   n = 3: R = -35/2 O:eee + 15/2 t.e,  V = 15/2 O:ee - 3/2 t,  P = 5/2 O:eee - 3/2 t.e
///   n = 4: R = 315/8 H:eeee - 105/4 T:ee + 15/8 T0,  V = -35/2 H:eee + 15/2 T e,
///          P = -35/8 H:eeee + 15/4 T:ee - 3/8 T0
/// the Taylor terms of sum_j -m_j / s_j, the derivatives of 1/s taken with
/// the softened distance as the quadrupole's are (docs/adr/0005). The
/// contractions are with e, not d: each is bounded by the moment itself, and
/// no power of 1/s beyond the quadrupole's s^-5 is formed (s^-11 overflows a
/// float at s < 3e-4). Summed over n by Horner in 1/s, then folded as the
/// quadrupole's: a = (m f + s^-5 sum R) d + s^-4 sum V, two fmas a component.
template <bool Pot, Multipole M, MathMode Mode, class Real, class Softening>
ORRERY_HDI_ALWAYS void add_cell_terms_high(Accumulator<Real>& acc, const Softening& soft, Real tx, Real ty, Real tz, Real cx,
                                    Real cy, Real cz, Real m, const Real* q, bool keep) {
  static_assert(multipole_order(M) >= 3);
  constexpr bool kHex = multipole_order(M) >= 4;
  const Real dx = xm::sub(cx, tx), dy = xm::sub(cy, ty), dz = xm::sub(cz, tz);
  const Real r2 = xm::norm2(dx, dy, dz);
  const auto ff = soft.template factors<Mode>(r2);
  const Real sinv = soft.template quadrupole_rinv<Mode>(r2);
  const Real ex = xm::mul(dx, sinv), ey = xm::mul(dy, sinv), ez = xm::mul(dz, sinv);
  // Order 2.
  const Real* S = q;
  Real se[3], trs;
  contract<2>(S, ex, ey, ez, se);
  trace<2>(S, &trs);
  Real ese;
  contract<1>(se, ex, ey, ez, &ese);
  // Order 3.
  const Real* O = q + moment_offset(3);
  Real oe[6], oee[3], oeee, tv[3], te;
  contract<3>(O, ex, ey, ez, oe);
  contract<2>(oe, ex, ey, ez, oee);
  contract<1>(oee, ex, ey, ez, &oeee);
  trace<3>(O, tv);
  contract<1>(tv, ex, ey, ez, &te);
  Real radial = xm::fma(Real(-17.5), oeee, xm::mul(Real(7.5), te));  // R_3, then R_3 + R_4 / s
  Real v[3];                                                           // V_3, then V_3 + V_4 / s
  // (Component by component, not a loop: g++ leaves a short loop rolled
  // in a body this large, and the lane loop then does not vectorise.)
  v[0] = xm::fma(Real(7.5), oee[0], xm::mul(Real(-1.5), tv[0]));
  v[1] = xm::fma(Real(7.5), oee[1], xm::mul(Real(-1.5), tv[1]));
  v[2] = xm::fma(Real(7.5), oee[2], xm::mul(Real(-1.5), tv[2]));
  Real p = xm::fma(Real(2.5), oeee, xm::mul(Real(-1.5), te));  // P_3, then P_3 + P_4 / s
  if constexpr (kHex) {
    const Real* H = q + moment_offset(4);
    Real he[10], hee[6], heee[3], heeee, tt[6], tte[3], ttee, t0;
    contract<4>(H, ex, ey, ez, he);
    contract<3>(he, ex, ey, ez, hee);
    contract<2>(hee, ex, ey, ez, heee);
    contract<1>(heee, ex, ey, ez, &heeee);
    trace<4>(H, tt);
    contract<2>(tt, ex, ey, ez, tte);
    contract<1>(tte, ex, ey, ez, &ttee);
    trace<2>(tt, &t0);
    const Real r4 = xm::fma(Real(39.375), heeee, xm::fma(Real(-26.25), ttee, xm::mul(Real(1.875), t0)));
    radial = xm::fma(r4, sinv, radial);
    v[0] = xm::fma(xm::fma(Real(-17.5), heee[0], xm::mul(Real(7.5), tte[0])), sinv, v[0]);
    v[1] = xm::fma(xm::fma(Real(-17.5), heee[1], xm::mul(Real(7.5), tte[1])), sinv, v[1]);
    v[2] = xm::fma(xm::fma(Real(-17.5), heee[2], xm::mul(Real(7.5), tte[2])), sinv, v[2]);
    const Real p4 = xm::fma(Real(-4.375), heeee, xm::fma(Real(3.75), ttee, xm::mul(Real(-0.375), t0)));
    p = xm::fma(p4, sinv, p);
  }
  radial = xm::fma(radial, sinv, xm::fma(Real(7.5), ese, xm::mul(Real(-1.5), trs)));  // sum R_n s^(2-n)
  v[0] = xm::fma(v[0], sinv, xm::mul(Real(-3), se[0]));  // sum V_n s^(2-n)
  v[1] = xm::fma(v[1], sinv, xm::mul(Real(-3), se[1]));
  v[2] = xm::fma(v[2], sinv, xm::mul(Real(-3), se[2]));
  const Real sinv2 = xm::mul(sinv, sinv);
  const Real sinv4 = xm::mul(sinv2, sinv2);
  const Real along_d = xm::fma(m, ff.f, xm::mul(radial, xm::mul(sinv4, sinv)));
  const Real ax = xm::fma(sinv4, v[0], xm::fma(along_d, dx, acc.ax));
  const Real ay = xm::fma(sinv4, v[1], xm::fma(along_d, dy, acc.ay));
  const Real az = xm::fma(sinv4, v[2], xm::fma(along_d, dz, acc.az));
  acc.ax = keep ? ax : acc.ax;
  acc.ay = keep ? ay : acc.ay;
  acc.az = keep ? az : acc.az;
  if constexpr (Pot) {
    p = xm::fma(p, sinv, xm::fma(Real(-1.5), ese, xm::mul(Real(0.5), trs)));  // sum P_n s^(2-n)
    const Real pot = xm::fma(p, xm::mul(sinv2, sinv), xm::fma(-m, ff.phi, acc.pot));
    acc.pot = keep ? pot : acc.pot;
  }
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
/// Orders 3 and 4 (M octupole, hexadecapole) are add_cell_terms_high's, with
/// q the node's 16 or 31 moments (trace unused).
template <bool Pot, Multipole M, MathMode Mode, class Real, class Softening>
ORRERY_HDI_ALWAYS void add_cell_terms(Accumulator<Real>& acc, const Softening& soft, Real tx, Real ty, Real tz, Real cx,
                               Real cy, Real cz, Real m, const Real* q, Real trace, bool keep) {
  if constexpr (M == Multipole::monopole) {
    add_particle<Pot, Mode>(acc, soft, tx, ty, tz, cx, cy, cz, m, keep);
  } else if constexpr (multipole_order(M) >= 3) {
    add_cell_terms_high<Pot, M, Mode>(acc, soft, tx, ty, tz, cx, cy, cz, m, q, keep);
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
