// The walks in fast math mode: rsqrtf, and this translation unit alone is
// compiled with -ftz=true (docs/adr/0001; bh/CMakeLists.txt). The
// opening test is the same xm arithmetic as in exact mode.
#include "orrery/bh/tree_walk_gpu_kernels.cuh"

namespace orrery::bh::detail {

template void walk_tree_gpu_mode<MathMode::fast>(const bh::OctreeView<float>&, const WalkTargets<float>&, const GpuWalkParams&,
                                                 const DeviceWalkTargets<float>&, cuda::StreamHandle);
template void walk_tree_gpu_mode<MathMode::fast>(const bh::OctreeView<double>&, const WalkTargets<double>&, const GpuWalkParams&,
                                                 const DeviceWalkTargets<double>&, cuda::StreamHandle);

}  // namespace orrery::bh::detail
