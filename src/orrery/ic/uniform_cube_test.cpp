#include "orrery/ic/uniform_cube.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "orrery/core/error.hpp"
#include "orrery/ic/model_checks.hpp"

namespace orrery::ic {
namespace {

TEST(UniformCube, InsideTheCubeWithMassesUniformOverN) {
  constexpr std::int64_t n = 20000;
  const auto p = uniform_cube(n, 7, 3.0);
  double mass = 0, lo = 0, hi = 0, mmax = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    for (const double c : {p.x[i], p.y[i], p.z[i]}) {
      ASSERT_GE(c, -3.0);
      ASSERT_LT(c, 3.0);
      lo = std::min(lo, c);
      hi = std::max(hi, c);
    }
    ASSERT_GE(p.mass[i], 0.0);
    mmax = std::max(mmax, p.mass[i]);
    mass += p.mass[i];
    EXPECT_EQ(p.vx[i], 0.0);
  }
  EXPECT_NEAR(mass, 0.5, 0.01);  // U(0, 1) / N: mean 1 / (2N)
  EXPECT_LT(mmax, 1.0 / double(n));
  EXPECT_GT(mmax, 0.99 / double(n));
  EXPECT_LT(lo, -2.99);  // filled to the faces
  EXPECT_GT(hi, 2.99);
}

TEST(UniformCube, ReproducibleFromTheSeedAndValidated) {
  EXPECT_TRUE(testing::same_bits(uniform_cube(100, 9), uniform_cube(100, 9)));
  EXPECT_FALSE(testing::same_bits(uniform_cube(100, 9), uniform_cube(100, 10)));
  EXPECT_THROW(uniform_cube(0, 1), InputError);
  EXPECT_THROW(uniform_cube(10, 1, 0.0), InputError);
}

}  // namespace
}  // namespace orrery::ic
