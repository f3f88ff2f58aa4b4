#include "orrery/ic/sampling.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace orrery::ic {
namespace {

TEST(CubeRootUnit, AccurateOverTheUnitInterval) {
  for (double x : {1.0, 0.999, 0.5, 0.125, 0.1, 1e-3, 1e-9, 1e-15, 3e-300}) {
    EXPECT_NEAR(cube_root_unit(x), std::cbrt(x), 4e-16 * std::cbrt(x)) << x;
  }
}

TEST(IsotropicUnitVector, UnitLengthAndZeroMean) {
  Rng rng(3);
  double sx = 0, sz2 = 0;
  const int n = 100000;
  for (int k = 0; k < n; ++k) {
    const auto v = isotropic_unit_vector(rng);
    ASSERT_NEAR(v[0] * v[0] + v[1] * v[1] + v[2] * v[2], 1.0, 1e-15);
    sx += v[0];
    sz2 += v[2] * v[2];
  }
  EXPECT_NEAR(sx / n, 0.0, 0.01);
  EXPECT_NEAR(sz2 / n, 1.0 / 3.0, 0.01);  // <z^2> = 1/3 on the sphere
}

TEST(MoveToCentreOfMass, ZeroesMassWeightedMeans) {
  Particles<double> p(3);
  p.x = {1, 2, 3};
  p.y = {0, 0, 6};
  p.z = {-1, -1, -1};
  p.vx = {1, 1, 1};
  p.vy = {0, 2, 0};
  p.vz = {0, 0, 0};
  p.mass = {1, 1, 2};
  move_to_centre_of_mass(p);
  double m[6] = {};
  for (int i = 0; i < 3; ++i) {
    m[0] += p.mass[i] * p.x[i];
    m[1] += p.mass[i] * p.y[i];
    m[2] += p.mass[i] * p.z[i];
    m[3] += p.mass[i] * p.vx[i];
    m[4] += p.mass[i] * p.vy[i];
  }
  for (double v : m) EXPECT_NEAR(v, 0.0, 1e-15);
  EXPECT_DOUBLE_EQ(p.x[0], 1.0 - 2.25);
}

}  // namespace
}  // namespace orrery::ic
