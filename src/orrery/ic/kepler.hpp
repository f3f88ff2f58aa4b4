#pragma once
// Two bodies on a Kepler orbit, G = 1, total mass M = 1 (Henon mass unit).
// The bodies start at apocentre, separation a (1 + e), relative speed
// sqrt(GM (1 - e) / (a (1 + e))), in the x-y plane, orbiting about +z, in the
// centre-of-mass frame. Masses m1 = M/(1+q) (ID 1) and m2 = M q/(1+q) (ID 2), q = mass_ratio.
// Period T = 2 pi sqrt(a^3 / GM); orbital energy E = -G m1 m2 / (2a).
#include <cstdint>

#include "orrery/core/particles.hpp"
#include "orrery/ic/particle_sink.hpp"

namespace orrery::ic {

struct KeplerParameters {
  double eccentricity = 0.5;     // in [0, 1)
  double semi_major_axis = 1.0;  // > 0
  double mass_ratio = 1.0;       // m2 / m1, > 0
};

/// InputError naming initial_conditions.kepler.<field> for values outside the ranges above.
Particles<double> kepler_orbit(const KeplerParameters& params);

/// kepler_orbit as a model (particle_sink.hpp) of its two rows.
Model kepler_model(const KeplerParameters& params);

/// The orbital period (G = 1, total mass m).
double kepler_period(double semi_major_axis, double mass = 1.0);

}  // namespace orrery::ic
