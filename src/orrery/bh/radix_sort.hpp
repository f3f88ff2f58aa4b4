#pragma once
// Sorting Morton keys on the host: a parallel, stable LSD radix sort of
// (key, index) pairs (DESIGN §3: particles sorted by key, ties broken by the
// original index).
#include <cstdint>
#include <vector>

namespace orrery::bh {

/// Sorts 0..n-1 by (keys[i], i): on return order[k] is the index of the k-th
/// smallest pair and sorted_keys[k] = keys[order[k]]. Stable 8-bit-digit LSD
/// radix sort with OpenMP (per-thread histograms, stable scatter), skipping
/// digits that no key varies in. The result is the unique sorted order, so it
/// does not depend on the number of threads. O(n) extra memory.
void sort_by_key(const std::vector<std::uint64_t>& keys, std::vector<std::uint64_t>& sorted_keys,
                 std::vector<std::int32_t>& order);

}  // namespace orrery::bh
