#pragma once
// Where a solve evaluates the field when it is not at every source (DESIGN
// §5): a subset of the sources, named by their indices in the caller's order
// (the active particles of a time bin, a rank's own particles), or points
// that are not sources at all. Host or device pointers: the solver that takes
// the set says which.
#include <cstdint>
#include <string>
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
  /// An empty subset stays a subset: its indices point somewhere even where
  /// the caller's (or a device buffer's) array of none is null, since a null
  /// index means every source.
  static TargetSet of_sources(std::int64_t n, const std::int64_t* i) {
    static constexpr std::int64_t kNone = 0;
    return {n, n == 0 && i == nullptr ? &kNone : i};
  }
  static TargetSet of_points(std::int64_t n, const Real* px, const Real* py, const Real* pz) {
    return {n, nullptr, px, py, pz};
  }
};
static_assert(std::is_trivially_copyable_v<TargetSet<float>>);

/// The messages of the two ways a subset can be wrong, the same from every solver.
inline std::string target_out_of_range(std::int64_t k, std::int64_t j, std::int64_t sources) {
  return "target " + std::to_string(k) + " names source " + std::to_string(j) + "; accepted: an index in [0, " +
         std::to_string(sources) + ")";
}
inline std::string target_listed_twice(std::int64_t j, std::int64_t k) {
  return "source " + std::to_string(j) + " is listed twice among the targets (target " + std::to_string(k) +
         " is one of them); each target must be listed once";
}

}  // namespace orrery::gravity
