#pragma once
// Softening policies, selected at compile time (DESIGN §2, §5).
//
// A policy maps the squared separation r2 of a pair to two factors:
//   f   so that the acceleration of the target is  m * f * (x_source - x_target)
//   phi so that the potential of the target is    -m * phi
// Both kernels are evaluated branch-free (all cases computed, then selected),
// with the arithmetic of orrery::xm so the CPU and the GPU agree bit for bit
// in exact mode. The caller excludes a target's interaction with itself.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "orrery/core/error.hpp"
#include "orrery/core/math_mode.hpp"

namespace orrery {

enum class SofteningKind : std::uint8_t { plummer, spline };

constexpr std::string_view to_string(SofteningKind k) {
  return k == SofteningKind::plummer ? "plummer" : "spline";
}

/// The softening length eps (code units) as every solver accepts it: a number
/// >= 0 (0: none). Returns eps; otherwise (negative, NaN) throws InputError
/// naming gravity.softening, the value and what is accepted, the message the
/// configuration gives for the same value. Every solver calls it once, where
/// it is constructed; the policies below take eps as valid.
template <class Real>
Real validated_softening(Real eps) {
  if (eps >= Real(0)) return eps;
  char text[32];
  const auto [end, ec] = std::to_chars(text, text + sizeof text, eps);  // the shortest text of eps
  throw InputError("gravity.softening = " + std::string(text, ec == std::errc() ? end : text) +
                   " is not accepted; accepted: a number >= 0");
}

template <class Real>
struct ForceFactors {
  Real f;
  Real phi;
};

/// 1/sqrt(s2), s2 first raised to `tiny` (the policies' guard). The pair term
/// and a cell's second-order term both call it: with Plummer softening they
/// take the same s2, and the compiler then evaluates the square root once.
template <MathMode Mode, class Real>
ORRERY_HDI Real guarded_rsqrt(Real s2, Real tiny) {
  return rsqrt<Mode>(s2 > tiny ? s2 : tiny);
}

/// Plummer softening: phi = 1/sqrt(r2 + eps2), f = phi^3.
template <class Real>
struct PlummerSoftening {
  static constexpr SofteningKind kind = SofteningKind::plummer;
  Real eps2;

  explicit PlummerSoftening(Real eps) : eps2(eps * eps) {}

  template <MathMode Mode>
  ORRERY_HDI ForceFactors<Real> factors(Real r2) const {
    // eps = 0 and r2 = 0 only for coincident distinct particles: guard the
    // division so the result is finite (the pair then contributes 0 * huge).
    const Real rinv = guarded_rsqrt<Mode>(xm::add(r2, eps2), tiny());
    return {xm::mul(xm::mul(rinv, rinv), rinv), rinv};
  }
  /// 1/s for a cell's quadrupole term: the expansion of the Plummer potential
  /// -m/sqrt(r2 + eps2) is in s2 = r2 + eps2 (the pair term's 1/s).
  template <MathMode Mode>
  ORRERY_HDI Real quadrupole_rinv(Real r2) const {
    return guarded_rsqrt<Mode>(xm::add(r2, eps2), tiny());
  }
  // The smallest r2 the kernels divide by: large enough that 1/tiny^(3/2)
  // stays finite (float: 1e-24 -> 1e36; double: 1e-200 -> 1e300), so a pair
  // of coincident particles without softening contributes 0 * finite = 0.
  ORRERY_HD static constexpr Real tiny() { return sizeof(Real) == 4 ? Real(1e-24) : Real(1e-200); }
};

/// The cubic-spline kernel of GADGET-2 (Springel 2005, eq. 4), with the
/// Plummer-equivalent softening eps: the force is exactly Newtonian beyond
/// h = 2.8 eps, and the potential at r = 0 is -m/eps like Plummer's.
template <class Real>
struct SplineSoftening {
  static constexpr SofteningKind kind = SofteningKind::spline;
  Real h;
  Real h_inv;

  explicit SplineSoftening(Real eps) : h(Real(2.8) * eps), h_inv(eps > 0 ? Real(1) / (Real(2.8) * eps) : Real(0)) {}

  template <MathMode Mode>
  ORRERY_HDI ForceFactors<Real> factors(Real r2) const {
    using namespace xm;
    const Real safe_r2 = r2 > tiny() ? r2 : tiny();
    const Real rinv = guarded_rsqrt<Mode>(r2, tiny());
    const Real r = mul(safe_r2, rinv);
    const Real newton_f = mul(mul(rinv, rinv), rinv);
    // u = r/h; with eps = 0 h_inv = 0 and u = 0, but then r >= h selects Newton.
    const Real u = mul(r, h_inv);
    const Real u2 = mul(u, u);
    const Real h_inv3 = mul(mul(h_inv, h_inv), h_inv);
    // Inner part, u < 1/2.
    const Real f_in = mul(h_inv3, fma(u2, fma(Real(32), u, Real(-38.4)), Real(10.666666666667)));
    const Real w_in = fma(u2, fma(u2, fma(Real(6.4), u, Real(-9.6)), Real(5.333333333333)), Real(-2.8));
    // Outer part, 1/2 <= u < 1 (u guarded against 0: this arm is not selected there).
    const Real us = u > Real(0.25) ? u : Real(0.25);
    const Real us3 = mul(mul(us, us), us);
    const Real f_out = mul(h_inv3, sub(fma(u, fma(u, fma(Real(-10.666666666667), u, Real(38.4)), Real(-48)), Real(21.333333333333)),
                                       div(Real(0.066666666667), us3)));
    const Real w_out = add(add(Real(-3.2), div(Real(0.066666666667), us)),
                           mul(u2, fma(u, fma(u, fma(Real(-2.133333333333), u, Real(9.6)), Real(-16)), Real(10.666666666667))));
    const bool newton = r >= h;
    const bool inner = u < Real(0.5);
    const Real f = newton ? newton_f : (inner ? f_in : f_out);
    const Real phi = newton ? rinv : -mul(h_inv, inner ? w_in : w_out);
    return {f, phi};
  }
  /// The spline kernel is Newtonian beyond h, where cells are accepted in
  /// practice; its quadrupole term is the Newtonian one (1/s = 1/r).
  template <MathMode Mode>
  ORRERY_HDI Real quadrupole_rinv(Real r2) const {
    return guarded_rsqrt<Mode>(r2, tiny());
  }
  // The smallest r2 the kernels divide by: large enough that 1/tiny^(3/2)
  // stays finite (float: 1e-24 -> 1e36; double: 1e-200 -> 1e300), so a pair
  // of coincident particles without softening contributes 0 * finite = 0.
  ORRERY_HD static constexpr Real tiny() { return sizeof(Real) == 4 ? Real(1e-24) : Real(1e-200); }
};

/// Calls f(PlummerSoftening<Real>(eps)) or f(SplineSoftening<Real>(eps)) as
/// `kind` says and returns what f returns (both calls must return the same
/// type): the run-time kind to the compile-time policy, once, on the host.
template <class Real, class F>
decltype(auto) with_softening(SofteningKind kind, Real eps, F&& f) {
  switch (kind) {
    case SofteningKind::spline:
      return std::forward<F>(f)(SplineSoftening<Real>(eps));
    case SofteningKind::plummer:
      break;
  }
  return std::forward<F>(f)(PlummerSoftening<Real>(eps));
}

}  // namespace orrery
