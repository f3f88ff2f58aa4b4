// `orrery run` on K ranks (orrery_driver_mpi_test.npK, K = 1..4): the same
// final state, diagnostics and snapshot bytes as one process, with the
// direct solver and the tree (geometric and relative opening); and a stop
// that one rank sees (the wall-clock limit on rank 0, a signal on the last
// rank, a STOP file) stops every rank at the same step with one checkpoint.
#include <gtest/gtest.h>
#include <mpi.h>

#include "orrery/ic/plummer.hpp"
#include "orrery/io/run_control.hpp"
#include "orrery/io/snapshot.hpp"
#include "support/mpi_run_checks.hpp"

namespace orrery::driver {
namespace {

using orrery::testing::expect_run_like_one_process;

TEST(MpiRun, DirectIsBitIdenticalToOneProcess) { expect_run_like_one_process({}); }

TEST(MpiRun, GeometricTreeIsBitIdenticalToOneProcess) {
  expect_run_like_one_process({"initial_conditions.count=800", "gravity.solver=tree", "gravity.theta=0.7"});
}

TEST(MpiRun, RelativeTreeIsBitIdenticalToOneProcess) {
  expect_run_like_one_process({"initial_conditions.count=800", "gravity.solver=tree", "gravity.opening=relative",
                               "gravity.theta=1.0", "gravity.multipole=quadrupole"});
}

// The distributed tree (docs/adr/0012) behind the run: the same final state,
// diagnostics and snapshot bytes as one process.
TEST(MpiRun, DistributedTreeIsBitIdenticalToOneProcess) {
  expect_run_like_one_process({"initial_conditions.count=800", "gravity.solver=tree", "gravity.mpi_layout=distributed",
                               "gravity.opening=relative", "gravity.theta=1.0", "gravity.multipole=quadrupole"});
  expect_run_like_one_process<float>({"initial_conditions.count=800", "gravity.solver=tree",
                                      "gravity.mpi_layout=distributed", "gravity.precision=single"});
}

// Each rank holds its domain's particles alone; the outputs gather them to
// rank 0 in pieces of 37 rows (many pieces, the last one short, and many
// rounds of the Lagrangian radii's merge): the same final state,
// diagnostics and snapshot contents as one process, both openings. The
// relative run ends off the outputs' schedules (t = 0.3125): its last
// outputs solve for the potentials alone, keeping the accelerations.
TEST(MpiRun, DistributedRunInSmallPiecesIsOneProcesssRun) {
  expect_run_like_one_process({"initial_conditions.count=700", "gravity.solver=tree", "gravity.mpi_layout=distributed",
                               "gravity.opening=relative", "gravity.theta=1.0"},
                              37, 0.3);
  expect_run_like_one_process<float>({"initial_conditions.count=500", "gravity.solver=tree",
                                      "gravity.mpi_layout=distributed", "gravity.precision=single",
                                      "gravity.multipole=quadrupole"},
                                     37);
}

TEST(MpiRun, SinglePrecisionIsBitIdenticalToOneProcess) {
  expect_run_like_one_process<float>({"initial_conditions.count=800", "gravity.solver=tree", "gravity.precision=single"});
}

// Every rank runs the block integrator on the replicated particles; each substep's
// solve of the active particles is split over the ranks like a whole solve.
TEST(MpiRun, BlockStepsAreBitIdenticalToOneProcess) {
  expect_run_like_one_process({"initial_conditions.count=800", "gravity.solver=tree", "gravity.opening=relative",
                               "gravity.theta=1.0", "gravity.softening=0.005", "integration.kind=block",
                               "integration.dt_max=0.0625"});
}

// Block steps with each rank holding its domain's particles (distributed_block_steps.hpp):
// a Hernquist halo (a cusp: several bins), both openings, the outputs in pieces of 37 rows
// in the second; the same final state, bins, logs and snapshots as one process (t = 0.25:
// four block steps of about 25 substeps each).
TEST(MpiRun, DistributedBlockStepsAreBitIdenticalToOneProcess) {
  const std::vector<std::string> block = {"initial_conditions.kind=hernquist", "initial_conditions.count=800",
                                          "gravity.solver=tree",  "gravity.mpi_layout=distributed",
                                          "gravity.softening=0.005", "integration.kind=block",
                                          "integration.dt_max=0.0625"};
  auto relative = block;
  relative.insert(relative.end(), {"gravity.opening=relative", "gravity.theta=1.0", "gravity.multipole=quadrupole"});
  expect_run_like_one_process(relative, 0, 0.25);
  auto single = block;
  single.insert(single.end(), {"gravity.precision=single", "integration.criterion=dynamical", "integration.eta=0.02"});
  expect_run_like_one_process<float>(single, 37, 0.25);
}

// A run from a snapshot of two types, each rank reading its block of rows by hyperslab
// (docs/adr/0012 decision 14): one process's run. A file whose first and last rows share an ID
// (on two ranks' blocks when K > 1) is refused on every rank, naming the ID.
TEST(MpiRun, DistributedRunFromASnapshotIsOneProcesssRun) {
  orrery::testing::MpiScratchDir files;
  auto p = ic::plummer_sphere(600, 9);
  io::SnapshotInfo info;
  info.types.count = {150, 450, 0, 0, 0, 0};
  if (orrery::testing::world_rank() == 0) io::write_snapshot(files / "ic.h5", p, info);
  p.id.back() = p.id.front();
  if (orrery::testing::world_rank() == 0) io::write_snapshot(files / "twice.h5", p, info);
  MPI_Barrier(MPI_COMM_WORLD);
  const std::vector<std::string> tree = {"gravity.solver=tree", "gravity.mpi_layout=distributed",
                                         "initial_conditions.kind=file"};
  auto from_file = tree;
  from_file.push_back("initial_conditions.path=" + (files / "ic.h5").string());
  expect_run_like_one_process(from_file);
  orrery::testing::MpiScratchDir dir;
  auto twice = tree;
  twice.push_back("initial_conditions.path=" + (files / "twice.h5").string());
  auto r = testing::small_run(dir / "out", 0.5, twice);
  r.options.mpi = true;
  io::testing::expect_input_error([&] { run(r.config, r.options); }, {"twice.h5", "ID 1 occurs more than once"});
}

/// The steps each rank ran: equal on every rank (the smallest equals the largest).
void expect_same_steps_everywhere(const RunSummary& s) {
  long long steps = s.run.steps, fewest = 0, most = 0;
  MPI_Allreduce(&steps, &fewest, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&steps, &most, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(fewest, most);
}

// The stops with every particle on every rank, and with the distributed tree (the parameter: its settings).
class MpiStop : public ::testing::TestWithParam<std::vector<std::string>> {};
INSTANTIATE_TEST_SUITE_P(Layouts, MpiStop,
                         ::testing::Values(std::vector<std::string>{},
                                           std::vector<std::string>{"gravity.solver=tree",
                                                                    "gravity.mpi_layout=distributed"}));

TEST_P(MpiStop, TheWallClockLimitOfRank0StopsEveryRankAtTheSameStep) {
  orrery::testing::MpiScratchDir dir;
  auto r = testing::small_run(dir / "out", 0.5, GetParam());
  r.options.mpi = true;
  r.config.integration.wall_limit_minutes = 1e-9;  // past after the first step
  const auto s = run(r.config, r.options);
  expect_same_steps_everywhere(s);
  EXPECT_EQ(s.run.steps, 1);
  if (orrery::testing::world_rank() == 0) {
    EXPECT_NE(s.stopped_by.find("wall-clock"), std::string::npos) << s.stopped_by;
    EXPECT_EQ(io::read_checkpoint<double>(s.checkpoint).state.step, 1);
  }
}

TEST_P(MpiStop, AStopFileStopsEveryRankAtTheSameStep) {
  orrery::testing::MpiScratchDir dir;
  if (orrery::testing::world_rank() == 0) {
    std::filesystem::create_directories(dir / "out");
    io::testing::write_bytes(dir / "out" / "STOP", "");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  auto r = testing::small_run(dir / "out", 0.5, GetParam());
  r.options.mpi = true;
  const auto s = run(r.config, r.options);
  expect_same_steps_everywhere(s);
  EXPECT_EQ(s.run.steps, 1);
  if (orrery::testing::world_rank() == 0) {
    EXPECT_NE(s.stopped_by.find("STOP"), std::string::npos) << s.stopped_by;
    EXPECT_FALSE(std::filesystem::exists(dir / "out" / "STOP"));
  }
}

TEST_P(MpiStop, ASignalToTheLastRankStopsEveryRankAtTheSameStep) {
  orrery::testing::MpiScratchDir dir;
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  auto r = testing::small_run(dir / "out", 0.5, GetParam());
  r.options.mpi = true;
  io::RunControl::set_signal_flag(rank == size - 1);  // as if SIGTERM had reached that rank alone
  const auto s = run(r.config, r.options);
  io::RunControl::set_signal_flag(false);
  expect_same_steps_everywhere(s);
  EXPECT_EQ(s.run.steps, 1);
  if (rank == 0) {
    EXPECT_NE(s.stopped_by.find(size > 1 ? "another rank" : "signal"), std::string::npos) << s.stopped_by;
    EXPECT_EQ(io::read_checkpoint<double>(s.checkpoint).state.step, 1);
    std::size_t checkpoints = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir / "out")) checkpoints += e.path().extension() == ".orrck";
    EXPECT_EQ(checkpoints, 1u);
  }
}

}  // namespace
}  // namespace orrery::driver
