#include "orrery/core/softening.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace orrery {
namespace {

TEST(PlummerSoftening, MatchesClosedForm) {
  const PlummerSoftening<double> s(0.1);
  for (double r : {0.0, 0.05, 0.1, 1.0, 10.0}) {
    const auto ff = s.factors<MathMode::exact>(r * r);
    const double d = std::sqrt(r * r + 0.01);
    EXPECT_DOUBLE_EQ(ff.phi, 1.0 / d) << r;
    EXPECT_NEAR(ff.f, 1.0 / (d * d * d), 1e-12 / (d * d * d)) << r;
  }
}

TEST(SplineSoftening, NewtonianBeyondHAndContinuous) {
  const double eps = 0.1, h = 2.8 * eps;
  const SplineSoftening<double> s(eps);
  for (double r : {h, 1.5 * h, 10.0}) {
    const auto ff = s.factors<MathMode::exact>(r * r);
    EXPECT_NEAR(ff.f, 1.0 / (r * r * r), 1e-12 / (r * r * r));
    EXPECT_NEAR(ff.phi, 1.0 / r, 1e-12 / r);
  }
  // Continuity of force and potential across u = 1/2 and u = 1.
  for (double u : {0.5, 1.0}) {
    const auto a = s.factors<MathMode::exact>(std::pow(u * h * (1 - 1e-9), 2));
    const auto b = s.factors<MathMode::exact>(std::pow(u * h * (1 + 1e-9), 2));
    EXPECT_NEAR(a.f, b.f, 1e-6 * b.f) << u;
    EXPECT_NEAR(a.phi, b.phi, 1e-6 * b.phi) << u;
  }
  // Potential at the origin is -m/eps (Plummer-equivalent), force finite.
  const auto o = s.factors<MathMode::exact>(0.0);
  EXPECT_NEAR(o.phi, 1.0 / eps, 1e-6 / eps);
  EXPECT_TRUE(std::isfinite(o.f));
}

TEST(Softening, CoincidentParticlesWithoutSofteningGiveFiniteFactors) {
  // eps = 0 and r2 = 0: the pair's separation is 0, so f must be finite for
  // m * f * 0 to be 0 rather than NaN.
  EXPECT_TRUE(std::isfinite(PlummerSoftening<float>(0.0f).factors<MathMode::exact>(0.0f).f));
  EXPECT_TRUE(std::isfinite(PlummerSoftening<double>(0.0).factors<MathMode::exact>(0.0).f));
  EXPECT_TRUE(std::isfinite(SplineSoftening<float>(0.0f).factors<MathMode::exact>(0.0f).f));
  EXPECT_TRUE(std::isfinite(SplineSoftening<double>(0.0).factors<MathMode::exact>(0.0).f));
  const auto f = PlummerSoftening<float>(0.0f).factors<MathMode::exact>(0.0f);
  EXPECT_EQ(1.0f * f.f * 0.0f, 0.0f);
}

TEST(SplineSoftening, ZeroSofteningIsNewtonian) {
  const SplineSoftening<float> s(0.0f);
  const auto ff = s.factors<MathMode::exact>(4.0f);
  EXPECT_FLOAT_EQ(ff.f, 0.125f);
  EXPECT_FLOAT_EQ(ff.phi, 0.5f);
}

}  // namespace
}  // namespace orrery
