#pragma once
// The order of pairs (key, tie) on the device: the positions 0..n-1 sorted by
// (key[i], tie[i], i). mpi::sort_by_key_and_tie computes the same order on the
// host (a rank's particles by (key, index), the one order of every process);
// a GPU rank finds it here (docs/adr/0021, phase 3). The order is unique, so
// two least-significant-first stable radix sorts (CUB's) give it: by tie,
// then the keys gathered in that order by key.
//
// In:  device arrays key[n], tie[n]; the bits of each that may be set (the
//      sorts read only those: a key's 3 kMaxLevel, an index's bit width).
// Out: a device array order[n], valid until the next sort() or the object's end.
// No CUDA header.
#include <cstddef>
#include <cstdint>

#include "orrery/cuda/memory.hpp"
#include "orrery/cuda/stream.hpp"

namespace orrery::bh {

class DevicePairSort {
 public:
  /// Enqueues the sort on `stream` (asynchronous) and returns the order's
  /// device address. Its memory is kept for the next call (a rank sorts a
  /// similar count every step: nothing allocated once it fits).
  /// 0 < key_bits, tie_bits <= 64; 0 <= n < 2^31.
  const std::int32_t* sort(const std::uint64_t* key, const std::uint64_t* tie, std::int32_t n, int key_bits,
                           int tie_bits, cuda::StreamHandle stream);
  /// The keys in the last sort's order, key[order[j]] (device [n]), valid
  /// as the order is.
  const std::uint64_t* sorted_keys() const { return sorted_keys_; }
  std::size_t device_bytes() const { return scratch_.bytes(); }

 private:
  cuda::DeviceBuffer<std::byte> scratch_;
  const std::uint64_t* sorted_keys_ = nullptr;
};

}  // namespace orrery::bh
