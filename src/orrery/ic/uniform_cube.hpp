#pragma once
// A uniform cube of random masses: the tree benchmarks' and accuracy tests'
// homogeneous distribution (issue 21), on which every cell at one level has
// about the same mass and the force at a target is the sum of many
// cancelling contributions. Positions uniform in [-half_side, half_side)^3,
// masses U(0, 1) / N (total about 1/2), at rest, IDs 1..N. Only IEEE-exact
// operations on orrery::Rng's uniforms: the same bits on every platform.
#include <cstdint>

#include "orrery/core/particles.hpp"
#include "orrery/ic/particle_sink.hpp"

namespace orrery::ic {

/// count >= 1, half_side > 0 (InputError otherwise). No centre-of-mass shift.
Particles<double> uniform_cube(std::int64_t count, std::uint64_t seed, double half_side = 3.0);

/// uniform_cube as a model (particle_sink.hpp), for rows of it.
Model uniform_cube_model(std::int64_t count, std::uint64_t seed, double half_side = 3.0);

}  // namespace orrery::ic
