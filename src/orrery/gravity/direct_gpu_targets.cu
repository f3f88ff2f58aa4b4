// The gather of a subset's positions for the direct kernels
// (direct_gpu_launch.hpp: gather_targets): one thread per target, so a
// subset costs one pass over it before the kernel, whatever the math mode.
#include <cstdint>

#include "orrery/cuda/check_cuda.cuh"
#include "orrery/gravity/direct_gpu_launch.hpp"

namespace orrery::gravity::gpu {
namespace {

template <class Real>
__global__ void gather_targets_kernel(SourcesView<Real> s, const std::int64_t* index, std::int64_t count, Real* x,
                                      Real* y, Real* z, std::int32_t* self) {
  const std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= count) return;  // the last block's tail
  // Clamped so that a bad index reads no foreign memory; the host solve has checked them.
  const std::int64_t j = min(max(index[k], std::int64_t(0)), s.count - 1);
  x[k] = s.x[j];
  y[k] = s.y[j];
  z[k] = s.z[j];
  self[k] = static_cast<std::int32_t>(j);
}

}  // namespace

template <class Real>
GatheredTargets<Real> gather_targets(const SourcesView<Real>& sources, const TargetSet<Real>& targets,
                                     DirectScratch<Real>& scratch, cuda::StreamHandle stream) {
  if (targets.index == nullptr) return {targets.count, targets.x, targets.y, targets.z, nullptr};
  const auto k = static_cast<std::size_t>(targets.count);
  for (auto* b : {&scratch.target_x, &scratch.target_y, &scratch.target_z})
    if (b->size() < k) b->resize(k);
  if (scratch.target_self.size() < k) scratch.target_self.resize(k);
  constexpr int threads = 256;
  const auto blocks = static_cast<unsigned>((targets.count + threads - 1) / threads);
  if (blocks > 0 && sources.count > 0) {
    gather_targets_kernel<<<blocks, threads, 0, stream>>>(sources, targets.index, targets.count,
                                                          scratch.target_x.data(), scratch.target_y.data(),
                                                          scratch.target_z.data(), scratch.target_self.data());
    ORRERY_CUDA_CHECK_LAUNCH("gather_targets_kernel");
  }
  return {targets.count, scratch.target_x.data(), scratch.target_y.data(), scratch.target_z.data(),
          scratch.target_self.data()};
}

template GatheredTargets<float> gather_targets(const SourcesView<float>&, const TargetSet<float>&,
                                               DirectScratch<float>&, cuda::StreamHandle);
template GatheredTargets<double> gather_targets(const SourcesView<double>&, const TargetSet<double>&,
                                                DirectScratch<double>&, cuda::StreamHandle);

}  // namespace orrery::gravity::gpu
