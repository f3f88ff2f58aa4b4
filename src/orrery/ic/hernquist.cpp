#include "orrery/ic/hernquist.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "orrery/core/error.hpp"
#include "orrery/core/rng.hpp"
#include "orrery/ic/sampling.hpp"

namespace orrery::ic {

double hernquist_df(double eps) {
  const double q2 = std::min(eps, 1.0 - 1e-15);
  const double q = std::sqrt(q2);
  const double s = 1.0 - q2;
  const double bracket = 3.0 * std::asin(q) + q * std::sqrt(s) * (1.0 - 2.0 * q2) * (8.0 * q2 * q2 - 8.0 * q2 - 3.0);
  return bracket / (s * s * std::sqrt(s));
}

namespace {

// All in units G = M_h = a = 1, M_h the mass of the untruncated sphere.

/// Radius from the mass fraction m in (0, m_cut]: invert m = r^2 / (1 + r)^2.
double radius_of_mass(double m) {
  const double s = std::sqrt(m);
  return s / (1.0 - s);
}

/// Speed at potential psi: rejection sampling of v^2 f(psi - v^2/2).
double sample_speed(double psi, Rng& rng) {
  const double v_esc = std::sqrt(2.0 * psi);
  const auto g = [&](double v) { return v * v * hernquist_df(psi - 0.5 * v * v); };
  double peak = 0;
  constexpr int kGrid = 64;
  for (int k = 1; k < kGrid; ++k) peak = std::max(peak, g(v_esc * k / kGrid));
  const double bound = 1.2 * peak;
  for (;;) {
    const double v = v_esc * rng.uniform();
    if (bound * rng.uniform() < g(v)) return v;
  }
}

}  // namespace

Model hernquist_model(std::int64_t count, std::uint64_t seed, const HernquistParameters& params) {
  if (count < 1) throw InputError("initial_conditions.count = " + std::to_string(count) + "; accepted: an integer >= 1");
  if (!(params.truncation > 0) || !std::isfinite(params.truncation))
    throw InputError("initial_conditions.hernquist.truncation = " + std::to_string(params.truncation) +
                     "; accepted: a number > 0 (in scale radii)");
  return {count, true, [count, seed, cut = params.truncation](ParticleSink& out) {
            Rng rng(seed);
            const double m_cut = cut * cut / ((1.0 + cut) * (1.0 + cut));
            // Units of the untruncated sphere (mass M_h = 1/m_cut, scale a) to Henon.
            const double a = kHernquistScaleHenon;
            const double mass_h = 1.0 / m_cut;
            const double velocity_unit = std::sqrt(mass_h / a);
            for (std::int64_t i = 0; i < count; ++i) {
              const double r = radius_of_mass(m_cut * rng.uniform_open0());
              const auto n = isotropic_unit_vector(rng);
              const double v = sample_speed(1.0 / (1.0 + r), rng);
              const auto nv = isotropic_unit_vector(rng);
              out.put(i, isotropic_particle(i, a * r, n, velocity_unit * v, nv, 1.0 / static_cast<double>(count)));
            }
          }};
}

Particles<double> hernquist_sphere(std::int64_t count, std::uint64_t seed, const HernquistParameters& params) {
  return whole_model(hernquist_model(count, seed, params));
}

}  // namespace orrery::ic
