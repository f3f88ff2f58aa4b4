#pragma once
// A force solver whose inputs and outputs live in GPU memory, for simulations
// whose particles stay on the device (integrate/device_simulation.hpp). No
// CUDA header: device arrays travel as plain views, streams as opaque handles.
#include <string>

#include "orrery/core/particles.hpp"
#include "orrery/cuda/stream.hpp"
#include "orrery/gravity/force_solver.hpp"

namespace orrery::gravity {

template <class Real>
class DeviceForceSolver {
 public:
  virtual ~DeviceForceSolver() = default;
  virtual std::string name() const = 0;
  /// The CUDA device the solver's memory and kernels are on.
  virtual int device() const = 0;
  /// sources and out hold device pointers of the solver's device; out is
  /// overwritten (out.potential only when options.potential, and then
  /// non-null) and must not alias the sources; with
  /// options.previous_accelerations out.ax/ay/az hold the previous
  /// evaluation's (read by the relative opening criterion). Enqueued on
  /// `stream`, not synchronised.
  virtual void solve_device(const SourcesView<Real>& sources, const AccelerationsView<Real>& out,
                            const SolveOptions& options, cuda::StreamHandle stream) = 0;
};

}  // namespace orrery::gravity
