// bh::subset_target_lanes: the lanes a sparse subset's targets get in the GPU
// walk. The H200 rows are the fastest settings measured there
// (docs/performance/bh_restructuring.md, 1M sources, both criteria).
#include <gtest/gtest.h>

#include <bit>

#include "orrery/bh/tree_walk_gpu.hpp"

namespace orrery::bh {
namespace {

constexpr int kH200Multiprocessors = 132;

TEST(SubsetTargetLanes, AreTheFastestMeasuredOnTheH200) {
  // targets (of 1M sources) -> fastest target_lanes measured
  EXPECT_EQ(subset_target_lanes(1048, kH200Multiprocessors), 32);     // 0.1 %
  EXPECT_EQ(subset_target_lanes(3145, kH200Multiprocessors), 32);     // 0.3 %
  EXPECT_EQ(subset_target_lanes(10485, kH200Multiprocessors), 8);     // 1 %
  EXPECT_EQ(subset_target_lanes(31457, kH200Multiprocessors), 4);     // 3 %
  EXPECT_EQ(subset_target_lanes(104857, kH200Multiprocessors), 1);    // 10 %
  EXPECT_EQ(subset_target_lanes(1048576, kH200Multiprocessors), 1);   // 100 %
}

TEST(SubsetTargetLanes, ArePowersOfTwoThatNeverGrowWithTheSubsetAndFillTheDevice) {
  for (const int sms : {1, 16, 132, 264}) {
    int previous = 32;
    for (std::int64_t k = 0; k <= 1 << 22; k = k < 8 ? k + 1 : k * 5 / 4) {
      const int lanes = subset_target_lanes(k, sms);
      ASSERT_TRUE(std::has_single_bit(static_cast<unsigned>(lanes))) << k;
      ASSERT_GE(lanes, 1);
      ASSERT_LE(lanes, 32);
      ASSERT_LE(lanes, previous) << k << " targets on " << sms << " SMs";
      // The resident threads are filled: twice the lanes would not fit, unless already 32.
      const std::int64_t resident = kWalkResidentThreadsPerMultiprocessor * sms;
      if (lanes > 1) ASSERT_LE(k * lanes, resident) << k;
      if (lanes < 32) ASSERT_GT(k * lanes * 2, resident) << k;
      previous = lanes;
    }
  }
  EXPECT_EQ(subset_target_lanes(5, 0), 32);  // an unknown SM count counts as one
}

}  // namespace
}  // namespace orrery::bh
