#include "orrery/ic/collision.hpp"

#include <cmath>
#include <string>

#include "orrery/core/error.hpp"
#include "orrery/ic/plummer.hpp"
#include "orrery/ic/sampling.hpp"

namespace orrery::ic {
namespace {

/// Appends `sphere` scaled to mass 1/2 (velocities by sqrt(1/2), positions
/// unchanged: a Plummer sphere of half the mass and the same radius), shifted.
void append_half_mass(Particles<double>& out, const Particles<double>& sphere, std::uint64_t first_id,
                      const double (&shift)[6]) {
  const double vscale = std::sqrt(0.5);
  for (std::int64_t i = 0; i < sphere.size(); ++i) {
    out.x.push_back(sphere.x[i] + shift[0]);
    out.y.push_back(sphere.y[i] + shift[1]);
    out.z.push_back(sphere.z[i] + shift[2]);
    out.vx.push_back(vscale * sphere.vx[i] + shift[3]);
    out.vy.push_back(vscale * sphere.vy[i] + shift[4]);
    out.vz.push_back(vscale * sphere.vz[i] + shift[5]);
    out.mass.push_back(0.5 * sphere.mass[i]);
    out.id.push_back(first_id + static_cast<std::uint64_t>(i));
  }
}

}  // namespace

Particles<double> plummer_collision(std::int64_t count, std::uint64_t seed, const CollisionParameters& c) {
  const auto check = [](bool ok, const char* field, double value, const std::string& accepted) {
    if (!ok || !std::isfinite(value))
      throw InputError(std::string("initial_conditions.collision.") + field + " = " + std::to_string(value) +
                       "; accepted: " + accepted);
  };
  if (count < 2) throw InputError("initial_conditions.count = " + std::to_string(count) + "; accepted: an integer >= 2 for kind = \"collision\"");
  check(c.separation > 0, "separation", c.separation, "a number > 0");
  check(c.impact_parameter >= 0 && c.impact_parameter < c.separation, "impact_parameter", c.impact_parameter,
        "a number >= 0 and < separation");
  check(c.relative_velocity == c.relative_velocity, "relative_velocity", c.relative_velocity, "a number (< 0: parabolic)");
  const double speed = c.relative_velocity < 0 ? std::sqrt(2.0 / c.separation) : c.relative_velocity;
  const double along = std::sqrt(c.separation * c.separation - c.impact_parameter * c.impact_parameter);
  const std::int64_t n1 = count / 2;
  // Sphere 1 at rest at the origin, sphere 2 at (along, b) moving along -x; the
  // centre-of-mass shift below puts both in the common frame.
  Particles<double> p;
  append_half_mass(p, plummer_sphere(n1, seed), 1, {0, 0, 0, 0, 0, 0});
  append_half_mass(p, plummer_sphere(count - n1, seed + 1), static_cast<std::uint64_t>(n1) + 1,
                   {along, c.impact_parameter, 0, -speed, 0, 0});
  // Each sphere weighs 1/2 (particle masses differ slightly when count is odd).
  move_to_centre_of_mass(p);
  return p;
}

}  // namespace orrery::ic
