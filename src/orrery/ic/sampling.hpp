#pragma once
// Building blocks for initial conditions that are reproducible bit for bit on
// any platform: only IEEE-exact operations (+ - * / sqrt, which every
// conforming compiler and libm rounds correctly) on the uniforms of
// orrery::Rng. libm's cbrt, pow, sin, cos and log carry no such guarantee.
#include <array>

#include "orrery/core/particles.hpp"
#include "orrery/core/rng.hpp"

namespace orrery::ic {

/// x^(1/3) for x in (0, 1], by a fixed number of Newton steps from a fixed
/// start: deterministic, accurate to a few ulp.
double cube_root_unit(double x);

/// A unit vector uniformly distributed on the sphere (Marsaglia's rejection
/// from the cube: no trigonometric functions).
std::array<double, 3> isotropic_unit_vector(Rng& rng);

/// Sets particle i of an isotropic model: position r * n, velocity v * nv,
/// the given mass, ID i + 1 (n and nv unit vectors).
void place_isotropic(Particles<double>& p, std::int64_t i, double r, const std::array<double, 3>& n, double v,
                     const std::array<double, 3>& nv, double mass);

/// Moves positions and velocities to the centre-of-mass frame (compensated sums).
template <class Real>
void move_to_centre_of_mass(Particles<Real>& p);

}  // namespace orrery::ic
