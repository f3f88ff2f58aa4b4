#include "orrery/mpi/kept_vector.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace orrery::mpi {
namespace {

TEST(ResizeForOverwriteTest, GrowsWithRoomAndKeepsItsStorageWithinIt) {
  std::vector<int> v(10, 7);
  resize_for_overwrite(v, 6400);  // past the capacity: fresh storage with 1/64 room
  EXPECT_EQ(v.size(), 6400u);
  EXPECT_EQ(v.capacity(), 6500u);
  const int* storage = v.data();
  resize_for_overwrite(v, 6500);  // a step's small growth: the same storage
  EXPECT_EQ(v.size(), 6500u);
  EXPECT_EQ(v.data(), storage);
  resize_for_overwrite(v, 100);  // smaller: kept, not shrunk
  EXPECT_EQ(v.size(), 100u);
  EXPECT_EQ(v.data(), storage);
  EXPECT_EQ(v.capacity(), 6500u);
  resize_for_overwrite(v, 6501);  // past it again
  EXPECT_EQ(v.size(), 6501u);
  EXPECT_EQ(v.capacity(), 6501u + 6501u / 64);
  resize_for_overwrite(v, 0);
  EXPECT_TRUE(v.empty());
}

}  // namespace
}  // namespace orrery::mpi
