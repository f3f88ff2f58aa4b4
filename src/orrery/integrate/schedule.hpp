#pragma once
// When a periodic output (diagnostics, snapshots, checkpoints) is due, as a
// pure function of the step number: due at step 0 and at every step whose
// time crosses a multiple of the interval. Depending on nothing but (step,
// dt, interval) keeps a restarted run's outputs where an unbroken run has them.
#include <cmath>
#include <cstdint>

namespace orrery::integrate {

struct Schedule {
  double interval = 0;  // simulated time between outputs; <= 0: never (only where forced)

  /// Number of completed intervals at step s (tolerant of rounding in s*dt).
  std::int64_t index(std::int64_t step, double dt) const {
    return static_cast<std::int64_t>(std::floor(static_cast<double>(step) * dt / interval + 1e-9));
  }
  bool due(std::int64_t step, double dt) const {
    if (!(interval > 0)) return false;
    return step == 0 || index(step, dt) > index(step - 1, dt);
  }
};

}  // namespace orrery::integrate
