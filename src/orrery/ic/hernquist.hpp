#pragma once
// The Hernquist (1990) sphere, isotropic, sampled from its distribution
// function, in Henon units: G = M = 1, scale radius a = 1/3 (the untruncated
// model has E = -GM^2/(12a) = -1/4).
//
//   rho(r) = M a / (2 pi r (r + a)^3),  M(<r) = M r^2 / (r + a)^2,
//   Psi(r) = GM / (r + a),
//   f(eps) ∝ (1 - q^2)^(-5/2) [3 asin q + q sqrt(1 - q^2) (1 - 2q^2)(8q^4 - 8q^2 - 3)],
//   q = sqrt(a eps / GM)  (Hernquist 1990, eq. 17).
//
// Truncation: radii are drawn from the profile inside `truncation` scale
// radii (default 100 a, holding 98.0 % of the untruncated mass). The
// particles carry the whole mass M = 1; inside the cut the density and the
// force are exactly those of a Hernquist sphere of mass M / m(cut) (mass
// outside a radius exerts no force inside it), and velocities are drawn from
// that sphere's distribution function. Only orbits reaching beyond the cut
// (a few per cent of the particles, all in the outskirts) feel the missing mass.
//
// Speeds: von Neumann rejection of v^2 f(Psi - v^2/2) on [0, v_esc] against
// 1.2 times its maximum on a 64-point grid. Equal masses 1/N, IDs 1..N,
// centre-of-mass frame. Reproducible from the seed; asin comes from libm, so
// bit-identity across different libm versions is not promised (the same
// build gives the same bits).
#include <cstdint>

#include "orrery/core/particles.hpp"
#include "orrery/ic/particle_sink.hpp"

namespace orrery::ic {

inline constexpr double kHernquistScaleHenon = 1.0 / 3.0;

struct HernquistParameters {
  double truncation = 100.0;  // in scale radii, > 0
};

/// count >= 1; truncation > 0 (InputError naming initial_conditions.hernquist.truncation).
Particles<double> hernquist_sphere(std::int64_t count, std::uint64_t seed, const HernquistParameters& params = {});

/// hernquist_sphere as a model (particle_sink.hpp), for rows of it.
Model hernquist_model(std::int64_t count, std::uint64_t seed, const HernquistParameters& params = {});

/// The isotropic distribution function in units G = M = a = 1, up to a constant
/// factor; eps in (0, 1]. For the tests and the sampler.
double hernquist_df(double eps);

}  // namespace orrery::ic
