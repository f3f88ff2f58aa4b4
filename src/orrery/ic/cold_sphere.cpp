#include "orrery/ic/cold_sphere.hpp"

#include <cmath>
#include <numbers>
#include <string>

#include "orrery/core/error.hpp"
#include "orrery/core/rng.hpp"
#include "orrery/ic/sampling.hpp"

namespace orrery::ic {

double free_fall_time(double mass, double radius) {
  return 0.5 * std::numbers::pi * std::sqrt(radius * radius * radius / (2.0 * mass));
}

Model cold_sphere_model(std::int64_t count, std::uint64_t seed) {
  if (count < 1) throw InputError("initial_conditions.count = " + std::to_string(count) + "; accepted: an integer >= 1");
  return {count, true, [count, seed](ParticleSink& out) {
            Rng rng(seed);
            const double radius = kColdSphereRadiusHenon;
            for (std::int64_t i = 0; i < count; ++i) {
              double x, y, z;
              do {
                x = 2.0 * rng.uniform() - 1.0;
                y = 2.0 * rng.uniform() - 1.0;
                z = 2.0 * rng.uniform() - 1.0;
              } while (x * x + y * y + z * z > 1.0);
              out.put(i, {radius * x, radius * y, radius * z, 0.0, 0.0, 0.0, 1.0 / static_cast<double>(count),
                          static_cast<std::uint64_t>(i) + 1});
            }
          }};
}

Particles<double> cold_sphere(std::int64_t count, std::uint64_t seed) { return whole_model(cold_sphere_model(count, seed)); }

}  // namespace orrery::ic
