// The list walk (docs/adr/0019) in fast math mode (rsqrtf; this translation
// unit compiled with -ftz=true, as tree_walk_gpu_fast.cu). Single precision only.
#include "orrery/bh/list_walk_gpu.cuh"

namespace orrery::bh::detail {

template void list_walk_gpu_mode<MathMode::fast>(const bh::OctreeView<float>&, const WalkTargets<float>&,
                                                 const GpuWalkParams&, const DeviceWalkTargets<float>&,
                                                 cuda::StreamHandle);

}  // namespace orrery::bh::detail
