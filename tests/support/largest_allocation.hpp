#pragma once
// The largest single allocation (operator new) made while a
// LargestAllocation is alive, on any thread: a test that something holds
// O(n) of N rows fails when a regression allocates an array of all N
// (largest_allocation.cpp replaces the global operator new; a test binary
// that uses this compiles it in: SOURCES ${PROJECT_SOURCE_DIR}/tests/support/largest_allocation.cpp).
#include <cstddef>

namespace orrery::testing {

class LargestAllocation {
 public:
  LargestAllocation();
  ~LargestAllocation();
  LargestAllocation(const LargestAllocation&) = delete;
  LargestAllocation& operator=(const LargestAllocation&) = delete;
  /// Bytes of the largest allocation since construction.
  std::size_t bytes() const;
};

}  // namespace orrery::testing
