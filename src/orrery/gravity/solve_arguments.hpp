#pragma once
// Checks every solver makes before touching the data (contract 7): matching
// counts, finite positions, positive finite masses. O(N), so negligible next
// to any force evaluation. Throws InputError naming the particle and field.
#include <cmath>
#include <string>
#include <string_view>

#include "orrery/core/error.hpp"
#include "orrery/core/particles.hpp"

namespace orrery::gravity {

template <class Real>
void check_solve_arguments(std::string_view solver, const SourcesView<Real>& s, const AccelerationsView<Real>& out) {
  const auto where = [&](std::int64_t i) { return std::string(solver) + ": particle " + std::to_string(i) + " "; };
  if (out.count != s.count) {
    throw InputError(std::string(solver) + ": accelerations hold " + std::to_string(out.count) +
                     " entries but there are " + std::to_string(s.count) + " sources; the counts must be equal");
  }
  for (std::int64_t i = 0; i < s.count; ++i) {
    if (!(std::isfinite(s.x[i]) && std::isfinite(s.y[i]) && std::isfinite(s.z[i]))) {
      throw InputError(where(i) + "has a non-finite position (" + std::to_string(s.x[i]) + ", " +
                       std::to_string(s.y[i]) + ", " + std::to_string(s.z[i]) + "); positions must be finite");
    }
    if (!(std::isfinite(s.mass[i]) && s.mass[i] > 0)) {
      throw InputError(where(i) + "has mass " + std::to_string(s.mass[i]) + "; masses must be finite and > 0");
    }
  }
}

}  // namespace orrery::gravity
