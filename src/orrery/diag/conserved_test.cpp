#include "orrery/diag/conserved.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "orrery/diag/diagnostics.hpp"

namespace orrery::diag {
namespace {

Particles<double> two_bodies() {
  Particles<double> p(2);
  p.x = {1, -1};
  p.y = {0, 0};
  p.z = {0, 2};
  p.vx = {0, 0};
  p.vy = {1, -2};
  p.vz = {0, 1};
  p.mass = {2, 1};
  return p;
}

TEST(Conserved, HandComputedTwoBodies) {
  const auto p = two_bodies();
  EXPECT_DOUBLE_EQ(kinetic_energy(p), 0.5 * 2 * 1 + 0.5 * 1 * 5);
  const Vec3 mom = linear_momentum(p);
  EXPECT_DOUBLE_EQ(mom[0], 0);
  EXPECT_DOUBLE_EQ(mom[1], 0);
  EXPECT_DOUBLE_EQ(mom[2], 1);
  // L = 2 (1,0,0)x(0,1,0) + (-1,0,2)x(0,-2,1) = (0,0,2) + (4,1,2)
  const Vec3 l = angular_momentum(p);
  EXPECT_DOUBLE_EQ(l[0], 4);
  EXPECT_DOUBLE_EQ(l[1], 1);
  EXPECT_DOUBLE_EQ(l[2], 4);
  const Vec3 c = centre_of_mass(p);
  EXPECT_DOUBLE_EQ(c[0], 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(c[2], 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(potential_energy(p, std::vector<double>{-0.5, -1.0}), 0.5 * (2 * -0.5 + 1 * -1.0));
}

TEST(Conserved, RatiosAndErrors) {
  EXPECT_DOUBLE_EQ(virial_ratio(0.25, -0.5), 1.0);
  EXPECT_NEAR(relative_energy_error(-0.2501, -0.25), -0.0004, 1e-15);
  EXPECT_TRUE(std::isnan(relative_energy_error(-0.25, 0.0)));
}

TEST(Measure, FirstMeasurementHasZeroError) {
  const auto p = two_bodies();
  const std::vector<double> phi{-0.5, -1.0};
  const Diagnostics first = measure(p, phi, 0.0, 0, std::nan(""));
  EXPECT_EQ(first.relative_energy_error, 0.0);
  EXPECT_DOUBLE_EQ(first.total, first.kinetic + first.potential);
  const Diagnostics later = measure(p, phi, 1.0, 8, 2 * first.total);
  EXPECT_DOUBLE_EQ(later.relative_energy_error, (first.total - 2 * first.total) / std::abs(2 * first.total));
  EXPECT_EQ(later.lagrangian_radii.size(), 3u);
}

}  // namespace
}  // namespace orrery::diag
