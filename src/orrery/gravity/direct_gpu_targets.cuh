#pragma once
// What the direct kernels (both math modes) ask of their targets, on the
// device: a target's position is targets.x/y/z[i] for every source (a
// SourcesView, target i being source i) and for a gathered set
// (GatheredTargets, direct_gpu_launch.hpp) alike; which source a target is,
// so that its self-interaction is left out, differs. CUDA only.
#include "orrery/core/particles.hpp"
#include "orrery/gravity/direct_gpu_launch.hpp"

namespace orrery::gravity::gpu {

/// The source target i is: itself when every source is a target.
template <class Real>
__device__ __forceinline__ int source_of_target(const SourcesView<Real>&, int i) {
  return i;
}

/// The source a gathered target is, or -1 for a point (it excludes none).
template <class Real>
__device__ __forceinline__ int source_of_target(const GatheredTargets<Real>& t, int i) {
  return t.self != nullptr ? t.self[i] : -1;  // the same for the whole launch: points or not
}

}  // namespace orrery::gravity::gpu
