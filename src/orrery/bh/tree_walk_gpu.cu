// Host dispatch of the GPU walks: math mode to the translation unit compiled
// for it (tree_walk_gpu_modes.hpp).
#include <string>
#include <type_traits>

#include "orrery/core/error.hpp"
#include "orrery/bh/tree_walk_gpu.hpp"
#include "orrery/bh/tree_walk_gpu_modes.hpp"

namespace orrery::bh {

void check_group_opening_walk(int group_opening, Traversal traversal, int group_width, int target_lanes) {
  if (group_opening == 0) return;
  if (!is_group_opening(group_opening))
    throw InputError("gravity.group_opening = " + std::to_string(group_opening) +
                     " is not supported; accepted: 0 or a power of two from " + std::to_string(kOpeningGroup) +
                     " to 4096");
  if (traversal != Traversal::coherent || group_width != 32 || target_lanes != 1)
    throw InputError("gravity.group_opening walks one warp of 32 targets at a time; accepted with it: "
                     "gravity.traversal = \"coherent\", gravity.group_width = 32 and one lane a target (got " +
                     std::string(to_string(traversal)) + ", width " + std::to_string(group_width) + ", " +
                     std::to_string(target_lanes) + " lanes)");
}

namespace {

/// InputError unless the list walk can run on `tree` with `params`.
template <class Real>
void check_list_walk(const bh::OctreeView<Real>& tree, const GpuWalkParams& params) {
  check_list_walk_precision<Real>(true);
  if (multipole_order(tree.multipole) > 2)
    throw InputError("gravity.list_walk = true is not supported with gravity.multipole = \"" +
                     std::string(to_string(tree.multipole)) + "\"; accepted with it: monopole, quadrupole");
  if (params.group_opening != 0)
    throw InputError("gravity.list_walk = true and gravity.group_opening = " + std::to_string(params.group_opening) +
                     "; accepted: one of them");
  if (params.target_lanes != 1)
    throw InputError("the list walk takes one lane a target; accepted: target_lanes = 1 (got " +
                     std::to_string(params.target_lanes) + ")");
  const int q = params.list_queue;
  if (q < 32 || q > 2048 || (q & (q - 1)) != 0)
    throw InputError("list_queue = " + std::to_string(q) + " is not supported; accepted: a power of two from 32 to 2048");
}

}  // namespace

template <class Real>
void walk_tree_gpu(const bh::OctreeView<Real>& tree, const WalkTargets<Real>& targets, const GpuWalkParams& params,
                   const DeviceWalkTargets<Real>& out, cuda::StreamHandle stream) {
  if (params.traversal == Traversal::coherent && !is_group_width(params.group_width))
    throw InputError("gravity.group_width = " + std::to_string(params.group_width) +
                     " is not supported; accepted: 8, 16, 32, 64");
  validated_softening(params.softening);
  const int lanes = params.target_lanes;
  if (lanes < 1 || lanes > 32 || (lanes & (lanes - 1)) != 0)
    throw InputError("target_lanes = " + std::to_string(lanes) + " is not supported; accepted: 1, 2, 4, 8, 16, 32");
  if (lanes > 1 && out.block_order != nullptr)
    throw InputError("a walk launch order (block_order) is for one lane per target; accepted: target_lanes = 1 with it");
  check_group_opening_walk(params.group_opening, params.traversal, params.group_width, lanes);
  if (params.group_opening != 0 && multipole_order(tree.multipole) > 2)
    throw InputError("gravity.group_opening is not supported with gravity.multipole = \"" +
                     std::string(to_string(tree.multipole)) + "\"; accepted with it: monopole, quadrupole");
  if (params.list_walk) check_list_walk<Real>(tree, params);
  if (tree.num_particles == 0 || targets.count == 0) return;
  if constexpr (std::is_same_v<Real, float>)
    if (params.list_walk)
      return with_math_mode(params.math, [&](auto mode) {
        detail::list_walk_gpu_mode<decltype(mode)::value>(tree, targets, params, out, stream);
      });
  with_math_mode(params.math, [&](auto mode) {
    constexpr MathMode kMode = decltype(mode)::value;
    if (tree.multipole == Multipole::octupole)
      detail::walk_tree_gpu_order<kMode, Multipole::octupole>(tree, targets, params, out, stream);
    else if (tree.multipole == Multipole::hexadecapole)
      detail::walk_tree_gpu_order<kMode, Multipole::hexadecapole>(tree, targets, params, out, stream);
    else
      detail::walk_tree_gpu_mode<kMode>(tree, targets, params, out, stream);
  });
}

template <class Real>
void walk_tree_gpu(const bh::OctreeView<Real>& tree, const GpuWalkParams& params, const DeviceWalkTargets<Real>& out,
                   cuda::StreamHandle stream) {
  walk_tree_gpu(tree, every_source(tree), params, out, stream);
}

template void walk_tree_gpu(const bh::OctreeView<float>&, const WalkTargets<float>&, const GpuWalkParams&,
                            const DeviceWalkTargets<float>&, cuda::StreamHandle);
template void walk_tree_gpu(const bh::OctreeView<double>&, const WalkTargets<double>&, const GpuWalkParams&,
                            const DeviceWalkTargets<double>&, cuda::StreamHandle);
template void walk_tree_gpu(const bh::OctreeView<float>&, const GpuWalkParams&, const DeviceWalkTargets<float>&,
                            cuda::StreamHandle);
template void walk_tree_gpu(const bh::OctreeView<double>&, const GpuWalkParams&, const DeviceWalkTargets<double>&,
                            cuda::StreamHandle);

}  // namespace orrery::bh
