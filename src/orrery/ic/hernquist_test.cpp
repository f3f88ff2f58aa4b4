#include "orrery/ic/hernquist.hpp"

#include <gtest/gtest.h>

#include "orrery/core/error.hpp"
#include "orrery/ic/model_checks.hpp"

namespace orrery::ic {
namespace {

TEST(Hernquist, DistributionFunctionIsPositiveAndIncreasesWithBinding) {
  double previous = 0;
  for (double eps = 0.01; eps < 1.0; eps += 0.01) {
    const double f = hernquist_df(eps);
    EXPECT_GT(f, previous) << eps;
    previous = f;
  }
}

TEST(Hernquist, HalfMassRadiusMatchesTheTruncatedProfile) {
  const auto p = hernquist_sphere(20000, 7);
  // m(r) = r^2/(1+r)^2 in scale radii; half of the mass inside the cut of 100.
  const double m_cut = 100.0 * 100.0 / (101.0 * 101.0);
  const double s = std::sqrt(0.5 * m_cut);
  const double expected = kHernquistScaleHenon * s / (1 - s);
  EXPECT_NEAR(testing::radius_enclosing(p, 0.5) / expected, 1.0, 0.03);
  const double s10 = std::sqrt(0.1 * m_cut);
  EXPECT_NEAR(testing::radius_enclosing(p, 0.1) / (kHernquistScaleHenon * s10 / (1 - s10)), 1.0, 0.05);
}

TEST(Hernquist, IsInVirialEquilibriumWithUnitMassAndCentred) {
  const auto p = hernquist_sphere(3000, 11);
  const auto e = testing::energies(p);
  EXPECT_NEAR(e.virial_ratio(), 1.0, 0.06);
  double mass = 0;
  for (const double m : p.mass) mass += m;
  EXPECT_NEAR(mass, 1.0, 1e-12);
  for (const double c : testing::centre_of_mass(p)) EXPECT_NEAR(c, 0.0, 1e-12);
  // Henon units: E = -1/4 for the untruncated model; the cut changes it by a few per cent.
  EXPECT_NEAR(e.total(), -0.25, 0.03);
}

TEST(Hernquist, ReproducibleFromTheSeed) {
  EXPECT_TRUE(testing::same_bits(hernquist_sphere(500, 3), hernquist_sphere(500, 3)));
  EXPECT_FALSE(testing::same_bits(hernquist_sphere(500, 3), hernquist_sphere(500, 4)));
}

TEST(Hernquist, BadParametersNameTheKey) {
  EXPECT_THROW(hernquist_sphere(0, 1), InputError);
  try {
    hernquist_sphere(10, 1, {.truncation = -1});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("initial_conditions.hernquist.truncation"), std::string::npos);
  }
}

}  // namespace
}  // namespace orrery::ic
