#include "orrery/ic/plummer.hpp"

#include <cmath>
#include <string>

#include "orrery/core/error.hpp"
#include "orrery/core/rng.hpp"
#include "orrery/ic/sampling.hpp"

namespace orrery::ic {

namespace {

constexpr double kMassCut = 0.999;  // fraction of the mass profile sampled

// Radius in units of the scale radius: invert M(<r) = r^3 / (1 + r^2)^(3/2).
double plummer_radius(Rng& rng) {
  const double mass_fraction = kMassCut * rng.uniform_open0();
  const double c = cube_root_unit(mass_fraction);
  const double c2 = c * c;
  return std::sqrt(c2 / (1.0 - c2));
}

// Speed in units of the escape speed sqrt(2) (1 + r^2)^(-1/4): von Neumann
// rejection from g(q) = q^2 (1 - q^2)^(7/2), whose maximum is below 0.1.
double plummer_speed_fraction(Rng& rng) {
  for (;;) {
    const double q = rng.uniform();
    const double g = 0.1 * rng.uniform();
    const double s = 1.0 - q * q;
    if (g < q * q * s * s * s * std::sqrt(s)) return q;
  }
}

}  // namespace

Model plummer_model(std::int64_t count, std::uint64_t seed) {
  if (count < 1) {
    throw InputError("initial_conditions.count = " + std::to_string(count) + "; accepted: an integer >= 1");
  }
  return {count, true, [count, seed](ParticleSink& out) {
            Rng rng(seed);
            const double a = kPlummerScaleHenon;
            const double velocity_scale = 1.0 / std::sqrt(a);  // G = M = 1: v ~ sqrt(GM/a)
            for (std::int64_t i = 0; i < count; ++i) {
              const double r = plummer_radius(rng);
              const auto n = isotropic_unit_vector(rng);
              const double escape = std::sqrt(2.0) / std::sqrt(std::sqrt(1.0 + r * r));
              const double v = plummer_speed_fraction(rng) * escape;
              const auto nv = isotropic_unit_vector(rng);
              out.put(i, isotropic_particle(i, a * r, n, velocity_scale * v, nv, 1.0 / static_cast<double>(count)));
            }
          }};
}

Particles<double> plummer_sphere(std::int64_t count, std::uint64_t seed) { return whole_model(plummer_model(count, seed)); }

}  // namespace orrery::ic
