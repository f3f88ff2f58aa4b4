#include "orrery/ic/collision.hpp"

#include <array>
#include <cmath>
#include <string>

#include "orrery/core/error.hpp"
#include "orrery/ic/plummer.hpp"
#include "orrery/ic/sampling.hpp"

namespace orrery::ic {
namespace {

/// Puts `sphere` (a centred model) as rows first.. of `out`, scaled to mass
/// 1/2 (velocities by sqrt(1/2), positions unchanged: a Plummer sphere of
/// half the mass and the same radius), shifted. The sphere is made twice: a
/// first pass sums its centre of mass, keeping nothing; the second puts each
/// particle moved into that frame, as whole_model(sphere) would hold it.
void put_half_mass(ParticleSink& out, const Model& sphere, std::int64_t first, const std::array<double, 6>& shift) {
  CentreOfMass sums;
  SinkOf summed([&](std::int64_t, const GeneratedParticle& q) { sums.add(q.mass, {q.x, q.y, q.z, q.vx, q.vy, q.vz}); });
  sphere.generate(summed);
  const auto c = sums.centre();
  const double vscale = std::sqrt(0.5);
  SinkOf moved([&](std::int64_t i, const GeneratedParticle& q) {
    out.put(first + i, {(q.x - c[0]) + shift[0], (q.y - c[1]) + shift[1], (q.z - c[2]) + shift[2],
                        vscale * (q.vx - c[3]) + shift[3], vscale * (q.vy - c[4]) + shift[4],
                        vscale * (q.vz - c[5]) + shift[5], 0.5 * q.mass, static_cast<std::uint64_t>(first + i) + 1});
  });
  sphere.generate(moved);
}

}  // namespace

Model collision_model(std::int64_t count, std::uint64_t seed, const CollisionParameters& c) {
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
  // model's centre-of-mass shift puts both in the common frame (each sphere
  // weighs 1/2; particle masses differ slightly when count is odd).
  return {count, true, [=, b = c.impact_parameter](ParticleSink& out) {
            put_half_mass(out, plummer_model(n1, seed), 0, {0, 0, 0, 0, 0, 0});
            put_half_mass(out, plummer_model(count - n1, seed + 1), n1, {along, b, 0, -speed, 0, 0});
          }};
}

Particles<double> plummer_collision(std::int64_t count, std::uint64_t seed, const CollisionParameters& c) {
  return whole_model(collision_model(count, seed, c));
}

}  // namespace orrery::ic
