#pragma once
// The places where run-time configuration becomes compile-time types
// (DESIGN §2: configuration is dispatched once on the host, never branched
// on inside a kernel).
#include <utility>

#include "orrery/core/softening.hpp"
#include "orrery/gravity/gravity_config.hpp"

namespace orrery::gravity {

/// Calls f(policy) with PlummerSoftening<Real>(eps) or SplineSoftening<Real>(eps)
/// and returns what f returns (both calls must return the same type).
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

/// Calls f(float{}) or f(double{}) for single or double precision: the tag's
/// type is the Real of everything built inside f.
template <class F>
decltype(auto) with_precision(Precision p, F&& f) {
  if (p == Precision::double_) return std::forward<F>(f)(double{});
  return std::forward<F>(f)(float{});
}

}  // namespace orrery::gravity
