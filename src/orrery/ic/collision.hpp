#pragma once
// Two equal Plummer spheres on a collision orbit, G = 1, total mass M = 1
// (each sphere mass 1/2, in equilibrium, with the Plummer scale radius of the
// Henon-unit sphere, 3 pi / 16). Sphere 1 gets IDs 1..N/2, sphere 2 the rest.
//
// Their centres start `separation` apart; sphere 2 moves towards sphere 1
// along -x with the relative speed `relative_velocity` (parabolic, i.e.
// sqrt(2 G M / separation) for point masses, when < 0) and an offset
// `impact_parameter` in y (0: head-on). The whole is in the centre-of-mass frame.
#include <cstdint>

#include "orrery/core/particles.hpp"
#include "orrery/ic/particle_sink.hpp"

namespace orrery::ic {

struct CollisionParameters {
  double separation = 10.0;       // > 0, > impact_parameter
  double impact_parameter = 0.0;  // >= 0
  double relative_velocity = -1;  // < 0: parabolic
};

/// count >= 2. InputError naming initial_conditions.collision.<field> otherwise.
Particles<double> plummer_collision(std::int64_t count, std::uint64_t seed, const CollisionParameters& params = {});

/// plummer_collision as a model (particle_sink.hpp), for rows of it.
Model collision_model(std::int64_t count, std::uint64_t seed, const CollisionParameters& params = {});

}  // namespace orrery::ic
