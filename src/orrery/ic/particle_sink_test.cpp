// Rows of a model (particle_sink.hpp) are the whole model's rows, bit for
// bit, for every generator and every split into blocks (empty ones too), and
// keeping them holds no array of all N.
#include "orrery/ic/particle_sink.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "orrery/core/error.hpp"
#include "orrery/ic/cold_sphere.hpp"
#include "orrery/ic/collision.hpp"
#include "orrery/ic/hernquist.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/ic/kepler.hpp"
#include "orrery/ic/model_checks.hpp"
#include "orrery/ic/plummer.hpp"
#include "orrery/ic/uniform_cube.hpp"
#include "support/block_splits.hpp"
#include "support/largest_allocation.hpp"

namespace orrery::ic {
namespace {

void append_rows(Particles<double>& to, const Particles<double>& from) {
  const auto add = [](auto& a, const auto& b) { a.insert(a.end(), b.begin(), b.end()); };
  add(to.x, from.x), add(to.y, from.y), add(to.z, from.z), add(to.vx, from.vx), add(to.vy, from.vy);
  add(to.vz, from.vz), add(to.mass, from.mass), add(to.id, from.id);
}

/// Every split's rows, concatenated, are the whole model's bits.
void expect_rows_are_the_whole(const std::string& name, const std::function<Particles<double>(std::int64_t, std::int64_t)>& rows,
                               const Particles<double>& whole) {
  const std::int64_t n = whole.size();
  for (const auto& cuts : orrery::testing::block_splits(n)) {
    Particles<double> joined;
    for (std::size_t r = 0; r + 1 < cuts.size(); ++r) {
      const auto block = rows(cuts[r], cuts[r + 1]);
      ASSERT_EQ(block.size(), cuts[r + 1] - cuts[r]) << name;
      append_rows(joined, block);
    }
    EXPECT_TRUE(testing::same_bits(joined, whole)) << name << ", N = " << n << ", " << cuts.size() - 1 << " blocks";
  }
}

void expect_model_rows_are_the_whole(const std::string& name, const Model& model, const Particles<double>& whole) {
  ASSERT_EQ(model.count, whole.size()) << name;
  expect_rows_are_the_whole(name, [&](std::int64_t b, std::int64_t e) { return model_rows(model, b, e); }, whole);
}

TEST(ModelRows, AreTheWholeModelsRowsForEveryGenerator) {
  for (const std::int64_t n : {2, 3, 7, 1001}) {
    expect_model_rows_are_the_whole("plummer", plummer_model(n, 3), plummer_sphere(n, 3));
    expect_model_rows_are_the_whole("hernquist", hernquist_model(n, 5, {.truncation = 20}),
                                    hernquist_sphere(n, 5, {.truncation = 20}));
    expect_model_rows_are_the_whole("cold sphere", cold_sphere_model(n, 7), cold_sphere(n, 7));
    expect_model_rows_are_the_whole("uniform cube", uniform_cube_model(n, 9, 2.5), uniform_cube(n, 9, 2.5));
    const CollisionParameters c{.separation = 6, .impact_parameter = 1};
    expect_model_rows_are_the_whole("collision", collision_model(n, 11, c), plummer_collision(n, 11, c));
  }
  const KeplerParameters k{.eccentricity = 0.3, .semi_major_axis = 2, .mass_ratio = 0.5};
  expect_model_rows_are_the_whole("kepler", kepler_model(k), kepler_orbit(k));
}

// make_initial_conditions_rows: every kind, stretched to another mass and length (particle by particle).
TEST(ModelRows, OfTheConfiguredKindAreMakeInitialConditionsRows) {
  for (const auto& kind : initial_condition_kinds()) {
    InitialConditionsConfig c;
    c.kind = kind;
    c.count = 999;
    c.seed = 13;
    c.mass = 3;
    c.length = 0.5;
    const auto whole = make_initial_conditions(c);
    EXPECT_EQ(initial_conditions_count(c), whole.size()) << kind;
    expect_rows_are_the_whole(kind, [&](std::int64_t b, std::int64_t e) { return make_initial_conditions_rows(c, b, e); },
                              whole);
  }
}

TEST(ModelRows, OutsideTheModelAreRefused) {
  const Model m = plummer_model(10, 1);
  EXPECT_THROW(model_rows(m, -1, 3), RuntimeFailure);
  EXPECT_THROW(model_rows(m, 4, 3), RuntimeFailure);
  EXPECT_THROW(model_rows(m, 0, 11), RuntimeFailure);
  InitialConditionsConfig c;
  c.count = 0;
  EXPECT_THROW(initial_conditions_count(c), InputError);  // the checks of make_initial_conditions
}

// A block of 1/100 of the rows allocates nothing near an array of all N
// (one column of N doubles is 8 N bytes); a regression that made the whole
// model and cut it would allocate at least that.
TEST(ModelRows, HoldNoArrayOfEveryParticle) {
  constexpr std::int64_t n = 200000, rows = n / 100;
  for (const auto& kind : initial_condition_kinds()) {
    if (kind == "kepler") continue;  // two particles
    InitialConditionsConfig c;
    c.kind = kind;
    c.count = n;
    std::size_t largest = 0;
    {
      const orrery::testing::LargestAllocation watch;
      const auto block = make_initial_conditions_rows(c, n / 2, n / 2 + rows);
      largest = watch.bytes();
      EXPECT_EQ(block.size(), rows);
    }
    EXPECT_GE(largest, rows * sizeof(double)) << kind;  // the block's columns themselves
    EXPECT_LT(largest, 2 * rows * sizeof(double)) << kind << ": an allocation of " << largest << " bytes for " << rows
                                                  << " of " << n << " rows";
  }
}

}  // namespace
}  // namespace orrery::ic
