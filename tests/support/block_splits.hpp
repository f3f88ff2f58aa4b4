#pragma once
// The splits of N rows into blocks that the tests of a rank's block (of
// initial conditions, of a snapshot read by hyperslab) try: K = 1, 3 and 5
// equal blocks, cut as an MPI run cuts them, and an uneven split with empty
// blocks at the start, the middle and the end. Each split: its K + 1 cuts.
#include <cstdint>
#include <vector>

namespace orrery::testing {

inline std::vector<std::vector<std::int64_t>> block_splits(std::int64_t n) {
  std::vector<std::vector<std::int64_t>> out;
  for (const std::int64_t k : {1, 3, 5}) {
    std::vector<std::int64_t> cuts;
    for (std::int64_t r = 0; r <= k; ++r) cuts.push_back(r * n / k);
    out.push_back(cuts);
  }
  out.push_back({0, 0, 1, n / 2, n / 2, n - 1, n, n});
  return out;
}

}  // namespace orrery::testing
