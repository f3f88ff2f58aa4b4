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

}  // namespace orrery::mpi
