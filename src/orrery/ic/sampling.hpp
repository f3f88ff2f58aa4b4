#pragma once
// Building blocks for initial conditions that are reproducible bit for bit on
// any platform: only IEEE-exact operations (+ - * / sqrt, which every
// conforming compiler and libm rounds correctly) on the uniforms of
// orrery::Rng. libm's cbrt, pow, sin, cos and log carry no such guarantee.
#include <array>

#include "orrery/core/compensated_sum.hpp"
#include "orrery/core/particles.hpp"
#include "orrery/core/rng.hpp"
#include "orrery/ic/particle_sink.hpp"

namespace orrery::ic {

/// x^(1/3) for x in (0, 1], by a fixed number of Newton steps from a fixed
/// start: deterministic, accurate to a few ulp.
double cube_root_unit(double x);

/// A unit vector uniformly distributed on the sphere (Marsaglia's rejection
/// from the cube: no trigonometric functions).
std::array<double, 3> isotropic_unit_vector(Rng& rng);

/// Particle i of an isotropic model: position r * n, velocity v * nv, the
/// given mass, ID i + 1 (n and nv unit vectors).
GeneratedParticle isotropic_particle(std::int64_t i, double r, const std::array<double, 3>& n, double v,
                                     const std::array<double, 3>& nv, double mass);

/// The mass-weighted sums of positions and velocities (compensated), added
/// particle by particle, and the shift to the centre-of-mass frame they give.
/// The same particles added in the same order give the same bits, whether
/// an array holds them (move_to_centre_of_mass) or they pass one by one
/// (particle_sink.hpp).
class CentreOfMass {
 public:
  /// w: x, y, z, vx, vy, vz.
  void add(double mass, const std::array<double, 6>& w) {
    mass_ += mass;
    for (int k = 0; k < 6; ++k) moment_[k] += mass * w[k];
  }
  /// The centre of mass: x, y, z, vx, vy, vz.
  std::array<double, 6> centre() const {
    std::array<double, 6> c;
    for (int k = 0; k < 6; ++k) c[k] = moment_[k].value() / mass_.value();
    return c;
  }
  /// Subtracts the centre of mass (rounded to Real) from every particle of p.
  template <class Real>
  void shift(Particles<Real>& p) const;

 private:
  CompensatedSum mass_, moment_[6];
};

/// Moves positions and velocities to the centre-of-mass frame (compensated sums).
template <class Real>
void move_to_centre_of_mass(Particles<Real>& p);

}  // namespace orrery::ic
