#include "orrery/diag/lagrangian_radii.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "orrery/ic/plummer.hpp"

namespace orrery::diag {
namespace {

TEST(LagrangianRadii, EqualMassesOnKnownRadiiAboutTheCentreOfMass) {
  // Ten particles at radii 1..10 along x, shifted by 5 along y: the centre of
  // mass moves with them, so the radii are measured about it.
  Particles<double> p(10);
  for (int i = 0; i < 10; ++i) {
    p.x[i] = (i % 2 ? 1 : -1) * (i + 1.0);
    p.y[i] = 5;
    p.z[i] = 0;
    p.mass[i] = 0.1;
  }
  const double cx = 0.5;  // (-1 + 2 - 3 + ... + 10) / 10
  const double f[] = {0.5, 0.1, 0.9, 1.0};
  const auto r = lagrangian_radii(p, f);
  // Sorted distances from (cx, 5): |x_i - cx|.
  std::vector<double> d;
  for (int i = 0; i < 10; ++i) d.push_back(std::abs(p.x[i] - cx));
  std::sort(d.begin(), d.end());
  EXPECT_DOUBLE_EQ(r[0], d[4]);
  EXPECT_DOUBLE_EQ(r[1], d[0]);
  EXPECT_DOUBLE_EQ(r[2], d[8]);
  EXPECT_DOUBLE_EQ(r[3], d[9]);
}

TEST(LagrangianRadii, PlummerMatchesAnalyticProfile) {
  // r_f = a / sqrt(f^(-2/3) - 1) for the Plummer sphere.
  const auto p = ic::plummer_sphere(20000, 3);
  const auto r = lagrangian_radii(p, kLagrangianFractions);
  for (std::size_t k = 0; k < 3; ++k) {
    const double f = kLagrangianFractions[k];
    const double analytic = ic::kPlummerScaleHenon / std::sqrt(std::pow(f, -2.0 / 3.0) - 1.0);
    EXPECT_NEAR(r[k], analytic, 0.05 * analytic) << f;
  }
}

}  // namespace
}  // namespace orrery::diag
