#include "orrery/bh/radix_sort.hpp"

#include <omp.h>

#include <algorithm>
#include <array>

namespace orrery::bh {
namespace {

constexpr int kDigitBits = 8;
constexpr int kBuckets = 1 << kDigitBits;
constexpr int kPasses = 64 / kDigitBits;

using Histogram = std::array<std::int64_t, kBuckets>;

// Fewer keys are sorted on one thread: the passes' barriers would cost more.
constexpr std::int64_t kParallelKeys = 65536;

/// The bits in which some key differs from keys[0]: a digit with none of
/// them set is the same for every key and needs no pass.
std::uint64_t varying_bits(const std::vector<std::uint64_t>& keys) {
  const std::int64_t n = static_cast<std::int64_t>(keys.size());
  const std::uint64_t k0 = keys[0];
  std::uint64_t bits = 0;
#pragma omp parallel for reduction(| : bits) schedule(static) if (n >= kParallelKeys)
  for (std::int64_t i = 0; i < n; ++i) bits |= keys[i] ^ k0;
  return bits;
}

}  // namespace

void sort_by_key(const std::vector<std::uint64_t>& keys, std::vector<std::uint64_t>& sorted_keys,
                 std::vector<std::int32_t>& order) {
  const std::int64_t n = static_cast<std::int64_t>(keys.size());
  sorted_keys = keys;
  order.resize(n);
  const int loop_threads = n >= kParallelKeys ? std::max(1, omp_get_max_threads()) : 1;
  // Keys already in order (an MPI rank's particles, sorted by (key, index)
  // before its tree is built) are their own sorted order: 0..n-1 is then the
  // unique order of the (key, index) pairs, which the passes would only copy.
  std::int64_t descents = 0;
#pragma omp parallel for schedule(static) num_threads(loop_threads) reduction(+ : descents)
  for (std::int64_t i = 0; i < n; ++i) {
    order[i] = static_cast<std::int32_t>(i);
    descents += i > 0 && keys[i - 1] > keys[i];
  }
  if (n < 2 || descents == 0) return;
  const std::uint64_t varying = varying_bits(keys);
  std::vector<std::uint64_t> key_buf(n);
  std::vector<std::int32_t> order_buf(n);
  const int threads = n >= kParallelKeys ? std::max(1, omp_get_max_threads()) : 1;
  std::vector<Histogram> hist(threads);
  for (int pass = 0; pass < kPasses; ++pass) {
    const int shift = pass * kDigitBits;
    if (((varying >> shift) & (kBuckets - 1)) == 0) continue;
#pragma omp parallel num_threads(threads)
    {
      // Each thread owns one contiguous chunk: counting and scattering a
      // chunk in order, chunks in thread order, keeps the sort stable.
      const int t = omp_get_thread_num();
      const int nt = omp_get_num_threads();
      const std::int64_t lo = n * t / nt, hi = n * (t + 1) / nt;
      Histogram& h = hist[t];
      h.fill(0);
      for (std::int64_t i = lo; i < hi; ++i) ++h[(sorted_keys[i] >> shift) & (kBuckets - 1)];
#pragma omp barrier
#pragma omp single
      {
        std::int64_t at = 0;
        for (int d = 0; d < kBuckets; ++d) {
          for (int u = 0; u < nt; ++u) {
            const std::int64_t c = hist[u][d];
            hist[u][d] = at;
            at += c;
          }
        }
      }
      for (std::int64_t i = lo; i < hi; ++i) {
        const std::uint64_t k = sorted_keys[i];
        const std::int64_t to = h[(k >> shift) & (kBuckets - 1)]++;
        key_buf[to] = k;
        order_buf[to] = order[i];
      }
    }
    sorted_keys.swap(key_buf);
    order.swap(order_buf);
  }
}

}  // namespace orrery::bh
