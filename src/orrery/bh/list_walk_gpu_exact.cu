// The list walk (docs/adr/0019) in exact math mode: each target's sums are
// bit-identical to the CPU's walk_list_group. Single precision only: issue
// 21's walks; each instantiation is build time in CI (walk_tree_gpu refuses double).
#include "orrery/bh/list_walk_gpu.cuh"

namespace orrery::bh::detail {

template void list_walk_gpu_mode<MathMode::exact>(const bh::OctreeView<float>&, const WalkTargets<float>&,
                                                  const GpuWalkParams&, const DeviceWalkTargets<float>&,
                                                  cuda::StreamHandle);

}  // namespace orrery::bh::detail
