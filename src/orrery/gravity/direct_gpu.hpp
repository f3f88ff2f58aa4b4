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
// Two ways in, each for every source or a TargetSet (targets.hpp: a subset
// of the sources by index, or points), whose target positions are gathered
// on the device before the same kernels run (direct_gpu_launch.hpp): each
// target's result is bit-identical to the one it gets when every source is
// a target, in both modes (the fast kernel keeps the plan of the source
// count: a target's slices and order do not depend on how many targets
// there are). Cost: k N interactions for k targets at the all-targets rate
// once k fills the device; a smaller subset pays one thread's pass over the
// N sources per target (docs/performance/gpu_direct.md).
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
  /// The field at `targets` (host arrays; each index excluding itself, points
  /// excluding none); `out` holds targets.count entries in the targets'
  /// order. InputError for an index out of range or listed twice, or a
  /// point not finite (checked on the host before anything is uploaded).
  SolverReport solve(const SourcesView<Real>& sources, const TargetSet<Real>& targets,
                     const AccelerationsView<Real>& out, const SolveOptions& options = {}) override;

  /// sources and out hold device pointers (out must not alias sources, and
  /// out.potential must be non-null when options.potential). Enqueued on
  /// `stream`, not synchronised. Throws InputError when the counts differ or
  /// exceed 2^31 - 1.
  void solve_device(const SourcesView<Real>& sources, const AccelerationsView<Real>& out,
                    const SolveOptions& options, cuda::StreamHandle stream = nullptr) override;
  /// As above at `targets` (device arrays; out holds targets.count entries in
  /// their order). The indices are not checked on the device (the data stay
  /// there): they must be in range and distinct, as targets.hpp says; one
  /// out of range is clamped, never read past the sources. InputError when a
  /// count exceeds 2^31 - 1 or out.count differs from targets.count.
  void solve_device(const SourcesView<Real>& sources, const TargetSet<Real>& targets,
                    const AccelerationsView<Real>& out, const SolveOptions& options,
                    cuda::StreamHandle stream = nullptr);

  MathMode mode() const { return mode_; }
  int device() const override { return device_; }

 private:
  Softening softening_;
  MathMode mode_;
  int device_;
  // solve()'s sources in device buffers (phase "upload").
  SourcesView<Real> upload_sources(const SourcesView<Real>& host);
  // solve()'s device results for `count` targets, and their download into `out`.
  AccelerationsView<Real> result_buffers(std::int64_t count, bool potential);
  void download_results(const AccelerationsView<Real>& out, bool potential);

  cuda::DeviceBuffer<Real> x_, y_, z_, m_, ax_, ay_, az_, pot_;  // staging for solve()
  cuda::DeviceBuffer<std::int64_t> index_;                      // solve()'s target indices
  cuda::DeviceBuffer<Real> px_, py_, pz_;                        // solve()'s target points
  gpu::DirectScratch<Real> scratch_;                             // the kernels' working memory
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
