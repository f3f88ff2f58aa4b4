#include "orrery/diag/lagrangian_radii.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "orrery/ic/hernquist.hpp"
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

// A Hernquist cusp and, far out, a tenth of its mass in one particle: the
// centre of mass moves by ~2.7, the density centre stays in the cusp, and
// the radii about it are the profile's, M(<r) = r^2 / (r + a)^2: the 1 %
// radius a / 9, the 10 % radius a sqrt(0.1) / (1 - sqrt(0.1)) (Poisson:
// 3.5 % and 1 % at N = 20000).
TEST(LagrangianRadii, DensityCentreFollowsTheCuspNotTheCentreOfMass) {
  auto p = ic::hernquist_sphere(20000, 3);
  Particles<double> q(static_cast<std::size_t>(p.size()) + 1);
  for (std::int64_t i = 0; i < p.size(); ++i) {
    q.x[i] = p.x[i], q.y[i] = p.y[i], q.z[i] = p.z[i], q.mass[i] = p.mass[i];
  }
  q.x[p.size()] = 30, q.y[p.size()] = 0, q.z[p.size()] = 0, q.mass[p.size()] = 0.1;  // the halo's mass is 1
  const Vec3 com = centre_of_mass(q);
  EXPECT_GT(com[0], 2.5);
  const Vec3 c = density_centre(q), alone = density_centre(p);
  EXPECT_LT(std::hypot(c[0] - alone[0], c[1] - alone[1], c[2] - alone[2]), 0.005);
  const double a = ic::kHernquistScaleHenon;
  const double f[] = {0.01 / 1.1, 0.1 / 1.1};  // of the total, the heavy particle included
  const auto r = lagrangian_radii(q, f, c);
  EXPECT_NEAR(r[0], a / 9, 0.1 * a / 9);
  EXPECT_NEAR(r[1], a * std::sqrt(0.1) / (1 - std::sqrt(0.1)), 0.03 * a * std::sqrt(0.1) / (1 - std::sqrt(0.1)));
  // About the centre of mass, 2.7 away, the inner radii are not the halo's.
  EXPECT_GT(lagrangian_radii(q, f)[0], 10 * r[0]);
}

TEST(LagrangianRadii, DensityCentreOfFewParticlesIsTheirCentreOfMass) {
  Particles<double> p(3);
  for (int i = 0; i < 3; ++i) p.x[i] = i, p.y[i] = 0, p.z[i] = 0, p.mass[i] = 1;
  const Vec3 c = density_centre(p, 4);  // fewer than stop_count from the start: no shrinking
  EXPECT_DOUBLE_EQ(c[0], 1.0);
  EXPECT_EQ(density_centre(Particles<double>(0)), (Vec3{0, 0, 0}));
}

}  // namespace
}  // namespace orrery::diag
