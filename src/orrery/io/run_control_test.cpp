#include "orrery/io/run_control.hpp"

#include <gtest/gtest.h>

#include <csignal>

#include "orrery/io/test_files.hpp"

namespace orrery::io {
namespace {

using Action = RunControl::Action;
using std::chrono::minutes;
using std::chrono::seconds;

RunControlOptions options(double checkpoint_minutes, double wall_limit_minutes, std::filesystem::path stop = {}) {
  RunControlOptions o;
  o.checkpoint_minutes = checkpoint_minutes;
  o.wall_limit_minutes = wall_limit_minutes;
  o.stop_file = std::move(stop);
  return o;
}

TEST(RunControl, PeriodicCheckpointsByWallClock) {
  const auto t0 = RunControl::Clock::now();
  RunControl c(options(10, 0), t0);
  EXPECT_EQ(c.poll(t0 + minutes(9)), Action::none);
  EXPECT_EQ(c.poll(t0 + minutes(10)), Action::checkpoint);
  EXPECT_EQ(c.poll(t0 + minutes(15)), Action::none);
  EXPECT_EQ(c.poll(t0 + minutes(20)), Action::checkpoint);
}

TEST(RunControl, WallClockLimitStops) {
  const auto t0 = RunControl::Clock::now();
  RunControl c(options(0, 60), t0);
  EXPECT_EQ(c.poll(t0 + minutes(59)), Action::none);
  EXPECT_EQ(c.poll(t0 + minutes(60)), Action::checkpoint_and_stop);
  EXPECT_NE(c.reason().find("wall-clock"), std::string::npos);
}

TEST(RunControl, StopFileStopsAndIsRemoved) {
  testing::ScratchDir dir;
  const auto t0 = RunControl::Clock::now();
  RunControl c(options(0, 0, dir / "STOP"), t0);
  EXPECT_EQ(c.poll(t0 + seconds(2)), Action::none);
  testing::write_bytes(dir / "STOP", "");
  EXPECT_EQ(c.poll(t0 + seconds(4)), Action::checkpoint_and_stop);
  EXPECT_FALSE(std::filesystem::exists(dir / "STOP"));
  EXPECT_NE(c.reason().find("STOP"), std::string::npos);
}

TEST(RunControl, SigtermStopsCleanly) {
  RunControl::install_signal_handlers();
  RunControl c({});
  EXPECT_EQ(c.poll(), Action::none);
  std::raise(SIGTERM);
  EXPECT_EQ(c.poll(), Action::checkpoint_and_stop);
  EXPECT_NE(c.reason().find("signal"), std::string::npos);
  RunControl::set_signal_flag(false);
  std::signal(SIGINT, SIG_DFL);
}

TEST(RunControl, NegativeMinutesAreRefused) {
  testing::expect_input_error([] { RunControl(options(-1, 0)); }, {"output.checkpoint_minutes", "-1"});
  testing::expect_input_error([] { RunControl(options(0, -2)); }, {"integration.wall_limit_minutes"});
}

}  // namespace
}  // namespace orrery::io
