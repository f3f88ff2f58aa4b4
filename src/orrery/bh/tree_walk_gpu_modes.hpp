#pragma once
// The walk launcher of one math mode. Each mode is compiled in its own
// translation unit (tree_walk_gpu_exact.cu, tree_walk_gpu_fast.cu) so that
// -ftz=true applies to the fast kernels only (docs/adr/0001);
// tree_walk_gpu.cu dispatches between them. Internal to orrery::bh.
#include "orrery/bh/tree_walk_gpu.hpp"

namespace orrery::bh::detail {

template <MathMode Mode, class Real>
void walk_tree_gpu_mode(const bh::OctreeView<Real>& tree, const WalkTargets<Real>& targets,
                        const GpuWalkParams& params,
                        const DeviceWalkTargets<Real>& out, cuda::StreamHandle stream);

}  // namespace orrery::bh::detail
