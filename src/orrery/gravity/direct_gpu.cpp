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

namespace {
/// The counts a device solve takes: the kernels index with 32-bit integers.
void check_device_counts(const std::string& solver, std::int64_t sources, std::int64_t targets, std::int64_t outputs) {
  constexpr std::int64_t most = std::numeric_limits<std::int32_t>::max();
  if (outputs != targets || sources > most || targets > most) {
    throw InputError(solver + ": " + std::to_string(sources) + " sources, " + std::to_string(targets) +
                     " targets and " + std::to_string(outputs) +
                     " outputs; accepted: as many outputs as targets, each count below 2^31");
  }
}
}  // namespace

template <class Real, class Softening>
void DirectGpuSolver<Real, Softening>::solve_device(const SourcesView<Real>& sources,
                                                    const AccelerationsView<Real>& out,
                                                    const SolveOptions& options, cuda::StreamHandle stream) {
  check_device_counts(name(), sources.count, sources.count, out.count);
  cuda::select_device(device_);
  with_math_mode(mode_, [&](auto mode) {
    gpu::direct_field(mode, sources, out, softening_, options.potential, scratch_, stream);
  });
}

template <class Real, class Softening>
void DirectGpuSolver<Real, Softening>::solve_device(const SourcesView<Real>& sources, const TargetSet<Real>& targets,
                                                    const AccelerationsView<Real>& out, const SolveOptions& options,
                                                    cuda::StreamHandle stream) {
  if (targets.all()) return solve_device(sources, out, options, stream);
  check_device_counts(name(), sources.count, targets.count, out.count);
  cuda::select_device(device_);
  if (sources.count == 0) {  // no source: a field of zero at every point, which no kernel writes
    const auto bytes = static_cast<std::size_t>(out.count) * sizeof(Real);
    for (Real* p : {out.ax, out.ay, out.az, options.potential ? out.potential : nullptr})
      if (p != nullptr) cuda::zero_device_bytes(p, bytes, stream);
    return;
  }
  const gpu::GatheredTargets<Real> gathered = gpu::gather_targets(sources, targets, scratch_, stream);
  with_math_mode(mode_, [&](auto mode) {
    gpu::direct_field(mode, sources, gathered, out, softening_, options.potential, scratch_, stream);
  });
}

template <class Real, class Softening>
SourcesView<Real> DirectGpuSolver<Real, Softening>::upload_sources(const SourcesView<Real>& host) {
  const std::int64_t n = host.count;
  for (auto* b : {&x_, &y_, &z_, &m_}) b->resize(static_cast<std::size_t>(n));
  x_.upload(host_span(host.x, n));
  y_.upload(host_span(host.y, n));
  z_.upload(host_span(host.z, n));
  m_.upload(host_span(host.mass, n));
  return {n, x_.data(), y_.data(), z_.data(), m_.data()};
}

template <class Real, class Softening>
AccelerationsView<Real> DirectGpuSolver<Real, Softening>::result_buffers(std::int64_t count, bool potential) {
  for (auto* b : {&ax_, &ay_, &az_}) b->resize(static_cast<std::size_t>(count));
  pot_.resize(potential ? static_cast<std::size_t>(count) : 0);
  return {count, ax_.data(), ay_.data(), az_.data(), potential ? pot_.data() : nullptr};
}

template <class Real, class Softening>
void DirectGpuSolver<Real, Softening>::download_results(const AccelerationsView<Real>& out, bool potential) {
  const auto size = static_cast<std::size_t>(out.count);
  ax_.download({out.ax, size});
  ay_.download({out.ay, size});
  az_.download({out.az, size});
  if (potential) pot_.download({out.potential, size});
}

template <class Real, class Softening>
SolverReport DirectGpuSolver<Real, Softening>::solve(const SourcesView<Real>& sources,
                                                     const AccelerationsView<Real>& out, const SolveOptions& options) {
  return solve(sources, TargetSet<Real>{}, out, options);
}

template <class Real, class Softening>
SolverReport DirectGpuSolver<Real, Softening>::solve(const SourcesView<Real>& sources, const TargetSet<Real>& targets,
                                                     const AccelerationsView<Real>& out, const SolveOptions& options) {
  const bool every = targets.all();
  if (every) {
    check_solve_arguments(name(), sources, out);
  } else {
    check_target_set(name(), sources, targets, out);
  }
  cuda::select_device(device_);
  const bool potential = options.potential && out.potential != nullptr;
  const auto upload_start = std::chrono::steady_clock::now();
  const SourcesView<Real> on_device = upload_sources(sources);
  TargetSet<Real> device_targets;  // every source, or the targets uploaded
  if (targets.index != nullptr) {
    index_.resize(static_cast<std::size_t>(targets.count));
    index_.upload(host_span(targets.index, targets.count));
    device_targets = TargetSet<Real>::of_sources(targets.count, index_.data());
  } else if (!every) {
    for (auto* b : {&px_, &py_, &pz_}) b->resize(static_cast<std::size_t>(targets.count));
    px_.upload(host_span(targets.x, targets.count));
    py_.upload(host_span(targets.y, targets.count));
    pz_.upload(host_span(targets.z, targets.count));
    device_targets = TargetSet<Real>::of_points(targets.count, px_.data(), py_.data(), pz_.data());
  }
  const AccelerationsView<Real> results = result_buffers(out.count, potential);
  const double upload_s = seconds_since(upload_start);

  cuda::EventTimer timer;
  timer.start();
  solve_device(on_device, device_targets, results, SolveOptions{.potential = potential});
  timer.stop();
  const double kernel_s = timer.seconds();

  const auto download_start = std::chrono::steady_clock::now();
  download_results(out, potential);
  const double download_s = seconds_since(download_start);

  SolverReport report = every ? all_pairs_report(sources.count, options.per_target_counts, "upload", upload_s)
                              : all_pairs_report(sources.count, targets, options.per_target_counts, "upload", upload_s);
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
