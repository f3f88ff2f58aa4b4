#include "orrery/core/freed_memory.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#if defined(__GLIBC__)
#include <malloc.h>  // mallinfo2
#endif

namespace orrery {
namespace {

/// p escapes to the optimiser: its allocation and its free stay calls.
void escape(void* p) { asm volatile("" : : "r"(p) : "memory"); }

TEST(FreedMemory, ParsesKeepAndReleaseAndNamesWhatIsAccepted) {
  EXPECT_EQ(parse_freed_memory("keep", "X"), FreedMemory::keep);
  EXPECT_EQ(parse_freed_memory("release", "X"), FreedMemory::release);
  try {
    parse_freed_memory("Keep", "ORRERY_FREED_MEMORY");
    FAIL() << "\"Keep\" was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "ORRERY_FREED_MEMORY = \"Keep\"; accepted: keep, release");
  }
}

TEST(FreedMemory, TheEnvironmentNamesThePolicyAndAWrongValueIsRefused) {
  ASSERT_EQ(::setenv("ORRERY_FREED_MEMORY", "release", 1), 0);
  EXPECT_EQ(set_freed_memory_from_environment(), FreedMemory::release);
  ASSERT_EQ(::setenv("ORRERY_FREED_MEMORY", "never", 1), 0);
  EXPECT_THROW(set_freed_memory_from_environment(), InputError);
  ASSERT_EQ(::unsetenv("ORRERY_FREED_MEMORY"), 0);
  EXPECT_EQ(set_freed_memory_from_environment(), FreedMemory::keep);
}

#if defined(__GLIBC__)
// Without the policy, glibc maps a block this large on its own (above its
// largest mmap threshold, 32 MB) and unmaps it when it is freed: the next
// allocation gets fresh pages. Kept, the block comes from the heap and goes
// back to it, and the next allocation of its size is the same block.
TEST(FreedMemory, KeptAFreedLargeBlockServesTheNextAllocation) {
  if (!can_keep_freed_memory()) GTEST_SKIP() << "this build's allocator is a sanitizer's: the policy does not apply";
  ASSERT_TRUE(set_freed_memory(FreedMemory::keep));
  constexpr std::size_t bytes = std::size_t(96) << 20;
  const std::size_t mapped_before = mallinfo2().hblkhd;
  auto* first = static_cast<unsigned char*>(std::malloc(bytes));
  ASSERT_NE(first, nullptr);
  first[0] = 1, first[bytes - 1] = 2;
  escape(first);
  EXPECT_EQ(mallinfo2().hblkhd, mapped_before) << "the block was mapped apart from the heap";
  const auto at = reinterpret_cast<std::uintptr_t>(first);
  std::free(first);
  auto* second = static_cast<unsigned char*>(std::malloc(bytes));
  escape(second);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(second), at);
  std::free(second);
}
#endif

}  // namespace
}  // namespace orrery
