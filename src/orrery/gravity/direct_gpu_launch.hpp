#pragma once
// The device-pointer entry points of the CUDA direct summation (no CUDA
// header: device arrays travel as plain views, streams as opaque handles).
//
// In:  sources, device arrays of count particles (count < 2^31, masses > 0).
// Out: out.ax/ay/az and, when `potential`, out.potential: device arrays of
//      count entries, overwritten; they must not alias the sources.
// Self-interaction is excluded. Work is enqueued on `stream`; nothing is
// synchronised, nothing is checked on the host (the data stay on the device).
#include <cstddef>

#include "orrery/core/math_mode.hpp"
#include "orrery/core/particles.hpp"
#include "orrery/core/softening.hpp"
#include "orrery/cuda/memory.hpp"
#include "orrery/cuda/stream.hpp"
#include "orrery/gravity/targets.hpp"

namespace orrery::gravity::gpu {

/// Device memory the solver reuses between calls (grown as needed).
template <class Real>
struct DirectScratch {
  cuda::DeviceBuffer<std::byte> packed;  // fast mode: the sources, packed for the kernel
  cuda::DeviceBuffer<Real> partials;     // fast mode: partial fields of the source slices
  cuda::DeviceBuffer<Real> target_x, target_y, target_z;  // a subset's positions, gathered
  cuda::DeviceBuffer<std::int32_t> target_self;          // and the source each one is
};

/// Targets that are not every source, on the device: count positions in the
/// order of the results and, for each, the source it is (its
/// self-interaction is left out), or `self` null for points that are no
/// source (they exclude none).
template <class Real>
struct GatheredTargets {
  std::int64_t count = 0;
  const Real* x = nullptr;
  const Real* y = nullptr;
  const Real* z = nullptr;
  const std::int32_t* self = nullptr;
};

/// The GatheredTargets of `targets` (device arrays, targets.hpp): points as
/// they are; a subset of the sources by index gathered into the scratch's
/// target arrays (each index clamped into [0, sources.count) for memory
/// safety: the caller checks them). Enqueued on `stream`.
template <class Real>
GatheredTargets<Real> gather_targets(const SourcesView<Real>& sources, const TargetSet<Real>& targets,
                                     DirectScratch<Real>& scratch, cuda::StreamHandle stream);

// One entry point per math mode, each in its own translation unit, chosen by
// the tag (with_math_mode, core/math_mode.hpp).

/// fast mode (direct_gpu_fast.cu): rsqrtf, contraction, -ftz; each target sums
/// the sources in index order, in slices whose partial sums are added in slice
/// order (deterministic).
template <class Real, class Softening>
void direct_field(MathModeTag<MathMode::fast>, const SourcesView<Real>& sources, const AccelerationsView<Real>& out,
                  const Softening& soft, bool potential, DirectScratch<Real>& scratch, cuda::StreamHandle stream);

/// exact mode (direct_gpu_exact.cu): the arithmetic and summation order of the
/// CPU DirectSolver (direct_kernel.hpp: LaneSums), so the results are
/// bit-identical to it. Uses no scratch.
template <class Real, class Softening>
void direct_field(MathModeTag<MathMode::exact>, const SourcesView<Real>& sources, const AccelerationsView<Real>& out,
                  const Softening& soft, bool potential, DirectScratch<Real>& scratch, cuda::StreamHandle stream);

/// The same two at gathered targets: out holds targets.count entries, in
/// their order, each bit-identical to the one its source gets from the
/// call above (the same sources, summed in the same order and slices, which
/// depend on the number of sources only).
template <class Real, class Softening>
void direct_field(MathModeTag<MathMode::fast>, const SourcesView<Real>& sources, const GatheredTargets<Real>& targets,
                  const AccelerationsView<Real>& out, const Softening& soft, bool potential,
                  DirectScratch<Real>& scratch, cuda::StreamHandle stream);
template <class Real, class Softening>
void direct_field(MathModeTag<MathMode::exact>, const SourcesView<Real>& sources, const GatheredTargets<Real>& targets,
                  const AccelerationsView<Real>& out, const Softening& soft, bool potential,
                  DirectScratch<Real>& scratch, cuda::StreamHandle stream);

}  // namespace orrery::gravity::gpu
