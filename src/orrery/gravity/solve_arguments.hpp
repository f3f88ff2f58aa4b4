#pragma once
// Checks every solver makes before touching the data (contract 7): matching
// counts, finite positions, positive finite masses. O(N), so negligible next
// to any force evaluation. Throws InputError naming the particle and field.
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "orrery/core/error.hpp"
#include "orrery/core/particles.hpp"
#include "orrery/gravity/targets.hpp"

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

/// Points given as targets are finite (InputError naming the first that is not).
template <class Real>
void check_target_points(const TargetSet<Real>& t) {
  for (std::int64_t k = 0; k < t.count; ++k)
    if (!(std::isfinite(t.x[k]) && std::isfinite(t.y[k]) && std::isfinite(t.z[k])))
      throw InputError("target point " + std::to_string(k) + " at (" + std::to_string(t.x[k]) + ", " +
                       std::to_string(t.y[k]) + ", " + std::to_string(t.z[k]) + ") is not finite; positions must be finite");
}

/// The checks of a solve at a TargetSet (host arrays) by a solver that sums
/// every pair: the sources as check_solve_arguments checks them, `out`
/// holding targets.count entries, points with three finite coordinates, and
/// indices in range and listed once (targets.hpp's messages). O(N + count).
template <class Real>
void check_target_set(std::string_view solver, const SourcesView<Real>& s, const TargetSet<Real>& t,
                      const AccelerationsView<Real>& out) {
  check_solve_arguments(solver, s, AccelerationsView<Real>{s.count});
  if (out.count != t.count)
    throw InputError(std::string(solver) + ": accelerations hold " + std::to_string(out.count) + " entries for " +
                     std::to_string(t.count) + " targets; they must be equal");
  if (t.index == nullptr) {
    if (t.y == nullptr || t.z == nullptr)
      throw InputError("target points need x, y and z; accepted: three arrays of targets.count positions");
    check_target_points(t);
    return;
  }
  std::vector<std::int64_t> listed(static_cast<std::size_t>(s.count), -1);  // the target naming each source
  for (std::int64_t k = 0; k < t.count; ++k) {
    const std::int64_t j = t.index[k];
    if (j < 0 || j >= s.count) throw InputError(target_out_of_range(k, j, s.count));
    if (listed[j] >= 0) throw InputError(target_listed_twice(j, k));
    listed[j] = k;
  }
}

}  // namespace orrery::gravity
