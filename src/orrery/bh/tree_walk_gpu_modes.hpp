#pragma once
// The walk launchers of one math mode. Each mode is compiled in its own
// translation units (tree_walk_gpu_exact*.cu, tree_walk_gpu_fast*.cu) so that
// -ftz=true applies to the fast kernels only (docs/adr/0001): the monopole
// and quadrupole walks in one (walk_tree_gpu_mode), the octupole and the
// hexadecapole walks in one each (walk_tree_gpu_order), so that the orders
// compile in parallel; tree_walk_gpu.cu dispatches between them. Internal to orrery::bh.
#include "orrery/bh/tree_walk_gpu.hpp"

namespace orrery::bh::detail {

/// Expansion M (octupole or hexadecapole; the others are walk_tree_gpu_mode's).
template <MathMode Mode, Multipole M, class Real>
void walk_tree_gpu_order(const bh::OctreeView<Real>& tree, const WalkTargets<Real>& targets,
                         const GpuWalkParams& params, const DeviceWalkTargets<Real>& out, cuda::StreamHandle stream);

/// A monopole or quadrupole tree.
template <MathMode Mode, class Real>
void walk_tree_gpu_mode(const bh::OctreeView<Real>& tree, const WalkTargets<Real>& targets,
                        const GpuWalkParams& params,
                        const DeviceWalkTargets<Real>& out, cuda::StreamHandle stream);

/// The list walk (docs/adr/0019) of a monopole or quadrupole tree, single
/// precision (list_walk_gpu_{exact,fast}.cu).
template <MathMode Mode, class Real>
void list_walk_gpu_mode(const bh::OctreeView<Real>& tree, const WalkTargets<Real>& targets,
                        const GpuWalkParams& params, const DeviceWalkTargets<Real>& out, cuda::StreamHandle stream);

}  // namespace orrery::bh::detail
