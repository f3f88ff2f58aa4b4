#include "orrery/gravity/direct_gpu.hpp"

#include <chrono>
#include <cstdint>
#include <limits>
#include <span>

#include "orrery/core/error.hpp"
#include "orrery/cuda/device.hpp"
#include "orrery/cuda/event_timer.hpp"
#include "orrery/gravity/all_pairs_report.hpp"
#include "orrery/gravity/dispatch.hpp"
#include "orrery/gravity/per_type_softening.hpp"
#include "orrery/gravity/solve_arguments.hpp"

namespace orrery::gravity {

namespace {
double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

template <class Real>
std::span<const Real> host_span(const Real* p, std::int64_t n) {
  return {p, static_cast<std::size_t>(n)};
}
}  // namespace

template <class Real, class Softening>
DirectGpuSolver<Real, Softening>::DirectGpuSolver(Real eps, MathMode mode, int device)
    : softening_(validated_softening(eps)), mode_(mode), device_(device) {
  cuda::select_device(device_);
}

template <class Real, class Softening>
std::string DirectGpuSolver<Real, Softening>::name() const {
  return std::string("direct/cuda/") + (sizeof(Real) == 4 ? "single/" : "double/") +
         std::string(to_string(Softening::kind)) + "/" + std::string(to_string(mode_));
}

template <class Real, class Softening>
void DirectGpuSolver<Real, Softening>::solve_device(const SourcesView<Real>& sources,
                                                    const AccelerationsView<Real>& out,
                                                    const SolveOptions& options, cuda::StreamHandle stream) {
  const bool potential = options.potential;
  if (out.count != sources.count || sources.count > std::numeric_limits<std::int32_t>::max()) {
    throw InputError(name() + ": " + std::to_string(sources.count) + " sources and " + std::to_string(out.count) +
                     " outputs; accepted: equal counts below 2^31");
  }
  cuda::select_device(device_);
  with_math_mode(mode_, [&](auto mode) { gpu::direct_field(mode, sources, out, softening_, potential, scratch_, stream); });
}

template <class Real, class Softening>
SolverReport DirectGpuSolver<Real, Softening>::solve(const SourcesView<Real>& sources,
                                                     const AccelerationsView<Real>& out, const SolveOptions& options) {
  check_solve_arguments(name(), sources, out);
  cuda::select_device(device_);
  const std::int64_t n = sources.count;
  const bool potential = options.potential && out.potential != nullptr;
  const auto upload_start = std::chrono::steady_clock::now();
  for (auto* b : {&x_, &y_, &z_, &m_, &ax_, &ay_, &az_}) b->resize(static_cast<std::size_t>(n));
  pot_.resize(potential ? static_cast<std::size_t>(n) : 0);
  x_.upload(host_span(sources.x, n));
  y_.upload(host_span(sources.y, n));
  z_.upload(host_span(sources.z, n));
  m_.upload(host_span(sources.mass, n));
  const double upload_s = seconds_since(upload_start);

  cuda::EventTimer timer;
  timer.start();
  solve_device({n, x_.data(), y_.data(), z_.data(), m_.data()},
               {n, ax_.data(), ay_.data(), az_.data(), potential ? pot_.data() : nullptr},
               SolveOptions{.potential = potential});
  timer.stop();
  const double kernel_s = timer.seconds();

  const auto download_start = std::chrono::steady_clock::now();
  const auto size = static_cast<std::size_t>(n);
  ax_.download({out.ax, size});
  ay_.download({out.ay, size});
  az_.download({out.az, size});
  if (potential) pot_.download({out.potential, size});
  const double download_s = seconds_since(download_start);

  SolverReport report = all_pairs_report(n, options.per_target_counts, "upload", upload_s);
  report.add_phase("direct", kernel_s);
  report.add_phase("download", download_s);
  return report;
}

template class DirectGpuSolver<float, PlummerSoftening<float>>;
template class DirectGpuSolver<float, SplineSoftening<float>>;
template class DirectGpuSolver<double, PlummerSoftening<double>>;
template class DirectGpuSolver<double, SplineSoftening<double>>;

namespace {
/// The solver `c` asks for, as either of its interfaces (Base).
template <class Real, class Base>
std::unique_ptr<Base> make_direct_gpu(const GravityConfig& c) {
  if (c.per_type_softening()) refuse_per_type_softening("direct/cuda");
  return make_softened<DirectGpuSolver, Base>(c.softening_kernel, static_cast<Real>(c.softening), c.math);
}
}  // namespace

template <class Real>
std::unique_ptr<ForceSolver<Real>> make_direct_cuda(const GravityConfig& c) {
  return make_direct_gpu<Real, ForceSolver<Real>>(c);
}

template <class Real>
std::unique_ptr<DeviceForceSolver<Real>> make_direct_cuda_device(const GravityConfig& c) {
  return make_direct_gpu<Real, DeviceForceSolver<Real>>(c);
}

template std::unique_ptr<ForceSolver<float>> make_direct_cuda<float>(const GravityConfig&);
template std::unique_ptr<ForceSolver<double>> make_direct_cuda<double>(const GravityConfig&);
template std::unique_ptr<DeviceForceSolver<float>> make_direct_cuda_device<float>(const GravityConfig&);
template std::unique_ptr<DeviceForceSolver<double>> make_direct_cuda_device<double>(const GravityConfig&);

}  // namespace orrery::gravity
