// The exchanges' receive buffer (byte_buffer.hpp): it keeps its allocation
// when a smaller size is asked for, grows to exactly what is asked past it,
// and reads as a span of its size.
#include <gtest/gtest.h>

#include <span>
#include <utility>

#include "orrery/mpi/byte_buffer.hpp"

namespace orrery::mpi {
namespace {

TEST(ByteBuffer, KeepsItsAllocationWhenSmallerAndGrowsExactlyPastIt) {
  ByteBuffer b;
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.capacity(), 0u);
  b.resize_for_overwrite(1000);
  ASSERT_NE(b.data(), nullptr);
  const std::byte* first = b.data();
  EXPECT_EQ(b.size(), 1000u);
  EXPECT_EQ(b.capacity(), 1000u);
  b.resize_for_overwrite(10);
  EXPECT_EQ(b.data(), first) << "a smaller size must reuse the allocation";
  EXPECT_EQ(b.size(), 10u);
  EXPECT_EQ(b.capacity(), 1000u);
  b.resize_for_overwrite(1000);
  EXPECT_EQ(b.data(), first) << "a size within the capacity must reuse the allocation";
  b.resize_for_overwrite(4000);
  EXPECT_EQ(b.size(), 4000u);
  EXPECT_EQ(b.capacity(), 4000u);
  b.resize_for_overwrite(0);
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.capacity(), 4000u);
}

TEST(ByteBuffer, ReadsAsASpanOfItsSize) {
  ByteBuffer b;
  b.resize_for_overwrite(64);
  for (std::size_t i = 0; i < b.size(); ++i) b.data()[i] = static_cast<std::byte>(i);
  b.resize_for_overwrite(16);
  const ByteBuffer& c = b;
  const std::span<const std::byte> s = c;
  EXPECT_EQ(s.data(), b.data());
  ASSERT_EQ(s.size(), 16u);
  for (std::size_t i = 0; i < s.size(); ++i) EXPECT_EQ(s[i], static_cast<std::byte>(i));
}

TEST(ByteBuffer, AMoveLeavesTheSourceEmpty) {
  ByteBuffer a;
  a.resize_for_overwrite(100);
  const std::byte* held = a.data();
  ByteBuffer b(std::move(a));
  EXPECT_EQ(b.data(), held);
  EXPECT_EQ(b.size(), 100u);
  EXPECT_EQ(b.capacity(), 100u);
  EXPECT_EQ(a.size(), 0u);      // NOLINT(bugprone-use-after-move): what a move leaves is the test
  EXPECT_EQ(a.capacity(), 0u);  // NOLINT(bugprone-use-after-move)
  a = std::move(b);
  EXPECT_EQ(a.data(), held);
  EXPECT_EQ(b.capacity(), 0u);  // NOLINT(bugprone-use-after-move)
  a.resize_for_overwrite(50);
  EXPECT_EQ(a.data(), held);
}

}  // namespace
}  // namespace orrery::mpi
