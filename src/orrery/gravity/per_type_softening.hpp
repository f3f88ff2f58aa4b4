#pragma once
// Which solvers compute a softening per particle type (docs/softening.md):
// the CPU ones. The others refuse it with one message, from the factory
// (solver_factory.cpp) and from their own constructors.
#include <string>
#include <string_view>

#include "orrery/core/error.hpp"

namespace orrery::gravity {

/// The solvers that compute a softening per type, as "solver/backend".
inline constexpr std::string_view kPerTypeSolvers = "reference/cpu, direct/cpu, tree/cpu";

/// The message of refuse_per_type_softening (its wording is tested in per_type_softening_test.cpp).
inline std::string per_type_softening_refusal(std::string_view solver) {
  return "gravity.softening_per_type: solver " + std::string(solver) +
         " computes one softening for every particle, not a softening per type; accepted: the solvers " +
         std::string(kPerTypeSolvers) + " (gravity.backend = \"cpu\" or \"auto\"), or one softening for every type";
}

/// InputError: `solver` ("solver/backend") computes one softening for every particle.
[[noreturn]] inline void refuse_per_type_softening(std::string_view solver) {
  throw InputError(per_type_softening_refusal(solver));
}

}  // namespace orrery::gravity
