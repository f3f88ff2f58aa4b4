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

namespace orrery::gravity::gpu {

/// Device memory the fast mode reuses between calls (grown as needed).
template <class Real>
struct DirectScratch {
  cuda::DeviceBuffer<std::byte> packed;  // the sources, packed for the kernel
  cuda::DeviceBuffer<Real> partials;     // partial fields of the source slices
};

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

}  // namespace orrery::gravity::gpu
