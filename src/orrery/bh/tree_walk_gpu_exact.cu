// The walks in exact math mode: IEEE division and square root, no flush of
// denormals, so each target's sum is bit-identical to the CPU TreeSolver's.
#include "orrery/bh/tree_walk_gpu_kernels.cuh"

namespace orrery::bh::detail {

template void walk_tree_gpu_mode<MathMode::exact>(const bh::OctreeView<float>&, const WalkTargets<float>&, const GpuWalkParams&,
                                                  const DeviceWalkTargets<float>&, cuda::StreamHandle);
template void walk_tree_gpu_mode<MathMode::exact>(const bh::OctreeView<double>&, const WalkTargets<double>&, const GpuWalkParams&,
                                                  const DeviceWalkTargets<double>&, cuda::StreamHandle);

}  // namespace orrery::bh::detail
