#include "orrery/mpi/key_order.hpp"

#include <algorithm>
#include <utility>

#include "orrery/bh/radix_sort.hpp"
#include "orrery/mpi/parallel_copy.hpp"

namespace orrery::mpi {
namespace {

template <class Tie>
bool pair_less(const std::vector<std::uint64_t>& keys, std::span<const Tie> tie, std::int64_t a, std::int64_t b) {
  return keys[a] != keys[b] ? keys[a] < keys[b] : tie[a] < tie[b];
}

}  // namespace

template <class Tie>
bool sort_by_key_and_tie(std::vector<std::uint64_t>&& keys, std::span<const Tie> tie,
                         std::vector<std::uint64_t>& sorted_keys, std::vector<std::int32_t>& order) {
  const auto n = static_cast<std::int64_t>(keys.size());
  int unsorted = 0;
#pragma omp parallel for schedule(static) reduction(max : unsorted) if (n >= kParallelLoop)
  for (std::int64_t i = 1; i < n; ++i)
    if (!pair_less(keys, tie, i - 1, i)) unsorted = 1;
  if (unsorted == 0) {
    sorted_keys = std::move(keys);
    order.resize(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static) if (n >= kParallelLoop)
    for (std::int64_t i = 0; i < n; ++i) order[i] = static_cast<std::int32_t>(i);
    return true;
  }
  bh::sort_by_key(keys, sorted_keys, order);
  // Each run of equal keys is sorted by its start alone (a run's first
  // element is the one whose key differs from the one before), so every run
  // is touched by one thread. Within a run the radix sort kept i ascending:
  // a stable sort by tie gives (tie, i).
#pragma omp parallel for schedule(static) if (n >= kParallelLoop)
  for (std::int64_t b = 0; b < n - 1; ++b) {
    if (sorted_keys[b + 1] != sorted_keys[b] || (b > 0 && sorted_keys[b - 1] == sorted_keys[b])) continue;
    std::int64_t e = b + 2;
    while (e < n && sorted_keys[e] == sorted_keys[b]) ++e;
    std::stable_sort(order.begin() + b, order.begin() + e,
                     [&](std::int32_t x, std::int32_t y) { return tie[x] < tie[y]; });
  }
  return false;
}

template <class Tie>
bool sort_by_key_and_tie_around(std::vector<std::uint64_t>&& keys, std::span<const Tie> tie, std::int64_t from,
                                std::int64_t to, std::vector<std::uint64_t>& sorted_keys,
                                std::vector<std::int32_t>& order) {
  const auto n = static_cast<std::int64_t>(keys.size());
  const std::int64_t m = n - (to - from);  // the pairs outside the run
  if (m == 0 || m > n / 8) return sort_by_key_and_tie(std::move(keys), tie, sorted_keys, order);
  const auto less = [&](std::int64_t a, std::int64_t b) { return pair_less(keys, tie, a, b); };
  // The others, sorted (few: a sort of their positions), and each one's
  // place in the run: the run's pairs before it. The pairs are distinct, so
  // the places do not decrease along the sorted others.
  std::vector<std::int32_t> other(static_cast<std::size_t>(m));
  for (std::int64_t j = 0, k = 0; j < n; ++j)
    if (j < from || j >= to) other[k++] = static_cast<std::int32_t>(j);
  std::sort(other.begin(), other.end(), less);
  std::vector<std::int64_t> place(static_cast<std::size_t>(m));
#pragma omp parallel for schedule(static) if (m >= kParallelLoop / 16)
  for (std::int64_t k = 0; k < m; ++k) {
    std::int64_t lo = from, hi = to;  // the first run pair after other[k]
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (less(mid, other[k])) lo = mid + 1; else hi = mid;
    }
    place[k] = lo - from;
  }
  // Run pair i goes to i - from + (the others placed at or before it), other k
  // to place[k] + k: the merged order, each run of run pairs copied in a block.
  order.resize(static_cast<std::size_t>(n));
  std::int64_t at = 0, i = from;
  for (std::int64_t k = 0; k <= m; ++k) {
    const std::int64_t until = k < m ? from + place[k] : to;
    for (; i < until; ++i) order[at++] = static_cast<std::int32_t>(i);
    if (k < m) order[at++] = other[k];
  }
  sorted_keys.resize(static_cast<std::size_t>(n));
  bool identity = true;
#pragma omp parallel for schedule(static) reduction(&& : identity) if (n >= kParallelLoop)
  for (std::int64_t k = 0; k < n; ++k) {
    sorted_keys[k] = keys[order[k]];
    identity = identity && order[k] == k;
  }
  return identity;
}

template <class Tie>
bool sort_by_key_and_tie(const std::vector<std::uint64_t>& keys, std::span<const Tie> tie,
                         std::vector<std::uint64_t>& sorted_keys, std::vector<std::int32_t>& order) {
  return sort_by_key_and_tie(std::vector<std::uint64_t>(keys), tie, sorted_keys, order);
}

template bool sort_by_key_and_tie(const std::vector<std::uint64_t>&, std::span<const std::uint64_t>,
                                  std::vector<std::uint64_t>&, std::vector<std::int32_t>&);
template bool sort_by_key_and_tie(std::vector<std::uint64_t>&&, std::span<const std::uint64_t>,
                                  std::vector<std::uint64_t>&, std::vector<std::int32_t>&);
template bool sort_by_key_and_tie(std::vector<std::uint64_t>&&, std::span<const std::int32_t>,
                                  std::vector<std::uint64_t>&, std::vector<std::int32_t>&);
template bool sort_by_key_and_tie(const std::vector<std::uint64_t>&, std::span<const std::int32_t>,
                                  std::vector<std::uint64_t>&, std::vector<std::int32_t>&);
template bool sort_by_key_and_tie_around(std::vector<std::uint64_t>&&, std::span<const std::uint64_t>, std::int64_t,
                                         std::int64_t, std::vector<std::uint64_t>&, std::vector<std::int32_t>&);
template bool sort_by_key_and_tie_around(std::vector<std::uint64_t>&&, std::span<const std::int32_t>, std::int64_t,
                                         std::int64_t, std::vector<std::uint64_t>&, std::vector<std::int32_t>&);

}  // namespace orrery::mpi
