#pragma once
// Direct summation on a CUDA GPU (no CUDA header: CPU code may include this).
//
// Real = float or double; Softening = PlummerSoftening<Real> or
// SplineSoftening<Real>, chosen at compile time; MathMode chosen at run time:
//   fast  (default) rsqrtf, -ftz, contraction; each target sums the sources in
//         index order, in slices added in slice order (docs/adr/0003):
//         deterministic, equal to the reference to rounding (float RMS < 1e-6).
//   exact the CPU DirectSolver's arithmetic and summation order: bit-identical
//         to DirectSolver<Real, Softening> on the same input.
// Self-interaction is excluded; potentials only when asked for.
//
// Two ways in:
//  - solve(): host arrays in and out (ForceSolver). Uploads, computes,
//    downloads; the report's phases are "upload", "direct", "download".
//  - solve_device(): device arrays in and out, enqueued on a stream, for
//    simulations whose particles stay on the GPU.
#include <memory>
#include <string>

#include "orrery/core/math_mode.hpp"
#include "orrery/core/softening.hpp"
#include "orrery/cuda/memory.hpp"
#include "orrery/cuda/stream.hpp"
#include "orrery/gravity/device_force_solver.hpp"
#include "orrery/gravity/direct_gpu_launch.hpp"
#include "orrery/gravity/force_solver.hpp"
#include "orrery/gravity/gravity_config.hpp"

namespace orrery::gravity {

template <class Real, class Softening>
class DirectGpuSolver final : public ForceSolver<Real>, public DeviceForceSolver<Real> {
 public:
  /// eps >= 0 is the Plummer-equivalent softening length; `device` the CUDA
  /// device index (made current on every call). Throws InputError for eps < 0,
  /// RuntimeFailure for a device that does not exist.
  explicit DirectGpuSolver(Real eps, MathMode mode = MathMode::fast, int device = 0);

  std::string name() const override;  // e.g. "direct/cuda/single/plummer/fast"
  SolverReport solve(const SourcesView<Real>& sources, const AccelerationsView<Real>& out,
                     const SolveOptions& options = {}) override;
  /// Every source only (ForceSolver's refusal of the rest).
  using ForceSolver<Real>::solve;

  /// sources and out hold device pointers (out must not alias sources, and
  /// out.potential must be non-null when options.potential). Enqueued on
  /// `stream`, not synchronised. Throws InputError when the counts differ or
  /// exceed 2^31 - 1.
  void solve_device(const SourcesView<Real>& sources, const AccelerationsView<Real>& out,
                    const SolveOptions& options, cuda::StreamHandle stream = nullptr) override;

  MathMode mode() const { return mode_; }
  int device() const override { return device_; }

 private:
  Softening softening_;
  MathMode mode_;
  int device_;
  cuda::DeviceBuffer<Real> x_, y_, z_, m_, ax_, ay_, az_, pot_;  // staging for solve()
  gpu::DirectScratch<Real> scratch_;                             // fast mode's working memory
};

extern template class DirectGpuSolver<float, PlummerSoftening<float>>;
extern template class DirectGpuSolver<float, SplineSoftening<float>>;
extern template class DirectGpuSolver<double, PlummerSoftening<double>>;
extern template class DirectGpuSolver<double, SplineSoftening<double>>;

/// The factory's maker for solver = "direct", backend = "cuda" (device 0,
/// config.math, config.softening_kernel).
template <class Real>
std::unique_ptr<ForceSolver<Real>> make_direct_cuda(const GravityConfig& config);

extern template std::unique_ptr<ForceSolver<float>> make_direct_cuda<float>(const GravityConfig&);
extern template std::unique_ptr<ForceSolver<double>> make_direct_cuda<double>(const GravityConfig&);

/// The same solver for a device-resident simulation (integrate/device_stepper.hpp).
template <class Real>
std::unique_ptr<DeviceForceSolver<Real>> make_direct_cuda_device(const GravityConfig& config);

extern template std::unique_ptr<DeviceForceSolver<float>> make_direct_cuda_device<float>(const GravityConfig&);
extern template std::unique_ptr<DeviceForceSolver<double>> make_direct_cuda_device<double>(const GravityConfig&);

}  // namespace orrery::gravity
