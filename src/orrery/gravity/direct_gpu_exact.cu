// exact mode: the CPU DirectSolver's arithmetic and order on the GPU. One
// target per thread; the CPU's lane sums (LaneSums, direct_kernel.hpp) live
// in registers, and each chunk of W sources goes to lanes 0..W-1 exactly as
// on the CPU, the last chunk clamped and masked as the CPU's tail is. Built
// without -ftz: denormals are kept, as on the host. Targets: every source,
// or gathered ones (direct_gpu_launch.hpp), each summing the same sources in
// the same order, so with the same bits.
#include <algorithm>

#include "orrery/cuda/check_cuda.cuh"
#include "orrery/gravity/direct_gpu_launch.hpp"
#include "orrery/gravity/direct_kernel.hpp"
#include "orrery/gravity/direct_gpu_targets.cuh"

namespace orrery::gravity::gpu {
namespace {

constexpr int kExactTile = 128;

template <class Real, class Softening, bool Pot, class Targets>
__global__ void __launch_bounds__(kExactTile)
    direct_exact_kernel(SourcesView<Real> s, Targets targets, Softening soft, AccelerationsView<Real> out) {
  constexpr int W = kDirectLanes<Real>;
  static_assert(kExactTile % W == 0, "a tile holds whole chunks of W sources");
  __shared__ Real sx[kExactTile], sy[kExactTile], sz[kExactTile], sm[kExactTile];
  const int n = static_cast<int>(s.count);
  const int last = n - 1;
  const int m = static_cast<int>(targets.count);
  const int i = static_cast<int>(blockIdx.x) * kExactTile + static_cast<int>(threadIdx.x);
  const int ic = min(i, m - 1);
  const Real xi = targets.x[ic], yi = targets.y[ic], zi = targets.z[ic];
  const int self = source_of_target(targets, ic);
  LaneSums<Real, Pot> sums;
  const int chunks_total = (n + W - 1) / W;
  for (int t0 = 0; t0 < n; t0 += kExactTile) {
    __syncthreads();
    const int j = min(t0 + static_cast<int>(threadIdx.x), last);  // past the end: source `last`, as the CPU's tail
    sx[threadIdx.x] = s.x[j];
    sy[threadIdx.x] = s.y[j];
    sz[threadIdx.x] = s.z[j];
    sm[threadIdx.x] = s.mass[j];
    __syncthreads();
    const int chunks = min(kExactTile / W, chunks_total - t0 / W);  // the same for every thread
    for (int c = 0; c < chunks; ++c) {
#pragma unroll
      for (int l = 0; l < W; ++l) {
        const int k = c * W + l;
        const int jj = t0 + k;
        sums.add(l, xm::sub(sx[k], xi), xm::sub(sy[k], yi), xm::sub(sz[k], zi), sm[k], (jj <= last) & (jj != self), soft);
      }
    }
  }
  const TargetField<Real> f = sums.combine();
  if (i < m) {  // the last block's tail
    out.ax[i] = f.ax;
    out.ay[i] = f.ay;
    out.az[i] = f.az;
    if constexpr (Pot) out.potential[i] = f.potential;
  }
}

template <class Real, class Softening, class Targets>
void exact_field(const SourcesView<Real>& sources, const Targets& targets, const AccelerationsView<Real>& out,
                 const Softening& soft, bool potential, cuda::StreamHandle stream) {
  const auto blocks = static_cast<unsigned>((targets.count + kExactTile - 1) / kExactTile);
  if (blocks == 0) return;
  if (potential) {
    direct_exact_kernel<Real, Softening, true><<<blocks, kExactTile, 0, stream>>>(sources, targets, soft, out);
  } else {
    direct_exact_kernel<Real, Softening, false><<<blocks, kExactTile, 0, stream>>>(sources, targets, soft, out);
  }
  ORRERY_CUDA_CHECK_LAUNCH("direct_exact_kernel");
}

}  // namespace

template <class Real, class Softening>
void direct_field(MathModeTag<MathMode::exact>, const SourcesView<Real>& sources, const AccelerationsView<Real>& out,
                  const Softening& soft, bool potential, DirectScratch<Real>& /*scratch*/, cuda::StreamHandle stream) {
  exact_field(sources, sources, out, soft, potential, stream);
}

template <class Real, class Softening>
void direct_field(MathModeTag<MathMode::exact>, const SourcesView<Real>& sources, const GatheredTargets<Real>& targets,
                  const AccelerationsView<Real>& out, const Softening& soft, bool potential,
                  DirectScratch<Real>& /*scratch*/, cuda::StreamHandle stream) {
  exact_field(sources, targets, out, soft, potential, stream);
}

#define ORRERY_INSTANTIATE(Real, Soft)                                                                      \
  template void direct_field<Real, Soft<Real>>(MathModeTag<MathMode::exact>, const SourcesView<Real>&,      \
                                              const AccelerationsView<Real>&, const Soft<Real>&, bool,     \
                                              DirectScratch<Real>&, cuda::StreamHandle);                   \
  template void direct_field<Real, Soft<Real>>(MathModeTag<MathMode::exact>, const SourcesView<Real>&,      \
                                              const GatheredTargets<Real>&, const AccelerationsView<Real>&, \
                                              const Soft<Real>&, bool, DirectScratch<Real>&, cuda::StreamHandle);
ORRERY_INSTANTIATE(float, PlummerSoftening)
ORRERY_INSTANTIATE(float, SplineSoftening)
ORRERY_INSTANTIATE(double, PlummerSoftening)
ORRERY_INSTANTIATE(double, SplineSoftening)
#undef ORRERY_INSTANTIATE

}  // namespace orrery::gravity::gpu
