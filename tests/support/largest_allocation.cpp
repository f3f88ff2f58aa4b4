#include "support/largest_allocation.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {

std::atomic<int> watching{0};
std::atomic<std::size_t> largest{0};

}  // namespace

// The replacements: malloc and free, with the largest size kept while watched.
void* operator new(std::size_t size) {
  if (watching.load(std::memory_order_relaxed) > 0) {
    std::size_t seen = largest.load(std::memory_order_relaxed);
    while (size > seen && !largest.compare_exchange_weak(seen, size, std::memory_order_relaxed)) {
    }
  }
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace orrery::testing {

LargestAllocation::LargestAllocation() {
  largest.store(0);
  watching.fetch_add(1);
}
LargestAllocation::~LargestAllocation() { watching.fetch_sub(1); }
std::size_t LargestAllocation::bytes() const { return largest.load(); }

}  // namespace orrery::testing
