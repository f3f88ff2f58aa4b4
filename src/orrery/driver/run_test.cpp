#include "orrery/driver/run.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "orrery/core/energy_error_exceeded.hpp"
#include "orrery/core/error.hpp"

#include "orrery/driver/ranks.hpp"
#include "orrery/driver/setup.hpp"
#include "orrery/driver/test_runs.hpp"
#include "orrery/io/checkpoint.hpp"
#include "orrery/io/config.hpp"
#include "orrery/io/snapshot.hpp"
#include "orrery/io/test_files.hpp"

namespace orrery::driver {
namespace {

using io::testing::ScratchDir;

using testing::final_particles;
using testing::small_run;
using testing::TestRun;

// Under MPI the ranks refuse the walks whose groups of targets they would
// split differently for each number of ranks, naming the key.
TEST(DriverRun, RanksRefuseGroupsOfTargetsByName) {
  gravity::GravityConfig g;
  g.solver = "tree";
  EXPECT_NO_THROW(Ranks::refuse_target_groups(g));
  g.list_walk = true;
  EXPECT_THROW(
      {
        try {
          Ranks::refuse_target_groups(g);
        } catch (const InputError& e) {
          EXPECT_NE(std::string(e.what()).find("gravity.list_walk = true under MPI"), std::string::npos) << e.what();
          EXPECT_NE(std::string(e.what()).find("accepted under MPI: gravity.list_walk = false"), std::string::npos);
          throw;
        }
      },
      InputError);
  g.list_walk = false;
  g.group_opening = 32;
  EXPECT_THROW(Ranks::refuse_target_groups(g), InputError);
}

TEST(DriverRun, WritesDiagnosticsSnapshotsAndAFinalCheckpoint) {
  ScratchDir dir;
  auto r = small_run(dir.path(), 0.5);
  const auto s = run(r.config, r.options);
  EXPECT_TRUE(s.stopped_by.empty());
  EXPECT_EQ(s.run.steps, 32);
  EXPECT_EQ(s.snapshots, 3);
  EXPECT_TRUE(std::filesystem::exists(dir / "diagnostics.csv"));
  const auto snap = io::read_snapshot<double>(dir / "snapshot_0001.h5");
  EXPECT_EQ(snap.info.time, 0.25);
  EXPECT_EQ(snap.info.step, 16);
  EXPECT_TRUE(snap.has_potential && snap.has_acceleration);
  EXPECT_NE(snap.info.config.find("[gravity]"), std::string::npos);
  EXPECT_EQ(io::read_checkpoint<double>(s.checkpoint).state.step, 32);
}

TEST(DriverRun, TheFinalSnapshotOffTheScheduleDoesNotOverwriteTheLastOne) {
  ScratchDir dir;
  auto r = small_run(dir.path(), 0.375);  // snapshots at 0, 0.25, then the end at 0.375
  const auto s = run(r.config, r.options);
  EXPECT_EQ(s.snapshots, 3);
  EXPECT_EQ(io::read_snapshot<double>(dir / "snapshot_0001.h5").info.time, 0.25);
  EXPECT_EQ(io::read_snapshot<double>(dir / "snapshot_0002.h5").info.time, 0.375);
}

TEST(DriverRun, RestartFromTheFinalCheckpointContinuesBitIdentically) {
  ScratchDir straight_dir, split_dir;
  auto straight = small_run(straight_dir.path(), 0.5);
  const auto whole = run(straight.config, straight.options);

  auto first = small_run(split_dir.path(), 0.25);
  const auto half = run(first.config, first.options);
  auto second = small_run(split_dir.path(), 0.5);
  second.options.restart = half.checkpoint;
  const auto rest = run(second.config, second.options);
  EXPECT_EQ(rest.first_step, 16);
  EXPECT_EQ(rest.run.steps, 32);
  io::testing::expect_same_particles(final_particles(whole), final_particles(rest));
  // Snapshot numbering continues: the restarted run wrote snapshot 2 at t = 0.5.
  EXPECT_TRUE(std::filesystem::exists(split_dir / "snapshot_0002.h5"));
  EXPECT_TRUE(std::filesystem::exists(split_dir / "diagnostics_from_16.csv"));
}

// With the relative opening every evaluation reads the previous one's
// accelerations, so a restart continues bit-identically only because the
// checkpoint carries them. The first part ends off the output schedule
// (t = 0.3125): its final outputs evaluate potentials once more, which must
// leave those accelerations alone.
TEST(DriverRun, RelativeOpeningRestartContinuesBitIdentically) {
  // Enough particles that the decisions at the restart would differ with the accelerations recomputed.
  const std::vector<std::string> relative = {"initial_conditions.count=1000", "gravity.solver=tree",
                                             "gravity.opening=relative", "gravity.theta=1.0",
                                             "gravity.multipole=quadrupole"};
  ScratchDir straight_dir, split_dir;
  auto straight = small_run(straight_dir.path(), 0.5, relative);
  const auto whole = run(straight.config, straight.options);

  auto first = small_run(split_dir.path(), 0.3, relative);
  const auto part = run(first.config, first.options);
  EXPECT_EQ(io::read_checkpoint<double>(part.checkpoint).accelerations.ax.size(), 1000u);
  auto second = small_run(split_dir.path(), 0.5, relative);
  second.options.restart = part.checkpoint;
  const auto rest = run(second.config, second.options);
  EXPECT_EQ(rest.first_step, 20);
  EXPECT_EQ(rest.run.steps, 32);
  io::testing::expect_same_particles(final_particles(whole), final_particles(rest));

  // The control: the same checkpoint without its accelerations restarts with a bootstrap evaluation and
  // leaves the straight run's path, so the equality above is owed to the stored accelerations.
  auto stripped = io::read_checkpoint<double>(part.checkpoint);
  stripped.accelerations = {};
  ScratchDir control_dir;
  io::write_checkpoint(control_dir / "stripped.orrck", stripped);
  auto control = small_run(control_dir.path(), 0.5, relative);
  control.options.restart = control_dir / "stripped.orrck";
  const auto bootstrapped = run(control.config, control.options);
  EXPECT_EQ(bootstrapped.run.steps, 32);
  EXPECT_NE(final_particles(whole).x, final_particles(bootstrapped).x);
}

TEST(DriverRun, StopFileCheckpointsAndStopsAndTheRunCanBeResumed) {
  ScratchDir straight_dir, dir;
  auto straight = small_run(straight_dir.path(), 0.5);
  const auto whole = run(straight.config, straight.options);

  auto r = small_run(dir.path(), 0.5);
  std::filesystem::create_directories(dir.path());
  io::testing::write_bytes(dir / "STOP", "");
  const auto stopped = run(r.config, r.options);
  EXPECT_NE(stopped.stopped_by.find("STOP"), std::string::npos);
  EXPECT_EQ(stopped.run.steps, 1);
  EXPECT_FALSE(std::filesystem::exists(dir / "STOP"));
  r.options.restart = stopped.checkpoint;
  const auto resumed = run(r.config, r.options);
  io::testing::expect_same_particles(final_particles(whole), final_particles(resumed));
}

TEST(DriverRun, RestartRefusesOtherPhysicsNamingTheKey) {
  ScratchDir dir;
  auto r = small_run(dir.path(), 0.25);
  const auto s = run(r.config, r.options);
  auto changed = small_run(dir.path(), 0.5);
  changed.config.gravity.softening = 0.01;
  changed.options.restart = s.checkpoint;
  io::testing::expect_input_error([&] { run(changed.config, changed.options); },
                                  {s.checkpoint.string(), "gravity.softening", "0.05", "0.01"});
  auto relative = small_run(dir.path(), 0.5, {"gravity.opening=relative"});
  relative.options.restart = s.checkpoint;
  io::testing::expect_input_error([&] { run(relative.config, relative.options); },
                                  {"gravity.opening", "geometric", "relative"});
  auto other_precision = small_run(dir.path(), 0.5);
  other_precision.config.gravity.precision = gravity::Precision::single;
  other_precision.options.restart = s.checkpoint;
  io::testing::expect_input_error([&] { run(other_precision.config, other_precision.options); },
                                  {"build.precision", "double"});
}

// A changed initial condition or unit would be silently ignored by a restart
// (it continues the checkpoint's particles): it is refused instead.
TEST(DriverRun, RestartRefusesOtherInitialConditionsOrUnitsNamingTheKey) {
  ScratchDir dir;
  auto r = small_run(dir.path(), 0.25);
  const auto s = run(r.config, r.options);
  auto more = small_run(dir.path(), 0.5, {"initial_conditions.count=100"});
  more.options.restart = s.checkpoint;
  io::testing::expect_input_error([&] { run(more.config, more.options); },
                                  {s.checkpoint.string(), "initial_conditions.count is 64", "but 100", "start a new run"});
  auto scaled = small_run(dir.path(), 0.5, {"units.length_kpc=3"});
  scaled.options.restart = s.checkpoint;
  io::testing::expect_input_error([&] { run(scaled.config, scaled.options); }, {"units.length_kpc is 1.0", "but 3.0"});
}

// The first leg ends off the schedule at 0.375 with snapshot 2; the restarted
// leg's next snapshot (0.5, the second interval's end) must not overwrite it.
TEST(DriverRun, ARestartedLegNeverOverwritesTheEarlierLegsSnapshots) {
  ScratchDir dir;
  auto first = small_run(dir.path(), 0.375);
  const auto leg = run(first.config, first.options);
  auto second = small_run(dir.path(), 0.5);
  second.options.restart = leg.checkpoint;
  run(second.config, second.options);
  EXPECT_EQ(io::read_snapshot<double>(dir / "snapshot_0002.h5").info.time, 0.375);
  EXPECT_EQ(io::read_snapshot<double>(dir / "snapshot_0003.h5").info.time, 0.5);
}

TEST(DriverRun, StartsFromASnapshotFile) {
  ScratchDir dir;
  auto r = small_run(dir / "a", 0.25);
  run(r.config, r.options);
  auto from_file = small_run(dir / "b", 0.5);
  from_file.config.initial_conditions.kind = "file";
  from_file.config.initial_conditions.path = (dir / "a/snapshot_0001.h5").string();
  const auto s = run(from_file.config, from_file.options);
  EXPECT_EQ(s.run.time, 0.5);  // started at the snapshot's time 0.25
  EXPECT_EQ(s.run.steps, 16);
  from_file.config.initial_conditions.path = (dir / "missing.h5").string();
  io::testing::expect_input_error([&] { run(from_file.config, from_file.options); }, {"missing.h5", "no such file"});
}

// A coordinate beyond the float range or a mass below its smallest normal
// value, in a snapshot that a single-precision run starts from: refused when
// loaded, in the particle checks' words, not at the first force evaluation.
TEST(DriverRun, ASinglePrecisionRunRefusesValuesOutsideTheFloatRangeWhenLoading) {
  ScratchDir dir;
  const auto start = [&](const auto& edit, std::initializer_list<std::string> words) {
    auto p = io::testing::random_particles<double>(16, 1);
    edit(p);
    io::write_snapshot(dir / "ic.h5", p, snapshot_info(integrate::RunConfig{}, "direct", ""));
    auto r = small_run(dir / "out", 0.25, {"gravity.precision=single", "initial_conditions.kind=file",
                                           "initial_conditions.path=" + (dir / "ic.h5").string()});
    io::testing::expect_input_error([&] { run(r.config, r.options); }, words);
    EXPECT_FALSE(std::filesystem::exists(dir / "out")) << "refused after writing output";
  };
  start([](auto& p) { p.x[3] = 1e39; },
        {"ic.h5", "PartType1/Coordinates: row 3 is 1e+39, above the largest value of single precision"});
  start([](auto& p) { p.mass[5] = 1e-50; },
        {"ic.h5", "PartType1/Masses: row 5 is 1e-50, below the smallest normal value of single precision"});
}

}  // namespace
}  // namespace orrery::driver

namespace orrery::driver {
namespace {

TEST(DriverSetup, PhysicalUnitsTakeMsunAndKpcAndTheSnapshotSaysSo) {
  integrate::RunConfig c;
  c.units.system = "physical";
  c.initial_conditions.kind = "hernquist";
  c.initial_conditions.count = 200;
  c.initial_conditions.mass = 1e12;   // Msun
  c.initial_conditions.length = 60;   // kpc: scale radius 20 kpc
  const auto state = initial_state(c);
  double code_mass = 0;
  for (const double m : state.particles.mass) code_mass += m;
  const auto info = snapshot_info(c, "direct", "");
  EXPECT_NEAR(code_mass * info.units.mass_g / cgs::msun, 1e12, 1e12 * 1e-12);
  EXPECT_EQ(info.units.length_cm, cgs::kpc);
  EXPECT_EQ(info.units.velocity_cm_per_s, 1e5);
  c.units.system = "cgs";
  io::testing::expect_input_error([&] { initial_state(c); }, {"units.system", "cgs", "henon, physical"});
}

// Block steps through the whole product: the bins in the checkpoint, the
// substep and time-bin logs, and a restart that continues bit for bit.
TEST(DriverRun, BlockStepsRestartFromTheirCheckpointBitIdentically) {
  const std::vector<std::string> block = {"integration.kind=block", "integration.dt_max=0.0625",
                                          "gravity.softening=0.005", "gravity.solver=tree"};
  ScratchDir straight_dir, split_dir;
  auto straight = small_run(straight_dir.path(), 0.5, block);
  const auto whole = run(straight.config, straight.options);
  EXPECT_EQ(whole.run.steps, 8);  // block steps of dt_max
  const auto checkpoint = io::read_checkpoint<double>(whole.checkpoint);
  ASSERT_EQ(checkpoint.time_bins.size(), 64u);
  EXPECT_GT(*std::max_element(checkpoint.time_bins.begin(), checkpoint.time_bins.end()), 0);  // several bins
  for (const char* log : {"substeps.csv", "time_bins.csv"}) EXPECT_TRUE(std::filesystem::exists(straight_dir / log)) << log;

  auto first = small_run(split_dir.path(), 0.25, block);
  const auto half = run(first.config, first.options);
  auto second = small_run(split_dir.path(), 0.5, block);
  second.options.restart = half.checkpoint;
  const auto rest = run(second.config, second.options);
  EXPECT_EQ(rest.first_step, 4);
  io::testing::expect_same_particles(final_particles(whole), final_particles(rest));
  EXPECT_EQ(io::read_checkpoint<double>(rest.checkpoint).time_bins, checkpoint.time_bins);
  EXPECT_TRUE(std::filesystem::exists(split_dir / "substeps_from_4.csv"));

  // A restart may not switch to the global step.
  auto global = small_run(split_dir.path(), 0.5, {"gravity.softening=0.005", "gravity.solver=tree"});
  global.options.restart = half.checkpoint;
  try {
    run(global.config, global.options);
    ADD_FAILURE() << "a restart with another integration.kind was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("integration.kind is \"block\" in the checkpoint"), std::string::npos) << e.what();
  }
}

// A run that notices (issue 17): the Kepler orbit of eccentricity 0.99
// without softening at the default step (it used to end at |dE/E| = 331)
// warns that dt is larger than the criterion's step, then stops at the first
// row past integration.max_energy_error with a checkpoint of that step; an
// earlier diagnostics.csv is kept. With the limit at 0 it runs to the end.
TestRun kepler_099(const std::filesystem::path& dir) {
  io::Config c = io::Config::defaults();
  c.set("initial_conditions.kind=kepler");
  c.set("initial_conditions.kepler.eccentricity=0.99");
  c.set("gravity.softening=0");
  c.set("output.directory=" + dir.string());
  TestRun r{c.run_config(), {}};
  r.options.config_toml = c.to_toml();
  r.options.handle_signals = false;
  return r;
}

TEST(DriverRunWatch, KeplerAtEccentricity099WarnsThenStopsWithAFinalCheckpoint) {
  ScratchDir dir;
  io::testing::write_bytes(dir / "diagnostics.csv", "an earlier run's log\n");
  auto r = kepler_099(dir.path());
  std::vector<std::string> warnings;
  r.options.on_warning = [&](const std::string& w) { warnings.push_back(w); };
  std::string message;
  try {
    run(r.config, r.options);
    FAIL() << "the run did not stop";
  } catch (const EnergyErrorExceeded& e) {
    message = e.what();
  }
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].rfind("integration.dt = 0.0078125 is larger than the step ", 0), 0u) << warnings[0];
  EXPECT_NE(warnings[0].find("dynamical criterion"), std::string::npos) << warnings[0];
  EXPECT_NE(message.find("exceeds integration.max_energy_error = 0.01: the run stopped there"), std::string::npos)
      << message;
  const auto at = message.find(" at step ");
  ASSERT_NE(at, std::string::npos) << message;
  const long long step = std::stoll(message.substr(at + 9));
  EXPECT_GT(step, 0);
  EXPECT_LT(step, 1280) << "it stops where the error passes the limit, not at the end";
  char name[64];
  std::snprintf(name, sizeof name, "checkpoint_%012lld.orrck", step);
  EXPECT_NE(message.find(std::string("the last checkpoint is '") + (dir / name).string() + "'"), std::string::npos)
      << message;
  EXPECT_EQ(io::read_checkpoint<float>(dir / name).state.step, step);
  EXPECT_EQ(io::testing::read_bytes(dir / "diagnostics.csv"), "an earlier run's log\n");
  EXPECT_TRUE(std::filesystem::exists(dir / "diagnostics.csv.partial"));
}

TEST(DriverRunWatch, WithoutALimitTheSameRunEndsAsItUsedTo) {
  ScratchDir dir;
  auto r = kepler_099(dir.path());
  r.config.integration.max_energy_error = 0;
  const auto s = run(r.config, r.options);
  EXPECT_EQ(s.run.steps, 1280);
  EXPECT_GT(s.worst_relative_energy_error, 100.0);
}

// The default demo's first half time unit (the CLI test, tests/cli/run_watch.sh, runs all of it).
TEST(DriverRunWatch, TheDemoNeitherWarnsNorStops) {
  ScratchDir dir;
  io::Config c = io::Config::defaults();
  c.set("integration.t_end=0.5");
  c.set("output.directory=" + dir.path().string());
  TestRun r{c.run_config(), {}};
  r.options.handle_signals = false;
  std::vector<std::string> warnings;
  r.options.on_warning = [&](const std::string& w) { warnings.push_back(w); };
  const auto s = run(r.config, r.options);
  EXPECT_TRUE(warnings.empty()) << (warnings.empty() ? "" : warnings.front());
  EXPECT_LT(s.worst_relative_energy_error, r.config.integration.max_energy_error);
}

// Block steps take each particle's step from the criterion, so the watch has
// no global step to warn about: dt_max = 0.5 is far above the criterion's
// step for this orbit (about 0.15 at apocentre, where it starts), which the
// same orbit with a global step of 0.5 would be warned of.
TEST(DriverRunWatch, BlockStepsDoNotWarnAboutAGlobalStep) {
  ScratchDir dir;
  io::Config c = io::Config::defaults();
  for (const char* k : {"initial_conditions.kind=kepler", "initial_conditions.kepler.eccentricity=0.99",
                        "gravity.softening=0", "integration.kind=block", "integration.criterion=dynamical",
                        "integration.eta=0.002", "integration.dt_max=0.5", "integration.t_end=0.5"})
    c.set(k);
  c.set("output.directory=" + dir.path().string());
  TestRun r{c.run_config(), {}};
  r.options.config_toml = c.to_toml();
  r.options.handle_signals = false;
  std::vector<std::string> warnings;
  r.options.on_warning = [&](const std::string& w) { warnings.push_back(w); };
  const auto s = run(r.config, r.options);
  EXPECT_TRUE(warnings.empty()) << (warnings.empty() ? "" : warnings.front());
  EXPECT_EQ(s.run.steps, 1);
  // The global step of dt_max is warned of at the start.
  c.set("integration.kind=global");
  c.set("integration.dt=0.5");
  r.config = c.run_config();
  r.config.integration.max_energy_error = 0;
  ScratchDir other;
  r.config.output.directory = other.path().string();
  run(r.config, r.options);
  EXPECT_EQ(warnings.size(), 1u);
}

TEST(DriverRunWatch, ANegativeOrNonFiniteLimitIsRefusedNamingTheKey) {
  ScratchDir dir;
  auto r = small_run(dir.path(), 0.1);
  for (const double bad : {-0.1, std::nan("")}) {
    r.config.integration.max_energy_error = bad;
    try {
      run(r.config, r.options);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("integration.max_energy_error = ", 0), 0u) << e.what();
      EXPECT_NE(std::string(e.what()).find("accepted: a finite number >= 0 (0: no limit)"), std::string::npos);
    }
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "diagnostics.csv.partial")) << "refused after writing";
}

}  // namespace
}  // namespace orrery::driver
