#pragma once
// Summary statistics of a benchmark's trials (DESIGN contract 5: median and spread).
#include <algorithm>
#include <vector>

namespace orrery::bench {

struct Stats {
  double median = 0, min = 0, max = 0;
  /// (max - min) / median: the spread every table reports next to the median.
  double spread() const { return median > 0 ? (max - min) / median : 0; }
};

/// Median, minimum and maximum of a non-empty set of trial times.
inline Stats stats_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t k = v.size();
  return {k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]), v.front(), v.back()};
}

}  // namespace orrery::bench
