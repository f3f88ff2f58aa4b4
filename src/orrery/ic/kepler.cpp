#include "orrery/ic/kepler.hpp"

#include <cmath>
#include <numbers>
#include <string>

#include "orrery/core/error.hpp"

namespace orrery::ic {

double kepler_period(double semi_major_axis, double mass) {
  return 2.0 * std::numbers::pi * std::sqrt(semi_major_axis * semi_major_axis * semi_major_axis / mass);
}

Model kepler_model(const KeplerParameters& k) {
  const auto check = [](bool ok, const char* field, double value, const char* accepted) {
    if (!ok || !std::isfinite(value))
      throw InputError(std::string("initial_conditions.kepler.") + field + " = " + std::to_string(value) +
                       "; accepted: " + accepted);
  };
  check(k.eccentricity >= 0 && k.eccentricity < 1, "eccentricity", k.eccentricity, "a number in [0, 1)");
  check(k.semi_major_axis > 0, "semi_major_axis", k.semi_major_axis, "a number > 0");
  check(k.mass_ratio > 0, "mass_ratio", k.mass_ratio, "a number > 0");
  const double e = k.eccentricity, a = k.semi_major_axis;
  const double m1 = 1.0 / (1.0 + k.mass_ratio), m2 = 1.0 - m1;
  const double separation = a * (1.0 + e);
  const double speed = std::sqrt((1.0 - e) / (a * (1.0 + e)));  // G M = 1
  // Each body sits at its share of the relative vector from the centre of mass.
  return {2, false, [=](ParticleSink& out) {
            out.put(0, {-m2 * separation, 0.0, 0.0, 0.0, -m2 * speed, 0.0, m1, 1});
            out.put(1, {m1 * separation, 0.0, 0.0, 0.0, m1 * speed, 0.0, m2, 2});
          }};
}

Particles<double> kepler_orbit(const KeplerParameters& k) { return whole_model(kepler_model(k)); }

}  // namespace orrery::ic
