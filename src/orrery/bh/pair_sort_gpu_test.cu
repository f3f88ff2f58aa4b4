// The device's order of (key, tie) pairs (pair_sort_gpu.hpp) against a host
// std::sort by (key, tie, position) on inputs that exercise each part of the
// order: equal keys (the tie decides), equal pairs (the position decides),
// bits at the top of both, nearly sorted input, sizes across CUB's tile
// boundaries, and one object reused for a larger and then a smaller sort.
// Skipped without a CUDA device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "orrery/cuda/device.hpp"
#include "orrery/cuda/memory.hpp"
#include "orrery/bh/pair_sort_gpu.hpp"

namespace orrery::bh {
namespace {

#define SKIP_WITHOUT_GPU() \
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device"

struct Pairs {
  std::vector<std::uint64_t> key, tie;
};

std::vector<std::int32_t> host_order(const Pairs& p) {
  std::vector<std::int32_t> order(p.key.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
    if (p.key[a] != p.key[b]) return p.key[a] < p.key[b];
    if (p.tie[a] != p.tie[b]) return p.tie[a] < p.tie[b];
    return a < b;
  });
  return order;
}

void expect_host_order(DevicePairSort& sort, const Pairs& p, int key_bits, int tie_bits, const std::string& what) {
  const auto n = p.key.size();
  cuda::DeviceBuffer<std::uint64_t> key(n), tie(n);
  key.upload(p.key);
  tie.upload(p.tie);
  const std::int32_t* by = sort.sort(key.data(), tie.data(), static_cast<std::int32_t>(n), key_bits, tie_bits, nullptr);
  std::vector<std::int32_t> got(n);
  cuda::copy_device_to_host(got.data(), by, n * sizeof(std::int32_t), nullptr);
  cuda::synchronize(nullptr);
  const std::vector<std::int32_t> want = host_order(p);
  for (std::size_t k = 0; k < n; ++k) ASSERT_EQ(got[k], want[k]) << what << ": sorted position " << k << " of " << n;
}

/// n pairs: keys of `key_bits` bits drawn from `distinct_keys` values, ties
/// from `distinct_ties` values spread over `tie_bits` bits.
Pairs random_pairs(std::size_t n, std::uint64_t distinct_keys, int key_bits, std::uint64_t distinct_ties,
                   int tie_bits, unsigned seed) {
  std::mt19937_64 rng(seed);
  const auto spread = [&](std::uint64_t v, std::uint64_t of, int bits) {
    const std::uint64_t top = bits == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << bits) - 1;
    return of <= 1 ? top : v * (top / (of - 1));
  };
  Pairs p;
  p.key.resize(n);
  p.tie.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    p.key[i] = spread(rng() % distinct_keys, distinct_keys, key_bits);
    p.tie[i] = spread(rng() % distinct_ties, distinct_ties, tie_bits);
  }
  return p;
}

TEST(DevicePairSort, OrdersByKeyThenTieThenPositionOnEveryInput) {
  SKIP_WITHOUT_GPU();
  DevicePairSort sort;
  expect_host_order(sort, Pairs{}, 63, 64, "no pairs");
  expect_host_order(sort, Pairs{{5}, {9}}, 63, 64, "one pair");
  // Few keys and few ties: long runs of equal keys, equal pairs among them.
  expect_host_order(sort, random_pairs(5000, 7, 63, 3, 64, 1), 63, 64, "equal keys and equal pairs");
  // Distinct ties (a rank's particle indices) reaching the top bit of 64 and 40 bits.
  expect_host_order(sort, random_pairs(100003, 5000, 63, 1u << 30, 64, 2), 63, 64, "ties to bit 63");
  expect_host_order(sort, random_pairs(100003, 5000, 63, 1u << 30, 40, 3), 63, 40, "ties of 40 bits");
  // Past several of CUB's tiles, then smaller again in the kept memory.
  expect_host_order(sort, random_pairs((1u << 20) + 3, 1u << 18, 63, 1u << 20, 21, 4), 63, 21, "1M + 3 pairs");
  // Nearly sorted: a rank's particles a drift after their last sort.
  Pairs near = random_pairs(200000, 1u << 16, 48, 200000, 18, 5);
  std::vector<std::int32_t> by = host_order(near);
  Pairs sorted;
  for (std::int32_t i : by) sorted.key.push_back(near.key[i]), sorted.tie.push_back(near.tie[i]);
  for (std::size_t i = 0; i + 1 < sorted.key.size(); i += 97) std::swap(sorted.key[i], sorted.key[i + 1]);
  expect_host_order(sort, sorted, 48, 18, "nearly sorted");
  expect_host_order(sort, random_pairs(777, 50, 63, 777, 10, 6), 63, 10, "smaller again");
}

}  // namespace
}  // namespace orrery::bh
