#include "orrery/mpi/key_order.hpp"

#include <omp.h>

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

/// Sorts 0..n-1 by (keys[i], tie[i]): bh::sort_by_key's parallel radix sort
/// by (key, i), then each run of equal keys by tie.
template <class Tie>
void radix_sort_pairs(const std::vector<std::uint64_t>& keys, std::span<const Tie> tie,
                      std::vector<std::uint64_t>& sorted_keys, std::vector<std::int32_t>& order) {
  const auto n = static_cast<std::int64_t>(keys.size());
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
}

/// The positions `at` put in the order of their pairs: a comparison sort
/// where they are few, the radix sort of their keys where they are many.
template <class Tie>
void sort_positions(const std::vector<std::uint64_t>& keys, std::span<const Tie> tie, std::vector<std::int32_t>& at) {
  const auto m = static_cast<std::int64_t>(at.size());
  if (m < kParallelLoop * 4) {
    std::sort(at.begin(), at.end(), [&](std::int32_t a, std::int32_t b) { return pair_less(keys, tie, a, b); });
    return;
  }
  std::vector<std::uint64_t> k(static_cast<std::size_t>(m)), sorted;
  std::vector<Tie> t(static_cast<std::size_t>(m));
#pragma omp parallel for schedule(static)
  for (std::int64_t j = 0; j < m; ++j) k[j] = keys[at[j]], t[j] = tie[at[j]];
  std::vector<std::int32_t> order;
  radix_sort_pairs(k, std::span<const Tie>(t), sorted, order);
  std::vector<std::int32_t> was = at;
#pragma omp parallel for schedule(static)
  for (std::int64_t j = 0; j < m; ++j) at[j] = was[order[j]];
}

/// order = the merge of two lists of positions, each in the order of its
/// pairs: `run` (the many) and `others` (the few). The others are split in
/// one piece per thread; each piece's first other finds its place in the
/// run by a binary search, and the thread merges its others with the run
/// between its place and the next piece's, two pointers, into the output
/// from place + (the others before). The pairs are distinct, so every
/// split gives the one merged order.
template <class Tie>
void merge_positions(const std::vector<std::uint64_t>& keys, std::span<const Tie> tie,
                     std::span<const std::int32_t> run, std::span<const std::int32_t> others,
                     std::vector<std::int32_t>& order) {
  const auto m = static_cast<std::int64_t>(others.size()), r = static_cast<std::int64_t>(run.size());
  order.resize(static_cast<std::size_t>(r + m));
  const auto place = [&](std::int64_t k) {  // the run pairs before others[k]; r for k = m
    if (k == m) return r;
    std::int64_t lo = 0, hi = r;
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (pair_less(keys, tie, run[mid], others[k])) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const int pieces = r + m >= kParallelLoop ? std::max(1, omp_get_max_threads()) : 1;
#pragma omp parallel for schedule(static, 1) num_threads(pieces)
  for (int c = 0; c < pieces; ++c) {
    const std::int64_t k0 = m * c / pieces, k1 = m * (c + 1) / pieces;
    std::int64_t i = c == 0 ? 0 : place(k0);  // the first piece takes the run before every other
    const std::int64_t i1 = c + 1 == pieces ? r : place(k1);
    std::int64_t k = k0, at = i + k0;
    while (i < i1 || k < k1) {
      const bool take_run = k == k1 || (i < i1 && pair_less(keys, tie, run[i], others[k]));
      order[at++] = take_run ? run[i++] : others[k++];
    }
  }
}

/// The positions of `at` (in its order) whose pair is out of order with a
/// neighbour's in `at`: greater than the next, or less than the one before.
/// Moves them from `at` to the end of `out`; returns how many moved.
template <class Tie>
std::int64_t pull_out_of_order(const std::vector<std::uint64_t>& keys, std::span<const Tie> tie,
                               std::vector<std::int32_t>& at, std::vector<std::int32_t>& out) {
  const auto n = static_cast<std::int64_t>(at.size());
  std::vector<std::uint8_t> bad(static_cast<std::size_t>(n));
  std::int64_t count = 0;
#pragma omp parallel for schedule(static) reduction(+ : count) if (n >= kParallelLoop)
  for (std::int64_t j = 0; j < n; ++j) {
    bad[j] = (j > 0 && pair_less(keys, tie, at[j], at[j - 1])) || (j + 1 < n && pair_less(keys, tie, at[j + 1], at[j]));
    count += bad[j];
  }
  if (count == 0) return 0;
  // Both lists compacted in parallel: each thread's chunk counts its pulled
  // pairs, and the counts before it say where its kept and pulled go.
  const int threads = n >= kParallelLoop ? std::max(1, omp_get_max_threads()) : 1;
  std::vector<std::int64_t> pulled_before(static_cast<std::size_t>(threads) + 1, 0);
  std::vector<std::int32_t> kept(static_cast<std::size_t>(n - count));
  const std::size_t out_at = out.size();
  out.resize(out_at + static_cast<std::size_t>(count));
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();  // nt <= threads
    const std::int64_t b = n * t / nt, e = n * (t + 1) / nt;
    std::int64_t mine = 0;
    for (std::int64_t j = b; j < e; ++j) mine += bad[j];
    pulled_before[t + 1] = mine;
#pragma omp barrier
#pragma omp single
    for (int c = 0; c < nt; ++c) pulled_before[c + 1] += pulled_before[c];
    std::int64_t p = pulled_before[t], k = b - pulled_before[t];
    for (std::int64_t j = b; j < e; ++j) {
      if (bad[j]) out[out_at + static_cast<std::size_t>(p++)] = at[j];
      else kept[static_cast<std::size_t>(k++)] = at[j];
    }
  }
  at = std::move(kept);
  return count;
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
  // Nearly in order (a rank's particles a drift after their last sort):
  // the pairs out of order with a neighbour are pulled out, again on what is
  // left until it is in order, then sorted alone and merged back. Where
  // that pulls many, or does not settle, the radix sort of all is cheaper.
  const std::int64_t most = n / 4;
  std::vector<std::int32_t> run(static_cast<std::size_t>(n)), pulled;
#pragma omp parallel for schedule(static) if (n >= kParallelLoop)
  for (std::int64_t i = 0; i < n; ++i) run[i] = static_cast<std::int32_t>(i);
  bool settled = false;
  for (int pass = 0; pass < 8 && static_cast<std::int64_t>(pulled.size()) <= most; ++pass)
    if (pull_out_of_order(keys, tie, run, pulled) == 0) {
      settled = true;
      break;
    }
  if (!settled || static_cast<std::int64_t>(pulled.size()) > most) {
    radix_sort_pairs(keys, tie, sorted_keys, order);
    return false;
  }
  sort_positions(keys, tie, pulled);
  merge_positions(keys, tie, std::span<const std::int32_t>(run), std::span<const std::int32_t>(pulled), order);
  sorted_keys.resize(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static) if (n >= kParallelLoop)
  for (std::int64_t k = 0; k < n; ++k) sorted_keys[k] = keys[order[k]];
  return false;
}

template <class Tie>
bool sort_by_key_and_tie_around(std::vector<std::uint64_t>&& keys, std::span<const Tie> tie, std::int64_t from,
                                std::int64_t to, std::vector<std::uint64_t>& sorted_keys,
                                std::vector<std::int32_t>& order) {
  const auto n = static_cast<std::int64_t>(keys.size());
  const std::int64_t m = n - (to - from);  // the pairs outside the run
  if (m == 0 || m > n / 8) return sort_by_key_and_tie(std::move(keys), tie, sorted_keys, order);
  // The others, sorted (few), merged into the run.
  std::vector<std::int32_t> run(static_cast<std::size_t>(to - from)), other;
  other.reserve(static_cast<std::size_t>(m));
  for (std::int64_t j = 0; j < from; ++j) other.push_back(static_cast<std::int32_t>(j));
  for (std::int64_t j = to; j < n; ++j) other.push_back(static_cast<std::int32_t>(j));
#pragma omp parallel for schedule(static) if (to - from >= kParallelLoop)
  for (std::int64_t j = from; j < to; ++j) run[j - from] = static_cast<std::int32_t>(j);
  sort_positions(keys, tie, other);
  merge_positions(keys, tie, std::span<const std::int32_t>(run), std::span<const std::int32_t>(other), order);
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
