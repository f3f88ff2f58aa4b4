#include "orrery/ic/uniform_cube.hpp"

#include <cmath>
#include <string>

#include "orrery/core/error.hpp"
#include "orrery/core/rng.hpp"

namespace orrery::ic {

Particles<double> uniform_cube(std::int64_t count, std::uint64_t seed, double half_side) {
  if (count < 1) throw InputError("uniform cube: count = " + std::to_string(count) + "; accepted: an integer >= 1");
  if (!(half_side > 0.0) || !std::isfinite(half_side))
    throw InputError("uniform cube: half side = " + std::to_string(half_side) + "; accepted: a finite number > 0");
  Rng rng(seed);
  Particles<double> p(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    p.x[i] = half_side * (2.0 * rng.uniform() - 1.0);
    p.y[i] = half_side * (2.0 * rng.uniform() - 1.0);
    p.z[i] = half_side * (2.0 * rng.uniform() - 1.0);
    p.vx[i] = p.vy[i] = p.vz[i] = 0.0;
    p.mass[i] = rng.uniform() / static_cast<double>(count);
    p.id[i] = static_cast<std::uint64_t>(i) + 1;
  }
  return p;
}

}  // namespace orrery::ic
