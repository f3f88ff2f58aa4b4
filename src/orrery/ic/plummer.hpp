#pragma once
// The Plummer sphere of Aarseth, Henon & Wielen (1974), in Henon units:
// G = M = 1, total energy E = -1/4 (Plummer scale radius a = 3*pi/16, so the
// half-mass radius is a / sqrt(2^(2/3) - 1) ~ 0.7686 and the virial radius 1).
//
// Equal masses 1/N, ids 1..N, shifted to the centre-of-mass frame (position
// and velocity). Radii are drawn from the mass profile truncated at 99.9 % of
// the mass (r < ~22.8 in Henon units), as is customary, so no particle lands
// absurdly far out. Reproducible: the same (count, seed) gives the same bits
// on every compiler and standard library, because only IEEE-exact operations
// (+ - * / sqrt) are applied to the raw draws of orrery::Rng.
#include <cstdint>

#include "orrery/core/particles.hpp"
#include "orrery/ic/particle_sink.hpp"

namespace orrery::ic {

/// Plummer scale radius in Henon units.
inline constexpr double kPlummerScaleHenon = 3.0 * 3.14159265358979323846 / 16.0;

/// count >= 1 (InputError otherwise, naming initial_conditions.count).
Particles<double> plummer_sphere(std::int64_t count, std::uint64_t seed);

/// plummer_sphere as a model (particle_sink.hpp), for rows of it.
Model plummer_model(std::int64_t count, std::uint64_t seed);

}  // namespace orrery::ic
