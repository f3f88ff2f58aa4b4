#pragma once
// The walk configurations the CPU bit-identity tests cover (group_walk_test,
// walk_isa_test): monopole and quadrupole x Plummer and spline softening x
// exact and fast math, at theta 0.6, leaf capacity 8, softening 0.02; and the
// run-time-to-template dispatch to the scalar walk they compare against.
#include <string>
#include <type_traits>

#include "orrery/gravity/dispatch.hpp"
#include "orrery/tree/tree_solver.hpp"

namespace orrery::tree::testing {

/// Calls f(config, name), name = input_name plus the configuration and Real.
template <class Real, class F>
void for_each_walk_config(const std::string& input_name, F&& f) {
  for (auto mp : {Multipole::monopole, Multipole::quadrupole}) {
    for (auto kind : {SofteningKind::plummer, SofteningKind::spline}) {
      for (auto mode : {MathMode::exact, MathMode::fast}) {
        TreeSolverConfig c;
        c.tree = {0.6, 8, mp};
        c.softening = 0.02;
        c.softening_kind = kind;
        c.math = mode;
        f(c, input_name + " " + std::string(to_string(mp)) + " " + std::string(to_string(kind)) + " " +
                 std::string(to_string(mode)) + (sizeof(Real) == 4 ? " float" : " double"));
      }
    }
  }
}

/// Calls f(quad, mode, softening) with c's multipole and math mode as
/// compile-time constants (std::bool_constant, std::integral_constant) and its
/// softening policy, as the solver dispatches them.
template <class Real, class F>
void with_walk_parameters(const TreeSolverConfig& c, F&& f) {
  using Exact = std::integral_constant<MathMode, MathMode::exact>;
  using Fast = std::integral_constant<MathMode, MathMode::fast>;
  gravity::with_softening<Real>(c.softening_kind, Real(c.softening), [&](auto soft) {
    const bool quad = c.tree.multipole == Multipole::quadrupole;
    if (c.math == MathMode::exact)
      quad ? f(std::true_type{}, Exact{}, soft) : f(std::false_type{}, Exact{}, soft);
    else
      quad ? f(std::true_type{}, Fast{}, soft) : f(std::false_type{}, Fast{}, soft);
    return 0;
  });
}

}  // namespace orrery::tree::testing
