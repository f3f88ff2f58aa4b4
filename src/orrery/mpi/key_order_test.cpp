// The searches and sorts of key_order.hpp, without ranks.
#include "orrery/mpi/key_order.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace orrery::mpi {
namespace {

// Every start at or before the answer gives std::lower_bound's and
// std::upper_bound's answer: on a sorted array with runs of equal keys, for
// values below, between, on and above its keys, and on an empty range.
TEST(GallopPartitionPoint, IsTheBinarySearchFromAnyStartBeforeTheAnswer) {
  std::vector<std::uint64_t> keys;
  for (std::uint64_t k = 0; k < 300; ++k)
    for (std::uint64_t c = 0; c < k % 4; ++c) keys.push_back(3 * k + 1);
  for (std::uint64_t v = 0; v <= 3 * 300 + 2; ++v) {
    const auto lower = std::lower_bound(keys.begin(), keys.end(), v);
    const auto upper = std::upper_bound(keys.begin(), keys.end(), v);
    for (auto start = keys.begin(); start <= lower; ++start) {
      ASSERT_EQ(gallop_partition_point(start, keys.end(), [v](std::uint64_t k) { return k < v; }), lower) << v;
      ASSERT_EQ(gallop_partition_point(start, keys.end(), [v](std::uint64_t k) { return k <= v; }), upper) << v;
    }
  }
  const std::vector<std::uint64_t> none;
  EXPECT_EQ(gallop_partition_point(none.begin(), none.end(), [](std::uint64_t) { return true; }), none.end());
}

}  // namespace
}  // namespace orrery::mpi
