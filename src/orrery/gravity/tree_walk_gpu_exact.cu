// The walks in exact math mode: IEEE division and square root, no flush of
// denormals, so each target's sum is bit-identical to the CPU TreeSolver's.
#include "orrery/gravity/tree_walk_gpu_kernels.cuh"

namespace orrery::gravity::detail {

template void walk_tree_gpu_mode<MathMode::exact>(const tree::OctreeView<float>&, const GpuWalkParams&,
                                                  const DeviceWalkTargets<float>&, cuda::StreamHandle);
template void walk_tree_gpu_mode<MathMode::exact>(const tree::OctreeView<double>&, const GpuWalkParams&,
                                                  const DeviceWalkTargets<double>&, cuda::StreamHandle);

}  // namespace orrery::gravity::detail
