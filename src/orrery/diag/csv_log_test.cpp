#include "orrery/diag/csv_log.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace orrery::diag {
namespace {

std::vector<std::string> lines_of(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::size_t fields(const std::string& line) { return static_cast<std::size_t>(std::count(line.begin(), line.end(), ',')) + 1; }

TEST(CsvLog, HeaderRowsAndAtomicRename) {
  const auto dir = std::filesystem::temp_directory_path() / "orrery_csv_log_test";
  std::filesystem::remove_all(dir);
  const auto path = dir / "sub" / "diagnostics.csv";
  {
    CsvLog log(path, {"force", "kick"});
    Diagnostics d;
    d.lagrangian_radii = {0.1, 0.5, 0.9};
    d.time = 0.125;
    d.step = 16;
    log.write(d, {{"kick", 2.5}, {"force", 1.5}, {"other", 9.0}}, 4.0);
    log.write(d, {}, 5.0);
    EXPECT_FALSE(std::filesystem::exists(path)) << "visible before it is complete";
    EXPECT_TRUE(std::filesystem::exists(path.string() + ".partial"));
    log.close();
  }
  ASSERT_TRUE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(path.string() + ".partial"));
  const auto lines = lines_of(path);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0],
            "time,step,kinetic,potential,total,relative_energy_error,virial_ratio,px,py,pz,lx,ly,lz,r10,r50,r90,"
            "wall_force_s,wall_kick_s,wall_total_s");
  EXPECT_EQ(fields(lines[1]), fields(lines[0]));
  EXPECT_EQ(lines[1].substr(0, 9), "0.125,16,");
  EXPECT_NE(lines[1].find(",1.5,2.5,4"), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find(",0,0,5"), std::string::npos) << lines[2];
  std::filesystem::remove_all(dir);
}

// A run that fails destroys its log without close(): the earlier complete log
// must survive, and the failed run's rows stay in the .partial file.
TEST(CsvLog, AnUnclosedLogLeavesTheEarlierLogAndKeepsItsRowsAside) {
  const auto dir = std::filesystem::temp_directory_path() / "orrery_csv_log_unclosed_test";
  std::filesystem::remove_all(dir);
  const auto path = dir / "diagnostics.csv";
  Diagnostics d;
  d.lagrangian_radii = {0.1, 0.5, 0.9};
  {
    CsvLog complete(path, {});
    for (int step = 0; step < 3; ++step) complete.write(d, {}, 1.0);
    complete.close();
  }
  {
    CsvLog failed(path, {});
    failed.write(d, {}, 1.0);
    EXPECT_EQ(failed.partial_path(), path.string() + ".partial");
  }  // no close(): the run failed
  EXPECT_EQ(lines_of(path).size(), 4u) << "the earlier complete log was replaced";
  EXPECT_EQ(lines_of(path.string() + ".partial").size(), 2u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace orrery::diag
