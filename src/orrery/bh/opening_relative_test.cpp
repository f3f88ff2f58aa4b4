// The relative criterion's per-target scale and its cap, on single values:
// GADGET's rule d^4 > mass side^2 / (tolerance |a_old|) (docs/adr/0015).
#include "orrery/bh/opening_relative.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace orrery::bh {
namespace {

TEST(RelativeOpening, ScaleIsOneOverTheSquareRootOfTheFlooredAcceleration) {
  // |a| = 4 (0, 0, 4) and 0.25: scales 1/2 and 2, exactly.
  EXPECT_EQ(relative_scale(0.0f, 0.0f, 4.0f), 0.5f);
  EXPECT_EQ(relative_scale(0.0, 0.25, 0.0), 2.0);
  // The floor replaces a smaller |a|.
  EXPECT_EQ(relative_scale(0.0f, 0.0f, 0.01f, 0.25), 2.0f);
  // A general value: rounded once from the double 1 / sqrt(|a|).
  const float ax = 0.3f, ay = -1.7f, az = 0.9f;
  const double m = std::sqrt(double(ax) * ax + double(ay) * ay + double(az) * az);
  EXPECT_EQ(relative_scale(ax, ay, az), static_cast<float>(1.0 / std::sqrt(m)));
  // Zero with no floor: the largest finite value, not inf.
  EXPECT_EQ(relative_scale(0.0f, 0.0f, 0.0f), std::numeric_limits<float>::max());
}

// The rule as GADGET writes it, at a cell where the two sides differ by 1 %
// either way: d^2 > crit_rel * scale <=> d^4 > mass side^2 / (tolerance |a|).
TEST(RelativeOpening, FarIsGadgetsRuleWithTheTolerance) {
  const double mass = 0.02, side = 0.5, tol = 0.005, a = 1.7;
  const double d4 = mass * side * side / (tol * a);
  const double crit = relative_coefficient(mass, side, tol);
  const double scale = relative_scale(a, 0.0, 0.0);
  const double no_cap = relative_cap_factor<double>(0.0);
  for (const double f : {0.99, 1.01}) {
    const double d2 = std::sqrt(f * d4);
    EXPECT_EQ(RelativeOpening::far(d2, 0.0, crit, scale, no_cap), f > 1.0) << f;
  }
}

TEST(RelativeOpening, CapFactorIsOneOverTheFractionSquared) {
  EXPECT_EQ(relative_cap_factor<float>(0.5), 4.0f);
  EXPECT_EQ(relative_cap_factor<float>(1.0), 1.0f);
  EXPECT_EQ(relative_cap_factor<double>(0.6), 1.0 / (0.6 * 0.6));
  EXPECT_EQ(relative_cap_factor<float>(0.0), std::numeric_limits<float>::infinity());
  // The cap accepts past cap2 * crit2 whatever the relative test says
  // (crit_rel * scale huge), and no cap never does.
  EXPECT_TRUE(RelativeOpening::far(4.01f, 1.0f, 1e30f, 1.0f, 4.0f));
  EXPECT_FALSE(RelativeOpening::far(3.99f, 1.0f, 1e30f, 1.0f, 4.0f));
  EXPECT_FALSE(RelativeOpening::far(1e30f, 1.0f, 1e30f, 10.0f, relative_cap_factor<float>(0.0)));
  // Barnes' test at theta still comes first: below crit2 nothing is accepted.
  EXPECT_FALSE(RelativeOpening::far(0.9f, 1.0f, 0.0f, 0.0f, 1.0f));
}

}  // namespace
}  // namespace orrery::bh
