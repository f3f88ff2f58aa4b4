#include "orrery/ic/cold_sphere.hpp"

#include <gtest/gtest.h>

#include "orrery/core/error.hpp"
#include "orrery/ic/model_checks.hpp"

namespace orrery::ic {
namespace {

TEST(ColdSphere, UniformInsideTheRadiusAtRestWithHenonEnergy) {
  const auto p = cold_sphere(4000, 5);
  for (std::int64_t i = 0; i < p.size(); ++i) {
    EXPECT_LE(std::sqrt(p.x[i] * p.x[i] + p.y[i] * p.y[i] + p.z[i] * p.z[i]), kColdSphereRadiusHenon + 0.05);  // + the centre-of-mass shift
    EXPECT_EQ(p.vx[i], 0.0);
  }
  // Uniform: M(<r) = (r/R)^3, so the half-mass radius is R / 2^(1/3).
  EXPECT_NEAR(testing::radius_enclosing(p, 0.5), kColdSphereRadiusHenon / std::cbrt(2.0), 0.03);
  const auto e = testing::energies(p);
  EXPECT_EQ(e.kinetic, 0.0);
  EXPECT_NEAR(e.potential, -0.25, 0.01);
}

TEST(ColdSphere, FreeFallTimeInHenonUnits) {
  EXPECT_NEAR(free_fall_time(1.0, kColdSphereRadiusHenon), 4.1297, 1e-4);
}

TEST(ColdSphere, ReproducibleFromTheSeed) {
  EXPECT_TRUE(testing::same_bits(cold_sphere(100, 9), cold_sphere(100, 9)));
  EXPECT_THROW(cold_sphere(0, 1), InputError);
}

}  // namespace
}  // namespace orrery::ic
