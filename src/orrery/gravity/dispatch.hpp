#pragma once
// The places where run-time configuration becomes compile-time types
// (DESIGN §2: configuration is dispatched once on the host, never branched
// on inside a kernel). The dispatchers, one per choice:
//   precision       with_precision  (here: Precision is a gravity setting)
//   softening kind  with_softening  (core/softening.hpp)
//   math mode       with_math_mode  (core/math_mode.hpp)
// bh/ uses the last two as well; a solver of gravity/ uses these and writes
// no ladder of its own.
#include <memory>
#include <utility>

#include "orrery/core/math_mode.hpp"
#include "orrery/core/softening.hpp"
#include "orrery/gravity/gravity_config.hpp"

namespace orrery::gravity {

/// Calls f(float{}) or f(double{}) for single or double precision: the tag's
/// type is the Real of everything built inside f.
template <class F>
decltype(auto) with_precision(Precision p, F&& f) {
  if (p == Precision::double_) return std::forward<F>(f)(double{});
  return std::forward<F>(f)(float{});
}

/// std::make_unique<Solver<Real, Policy>>(eps, args...) as a Base, Policy the
/// softening policy `kind` names (with_softening): a solver templated on its
/// softening, built from the configuration's kind.
template <template <class, class> class Solver, class Base, class Real, class... Args>
std::unique_ptr<Base> make_softened(SofteningKind kind, Real eps, Args&&... args) {
  return with_softening<Real>(kind, eps, [&](auto soft) -> std::unique_ptr<Base> {
    return std::make_unique<Solver<Real, decltype(soft)>>(eps, std::forward<Args>(args)...);
  });
}

}  // namespace orrery::gravity
