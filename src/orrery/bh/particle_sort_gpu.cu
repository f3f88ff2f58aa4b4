#include "orrery/bh/particle_sort_gpu.hpp"

#include "orrery/cuda/check_cuda.cuh"

namespace orrery::bh {
namespace {

constexpr int kBlock = 256;

unsigned blocks_for(std::int64_t n) { return static_cast<unsigned>((n + kBlock - 1) / kBlock); }

template <class Real>
__global__ void __launch_bounds__(kBlock)
    position_keys(std::int32_t n, const Real* x, const Real* y, const Real* z, Cube cube, std::uint64_t* key) {
  const std::int32_t i = static_cast<std::int32_t>(blockIdx.x) * kBlock + static_cast<std::int32_t>(threadIdx.x);
  if (i < n) key[i] = position_key(x[i], y[i], z[i], cube);
}

/// out[c][j] = in[c][order[j]] for the four arrays.
template <class Real>
__global__ void __launch_bounds__(kBlock)
    gather_four(std::int32_t n, const std::int32_t* order, const Real* x, const Real* y, const Real* z, const Real* m,
                Real* ox, Real* oy, Real* oz, Real* om) {
  const std::int32_t j = static_cast<std::int32_t>(blockIdx.x) * kBlock + static_cast<std::int32_t>(threadIdx.x);
  if (j >= n) return;
  const std::int32_t i = order[j];
  ox[j] = x[i], oy[j] = y[i], oz[j] = z[i], om[j] = m[i];
}

}  // namespace

template <class Real>
void DeviceParticleSort<Real>::sort(const std::array<const Real*, 4>& in, const std::uint64_t* index, std::int32_t n,
                                    const Cube& cube, cuda::StreamHandle s) {
  const auto un = static_cast<std::size_t>(n);
  keys_.fit(un);
  for (auto& b : sorted_) b.fit(un);
  if (n > 0) {
    position_keys<Real><<<blocks_for(n), kBlock, 0, s>>>(n, in[0], in[1], in[2], cube, keys_.data());
    ORRERY_CUDA_CHECK_LAUNCH("position_keys");
  }
  // Every bit of the indices (their width is not known here).
  order_ = pairs_.sort(keys_.data(), index, n, 3 * kMaxLevel, 64, s);
  if (n == 0) return;
  gather_four<Real><<<blocks_for(n), kBlock, 0, s>>>(n, order_, in[0], in[1], in[2], in[3], sorted_[0].data(),
                                                      sorted_[1].data(), sorted_[2].data(), sorted_[3].data());
  ORRERY_CUDA_CHECK_LAUNCH("gather_four");
}

template <class Real>
std::size_t DeviceParticleSort<Real>::device_bytes() const {
  std::size_t b = keys_.bytes() + pairs_.device_bytes();
  for (const auto& s : sorted_) b += s.bytes();
  return b;
}

template class DeviceParticleSort<float>;
template class DeviceParticleSort<double>;

}  // namespace orrery::bh
