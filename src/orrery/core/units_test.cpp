#include "orrery/core/units.hpp"

#include <gtest/gtest.h>

namespace orrery {
namespace {

/// G in code units computed from the cgs units: must be 1 in every system.
double code_gravity_constant(const UnitSystem& u) {
  return cgs::G * u.mass_g / (u.length_cm * u.velocity_cm_per_s * u.velocity_cm_per_s);
}

TEST(Units, HenonUnitsHaveGOneAndTheQuotedVelocityUnit) {
  const auto u = henon_units();
  EXPECT_NEAR(code_gravity_constant(u), 1.0, 1e-14);
  EXPECT_NEAR(u.velocity_cm_per_s / cgs::km_per_s, 207.386, 1e-3);
  EXPECT_NEAR(code_gravity_constant(henon_units(0.01, 3e5)), 1.0, 1e-14);
}

TEST(Units, PhysicalUnitsAreKpcKmPerSecondAndMsunInTheConfig) {
  const auto u = physical_units();
  EXPECT_NEAR(code_gravity_constant(u), 1.0, 1e-14);
  EXPECT_EQ(u.length_cm, cgs::kpc);
  EXPECT_EQ(u.velocity_cm_per_s, 1e5);
  EXPECT_NEAR(u.mass_g / cgs::msun, 2.32509e5, 1.0);
  // 1e10 Msun given in the configuration, in code units and back to grams.
  EXPECT_NEAR(u.to_code_mass(1e10) * u.mass_g / (1e10 * cgs::msun), 1.0, 1e-14);
  EXPECT_NEAR(u.time_gyr(1.0), 0.9778, 1e-4);
}

}  // namespace
}  // namespace orrery
