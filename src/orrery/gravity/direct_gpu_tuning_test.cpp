// The launch plan of the fast direct kernel (host code: runs without a GPU).
#include "orrery/gravity/direct_gpu_tuning.hpp"

#include <gtest/gtest.h>

namespace orrery::gravity::gpu {
namespace {

constexpr int kH200Sms = 132;

double efficiency(const DirectFastPlan& p, int sms) {
  const double ideal = double(p.blocks) * double(p.tiles) / sms;
  return ideal / launch_cost(p.blocks, p.tiles, p.per_slice, sms, p.config.tile);
}

TEST(DirectFastPlan, SlicesCoverEveryTileAndNoSliceIsEmpty) {
  for (std::int64_t n = 1; n < 3'000'000; n = n * 3 + 1) {
    for (const auto& c : kFastConfigs<float>) {
      const DirectFastPlan p = plan_for(c, n, kH200Sms);
      ASSERT_GE(p.per_slice, 1) << n;
      ASSERT_LE(p.slices(), kMaxSlices) << n;
      ASSERT_GE(p.slices() * p.per_slice, p.tiles) << n;
      ASSERT_LT((p.slices() - 1) * p.per_slice, p.tiles) << n;
    }
  }
}

TEST(DirectFastPlan, LargeNFillsTheMultiprocessorsEvenly) {
  // 262144 targets in blocks of 1024 are 256 blocks: 1.94 per SM, so without
  // slicing the last round leaves 3 % of the machine idle.
  const DirectFastPlan unsliced{{4, 256}, 256, 1024, 1024};
  EXPECT_LT(efficiency(unsliced, kH200Sms), 0.975);
  for (const std::int64_t n : {262144, 1048576}) {
    const DirectFastPlan p = choose_fast_plan<float>(n, kH200Sms);
    EXPECT_GT(p.slices(), 1) << n;
    EXPECT_GT(efficiency(p, kH200Sms), 0.99) << n;
  }
}

TEST(DirectFastPlan, SmallNUsesOneTargetPerThreadAndManySlices) {
  const DirectFastPlan p = choose_fast_plan<float>(4096, kH200Sms);
  EXPECT_EQ(p.config.targets_per_thread, 1);
  EXPECT_GE(p.blocks * p.slices(), kH200Sms);
}

TEST(DirectFastPlan, DoubleNeverUsesMoreThanTwoTargetsPerThread) {
  for (const auto& c : kFastConfigs<double>) EXPECT_LE(c.targets_per_thread, 2);
}

}  // namespace
}  // namespace orrery::gravity::gpu
