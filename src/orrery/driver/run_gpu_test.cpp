// `orrery run` with gravity.backend = "cuda": the particles stay on the
// device (integrate/device_stepper.hpp) and, in exact math mode, every output
// has the bits of the CPU run (DirectGpuSolver exact == DirectSolver,
// GpuTreeSolver exact == TreeSolver); a restart continues bit-identically.
// Block time steps with the tree too (through the GPU solver's host overload).
// Skipped without a CUDA device.
#include <gtest/gtest.h>

#include <fstream>
#include <numeric>
#include <sstream>

#include "orrery/cuda/device.hpp"
#include "orrery/driver/make_simulation.hpp"
#include "orrery/driver/run.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/ic/plummer.hpp"
#include "orrery/driver/test_runs.hpp"
#include "orrery/gravity/dispatch.hpp"
#include "orrery/io/snapshot.hpp"
#include "orrery/io/test_files.hpp"

namespace orrery::driver {
namespace {

using io::testing::ScratchDir;
using io::testing::expect_same_particles;
using io::testing::same_bits;
using testing::final_particles;
using testing::small_run;

#define SKIP_WITHOUT_GPU() \
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device"

/// The diagnostics rows without the wall-time columns: time ... r90.
std::vector<std::string> physics_columns(const std::filesystem::path& csv) {
  constexpr int kPhysicsColumns = 16;
  std::ifstream in(csv);
  std::vector<std::string> rows;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string field, kept;
    for (int k = 0; k < kPhysicsColumns && std::getline(fields, field, ','); ++k) kept += field + ",";
    rows.push_back(kept);
  }
  return rows;
}

struct Case {
  std::string solver;  // direct | tree
  gravity::Precision precision;
  bool relative = false;  // tree: the relative opening (docs/adr/0007), quadrupole, theta 1
  // Block time steps (integration.kind = "block", dt_max 1/16): with backend = "cuda" device-resident
  // (integrate/device_block_leapfrog.hpp), against the CPU run's bits.
  bool block = false;
  std::string name() const {
    return solver + (relative ? "_relative_" : "_") + std::string(to_string(precision)) + (block ? "_block" : "");
  }
  std::int64_t steps_to(double t) const { return static_cast<std::int64_t>(t * (block ? 16 : 64)); }
  friend void PrintTo(const Case& c, std::ostream* os) { *os << c.name(); }
};

class DriverGpuRun : public ::testing::TestWithParam<Case> {
 protected:
  std::vector<std::string> settings(const std::string& backend) const {
    std::vector<std::string> s = {"gravity.solver=" + GetParam().solver,
                                  "gravity.precision=" + std::string(to_string(GetParam().precision)),
                                  "gravity.backend=" + backend, "gravity.math=exact"};
    if (GetParam().relative)
      s.insert(s.end(), {"gravity.opening=relative", "gravity.theta=1.0", "gravity.multipole=quadrupole"});
    if (GetParam().block)
      s.insert(s.end(), {"integration.kind=block", "integration.dt_max=0.0625", "gravity.softening=0.005"});
    return s;
  }
  template <class Real>
  void expect_same_outputs(const std::filesystem::path& a, const std::filesystem::path& b, const RunSummary& sa,
                           const RunSummary& sb) const {
    expect_same_particles(final_particles<Real>(sa), final_particles<Real>(sb));
    for (const char* name : {"snapshot_0000.h5", "snapshot_0001.h5", "snapshot_0002.h5"}) {
      const auto x = io::read_snapshot<Real>(a / name), y = io::read_snapshot<Real>(b / name);
      expect_same_particles(x.particles, y.particles);
      EXPECT_TRUE(same_bits(x.field.potential, y.field.potential)) << name;
      EXPECT_TRUE(same_bits(x.field.ax, y.field.ax)) << name;
      EXPECT_TRUE(same_bits(x.field.az, y.field.az)) << name;
    }
    const auto rows_a = physics_columns(sa.run.diagnostics), rows_b = physics_columns(sb.run.diagnostics);
    EXPECT_GT(rows_a.size(), 2u);
    EXPECT_EQ(rows_a, rows_b);
  }
  template <class Real>
  void matches_cpu_run() const {
    ScratchDir cpu_dir, gpu_dir;
    const auto cpu = small_run(cpu_dir.path(), 0.5, settings("cpu"));
    const auto gpu = small_run(gpu_dir.path(), 0.5, settings("cuda"));
    const auto sc = run(cpu.config, cpu.options);
    const auto sg = run(gpu.config, gpu.options);
    EXPECT_NE(sg.run.solver.find("/cuda"), std::string::npos) << sg.run.solver;
    EXPECT_EQ(sg.run.steps, GetParam().steps_to(0.5));
    expect_same_outputs<Real>(cpu_dir.path(), gpu_dir.path(), sc, sg);
    if (GetParam().block) {
      // The device run's logs: the same bins at every diagnostics time, the same substeps (all but the wall times).
      EXPECT_EQ(file_text(gpu_dir / "time_bins.csv"), file_text(cpu_dir / "time_bins.csv"));
      EXPECT_EQ(substep_columns(gpu_dir / "substeps.csv"), substep_columns(cpu_dir / "substeps.csv"));
      EXPECT_GT(substep_columns(gpu_dir / "substeps.csv").size(), 8u);  // several substeps per block step
    }
  }
  static std::string file_text(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  // block_step, time, dt, active, active_fraction of every row: what does not depend on the wall clock.
  static std::vector<std::string> substep_columns(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::vector<std::string> rows;
    for (std::string line; std::getline(in, line);) {
      std::size_t cut = 0;
      for (int k = 0; k < 5 && cut != std::string::npos; ++k) cut = line.find(',', cut + (k > 0));
      rows.push_back(line.substr(0, cut));
    }
    return rows;
  }
  template <class Real>
  void restart_is_bit_identical() const {
    ScratchDir straight_dir, split_dir;
    const auto straight = small_run(straight_dir.path(), 0.5, settings("cuda"));
    const auto whole = run(straight.config, straight.options);
    const auto first = small_run(split_dir.path(), 0.25, settings("cuda"));
    const auto half = run(first.config, first.options);
    auto second = small_run(split_dir.path(), 0.5, settings("cuda"));
    second.options.restart = half.checkpoint;
    const auto rest = run(second.config, second.options);
    EXPECT_EQ(rest.first_step, GetParam().steps_to(0.25));
    expect_same_particles(final_particles<Real>(whole), final_particles<Real>(rest));
    const auto x = io::read_snapshot<Real>(straight_dir / "snapshot_0002.h5");
    const auto y = io::read_snapshot<Real>(split_dir / "snapshot_0002.h5");
    expect_same_particles(x.particles, y.particles);
    EXPECT_TRUE(same_bits(x.field.potential, y.field.potential));
  }
};

TEST_P(DriverGpuRun, ExactModeOutputsHaveTheCpuRunsBits) {
  SKIP_WITHOUT_GPU();
  gravity::with_precision(GetParam().precision, [&](auto real) { matches_cpu_run<decltype(real)>(); });
}

TEST_P(DriverGpuRun, RestartContinuesBitIdentically) {
  SKIP_WITHOUT_GPU();
  gravity::with_precision(GetParam().precision, [&](auto real) { restart_is_bit_identical<decltype(real)>(); });
}

// gravity.backend = "cuda" with the tree and block steps: the engine is the device's, and so are the bins.
TEST(DriverGpuBlockSteps, MakeSimulationKeepsBlockStepsOnTheDevice) {
  SKIP_WITHOUT_GPU();
  gravity::GravityConfig g;
  g.solver = "tree";
  g.backend = "cuda";
  g.softening = 0.005;
  auto sim = make_simulation<float>(ic::to_precision<float>(ic::plummer_sphere(2000, 5)), g,
                                    integrate::SimulationState{.dt = 1.0 / 16}, true);
  sim.use_block_steps({.rule = {integrate::StepCriterion::softening, 0.025, 0.005}, .dt_min = 1e-6});
  ASSERT_NE(sim.device(), nullptr);
  EXPECT_EQ(sim.block_steps(), nullptr);  // no host integrator
  EXPECT_TRUE(sim.has_block_steps());
  const auto uploads = sim.device()->uploads(), downloads = sim.device()->downloads();
  sim.step();
  sim.step();
  EXPECT_EQ(sim.device()->uploads(), uploads);  // block steps move no particle data
  EXPECT_EQ(sim.device()->downloads(), downloads);
  EXPECT_EQ(sim.time_bins().size(), 2000u);
  const auto h = sim.time_bin_histogram();
  EXPECT_EQ(std::accumulate(h.begin(), h.end(), std::int64_t{0}), 2000);
}

constexpr auto kSingle = gravity::Precision::single;
constexpr auto kDouble = gravity::Precision::double_;
INSTANTIATE_TEST_SUITE_P(Solvers, DriverGpuRun,
                         ::testing::Values(Case{"direct", kDouble}, Case{"direct", kSingle}, Case{"tree", kDouble},
                                           Case{"tree", kSingle}, Case{"tree", kSingle, true},
                                           Case{"tree", kDouble, true}, Case{"tree", kSingle, false, true},
                                           Case{"tree", kSingle, true, true}),
                         [](const auto& info) { return info.param.name(); });

}  // namespace
}  // namespace orrery::driver
