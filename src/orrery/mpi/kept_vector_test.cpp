#include "orrery/mpi/kept_vector.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

namespace orrery::mpi {
namespace {

// Capacities are checked as bounds: reserve(n) gives at least n.
TEST(ResizeForOverwriteTest, GrowsWithRoomAndKeepsItsStorageWithinIt) {
  std::vector<int> v(10, 7);
  resize_for_overwrite(v, 6400);  // past the capacity: fresh storage with 1/64 room
  EXPECT_EQ(v.size(), 6400u);
  ASSERT_GE(v.capacity(), 6500u);
  const int* storage = v.data();
  const std::size_t room = v.capacity();
  resize_for_overwrite(v, 6500);  // a step's small growth: the same storage
  EXPECT_EQ(v.size(), 6500u);
  EXPECT_EQ(v.data(), storage);
  resize_for_overwrite(v, 100);  // smaller: kept, not shrunk
  EXPECT_EQ(v.size(), 100u);
  EXPECT_EQ(v.data(), storage);
  EXPECT_EQ(v.capacity(), room);
  const std::size_t past = room + 1;
  resize_for_overwrite(v, past);  // past it again: room again
  EXPECT_EQ(v.size(), past);
  EXPECT_GE(v.capacity(), past + past / 64);
  resize_for_overwrite(v, 0);
  EXPECT_TRUE(v.empty());
}

}  // namespace
}  // namespace orrery::mpi
