// The searches and sorts of key_order.hpp, without ranks.
#include "orrery/mpi/key_order.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <span>
#include <utility>
#include <vector>

namespace orrery::mpi {
namespace {

// Every start at or before the answer gives std::lower_bound's and
// std::upper_bound's answer: on a sorted array with runs of equal keys, for
// values below, between, on and above its keys, and on an empty range.
TEST(GallopPartitionPoint, IsTheBinarySearchFromAnyStartBeforeTheAnswer) {
  std::vector<std::uint64_t> keys;
  for (std::uint64_t k = 0; k < 300; ++k)
    for (std::uint64_t c = 0; c < k % 4; ++c) keys.push_back(3 * k + 1);
  for (std::uint64_t v = 0; v <= 3 * 300 + 2; ++v) {
    const auto lower = std::lower_bound(keys.begin(), keys.end(), v);
    const auto upper = std::upper_bound(keys.begin(), keys.end(), v);
    for (auto start = keys.begin(); start <= lower; ++start) {
      ASSERT_EQ(gallop_partition_point(start, keys.end(), [v](std::uint64_t k) { return k < v; }), lower) << v;
      ASSERT_EQ(gallop_partition_point(start, keys.end(), [v](std::uint64_t k) { return k <= v; }), upper) << v;
    }
  }
  const std::vector<std::uint64_t> none;
  EXPECT_EQ(gallop_partition_point(none.begin(), none.end(), [](std::uint64_t) { return true; }), none.end());
}

// The pairs' order is std::sort's by (key, tie), whichever overload and
// whether the input is in order already; the overload taking the keys moves
// them into sorted_keys only when they are in order (then order is 0..n-1).
TEST(SortByKeyAndTie, BothOverloadsGiveStdSortsOrder) {
  const std::vector<std::uint64_t> shuffled = {9, 3, 3, 7, 1, 3, 9, 0, 7, 7, 2, 3};
  const std::vector<std::int32_t> tie = {2, 5, 1, 0, 4, 3, 1, 9, 2, 1, 0, 0};
  std::vector<std::int32_t> want(shuffled.size());
  for (std::size_t i = 0; i < want.size(); ++i) want[i] = static_cast<std::int32_t>(i);
  std::sort(want.begin(), want.end(), [&](std::int32_t a, std::int32_t b) {
    return shuffled[a] != shuffled[b] ? shuffled[a] < shuffled[b] : tie[a] < tie[b];
  });
  std::vector<std::uint64_t> sorted;
  std::vector<std::int32_t> order;
  EXPECT_FALSE(sort_by_key_and_tie(shuffled, std::span<const std::int32_t>(tie), sorted, order));
  EXPECT_EQ(order, want);
  std::vector<std::uint64_t> taken = shuffled, sorted2;
  std::vector<std::int32_t> order2;
  EXPECT_FALSE(sort_by_key_and_tie(std::move(taken), std::span<const std::int32_t>(tie), sorted2, order2));
  EXPECT_EQ(order2, want);
  EXPECT_EQ(sorted2, sorted);
  // In order: the identity, and the keys themselves.
  std::vector<std::uint64_t> in_order(shuffled.size());
  std::vector<std::int32_t> in_order_tie(shuffled.size());
  for (std::size_t k = 0; k < want.size(); ++k) in_order[k] = shuffled[want[k]], in_order_tie[k] = tie[want[k]];
  std::vector<std::uint64_t> moved = in_order, sorted3;
  std::vector<std::int32_t> order3;
  EXPECT_TRUE(sort_by_key_and_tie(std::move(moved), std::span<const std::int32_t>(in_order_tie), sorted3, order3));
  EXPECT_EQ(sorted3, in_order);
  for (std::size_t k = 0; k < order3.size(); ++k) EXPECT_EQ(order3[k], static_cast<std::int32_t>(k));
}

// Pairs nearly in order (a rank's particles after a drift: neighbours
// swapped, a few moved far, equal keys with their ties out of order, a
// pattern whose first descents hide a second) take the split-and-merge path, and
// input far from order takes the radix sort: std::sort's order and keys in
// every case.
TEST(SortByKeyAndTie, NearlySortedInputGivesStdSortsOrder) {
  std::uint64_t state = 99;
  const auto next = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  };
  const auto check = [](const std::vector<std::uint64_t>& key, const std::vector<std::int32_t>& tie, const char* what) {
    std::vector<std::int32_t> want(key.size());
    std::iota(want.begin(), want.end(), 0);
    std::sort(want.begin(), want.end(),
              [&](std::int32_t a, std::int32_t b) { return key[a] != key[b] ? key[a] < key[b] : tie[a] < tie[b]; });
    std::vector<std::uint64_t> sorted;
    std::vector<std::int32_t> order;
    EXPECT_FALSE(sort_by_key_and_tie(std::vector<std::uint64_t>(key), std::span<const std::int32_t>(tie), sorted, order))
        << what;
    EXPECT_EQ(order, want) << what;
    for (std::size_t k = 0; k < want.size(); ++k) ASSERT_EQ(sorted[k], key[want[k]]) << what << ", element " << k;
  };
  const std::int32_t n = 200000;  // past the comparison sort's size for the pulled pairs
  std::vector<std::uint64_t> key(n);
  std::vector<std::int32_t> tie(n);
  for (std::int32_t i = 0; i < n; ++i) key[i] = 4 * static_cast<std::uint64_t>(i / 3), tie[i] = i;  // runs of 3 equal keys
  std::vector<std::uint64_t> near = key;
  std::vector<std::int32_t> near_tie = tie;
  for (std::int32_t i = 0; i + 1 < n; i += 2)
    if (next() % 100 < 12) std::swap(near[i], near[i + 1]), std::swap(near_tie[i], near_tie[i + 1]);
  for (int j = 0; j < 30; ++j) near[next() % n] = next() % (4 * n);  // far jumps, both ways
  check(near, near_tie, "neighbours swapped, far jumps");
  std::vector<std::uint64_t> ties = key;
  std::vector<std::int32_t> ties_tie = tie;
  for (std::int32_t i = 0; i + 2 < n; i += 30) std::swap(ties_tie[i], ties_tie[i + 2]);  // equal keys, ties reversed
  check(ties, ties_tie, "ties out of order");
  // Blocks 3 4 1 2: pulling 4 and 1 leaves 3 before 2, pulled next.
  std::vector<std::uint64_t> two(n);
  for (std::int32_t i = 0; i < n; ++i) two[i] = static_cast<std::uint64_t>(i);
  for (std::int32_t i = 0; i + 3 < n; i += 40) two[i] = i + 2, two[i + 1] = i + 3, two[i + 2] = i, two[i + 3] = i + 1;
  check(two, tie, "blocks 3 4 1 2");
  std::vector<std::uint64_t> far = key;
  for (auto& k : far) k = next();
  check(far, tie, "shuffled: the radix sort");
  // Many pulled pairs (more than the comparison sort takes: about 90,000)
  // sorted by radix.
  const std::int32_t big = 600000;
  std::vector<std::uint64_t> many(big);
  std::vector<std::int32_t> many_tie(big);
  for (std::int32_t i = 0; i < big; ++i) many[i] = static_cast<std::uint64_t>(i), many_tie[i] = i;
  for (std::int32_t i = 0; i + 1 < big; i += 2)
    if (next() % 100 < 15) std::swap(many[i], many[i + 1]);
  check(many, many_tie, "15 % of neighbours swapped");
  // About 40 % pulled (a dense halo core's rank after a drift): past the
  // quarter that once sent it to the radix sort, under the half.
  std::vector<std::uint64_t> dense(big);
  for (std::int32_t i = 0; i < big; ++i) dense[i] = static_cast<std::uint64_t>(i);
  for (std::int32_t i = 0; i + 1 < big; i += 2)
    if (next() % 100 < 40) std::swap(dense[i], dense[i + 1]);
  check(dense, many_tie, "40 % of the pairs pulled");
}

// The run is split off in chunks, one per thread, and mended at the seams
// between them: a chunk whose kept pairs all belong after the next chunk's
// first ones is emptied there, then the chunk before it meets what is left
// of the next; a descent across a seam is pulled. Sixteen chunks of 10,000
// pairs whatever the cores; about 15,000 pulled, under the half past
// which the radix sort takes over.
TEST(SortByKeyAndTie, SeamsBetweenTheThreadsChunksAreMended) {
  const int threads = omp_get_max_threads();
  omp_set_num_threads(16);
  const std::int32_t n = 160000;
  std::vector<std::uint64_t> key(n);
  std::vector<std::int32_t> tie(n);
  for (std::int32_t i = 0; i < n; ++i) key[i] = static_cast<std::uint64_t>(i), tie[i] = i;
  for (std::int32_t m = 0; m < 100; ++m) key[19900 + m] = 35000 + m;           // chunk 1 ends inside chunk 3
  for (std::int32_t i = 20000; i < 27500; ++i) key[i] = i + 100000;            // chunk 2: 7,500 large ...
  for (std::int32_t i = 27500; i < 30000; ++i) key[i] = i - 20000;             // ... 2,500 pulled with them: 5,000 kept
  std::swap(key[50000 - 1], key[50000]);                                        // a descent across the seam of 4 and 5
  std::vector<std::int32_t> want(n);
  std::iota(want.begin(), want.end(), 0);
  std::stable_sort(want.begin(), want.end(), [&](std::int32_t a, std::int32_t b) { return key[a] < key[b]; });
  std::vector<std::uint64_t> sorted;
  std::vector<std::int32_t> order;
  EXPECT_FALSE(sort_by_key_and_tie(std::vector<std::uint64_t>(key), std::span<const std::int32_t>(tie), sorted, order));
  omp_set_num_threads(threads);
  EXPECT_EQ(order, want);
  for (std::size_t k = 0; k < want.size(); ++k) ASSERT_EQ(sorted[k], key[want[k]]) << "element " << k;
}

}  // namespace
}  // namespace orrery::mpi
