#pragma once
// A whole run on K ranks against the same run in one process (written once
// for the CPU and GPU tests of driver/): every rank runs the MPI run into a
// shared directory, rank 0 then runs it alone into another, and the two must
// have the same final particles, accelerations and state, the same
// diagnostics (every column but the wall times) and byte-identical snapshots.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "orrery/driver/run.hpp"
#include "orrery/driver/test_runs.hpp"
#include "orrery/io/checkpoint.hpp"
#include "orrery/io/snapshot.hpp"
#include "orrery/io/test_files.hpp"
#include "support/mpi_scratch_dir.hpp"

namespace orrery::testing {

inline int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

/// A CSV log without its wall-time columns (wall_* and every column after
/// the first of them): what must not depend on K. The diagnostics, substep
/// and time-bin logs.
inline std::vector<std::string> physical_columns(const std::filesystem::path& csv) {
  std::ifstream in(csv);
  std::vector<std::string> rows;
  std::string line;
  std::size_t fields = std::string::npos;  // the columns kept
  while (std::getline(in, line)) {
    if (fields == std::string::npos) {
      const std::size_t wall = line.find(",wall_");
      fields = wall == std::string::npos
                   ? wall
                   : static_cast<std::size_t>(std::count(line.begin(), line.begin() + static_cast<std::ptrdiff_t>(wall), ',')) + 1;
    }
    std::size_t cut = line.size(), commas = 0;  // at the comma that ends the last column kept
    for (std::size_t i = 0; i < line.size() && cut == line.size(); ++i)
      if (line[i] == ',' && ++commas == fields) cut = i;
    rows.push_back(line.substr(0, cut));
  }
  return rows;
}

/// Two snapshots hold the same datasets and metadata, bit for bit.
template <class Real>
void expect_same_snapshot_contents(const std::filesystem::path& a, const std::filesystem::path& b) {
  const auto x = io::read_snapshot<Real>(a), y = io::read_snapshot<Real>(b);
  io::testing::expect_same_particles(x.particles, y.particles);
  for (const auto& [u, v] : {std::pair{&x.field.potential, &y.field.potential}, std::pair{&x.field.ax, &y.field.ax},
                             std::pair{&x.field.ay, &y.field.ay}, std::pair{&x.field.az, &y.field.az}})
    EXPECT_TRUE(io::testing::same_bits(*u, *v)) << a;
  EXPECT_EQ(x.info.time, y.info.time);
  EXPECT_EQ(x.info.step, y.info.step);
  EXPECT_EQ(x.info.solver, y.info.solver);
  EXPECT_EQ(x.info.config, y.info.config);
  EXPECT_EQ(x.info.types.count, y.info.types.count);
}

/// `settings`: --set assignments on top of driver::testing::small_run (64
/// particles, direct, double, 32 steps to t = 0.5, snapshots every 0.25).
/// `piece` > 0 (the distributed layout): outputs gathered that many rows at
/// a time, the snapshots then compared by their contents (their chunks are
/// written in other pieces than one process's, not always to the same bytes).
/// `t_end` off the outputs' schedules: the last outputs solve for the
/// potentials alone.
template <class Real = double>
void expect_run_like_one_process(const std::vector<std::string>& settings, std::int64_t piece = 0,
                                 double t_end = 0.5) {
  MpiScratchDir dir;
  auto spread = driver::testing::small_run(dir / "ranks", t_end, settings);
  spread.options.mpi = true;
  spread.options.output_piece = piece;
  const auto s = driver::run(spread.config, spread.options);
  if (world_rank() != 0) return;
  auto one = driver::testing::small_run(dir / "one", t_end, settings);
  one.options.config_toml = spread.options.config_toml;  // snapshots store it: the same text, the same bytes
  const auto o = driver::run(one.config, one.options);
  EXPECT_EQ(s.run.steps, o.run.steps);
  EXPECT_EQ(s.run.solver, o.run.solver);
  const auto a = io::read_checkpoint<Real>(s.checkpoint), b = io::read_checkpoint<Real>(o.checkpoint);
  io::testing::expect_same_particles(a.particles, b.particles);
  EXPECT_TRUE(io::testing::same_bits(a.accelerations.ax, b.accelerations.ax));
  EXPECT_TRUE(io::testing::same_bits(a.accelerations.ay, b.accelerations.ay));
  EXPECT_TRUE(io::testing::same_bits(a.accelerations.az, b.accelerations.az));
  EXPECT_EQ(a.state.step, b.state.step);
  EXPECT_EQ(a.time_bins, b.time_bins);  // block steps: the same bins on every rank count
  EXPECT_EQ(a.state.initial_energy, b.state.initial_energy);
  EXPECT_EQ(physical_columns(s.run.diagnostics), physical_columns(o.run.diagnostics));
  // Block steps: the substep and time-bin logs too (every column before the wall times).
  for (const char* log : {"substeps.csv", "time_bins.csv"}) {
    const auto mine = s.run.diagnostics.parent_path() / log, theirs = o.run.diagnostics.parent_path() / log;
    EXPECT_EQ(std::filesystem::exists(mine), std::filesystem::exists(theirs)) << log;
    if (std::filesystem::exists(theirs)) EXPECT_EQ(physical_columns(mine), physical_columns(theirs)) << log;
  }
  EXPECT_EQ(s.snapshots, o.snapshots);
  for (int k = 0; k < o.snapshots; ++k) {
    const std::string name = "snapshot_000" + std::to_string(k) + ".h5";
    if (piece > 0)
      expect_same_snapshot_contents<Real>(dir / "ranks" / name, dir / "one" / name);
    else
      EXPECT_EQ(io::testing::read_bytes(dir / "ranks" / name), io::testing::read_bytes(dir / "one" / name)) << name;
  }
}

}  // namespace orrery::testing
