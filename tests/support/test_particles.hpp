#pragma once
// Particle sets shared by the gravity tests.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "orrery/core/particles.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/ic/plummer.hpp"

namespace orrery::testing {

template <class Real>
Particles<Real> plummer(std::int64_t n, std::uint64_t seed) {
  return ic::to_precision<Real>(ic::plummer_sphere(n, seed));
}

/// Relative acceleration errors |a - a_ref| / |a_ref|: RMS and maximum.
struct ErrorStats {
  double rms = 0;
  double max = 0;
};

template <class Real>
ErrorStats acceleration_errors(const Accelerations<Real>& a, const Accelerations<double>& ref) {
  ErrorStats s;
  for (std::int64_t i = 0; i < a.size(); ++i) {
    const double dx = a.ax[i] - ref.ax[i], dy = a.ay[i] - ref.ay[i], dz = a.az[i] - ref.az[i];
    const double r2 = ref.ax[i] * ref.ax[i] + ref.ay[i] * ref.ay[i] + ref.az[i] * ref.az[i];
    const double e2 = (dx * dx + dy * dy + dz * dz) / r2;
    s.rms += e2;
    s.max = std::max(s.max, std::sqrt(e2));
  }
  s.rms = std::sqrt(s.rms / static_cast<double>(a.size()));
  return s;
}

}  // namespace orrery::testing
