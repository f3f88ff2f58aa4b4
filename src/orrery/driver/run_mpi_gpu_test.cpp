// `orrery run` with the GPU tree on K ranks sharing the GPU(s)
// (orrery_driver_mpi_gpu_test.npK, K = 1, 2, 4, label gpu): the same final
// state, diagnostics and snapshot bytes as one process's device-resident run,
// with the replicated and the distributed layout (block steps too).
// Skips without a GPU.
#include <gtest/gtest.h>

#include "orrery/cuda/device.hpp"
#include "support/mpi_run_checks.hpp"

namespace orrery::driver {
namespace {

class MpiGpuRun : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
  }
};

TEST_F(MpiGpuRun, ExactTreeIsBitIdenticalToOneProcess) {
  orrery::testing::expect_run_like_one_process({"initial_conditions.count=4000", "gravity.solver=tree",
                                                "gravity.backend=cuda", "gravity.math=exact"});
}

TEST_F(MpiGpuRun, FastRelativeTreeIsBitIdenticalToOneProcess) {
  orrery::testing::expect_run_like_one_process<float>(
      {"initial_conditions.count=4000", "gravity.solver=tree", "gravity.backend=cuda", "gravity.precision=single",
       "gravity.opening=relative"});
}

// The distributed tree (docs/adr/0012) with each rank's walk on the GPU
// (mpi/let_walk_gpu.hpp): one process's GPU run, fast and exact.
TEST_F(MpiGpuRun, DistributedTreeOnTheGpuIsBitIdenticalToOneProcess) {
  orrery::testing::expect_run_like_one_process<float>(
      {"initial_conditions.count=4000", "gravity.solver=tree", "gravity.backend=cuda", "gravity.precision=single",
       "gravity.mpi_layout=distributed"});
  orrery::testing::expect_run_like_one_process({"initial_conditions.count=3000", "gravity.solver=tree",
                                                "gravity.backend=cuda", "gravity.math=exact",
                                                "gravity.opening=relative", "gravity.mpi_layout=distributed"});
}

// Block steps with the distributed layout, each rank walking its active particles on the GPU
// (a subset of its assembled tree's sources, through mpi::LetWalk): one process's
// device-resident block integrator, exact (then also the CPU's bits) and fast.
TEST_F(MpiGpuRun, DistributedBlockStepsOnTheGpuAreBitIdenticalToOneProcess) {
  const std::vector<std::string> block = {"initial_conditions.kind=hernquist", "initial_conditions.count=3000",
                                          "gravity.solver=tree",  "gravity.backend=cuda",
                                          "gravity.mpi_layout=distributed", "gravity.softening=0.005",
                                          "integration.kind=block", "integration.dt_max=0.0625"};
  auto exact = block;
  exact.insert(exact.end(), {"gravity.math=exact", "gravity.opening=relative"});
  orrery::testing::expect_run_like_one_process(exact, 0, 0.25);
  auto fast = block;
  fast.insert(fast.end(), {"gravity.precision=single", "integration.criterion=dynamical", "integration.eta=0.02"});
  orrery::testing::expect_run_like_one_process<float>(fast, 0, 0.25);
}

}  // namespace
}  // namespace orrery::driver
