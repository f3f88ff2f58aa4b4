#include "orrery/bh/pair_sort_gpu.hpp"

#include <cub/device/device_radix_sort.cuh>

#include "orrery/cuda/check_cuda.cuh"

namespace orrery::bh {
namespace {

constexpr int kBlock = 256;

unsigned blocks_for(std::int64_t n) { return static_cast<unsigned>((n + kBlock - 1) / kBlock); }

/// position[i] = i: the values the first sort carries.
__global__ void __launch_bounds__(kBlock) positions(std::int32_t n, std::int32_t* position) {
  const std::int32_t i = static_cast<std::int32_t>(blockIdx.x) * kBlock + static_cast<std::int32_t>(threadIdx.x);
  if (i < n) position[i] = i;
}

/// out[j] = key[by[j]]: the keys in the order of the first sort.
__global__ void __launch_bounds__(kBlock)
    gather_keys(std::int32_t n, const std::uint64_t* key, const std::int32_t* by, std::uint64_t* out) {
  const std::int32_t j = static_cast<std::int32_t>(blockIdx.x) * kBlock + static_cast<std::int32_t>(threadIdx.x);
  if (j < n) out[j] = key[by[j]];
}

/// The sort's arrays in one piece of memory from `base` (256-byte aligned,
/// as CUB's temporaries want): two key and two position buffers (CUB's
/// double buffers), then `temp` bytes. `bytes` gets the span they take.
struct Scratch {
  std::uint64_t* key[2];
  std::int32_t* position[2];
  void* temp;
};
Scratch lay_out(std::byte* base, std::size_t n, std::size_t temp, std::size_t& bytes) {
  std::size_t at = 0;
  const auto take = [&](std::size_t b) {
    std::byte* p = base == nullptr ? nullptr : base + at;
    at += (b + 255) / 256 * 256;
    return p;
  };
  Scratch r{};
  for (auto*& k : r.key) k = reinterpret_cast<std::uint64_t*>(take(n * sizeof(std::uint64_t)));
  for (auto*& p : r.position) p = reinterpret_cast<std::int32_t*>(take(n * sizeof(std::int32_t)));
  r.temp = take(temp);
  bytes = at;
  return r;
}

}  // namespace

const std::int32_t* DevicePairSort::sort(const std::uint64_t* key, const std::uint64_t* tie, std::int32_t n,
                                         int key_bits, int tie_bits, cuda::StreamHandle s) {
  const auto un = static_cast<std::size_t>(n);
  cub::DoubleBuffer<std::uint64_t> keys(nullptr, nullptr);
  cub::DoubleBuffer<std::int32_t> ids(nullptr, nullptr);
  std::size_t by_tie = 0, by_key = 0;
  ORRERY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, by_tie, keys, ids, n, 0, tie_bits, s));
  ORRERY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, by_key, keys, ids, n, 0, key_bits, s));
  const std::size_t temp = by_tie > by_key ? by_tie : by_key;
  std::size_t bytes = 0;
  lay_out(nullptr, un, temp, bytes);
  // DeviceBuffer's blocks come from cudaMalloc: 256-byte aligned already.
  scratch_.fit(bytes);
  const Scratch m = lay_out(scratch_.data(), un, temp, bytes);
  sorted_keys_ = m.key[0];
  if (n == 0) return m.position[0];
  // First by tie: the positions in (tie, i) order (the sort is stable).
  ORRERY_CUDA_CHECK(cudaMemcpyAsync(m.key[0], tie, un * sizeof(std::uint64_t), cudaMemcpyDeviceToDevice, s));
  positions<<<blocks_for(n), kBlock, 0, s>>>(n, m.position[0]);
  ORRERY_CUDA_CHECK_LAUNCH("positions");
  keys = cub::DoubleBuffer<std::uint64_t>(m.key[0], m.key[1]);
  ids = cub::DoubleBuffer<std::int32_t>(m.position[0], m.position[1]);
  std::size_t temp_bytes = temp;
  ORRERY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(m.temp, temp_bytes, keys, ids, n, 0, tie_bits, s));
  // Then, stably, by key: equal keys keep their (tie, i) order.
  gather_keys<<<blocks_for(n), kBlock, 0, s>>>(n, key, ids.Current(), keys.Alternate());
  ORRERY_CUDA_CHECK_LAUNCH("gather_keys");
  keys = cub::DoubleBuffer<std::uint64_t>(keys.Alternate(), keys.Current());
  temp_bytes = temp;
  ORRERY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(m.temp, temp_bytes, keys, ids, n, 0, key_bits, s));
  sorted_keys_ = keys.Current();
  return ids.Current();
}

}  // namespace orrery::bh
