#pragma once
// The number of steps of dt that reach a time span, refused when it does not
// fit: beyond 2^53 steps neither the int64 step counter's conversion from the
// double quotient nor step * dt (the time of a step, schedule.hpp) is exact,
// and a quotient beyond 2^63 converted to int64 ran 0 steps and "succeeded".
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "orrery/core/error.hpp"

namespace orrery::integrate {

inline constexpr double kMaxSteps = 9007199254740992.0;  // 2^53

/// ceil(span / dt) (0 when span <= 0, tolerant of rounding in span / dt).
/// InputError naming the step count when it exceeds kMaxSteps.
inline std::int64_t step_count(double span, double dt) {
  const double steps = std::ceil(span / dt - 1e-9);
  if (!(steps <= kMaxSteps)) {
    char text[160];
    std::snprintf(text, sizeof text, "integration.t_end / integration.dt = %g / %g = %g steps", span, dt, steps);
    throw InputError(std::string(text) + "; accepted: at most 2^53 = 9007199254740992 steps "
                                         "(a larger integration.dt or a smaller integration.t_end)");
  }
  return steps > 0 ? static_cast<std::int64_t>(steps) : 0;
}

}  // namespace orrery::integrate
