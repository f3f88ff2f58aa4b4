#include "orrery/io/config.hpp"

#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <functional>
#include <fstream>
#include <sstream>

#include "orrery/core/error.hpp"

namespace orrery::io {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

#define EXPECT_CONTAINS(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

TEST(Config, DefaultsMatchTheRunConfigStructs) {
  const auto rc = Config::defaults().run_config();
  const integrate::RunConfig plain;
  EXPECT_EQ(rc.initial_conditions.kind, plain.initial_conditions.kind);
  EXPECT_EQ(rc.initial_conditions.count, plain.initial_conditions.count);
  EXPECT_EQ(rc.initial_conditions.seed, plain.initial_conditions.seed);
  EXPECT_EQ(rc.gravity.solver, plain.gravity.solver);
  EXPECT_EQ(rc.gravity.backend, plain.gravity.backend);
  EXPECT_EQ(rc.gravity.precision, plain.gravity.precision);
  EXPECT_EQ(rc.gravity.softening, plain.gravity.softening);
  EXPECT_EQ(rc.gravity.softening_kernel, plain.gravity.softening_kernel);
  EXPECT_EQ(rc.gravity.opening, plain.gravity.opening);
  EXPECT_EQ(rc.gravity.tolerance, plain.gravity.tolerance);
  EXPECT_EQ(rc.integration.dt, plain.integration.dt);
  EXPECT_EQ(rc.integration.t_end, plain.integration.t_end);
  EXPECT_EQ(rc.output.directory, plain.output.directory);
  EXPECT_EQ(rc.output.diagnostics_interval, plain.output.diagnostics_interval);
}

// The reverse direction (KeySpec::read, Config::of) inverts the forward one
// (KeySpec::apply, Config::run_config) for every key, at the defaults and
// with every key away from its default.
TEST(Config, OfTheRunConfigGivesBackTheConfig) {
  EXPECT_EQ(Config::of(integrate::RunConfig{}).to_toml(), Config::defaults().to_toml());
  const auto c = Config::from_string(R"(
[initial_conditions]
kind = "collision"
path = "ic.h5"
count = 1000
seed = 7
mass = 2.5
length = 3.0
hernquist.truncation = 50.0
kepler.eccentricity = 0.25
kepler.semi_major_axis = 2.0
kepler.mass_ratio = 0.5
collision.separation = 12.0
collision.impact_parameter = 1.5
collision.relative_velocity = 0.75
[gravity]
solver = "tree"
backend = "auto"
precision = "double"
softening = 0.01
softening_kernel = "spline"
theta = 0.7
leaf_capacity = 8
multipole = "quadrupole"
opening = "relative"
mpi_layout = "distributed"
max_particles_per_rank = 100000
tolerance = 0.005
relative_cap = 0.6
group_opening = 32
list_walk = true
math = "exact"
traversal = "independent"
group_width = 16
[gravity.softening_per_type]
PartType0 = 0.0
PartType1 = 0.01
PartType2 = 0.02
PartType3 = 0.03
PartType4 = 0.04
PartType5 = 0.05
[integration]
kind = "block"
dt = 0.001
dt_max = 0.125
dt_min = 1e-5
criterion = "dynamical"
eta = 0.01
t_end = 2.5
wall_limit_minutes = 5.0
max_energy_error = 0.05
[output]
directory = "out"
diagnostics_interval = 0.5
snapshot_interval = 0.0
checkpoint_minutes = 10.0
checkpoint_keep = 3
[units]
system = "physical"
length_kpc = 2.0
mass_msun = 1e12
)");
  for (const auto& spec : config_schema()) {
    EXPECT_NE(c.get(spec.key), spec.default_value) << spec.key << ": the test sets every key";
  }
  EXPECT_EQ(Config::of(c.run_config()).to_toml(), c.to_toml());
}

TEST(Config, FileAndOverridesFillTheRunConfig) {
  auto c = Config::from_string(R"(
[initial_conditions]
count = 1000
seed = 7
[gravity]
precision = "double"
softening = 0      # an integer where a number is expected is fine
softening_kernel = "spline"
[integration]
t_end = 2.5
)");
  c.set("gravity.solver=reference");
  c.set("output.directory=\"out dir\"");
  c.set("integration.dt=1e-3");
  const auto rc = c.run_config();
  EXPECT_EQ(rc.initial_conditions.count, 1000);
  EXPECT_EQ(rc.initial_conditions.seed, 7u);
  EXPECT_EQ(rc.gravity.precision, gravity::Precision::double_);
  EXPECT_EQ(rc.gravity.softening, 0.0);
  EXPECT_EQ(rc.gravity.softening_kernel, SofteningKind::spline);
  EXPECT_EQ(rc.gravity.solver, "reference");
  EXPECT_EQ(rc.integration.t_end, 2.5);
  EXPECT_EQ(rc.integration.dt, 1e-3);
  EXPECT_EQ(rc.output.directory, "out dir");
}

TEST(Config, DumpReadsBackToTheSameConfig) {
  auto c = Config::defaults();
  c.set("gravity.softening=0.1");
  c.set("initial_conditions.kind=plummer");
  const auto again = Config::from_string(c.to_toml(), "dump");
  for (const auto& spec : config_schema()) EXPECT_EQ(again.get(spec.key), c.get(spec.key)) << spec.key;
}

TEST(Config, UnknownKeysNameTheNearestKnownKey) {
  EXPECT_CONTAINS(error_of([] { Config::from_string("[gravity]\nsoftenning = 0.1\n", "a.toml"); }),
                  "a.toml: unknown key gravity.softenning = 0.1; did you mean gravity.softening?");
  EXPECT_CONTAINS(error_of([] { Config::from_string("[integraton]\ndt = 0.1\n"); }), "did you mean integration.dt?");
  EXPECT_CONTAINS(error_of([] { Config::from_string("count = 5\n"); }), "did you mean initial_conditions.count?");
  EXPECT_CONTAINS(error_of([] { Config::defaults().set("gravity.thetta=0.5"); }), "unknown key gravity.thetta");
}

TEST(Config, WrongTypesNameKeyValueAndType) {
  EXPECT_CONTAINS(error_of([] { Config::from_string("[initial_conditions]\ncount = \"many\"\n"); }),
                  "initial_conditions.count = \"many\" has the wrong type; accepted: an integer >= 1");
  EXPECT_CONTAINS(error_of([] { Config::from_string("[initial_conditions]\ncount = 10.5\n"); }),
                  "initial_conditions.count = 10.5 has the wrong type");
  EXPECT_CONTAINS(error_of([] { Config::from_string("[gravity]\nsolver = 3\n"); }),
                  "gravity.solver = 3 has the wrong type; accepted: one of: reference, direct, tree");
  EXPECT_CONTAINS(error_of([] { Config::defaults().set("integration.dt=fast"); }),
                  "integration.dt = fast has the wrong type; accepted: a number > 0");
  EXPECT_CONTAINS(error_of([] { Config::from_string("[gravity]\nsoftening = [1, 2]\n"); }), "gravity.softening = an array");
}

TEST(Config, SofteningPerTypeKeys) {
  // A table of its own, or dotted keys, or --set; unset types take gravity.softening.
  const Config c = Config::from_string("[gravity]\nsoftening = 0.05\n[gravity.softening_per_type]\nPartType2 = 0.01\n");
  const auto g = c.run_config().gravity;
  EXPECT_EQ(g.softening_classes().eps, (std::array<double, 6>{0.05, 0.05, 0.01, 0.05, 0.05, 0.05}));
  EXPECT_TRUE(g.per_type_softening());
  Config d = Config::defaults();
  d.set("gravity.softening_per_type.PartType4=0.2");
  EXPECT_EQ(d.run_config().gravity.softening_per_type[4], 0.2);
  EXPECT_FALSE(Config::defaults().run_config().gravity.per_type_softening());
  // Set to the one softening for every type: one softening.
  d.set("gravity.softening_per_type.PartType4=0.05");
  EXPECT_FALSE(d.run_config().gravity.per_type_softening());
  // The dump writes them and reads back.
  EXPECT_EQ(Config::from_string(c.to_toml()).run_config().gravity.softening_per_type, g.softening_per_type);
  EXPECT_CONTAINS(error_of([] { Config::defaults().set("gravity.softening_per_type.PartType1=-0.5"); }),
                  "gravity.softening_per_type.PartType1 = -0.5 is not accepted; accepted: a number >= 0, or -1 "
                  "(unset: gravity.softening)");
  EXPECT_CONTAINS(error_of([] { Config::from_string("[gravity.softening_per_type]\nPartType6 = 0.1\n"); }),
                  "unknown key gravity.softening_per_type.PartType6 = 0.1; did you mean gravity.softening_per_type.PartType0?");
}

TEST(Config, OutOfRangeValuesNameKeyValueAndRange) {
  EXPECT_CONTAINS(error_of([] { Config::defaults().set("initial_conditions.count=0"); }),
                  "initial_conditions.count = 0 is not accepted; accepted: an integer >= 1");
  EXPECT_CONTAINS(error_of([] { Config::defaults().set("initial_conditions.count=-5"); }), "count = -5 is not accepted");
  EXPECT_CONTAINS(error_of([] { Config::from_string("[integration]\ndt = 0.0\n"); }),
                  "integration.dt = 0.0 is not accepted; accepted: a number > 0");
  EXPECT_CONTAINS(error_of([] { Config::defaults().set("integration.dt=-0.01"); }), "integration.dt = -0.01 is not accepted");
  EXPECT_CONTAINS(error_of([] { Config::defaults().set("gravity.softening=-0.05"); }),
                  "gravity.softening = -0.05 is not accepted; accepted: a number >= 0");
  EXPECT_CONTAINS(error_of([] { Config::defaults().set("integration.t_end=-1"); }),
                  "integration.t_end = -1.0 is not accepted; accepted: a number >= 0");
  EXPECT_CONTAINS(error_of([] { Config::defaults().set("gravity.precision=half"); }),
                  "gravity.precision = \"half\" is not accepted; accepted: one of: single, double");
  EXPECT_CONTAINS(error_of([] { Config::defaults().set("integration.t_end=inf"); }), "integration.t_end = inf");
  EXPECT_CONTAINS(error_of([] { Config::defaults().set("integration.t_end"); }), "accepted: --set section.key=value");
}

TEST(Config, RelativeOpeningKeys) {
  const auto rc = Config::from_string("[gravity]\nsolver = \"tree\"\nopening = \"relative\"\ntolerance = 0.004\n").run_config();
  EXPECT_EQ(rc.gravity.opening, bh::Opening::relative);
  EXPECT_EQ(rc.gravity.tolerance, 0.004);
  auto c = Config::defaults();
  c.set("gravity.opening=relative");
  c.set("gravity.tolerance=1e-3");
  EXPECT_EQ(c.run_config().gravity.opening, bh::Opening::relative);
  EXPECT_EQ(c.run_config().gravity.tolerance, 1e-3);
  EXPECT_EQ(Config::from_string(c.to_toml(), "dump").run_config().gravity.opening, bh::Opening::relative);
  EXPECT_CONTAINS(error_of([] { Config::defaults().set("gravity.opening=gadget"); }),
                  "gravity.opening = \"gadget\" is not accepted; accepted: one of: geometric, relative");
  EXPECT_CONTAINS(error_of([] { Config::from_string("[gravity]\ntolerance = 0\n"); }),
                  "gravity.tolerance = 0.0 is not accepted; accepted: a number > 0");
  EXPECT_CONTAINS(error_of([] { Config::defaults().set("gravity.tolerance=-0.002"); }),
                  "gravity.tolerance = -0.002 is not accepted; accepted: a number > 0");
  EXPECT_CONTAINS(error_of([] { Config::defaults().set("gravity.tolerance=nan"); }), "gravity.tolerance = nan");
  // The cap: a fraction of theta in [0, 1], both ends accepted.
  EXPECT_EQ(Config::from_string("[gravity]\ngroup_opening = 32\n").run_config().gravity.group_opening, 32);
  EXPECT_EQ(Config::defaults().run_config().gravity.group_opening, 0);
  EXPECT_CONTAINS(error_of([] { Config::from_string("[gravity]\ngroup_opening = 8192\n"); }),
                  "gravity.group_opening = 8192 is not accepted");
  EXPECT_EQ(Config::from_string("[gravity]\nrelative_cap = 0.0\n").run_config().gravity.relative_cap, 0.0);
  EXPECT_EQ(Config::from_string("[gravity]\nrelative_cap = 1.0\n").run_config().gravity.relative_cap, 1.0);
  EXPECT_CONTAINS(error_of([] { Config::from_string("[gravity]\nrelative_cap = 1.5\n"); }),
                  "gravity.relative_cap = 1.5 is not accepted; accepted: a number >= 0 and <= 1");
  EXPECT_CONTAINS(error_of([] { Config::defaults().set("gravity.relative_cap=-0.1"); }),
                  "gravity.relative_cap = -0.1 is not accepted; accepted: a number >= 0 and <= 1");
  EXPECT_CONTAINS(error_of([] { Config::from_string("[gravity]\ntolerance = \"tight\"\n"); }),
                  "gravity.tolerance = \"tight\" has the wrong type; accepted: a number > 0");
}

TEST(Config, MissingFileAndSyntaxErrors) {
  EXPECT_CONTAINS(error_of([] { Config::from_file("/nonexistent/run.toml"); }),
                  "config file /nonexistent/run.toml: cannot be read (No such file or directory)");
  EXPECT_CONTAINS(error_of([] { Config::from_string("[gravity\n", "b.toml"); }), "b.toml:1:");
}

TEST(Config, EveryKeyIsDocumentedInDocsConfigMd) {
  std::ifstream in(std::filesystem::path(ORRERY_SOURCE_DIR) / "docs" / "config.md");
  ASSERT_TRUE(in) << "docs/config.md missing: run `orrery config --markdown > docs/config.md`";
  std::stringstream text;
  text << in.rdbuf();
  for (const auto& spec : config_schema()) {
    EXPECT_CONTAINS(text.str(), "| `" + spec.key + "` | " + std::string(to_string(spec.type)) + " | `" +
                                    to_toml(spec.default_value) + "` |");
  }
  EXPECT_EQ(text.str(), schema_markdown()) << "docs/config.md is stale: run `orrery config --markdown > docs/config.md`";
}

}  // namespace
}  // namespace orrery::io
