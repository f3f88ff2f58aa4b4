#include "orrery/ic/kepler.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "orrery/core/error.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/ic/model_checks.hpp"

namespace orrery::ic {
namespace {

TEST(Kepler, EnergyAndAngularMomentumMatchTheOrbitalElements) {
  for (const double e : {0.0, 0.5, 0.9}) {
    for (const double q : {1.0, 0.25}) {
      const KeplerParameters k{e, 2.0, q};
      const auto p = kepler_orbit(k);
      const double m1 = p.mass[0], m2 = p.mass[1];
      EXPECT_NEAR(m1 + m2, 1.0, 1e-15);
      EXPECT_NEAR(m2 / m1, q, 1e-14);
      EXPECT_NEAR(testing::energies(p).total(), -m1 * m2 / (2 * k.semi_major_axis), 1e-14);
      const double lz = m1 * (p.x[0] * p.vy[0] - p.y[0] * p.vx[0]) + m2 * (p.x[1] * p.vy[1] - p.y[1] * p.vx[1]);
      EXPECT_NEAR(lz, m1 * m2 * std::sqrt(k.semi_major_axis * (1 - e * e)), 1e-14);
      for (const double c : testing::centre_of_mass(p)) EXPECT_NEAR(c, 0.0, 1e-15);
    }
  }
  EXPECT_NEAR(kepler_period(1.0), 2 * 3.141592653589793, 1e-14);
}

TEST(Kepler, BadParametersNameTheKey) {
  for (const auto& [k, key] : {std::pair{KeplerParameters{1.0, 1, 1}, "eccentricity"},
                               std::pair{KeplerParameters{0.5, 0, 1}, "semi_major_axis"},
                               std::pair{KeplerParameters{0.5, 1, -2}, "mass_ratio"}}) {
    try {
      kepler_orbit(k);
      FAIL() << key;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("initial_conditions.kepler.") + key), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace orrery::ic

namespace orrery::ic {
namespace {

TEST(MakeInitialConditions, EveryKindIsListedAndModelsAreScaled) {
  const auto kinds = initial_condition_kinds();
  for (const char* k : {"plummer", "hernquist", "cold_sphere", "kepler", "collision"})
    EXPECT_NE(std::find(kinds.begin(), kinds.end(), k), kinds.end()) << k;
  InitialConditionsConfig c;
  c.kind = "kepler";
  c.mass = 2.0;
  c.length = 3.0;
  const auto p = make_initial_conditions(c);
  // E = -G m1 m2 / (2a) with masses x2 and a x3.
  EXPECT_NEAR(testing::energies(p).total(), -(2 * 0.5) * (2 * 0.5) / (2 * 3.0), 1e-14);
  EXPECT_NEAR(p.x[1] - p.x[0], 3.0 * 1.5, 1e-14);
  c.length = 0;
  try {
    make_initial_conditions(c);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("initial_conditions.length"), std::string::npos);
  }
}

}  // namespace
}  // namespace orrery::ic
