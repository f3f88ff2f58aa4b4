#include "orrery/ic/uniform_cube.hpp"

#include <cmath>
#include <string>

#include "orrery/core/error.hpp"
#include "orrery/core/rng.hpp"

namespace orrery::ic {

Model uniform_cube_model(std::int64_t count, std::uint64_t seed, double half_side) {
  if (count < 1) throw InputError("uniform cube: count = " + std::to_string(count) + "; accepted: an integer >= 1");
  if (!(half_side > 0.0) || !std::isfinite(half_side))
    throw InputError("uniform cube: half side = " + std::to_string(half_side) + "; accepted: a finite number > 0");
  return {count, false, [count, seed, half_side](ParticleSink& out) {
            Rng rng(seed);
            for (std::int64_t i = 0; i < count; ++i) {
              const double x = half_side * (2.0 * rng.uniform() - 1.0);
              const double y = half_side * (2.0 * rng.uniform() - 1.0);
              const double z = half_side * (2.0 * rng.uniform() - 1.0);
              const double mass = rng.uniform() / static_cast<double>(count);
              out.put(i, {x, y, z, 0.0, 0.0, 0.0, mass, static_cast<std::uint64_t>(i) + 1});
            }
          }};
}

Particles<double> uniform_cube(std::int64_t count, std::uint64_t seed, double half_side) {
  return whole_model(uniform_cube_model(count, seed, half_side));
}

}  // namespace orrery::ic
