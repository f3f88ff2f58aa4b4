#include "orrery/integrate/device_simulation.hpp"

#include <chrono>
#include <span>
#include <vector>
#include <cmath>
#include <string>

#include "orrery/core/error.hpp"
#include "orrery/core/exact_math.hpp"
#include "orrery/cuda/check_cuda.cuh"
#include "orrery/cuda/device.hpp"

namespace orrery::integrate {
namespace {

constexpr int kThreads = 256;

/// y = fma(a, h, y) element-wise on three arrays: both halves of the
/// leapfrog (leapfrog.hpp), the kick (v, a, dt/2) and the drift (x, v, dt),
/// with the same xm::fma and so the same bits as the CPU.
template <class Real>
__global__ void axpy3_kernel(std::int64_t n, Real* y0, Real* y1, Real* y2, const Real* a0, const Real* a1,
                             const Real* a2, Real h) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;  // the last block's tail
  y0[i] = xm::fma(a0[i], h, y0[i]);
  y1[i] = xm::fma(a1[i], h, y1[i]);
  y2[i] = xm::fma(a2[i], h, y2[i]);
}

template <class Real>
void enqueue_axpy3(std::int64_t n, Real* y0, Real* y1, Real* y2, const Real* a0, const Real* a1, const Real* a2,
                   Real h, cuda::StreamHandle stream) {
  const auto blocks = static_cast<unsigned>((n + kThreads - 1) / kThreads);
  if (blocks == 0) return;
  axpy3_kernel<Real><<<blocks, kThreads, 0, stream>>>(n, y0, y1, y2, a0, a1, a2, h);
  ORRERY_CUDA_CHECK_LAUNCH("axpy3_kernel");
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

template <class Real>
std::span<const Real> whole(const std::vector<Real>& v) {
  return {v.data(), v.size()};
}

}  // namespace

template <class Real>
DeviceSimulation<Real>::DeviceSimulation(const Particles<Real>& p,
                                         std::unique_ptr<gravity::DeviceForceSolver<Real>> solver,
                                         SimulationState state)
    : n_(p.size()), solver_(std::move(solver)), state_(state) {
  if (!(state_.dt > 0) || !std::isfinite(state_.dt)) {
    throw InputError("integration.dt = " + std::to_string(state_.dt) + "; accepted: a finite number > 0");
  }
  if (!solver_) throw InputError("device simulation: no force solver given");
  cuda::select_device(solver_->device());
  stream_ = cuda::Stream();
  upload(p);
}

template <class Real>
void DeviceSimulation<Real>::upload(const Particles<Real>& p) {
  cuda::select_device(solver_->device());
  if (block_ && p.size() != n_)
    throw InputError("device block steps: " + std::to_string(p.size()) + " particles uploaded to a run of " +
                     std::to_string(n_) + "; accepted: the same count (the time bins are per particle)");
  n_ = p.size();
  ids_ = p.id;
  have_forces_ = false;
  have_potential_ = false;
  const auto size = static_cast<std::size_t>(n_);
  for (auto* b : {&x_, &y_, &z_, &vx_, &vy_, &vz_, &m_, &ax_, &ay_, &az_, &pot_}) b->resize(size);
  const auto s = stream_.get();
  x_.upload(whole(p.x), s);
  y_.upload(whole(p.y), s);
  z_.upload(whole(p.z), s);
  vx_.upload(whole(p.vx), s);
  vy_.upload(whole(p.vy), s);
  vz_.upload(whole(p.vz), s);
  m_.upload(whole(p.mass), s);  // each upload returns when its copy is done
}

template <class Real>
SourcesView<Real> DeviceSimulation<Real>::sources() const {
  return {n_, x_.data(), y_.data(), z_.data(), m_.data()};
}

/// One solve into (ax, ay, az), potentials into pot_ when asked; the arrays
/// hold the previous evaluation's accelerations when have_forces_.
template <class Real>
void DeviceSimulation<Real>::solve_into(Real* ax, Real* ay, Real* az, bool with_potential) {
  solver_->solve_device(sources(), {n_, ax, ay, az, with_potential ? pot_.data() : nullptr},
                        gravity::SolveOptions{.potential = with_potential, .previous_accelerations = have_forces_},
                        stream_.get());
  interactions_ += static_cast<std::uint64_t>(n_) * static_cast<std::uint64_t>(n_ > 0 ? n_ - 1 : 0);
}

template <class Real>
void DeviceSimulation<Real>::compute_forces(bool with_potential) {
  solve_into(ax_.data(), ay_.data(), az_.data(), with_potential);
  have_forces_ = true;
  have_potential_ = with_potential;
}

/// Only the potentials are missing: the solve writes its accelerations to
/// copies of the current ones (read as their previous evaluation, as
/// Simulation::compute_forces does on the host), so that with the relative
/// opening asking for potentials never changes the run's accelerations.
template <class Real>
void DeviceSimulation<Real>::compute_potentials_only() {
  const cuda::DeviceBuffer<Real>* current[3] = {&ax_, &ay_, &az_};
  for (int k = 0; k < 3; ++k) {
    extra_[k].resize(static_cast<std::size_t>(n_));
    cuda::copy_device_to_device(extra_[k].data(), current[k]->data(), current[k]->bytes(), stream_.get());
  }
  solve_into(extra_[0].data(), extra_[1].data(), extra_[2].data(), true);
  have_potential_ = true;
}

template <class Real>
void DeviceSimulation<Real>::use_block_steps(const BlockStepConfig& config) {
  tree_ = dynamic_cast<gravity::GpuTreeSolver<Real>*>(solver_.get());
  if (!tree_)
    throw InputError("integration.kind = \"block\" with the device-resident solver " + solver_->name() +
                     ": block steps solve a subset of the particles, which on the device only the tree solver does; "
                     "accepted: gravity.solver = \"tree\" with gravity.backend = \"cuda\"");
  cuda::select_device(solver_->device());
  block_ = std::make_unique<DeviceBlockLeapfrog<Real>>(config, state_.dt, n_);
}

/// One block step, as Simulation::advance_block on the host: the first one
/// assigns the bins from the evaluation at the start (with the potentials
/// the dynamical criterion needs), obtained as the host obtains it.
template <class Real>
void DeviceSimulation<Real>::block_step(bool potential) {
  const bool assign_with_potential = block_->needs_potential() && !block_->has_bins();
  if (!have_forces_)
    compute_forces(assign_with_potential);
  else if (assign_with_potential && !have_potential_)
    compute_potentials_only();
  have_forces_ = false;  // while the substeps run, the accelerations belong to no single time
  const DeviceParticleArrays<Real> arrays{n_,          x_.data(),  y_.data(),  z_.data(),  vx_.data(), vy_.data(),
                                          vz_.data(),  m_.data(),  ax_.data(), ay_.data(), az_.data(), pot_.data()};
  interactions_ += block_->step(arrays, ids_, *tree_, potential, time(), state_.step, stream_.get());
  // The last substep solved every particle: the accelerations are at the new positions.
  have_forces_ = true;
  have_potential_ = potential || block_->needs_potential();
}

template <class Real>
void DeviceSimulation<Real>::enqueue_step(bool potential) {
  const auto s = stream_.get();
  if (block_) {
    block_step(potential);
    ++state_.step;
    return;
  }
  if (!have_forces_) compute_forces(false);
  const Real half = static_cast<Real>(0.5 * state_.dt);
  enqueue_axpy3<Real>(n_, vx_.data(), vy_.data(), vz_.data(), ax_.data(), ay_.data(), az_.data(), half, s);
  enqueue_axpy3<Real>(n_, x_.data(), y_.data(), z_.data(), vx_.data(), vy_.data(), vz_.data(),
                     static_cast<Real>(state_.dt), s);
  compute_forces(potential);
  enqueue_axpy3<Real>(n_, vx_.data(), vy_.data(), vz_.data(), ax_.data(), ay_.data(), az_.data(), half, s);
  ++state_.step;
}

template <class Real>
void DeviceSimulation<Real>::step() {
  run_steps(1);
}

template <class Real>
void DeviceSimulation<Real>::run_steps(std::int64_t count, bool potential_at_end) {
  cuda::select_device(solver_->device());
  const auto start = std::chrono::steady_clock::now();
  for (std::int64_t k = 0; k < count; ++k) enqueue_step(potential_at_end && k + 1 == count);
  stream_.synchronize();  // device work is asynchronous: time it to completion
  timers_.add("steps", seconds_since(start));
}

namespace {
/// Sizes `v` to n without reallocating when it already holds n elements.
template <class T>
std::span<T> sized(std::vector<T>& v, std::int64_t n) {
  if (v.size() != static_cast<std::size_t>(n)) v.resize(static_cast<std::size_t>(n));
  return std::span<T>(v);
}
}  // namespace

template <class Real>
void DeviceSimulation<Real>::download(Particles<Real>& p) const {
  const auto s = stream_.get();
  x_.download(sized(p.x, n_), s);
  y_.download(sized(p.y, n_), s);
  z_.download(sized(p.z, n_), s);
  vx_.download(sized(p.vx, n_), s);
  vy_.download(sized(p.vy, n_), s);
  vz_.download(sized(p.vz, n_), s);
  m_.download(sized(p.mass, n_), s);
  if (p.id != ids_) p.id = ids_;  // equal after the first download: no write, the buffer stays
}

template <class Real>
Particles<Real> DeviceSimulation<Real>::particles() const {
  Particles<Real> p(static_cast<std::size_t>(n_));
  download(p);
  return p;
}

template <class Real>
void DeviceSimulation<Real>::download_accelerations(Accelerations<Real>& a, bool with_potential) {
  cuda::select_device(solver_->device());
  if (!have_forces_ || (with_potential && !have_potential_)) {
    const auto start = std::chrono::steady_clock::now();
    if (have_forces_)
      compute_potentials_only();
    else
      compute_forces(with_potential);
    stream_.synchronize();
    timers_.add("force", seconds_since(start));
  }
  const auto s = stream_.get();
  ax_.download(sized(a.ax, n_), s);
  ay_.download(sized(a.ay, n_), s);
  az_.download(sized(a.az, n_), s);
  if (with_potential) pot_.download(sized(a.potential, n_), s);
}

template <class Real>
Accelerations<Real> DeviceSimulation<Real>::accelerations(bool with_potential) {
  Accelerations<Real> a(static_cast<std::size_t>(n_));
  download_accelerations(a, with_potential);
  return a;
}

template class DeviceSimulation<float>;
template class DeviceSimulation<double>;

}  // namespace orrery::integrate
