#include "orrery/bh/radix_sort.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <numeric>

#include "orrery/core/rng.hpp"

namespace orrery::bh {
namespace {

// The yardstick: std::stable_sort of the indices by key.
std::vector<std::int32_t> reference_order(const std::vector<std::uint64_t>& keys) {
  std::vector<std::int32_t> o(keys.size());
  std::iota(o.begin(), o.end(), 0);
  std::stable_sort(o.begin(), o.end(), [&](std::int32_t a, std::int32_t b) { return keys[a] < keys[b]; });
  return o;
}

void expect_sorted_like_reference(const std::vector<std::uint64_t>& keys, const char* what) {
  const auto ref = reference_order(keys);
  for (int threads : {1, 2, 3, 7}) {
    omp_set_num_threads(threads);
    std::vector<std::uint64_t> sorted;
    std::vector<std::int32_t> order;
    sort_by_key(keys, sorted, order);
    ASSERT_EQ(order, ref) << what << ", " << threads << " threads";
    for (std::size_t k = 0; k < keys.size(); ++k) ASSERT_EQ(sorted[k], keys[order[k]]) << what;
  }
  omp_set_num_threads(omp_get_num_procs());
}

TEST(RadixSort, MatchesStableSortWithIndexTieBreak) {
  Rng r(42);
  std::vector<std::uint64_t> wide(50000), narrow(50000), top_bits(30000);
  for (auto& k : wide) k = r.next_u64() >> 1;                 // 63-bit keys, all digits vary
  for (auto& k : narrow) k = (r.next_u64() >> 1) % 37;        // many ties, high digits constant
  for (auto& k : top_bits) k = (r.next_u64() % 5) << 58;      // only the top digit varies
  expect_sorted_like_reference(wide, "wide");
  expect_sorted_like_reference(narrow, "narrow");
  expect_sorted_like_reference(top_bits, "top_bits");
  expect_sorted_like_reference(std::vector<std::uint64_t>(1000, 123), "all equal");
  expect_sorted_like_reference({7}, "single");
  expect_sorted_like_reference({(1ull << 63) - 1, 0}, "extremes");
}

// Keys already in order take the shortcut (no passes); keys in order but for
// one pair anywhere, or with ties, must still come out as the reference's.
TEST(RadixSort, KeysAlreadyInOrderAndNearlyInOrder) {
  Rng r(7);
  std::vector<std::uint64_t> in_order(40000);
  for (auto& k : in_order) k = (r.next_u64() >> 1) % 5000;  // ties: the shortcut must keep index order
  std::sort(in_order.begin(), in_order.end());
  expect_sorted_like_reference(in_order, "in order, with ties");
  for (std::size_t at : {std::size_t(1), std::size_t(20000), in_order.size() - 1}) {
    std::vector<std::uint64_t> one_descent = in_order;
    one_descent[at - 1] = one_descent[at] + 1;  // one pair out of order
    expect_sorted_like_reference(one_descent, "one descent");
  }
}

}  // namespace
}  // namespace orrery::bh
