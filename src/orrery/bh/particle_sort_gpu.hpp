#pragma once
// A rank's particles put in the decomposition's order on its device
// (docs/adr/0021, phase 3): their keys in the key cube (position_key, the
// host's integer and exact double arithmetic: the same keys), the order by
// (key, index) (DevicePairSort: the host's unique order), and x, y, z, m
// gathered into it, where the rank's subtree build then reads them instead
// of a copy of the host's sorted arrays.
//
// In:  device arrays x, y, z, m and index [n] in the rank's order; the cube.
// Out: device arrays order[n], the sorted keys [n] and x, y, z, m [n] in the
//      order, valid until the next sort() or the object's end.
// No CUDA header.
#include <array>
#include <cstddef>
#include <cstdint>

#include "orrery/bh/morton.hpp"
#include "orrery/bh/pair_sort_gpu.hpp"
#include "orrery/cuda/memory.hpp"
#include "orrery/cuda/stream.hpp"

namespace orrery::bh {

template <class Real>
class DeviceParticleSort {
 public:
  /// Enqueues the keys, the sort and the gathers on `stream` (asynchronous).
  /// Memory is kept for the next call. 0 <= n < 2^31.
  void sort(const std::array<const Real*, 4>& xyzm, const std::uint64_t* index, std::int32_t n, const Cube& cube,
            cuda::StreamHandle stream);
  const std::int32_t* order() const { return order_; }
  const std::uint64_t* sorted_keys() const { return pairs_.sorted_keys(); }
  /// x, y, z or m (c = 0..3) in the order.
  const Real* sorted(int c) const { return sorted_[c].data(); }
  std::size_t device_bytes() const;

 private:
  cuda::DeviceBuffer<std::uint64_t> keys_;
  cuda::DeviceBuffer<Real> sorted_[4];
  DevicePairSort pairs_;
  const std::int32_t* order_ = nullptr;
};

extern template class DeviceParticleSort<float>;
extern template class DeviceParticleSort<double>;

}  // namespace orrery::bh
