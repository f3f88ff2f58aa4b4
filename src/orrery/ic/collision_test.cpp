#include "orrery/ic/collision.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "orrery/core/error.hpp"
#include "orrery/ic/model_checks.hpp"

namespace orrery::ic {
namespace {

/// Mass-weighted centre {x, y, z, vx, vy, vz} of the particles with IDs in [lo, hi].
std::array<double, 6> centre_of_ids(const Particles<double>& p, std::uint64_t lo, std::uint64_t hi) {
  Particles<double> part;
  for (std::int64_t i = 0; i < p.size(); ++i) {
    if (p.id[i] < lo || p.id[i] > hi) continue;
    part.x.push_back(p.x[i]), part.y.push_back(p.y[i]), part.z.push_back(p.z[i]);
    part.vx.push_back(p.vx[i]), part.vy.push_back(p.vy[i]), part.vz.push_back(p.vz[i]);
    part.mass.push_back(p.mass[i]), part.id.push_back(p.id[i]);
  }
  return testing::centre_of_mass(part);
}

TEST(Collision, TwoHalfMassSpheresOnTheRequestedOrbit) {
  const CollisionParameters c{.separation = 8.0, .impact_parameter = 1.0, .relative_velocity = -1};
  const auto p = plummer_collision(2001, 3, c);
  ASSERT_EQ(p.size(), 2001);
  std::vector<std::uint64_t> ids = p.id;
  std::sort(ids.begin(), ids.end());
  for (std::size_t i = 0; i < ids.size(); ++i) ASSERT_EQ(ids[i], i + 1);
  double mass = 0;
  for (const double m : p.mass) mass += m;
  EXPECT_NEAR(mass, 1.0, 1e-12);
  for (const double v : testing::centre_of_mass(p)) EXPECT_NEAR(v, 0.0, 1e-12);
  const auto a = centre_of_ids(p, 1, 1000), b = centre_of_ids(p, 1001, 2001);
  EXPECT_NEAR(std::hypot(b[0] - a[0], b[1] - a[1], b[2] - a[2]), 8.0, 1e-9);
  EXPECT_NEAR(b[1] - a[1], 1.0, 1e-9);
  EXPECT_NEAR(a[3] - b[3], std::sqrt(2.0 / 8.0), 1e-9);  // parabolic for M = 1
  EXPECT_NEAR(b[4] - a[4], 0.0, 1e-9);
}

TEST(Collision, GivenVelocityAndBadParameters) {
  const auto p = plummer_collision(200, 3, {.separation = 5, .impact_parameter = 0, .relative_velocity = 0.3});
  EXPECT_NEAR(centre_of_ids(p, 1, 100)[3] - centre_of_ids(p, 101, 200)[3], 0.3, 1e-9);
  EXPECT_THROW(plummer_collision(1, 3), InputError);
  try {
    plummer_collision(100, 3, {.separation = 2, .impact_parameter = 3});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("initial_conditions.collision.impact_parameter"), std::string::npos);
  }
}

}  // namespace
}  // namespace orrery::ic
