#pragma once
// A uniform sphere at rest (the cold-collapse test), in Henon units: G = M = 1
// and radius R = 12/5, so E = W = -3GM^2/(5R) = -1/4. It collapses in the
// free-fall time t_ff = (pi/2) sqrt(R^3 / (2GM)) ~ 4.13, bounces and relaxes
// towards virial equilibrium.
//
// Positions by rejection from the cube (uniform in volume, IEEE-exact
// arithmetic only), zero velocities, equal masses 1/N, IDs 1..N,
// centre-of-mass frame.
#include <cstdint>

#include "orrery/core/particles.hpp"
#include "orrery/ic/particle_sink.hpp"

namespace orrery::ic {

inline constexpr double kColdSphereRadiusHenon = 12.0 / 5.0;

/// The free-fall time of a uniform sphere of mass m and radius r (G = 1).
double free_fall_time(double mass, double radius);

/// count >= 1 (InputError otherwise).
Particles<double> cold_sphere(std::int64_t count, std::uint64_t seed);

/// cold_sphere as a model (particle_sink.hpp), for rows of it.
Model cold_sphere_model(std::int64_t count, std::uint64_t seed);

}  // namespace orrery::ic
