// The K-rank solve with the GPU tree solver (ranks sharing the one GPU where
// there are fewer GPUs than ranks) against one process's GPU solve, bit for
// bit: orrery_mpi_solver_gpu_test.npK, K = 1, 2, 4, label gpu. Skips without a GPU.
// Every counter is compared for the independent traversal; for the coherent
// one (the default) all but the node visits, which count a target's group.
#include <gtest/gtest.h>

#include "orrery/gravity/tree_gpu_solver.hpp"
#include "support/rank_gpu_test.hpp"
#include "support/replicated_checks.hpp"

namespace orrery {
namespace {

template <class Real>
testing::SolverMaker<Real> gpu_tree(bh::Opening opening, MathMode math,
                                    const char* traversal = "coherent") {
  auto g = testing::checked_tree("cuda", opening);
  g.math = math;
  g.traversal = traversal;
  return [g] { return gravity::make_gpu_tree_solver<Real>(g); };
}

using ReplicatedGpuSolver = testing::RankGpuTest;

constexpr auto kGroup = testing::Visits::of_the_group;

TEST_F(ReplicatedGpuSolver, GeometricTreeIsBitIdenticalToOneProcess) {
  testing::expect_replicated_bits<float>(gpu_tree<float>(bh::Opening::geometric, MathMode::fast), 20000, "gpu/fast",
                                         kGroup);
  testing::expect_replicated_bits<double>(gpu_tree<double>(bh::Opening::geometric, MathMode::exact), 20000,
                                          "gpu/exact", kGroup);
  testing::expect_replicated_bits<float>(
      gpu_tree<float>(bh::Opening::geometric, MathMode::exact, "independent"), 20000, "gpu/independent");
}

TEST_F(ReplicatedGpuSolver, RelativeTreeIsBitIdenticalToOneProcess) {
  testing::expect_replicated_bits<float>(gpu_tree<float>(bh::Opening::relative, MathMode::fast), 20000, "gpu/relative",
                                         kGroup);
  testing::expect_replicated_bits<float>(
      gpu_tree<float>(bh::Opening::relative, MathMode::fast, "independent"), 20000,
      "gpu/relative/independent");
}

}  // namespace
}  // namespace orrery
