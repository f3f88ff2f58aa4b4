#pragma once
// The order of pairs (key, tie) on the host, with the rank's OpenMP threads
// (docs/adr/0012): the particles of a rank by (key, index), one process's
// order, and the nodes it holds by (key, level), the global pre-order. The
// pairs are distinct (an index is held once, a node is held once), so their
// sorted order is unique: the result is the same for every thread count and
// every method, and the same as a std::sort by the pair.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace orrery::mpi {

/// Sorts 0..n-1 by (keys[i], tie[i], i): on return order[k] is the position
/// of the k-th smallest pair and sorted_keys[k] = keys[order[k]]. Input
/// already in that order (checked in parallel, O(n)) gives the identity
/// without a sort. Input nearly in order (a rank's particles a drift after
/// their last sort) has a run in order split off in one O(n) pass (each
/// descent's two pairs pulled), and the pulled pairs sorted alone and
/// merged back, where half or fewer are pulled.
/// Otherwise bh::sort_by_key's parallel radix sort by (key, i), then each
/// run of equal keys sorted by tie (runs are short: equal keys are
/// particles within one finest cell, or one cell at several levels).
/// sorted_keys must not be `keys` itself.
/// Returns whether the input was in order already (order is the identity:
/// the caller may keep its arrays as they are). keys.size() == tie.size() < 2^31.
template <class Tie>
bool sort_by_key_and_tie(const std::vector<std::uint64_t>& keys, std::span<const Tie> tie,
                         std::vector<std::uint64_t>& sorted_keys, std::vector<std::int32_t>& order);
/// The same, taking the keys: input already in order moves them into
/// sorted_keys (no copy of n keys), where the caller has no further use for them.
template <class Tie>
bool sort_by_key_and_tie(std::vector<std::uint64_t>&& keys, std::span<const Tie> tie,
                         std::vector<std::uint64_t>& sorted_keys, std::vector<std::int32_t>& order);

/// Whether the pairs (keys[i], tie[i]) increase strictly with i (checked in
/// parallel): sort_by_key_and_tie's "in order already".
template <class Tie>
bool pairs_in_order(std::span<const std::uint64_t> keys, std::span<const Tie> tie);

/// sort_by_key_and_tie's first step, for a caller that sorts otherwise (a
/// GPU rank's device, LetWalk::sort_particle_keys): where the pairs are in
/// order already (checked in parallel, O(n)), moves `keys` into sorted_keys,
/// makes `order` the identity and returns true; else returns false and
/// touches nothing.
template <class Tie>
bool take_if_in_order(std::vector<std::uint64_t>& keys, std::span<const Tie> tie,
                      std::vector<std::uint64_t>& sorted_keys, std::vector<std::int32_t>& order);

/// std::partition_point(first, last, pred) (pred true on a prefix, false
/// after it), found by steps of 1, 2, 4, ... from first, then a binary
/// search inside the last step: O(log d) for an answer d past first, where
/// a search over the whole range costs O(log(last - first)). The same
/// answer, so a run of searches for non-decreasing values, each starting
/// at the answer before (a sorted tree's nodes over its sorted keys), costs
/// about the distances between them.
template <class It, class Pred>
It gallop_partition_point(It first, It last, Pred pred) {
  if (first == last || !pred(*first)) return first;
  // pred(*lo) holds; the answer is in (lo, hi].
  It lo = first;
  std::ptrdiff_t step = 1;
  while (last - lo > step && pred(*(lo + step))) {
    lo += step;
    step *= 2;
  }
  const It hi = last - lo > step ? lo + step : last;
  return std::partition_point(lo + 1, hi, pred);
}

}  // namespace orrery::mpi
