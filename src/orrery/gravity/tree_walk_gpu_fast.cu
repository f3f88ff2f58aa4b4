// The walks in fast math mode: rsqrtf, and this translation unit alone is
// compiled with -ftz=true (docs/adr/0001; gravity/CMakeLists.txt). The
// opening test is the same xm arithmetic as in exact mode.
#include "orrery/gravity/tree_walk_gpu_kernels.cuh"

namespace orrery::gravity::detail {

template void walk_tree_gpu_mode<MathMode::fast>(const tree::OctreeView<float>&, const GpuWalkParams&,
                                                 const DeviceWalkTargets<float>&, cuda::StreamHandle);
template void walk_tree_gpu_mode<MathMode::fast>(const tree::OctreeView<double>&, const GpuWalkParams&,
                                                 const DeviceWalkTargets<double>&, cuda::StreamHandle);

}  // namespace orrery::gravity::detail
