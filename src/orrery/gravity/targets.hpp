#pragma once
// Where a solve evaluates the field when it is not at every source (DESIGN
// §5): a subset of the sources, named by their indices in the caller's order
// (the active particles of a time bin, a rank's own particles), or points
// that are not sources at all. Host or device pointers: the solver that takes
// the set says which.
#include <cstdint>
#include <type_traits>

namespace orrery::gravity {

template <class Real>
struct TargetSet {
  std::int64_t count = 0;
  /// [count] distinct indices in [0, sources.count): a subset of the sources.
  const std::int64_t* index = nullptr;
  /// [count] positions of points that are not sources (index null).
  const Real* x = nullptr;
  const Real* y = nullptr;
  const Real* z = nullptr;

  /// Neither indices nor points: every source is a target, in the caller's order.
  bool all() const { return index == nullptr && x == nullptr; }
  static TargetSet of_sources(std::int64_t n, const std::int64_t* i) { return {n, i}; }
  static TargetSet of_points(std::int64_t n, const Real* px, const Real* py, const Real* pz) {
    return {n, nullptr, px, py, pz};
  }
};
static_assert(std::is_trivially_copyable_v<TargetSet<float>>);

}  // namespace orrery::gravity
