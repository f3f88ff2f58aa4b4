#pragma once
// k distinct indices of [0, n) in random order (a seeded Fisher-Yates
// shuffle): the target subsets of the targets tests and benchmark.
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "orrery/core/rng.hpp"

namespace orrery::testing {

inline std::vector<std::int64_t> random_subset(std::int64_t n, std::int64_t k, std::uint64_t seed) {
  std::vector<std::int64_t> all(static_cast<std::size_t>(n));
  std::iota(all.begin(), all.end(), 0);
  Rng rng(seed);
  for (std::int64_t i = n - 1; i > 0; --i) std::swap(all[i], all[static_cast<std::int64_t>(rng.next_u64() % (i + 1))]);
  all.resize(static_cast<std::size_t>(k));
  return all;
}

}  // namespace orrery::testing
