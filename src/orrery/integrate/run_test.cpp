#include "orrery/integrate/run.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "orrery/core/error.hpp"

namespace orrery::integrate {
namespace {

RunConfig small(const std::filesystem::path& dir) {
  RunConfig c;
  c.initial_conditions.count = 128;
  c.integration.t_end = 0.5;
  c.integration.dt = 1.0 / 64;
  c.output.directory = dir.string();
  c.output.diagnostics_interval = 0.125;
  return c;
}

TEST(Run, WritesOneRowPerIntervalAndReports) {
  const auto dir = std::filesystem::temp_directory_path() / "orrery_run_test";
  std::filesystem::remove_all(dir);
  int calls = 0;
  for (auto precision : {gravity::Precision::single, gravity::Precision::double_}) {
    auto c = small(dir);
    c.gravity.precision = precision;
    const RunSummary s = run(c, [&](const Progress& p) {
      ++calls;
      EXPECT_EQ(p.total_steps, 32);
    });
    EXPECT_EQ(s.steps, 32);
    EXPECT_DOUBLE_EQ(s.time, 0.5);
    EXPECT_LT(std::abs(s.relative_energy_error), 1e-3);
    std::ifstream in(s.diagnostics);
    int lines = 0;
    for (std::string line; std::getline(in, line);) ++lines;
    EXPECT_EQ(lines, 1 + 5);  // header, t = 0, 0.125, 0.25, 0.375, 0.5
  }
  EXPECT_EQ(calls, 64);
  std::filesystem::remove_all(dir);
}

TEST(Run, InvalidParametersNameTheKeyBeforeWritingAnything) {
  const auto dir = std::filesystem::temp_directory_path() / "orrery_run_test_bad";
  std::filesystem::remove_all(dir);
  const auto message = [&](auto mutate) {
    auto c = small(dir);
    mutate(c);
    try {
      run(c);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([](RunConfig& c) { c.integration.dt = 0; }).find("integration.dt = 0"), std::string::npos);
  EXPECT_NE(message([](RunConfig& c) { c.integration.t_end = -1; }).find("integration.t_end = -1"), std::string::npos);
  EXPECT_NE(message([](RunConfig& c) { c.initial_conditions.count = 0; }).find("initial_conditions.count = 0"),
            std::string::npos);
  EXPECT_NE(message([](RunConfig& c) { c.gravity.solver = "tree2"; }).find("gravity.solver = \"tree2\""),
            std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir));
}

}  // namespace
}  // namespace orrery::integrate
