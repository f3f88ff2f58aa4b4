#include "orrery/mpi/key_order.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <memory>
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

/// Splits the pairs 0..n-1 into `run`, a subsequence in the order of its
/// pairs, and `pulled`, the rest (in no order). Each thread scans its chunk
/// once, its kept pairs a stack in the chunk's own part of one array: a
/// pair less than the stack's top is pulled with that top (a descent's
/// two pairs, as a small outlier or a large one makes; the stack stays in
/// order). Then the seams between the chunks, in order: while the last kept
/// pair of the chunks before is greater than a chunk's first, both are
/// pulled. Any split into a run in order and the rest gives the one merged
/// order (the pairs are distinct), so the split may depend on the threads.
/// Returns false, leaving run and pulled unspecified, where more than `most`
/// are pulled: the chunks add up their pulled pairs as they go and all stop
/// once the sum passes it (input far from order, a first solve's: the radix
/// sort takes it, and the pass is not finished in vain).
template <class Tie>
bool split_into_run(const std::vector<std::uint64_t>& keys, std::span<const Tie> tie, std::int64_t most,
                    std::vector<std::int32_t>& run, std::vector<std::int32_t>& pulled) {
  const auto n = static_cast<std::int64_t>(keys.size());
  const int threads = n >= kParallelLoop ? std::max(1, omp_get_max_threads()) : 1;
  // Every element is written before it is read: no zero fill (16 MB at 4M).
  const auto stacks = std::make_unique_for_overwrite<std::int32_t[]>(static_cast<std::size_t>(n));
  std::vector<std::int64_t> first(static_cast<std::size_t>(threads)), top(static_cast<std::size_t>(threads));
  std::vector<std::vector<std::int32_t>> pulled_by(static_cast<std::size_t>(threads));
  std::atomic<std::int64_t> pulled_so_far{0};
  constexpr std::int64_t kReportEvery = 4096;  // pairs scanned between a chunk's reports
#pragma omp parallel for schedule(static, 1) num_threads(threads)
  for (int t = 0; t < threads; ++t) {
    const std::int64_t b = n * t / threads, e = n * (t + 1) / threads;
    auto& out = pulled_by[static_cast<std::size_t>(t)];
    std::int64_t k = b;
    std::size_t reported = 0;
    for (std::int64_t j = b; j < e; ++j) {
      if ((j - b) % kReportEvery == kReportEvery - 1) {
        const auto total = pulled_so_far.fetch_add(static_cast<std::int64_t>(out.size() - reported)) +
                           static_cast<std::int64_t>(out.size() - reported);
        reported = out.size();
        if (total > most) break;
      }
      if (k > b && pair_less(keys, tie, j, stacks[k - 1])) {
        out.push_back(stacks[--k]);
        out.push_back(static_cast<std::int32_t>(j));
      } else {
        stacks[k++] = static_cast<std::int32_t>(j);
      }
    }
    pulled_so_far.fetch_add(static_cast<std::int64_t>(out.size() - reported));
    first[t] = b, top[t] = k;
  }
  if (pulled_so_far.load() > most) return false;
  // The seams: chunk p is the last one before c with pairs kept.
  std::vector<std::int32_t> seams;
  for (int c = 1, p = first[0] < top[0] ? 0 : -1; c < threads; ++c) {
    while (p >= 0 && first[c] < top[c] && pair_less(keys, tie, stacks[first[c]], stacks[top[p] - 1])) {
      seams.push_back(stacks[--top[p]]);
      seams.push_back(stacks[first[c]++]);
      while (p >= 0 && first[p] == top[p]) --p;  // emptied: the one before it
    }
    if (first[c] < top[c]) p = c;
  }
  // The kept parts one after another, and the pulled lists appended.
  std::vector<std::int64_t> run_at(static_cast<std::size_t>(threads) + 1, 0),
      pulled_at(static_cast<std::size_t>(threads) + 1, static_cast<std::int64_t>(seams.size()));
  for (int c = 0; c < threads; ++c) {
    run_at[c + 1] = run_at[c] + (top[c] - first[c]);
    pulled_at[c + 1] = pulled_at[c] + static_cast<std::int64_t>(pulled_by[c].size());
  }
  run.resize(static_cast<std::size_t>(run_at[threads]));
  pulled = std::move(seams);
  pulled.resize(static_cast<std::size_t>(pulled_at[threads]));
#pragma omp parallel for schedule(static, 1) num_threads(threads)
  for (int c = 0; c < threads; ++c) {
    std::copy(stacks.get() + first[c], stacks.get() + top[c], run.begin() + run_at[c]);
    std::copy(pulled_by[c].begin(), pulled_by[c].end(), pulled.begin() + pulled_at[c]);
  }
  return static_cast<std::int64_t>(pulled.size()) <= most;
}

}  // namespace

template <class Tie>
bool pairs_in_order(std::span<const std::uint64_t> keys, std::span<const Tie> tie) {
  const auto n = static_cast<std::int64_t>(keys.size());
  int unsorted = 0;
#pragma omp parallel for schedule(static) reduction(max : unsorted) if (n >= kParallelLoop)
  for (std::int64_t i = 1; i < n; ++i)
    if (!(keys[i - 1] != keys[i] ? keys[i - 1] < keys[i] : tie[i - 1] < tie[i])) unsorted = 1;
  return unsorted == 0;
}

template <class Tie>
bool take_if_in_order(std::vector<std::uint64_t>& keys, std::span<const Tie> tie,
                      std::vector<std::uint64_t>& sorted_keys, std::vector<std::int32_t>& order) {
  const auto n = static_cast<std::int64_t>(keys.size());
  if (!pairs_in_order(std::span<const std::uint64_t>(keys), tie)) return false;
  sorted_keys = std::move(keys);
  order.resize(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static) if (n >= kParallelLoop)
  for (std::int64_t i = 0; i < n; ++i) order[i] = static_cast<std::int32_t>(i);
  return true;
}

template <class Tie>
bool sort_by_key_and_tie(std::vector<std::uint64_t>&& keys, std::span<const Tie> tie,
                         std::vector<std::uint64_t>& sorted_keys, std::vector<std::int32_t>& order) {
  const auto n = static_cast<std::int64_t>(keys.size());
  if (take_if_in_order(keys, tie, sorted_keys, order)) return true;
  // Nearly in order (a rank's particles a drift after their last sort):
  // a run in order is split off in one pass, the rest sorted alone and
  // merged back. Where that pulls many, the radix sort of all is cheaper:
  // past half. The split, the merge and the keys' gather cost about 0.017 s
  // a million pairs on one thread (2-core machine), the radix sort 0.06, so
  // the split path wins while the pulled fraction f keeps 0.017 + 0.06 f
  // under 0.06 (f < 0.7). A quarter was too few: a drift of dt = 1/1024
  // pulls 13-23 % of a rank's particles, and at 16M on 4 ranks the Plummer
  // core's ranks passed a quarter and took the radix sort (0.25-0.30 s a
  // rank on one thread; docs/performance/mpi.md, "The sort's threshold").
  std::vector<std::int32_t> run, pulled;
  if (!split_into_run(keys, tie, n / 2, run, pulled)) {
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
bool sort_by_key_and_tie(const std::vector<std::uint64_t>& keys, std::span<const Tie> tie,
                         std::vector<std::uint64_t>& sorted_keys, std::vector<std::int32_t>& order) {
  return sort_by_key_and_tie(std::vector<std::uint64_t>(keys), tie, sorted_keys, order);
}

template bool pairs_in_order(std::span<const std::uint64_t>, std::span<const std::uint64_t>);
template bool pairs_in_order(std::span<const std::uint64_t>, std::span<const std::int32_t>);
template bool take_if_in_order(std::vector<std::uint64_t>&, std::span<const std::uint64_t>, std::vector<std::uint64_t>&,
                               std::vector<std::int32_t>&);
template bool take_if_in_order(std::vector<std::uint64_t>&, std::span<const std::int32_t>, std::vector<std::uint64_t>&,
                               std::vector<std::int32_t>&);
template bool sort_by_key_and_tie(const std::vector<std::uint64_t>&, std::span<const std::uint64_t>,
                                  std::vector<std::uint64_t>&, std::vector<std::int32_t>&);
template bool sort_by_key_and_tie(std::vector<std::uint64_t>&&, std::span<const std::uint64_t>,
                                  std::vector<std::uint64_t>&, std::vector<std::int32_t>&);
template bool sort_by_key_and_tie(std::vector<std::uint64_t>&&, std::span<const std::int32_t>,
                                  std::vector<std::uint64_t>&, std::vector<std::int32_t>&);
template bool sort_by_key_and_tie(const std::vector<std::uint64_t>&, std::span<const std::int32_t>,
                                  std::vector<std::uint64_t>&, std::vector<std::int32_t>&);

}  // namespace orrery::mpi
