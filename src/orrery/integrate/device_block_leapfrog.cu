#include "orrery/integrate/device_block_leapfrog.hpp"

#include <cub/device/device_scan.cuh>

#include <chrono>
#include <climits>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>

#include "orrery/bh/opening_relative.hpp"
#include "orrery/core/error.hpp"
#include "orrery/cuda/check_cuda.cuh"
#include "orrery/cuda/event_timer.hpp"
#include "orrery/cuda/memory.hpp"
#include "orrery/integrate/leapfrog.hpp"
#include "orrery/integrate/step_criterion.hpp"
#include "orrery/integrate/time_bins.hpp"

namespace orrery::integrate {
namespace {

constexpr int kThreads = 256;
constexpr unsigned long long kNoFailure = ULLONG_MAX;

/// What the host reads back per substep (see the header).
struct Scalars {
  std::int64_t active;              // the compacted active count
  unsigned long long largest_bits;  // the relative floor's max |a_old|, as the bits of a double >= 0
  unsigned long long failed;        // the lowest particle asking for a step outside the bins; kNoFailure if none
  int deepest_occupied;             // the deepest bin any particle is in
};

unsigned blocks_for(std::int64_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

__device__ std::int64_t thread_index() { return std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; }

/// The warp's largest `v`, on every lane (0 for a lane that has none). A
/// maximum is exact in any order: reducing in the warp first changes no
/// result, and turns one atomic per particle on one address (serialised in
/// L2: ~0.4 ms a substep at 1M on the H200) into one per warp. Every lane of
/// the warp must call it (the kernels' out-of-range lanes pass 0).
__device__ unsigned long long warp_max(unsigned long long v) {
  for (int d = 16; d > 0; d >>= 1) {
    const unsigned long long o = __shfl_xor_sync(0xffffffffu, v, d);
    v = o > v ? o : v;
  }
  return v;
}

/// The host's half kicks (kick_listed): particle list[k] (k when list is
/// null) with its own bin's half step.
template <class Real>
__global__ void kick_kernel(std::int64_t m, const std::int64_t* list, Real* vx, Real* vy, Real* vz, const Real* ax,
                            const Real* ay, const Real* az, const TimeBin* bins, const Real* half) {
  const std::int64_t k = thread_index();
  if (k >= m) return;
  const std::int64_t i = list ? list[k] : k;
  fma3(vx[i], vy[i], vz[i], ax[i], ay[i], az[i], half[bins[i]]);
}

template <class Real>
__global__ void drift_kernel(std::int64_t n, Real* x, Real* y, Real* z, const Real* vx, const Real* vy, const Real* vz,
                             Real dt) {
  const std::int64_t i = thread_index();
  if (i < n) fma3(x[i], y[i], z[i], vx[i], vy[i], vz[i], dt);
}

__global__ void reset_kernel(Scalars* s, bool before_solve) {
  if (before_solve) {
    s->active = 0;
    s->largest_bits = 0;  // 0.0, the host's start
  } else {
    s->failed = kNoFailure;
    s->deepest_occupied = 0;
  }
}

/// Marks the particles whose step ends at `tick`, and the largest |a_old|
/// of every particle: a max is exact in any order, and for doubles >= 0 the
/// order of their bits is theirs. NaN is skipped as the host's
/// `s > largest ? s : largest` skips it.
template <class Real>
__global__ void flag_kernel(std::int64_t n, const TimeBin* bins, std::int64_t tick, int deepest, std::int64_t* flag,
                            const Real* ax, const Real* ay, const Real* az, Scalars* s) {
  const std::int64_t i = thread_index();
  unsigned long long bits = 0;  // 0.0: no contribution
  if (i < n) {
    flag[i] = bin_ends_at(bins[i], tick, deepest) ? 1 : 0;
    const double a = bh::acceleration_magnitude(ax[i], ay[i], az[i]);
    if (a > 0) bits = static_cast<unsigned long long>(__double_as_longlong(a));
  }
  bits = warp_max(bits);
  if ((threadIdx.x & 31) == 0 && bits != 0) atomicMax(&s->largest_bits, bits);
}

/// Compaction after the exclusive scan: ascending index order, the host's.
__global__ void compact_kernel(std::int64_t n, const std::int64_t* flag, const std::int64_t* position,
                               std::int64_t* active, Scalars* s) {
  const std::int64_t i = thread_index();
  if (i >= n) return;
  if (flag[i]) active[position[i]] = i;
  if (i == n - 1) s->active = position[i] + flag[i];
}

/// dst[k] = src[list[k]] (gather) or dst[list[k]] = src[k] (scatter), three or four arrays.
template <class Real>
__global__ void gather_kernel(std::int64_t m, const std::int64_t* list, bool scatter, Real* d0, Real* d1, Real* d2,
                              Real* d3, const Real* s0, const Real* s1, const Real* s2, const Real* s3) {
  const std::int64_t k = thread_index();
  if (k >= m) return;
  const std::int64_t i = list[k];
  const std::int64_t to = scatter ? i : k;
  const std::int64_t from = scatter ? k : i;
  d0[to] = s0[from];
  d1[to] = s1[from];
  d2[to] = s2[from];
  if (d3) d3[to] = s3[from];
}

/// Each listed particle's next bin (all n, unrestricted, when list is null:
/// assign_bins), by the host's functions; a failure leaves the bin and
/// reports the lowest failing particle.
template <class Real>
__global__ void rebin_kernel(std::int64_t m, const std::int64_t* list, TimeBin* bins, const Real* ax, const Real* ay,
                             const Real* az, const Real* pot, StepRule rule, double dt_max, int deepest,
                             std::int64_t tick, Scalars* s) {
  const std::int64_t k = thread_index();
  if (k >= m) return;
  const std::int64_t i = list ? list[k] : k;
  const Real phi = pot ? pot[i] : Real(0);
  const int wanted = wanted_bin_of(rule, ax[i], ay[i], az[i], phi, dt_max, deepest);
  if (wanted < 0 || wanted > deepest) {
    atomicMin(&s->failed, static_cast<unsigned long long>(i));
    return;
  }
  bins[i] = static_cast<TimeBin>(list ? next_bin(bins[i], wanted, tick, deepest) : wanted);
}

__global__ void deepest_kernel(std::int64_t n, const TimeBin* bins, Scalars* s) {
  const std::int64_t i = thread_index();
  const auto bin = static_cast<unsigned long long>(i < n ? bins[i] : 0);
  const unsigned long long deepest = warp_max(bin);
  if ((threadIdx.x & 31) == 0) atomicMax(&s->deepest_occupied, static_cast<int>(deepest));
}

/// The stream work of a substep outside the solve, each part timed by a
/// pair of CUDA events. Recording an event does not wait; the times are read
/// after the substep's closing synchronisation, when every event has passed,
/// so the timing adds no host synchronisation. A part a substep skips (no
/// gather when every particle is active) counts 0.
enum class Part { drift, find_active, gather, scatter, closing_kick, rebin, opening_kick, count };

class PartTimers {
 public:
  void start(Part p, cuda::StreamHandle stream) { timer_[index(p)].start(stream); }
  void stop(Part p, cuda::StreamHandle stream) {
    timer_[index(p)].stop(stream);
    recorded_[index(p)] = true;
  }
  /// The seconds of `p` in this substep (0 if it did not run); call after a
  /// synchronisation that follows every stop().
  double seconds(Part p) const { return recorded_[index(p)] ? timer_[index(p)].seconds() : 0.0; }
  void clear() {
    for (bool& r : recorded_) r = false;
  }

 private:
  static std::size_t index(Part p) { return static_cast<std::size_t>(p); }
  cuda::EventTimer timer_[static_cast<std::size_t>(Part::count)];
  bool recorded_[static_cast<std::size_t>(Part::count)] = {};
};

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

template <class T>
T element(const T* device, std::int64_t i, cuda::StreamHandle stream) {
  T v{};
  cuda::copy_device_to_host(&v, device + i, sizeof(T), stream);
  return v;
}

}  // namespace

template <class Real>
struct DeviceBlockLeapfrog<Real>::Buffers {
  cuda::DeviceBuffer<TimeBin> bins;
  cuda::DeviceBuffer<std::int64_t> flag, position, active;
  cuda::DeviceBuffer<Real> cax, cay, caz, cpot;  // the active particles' accelerations, compacted
  cuda::DeviceBuffer<Real> half;
  cuda::DeviceBuffer<Scalars> scalars{1};
  cuda::DeviceBuffer<unsigned char> scan_temp;
  PartTimers parts;  // created once: an event's creation is not free
};

template <class Real>
DeviceBlockLeapfrog<Real>::DeviceBlockLeapfrog(BlockStepConfig config, double dt_max, std::int64_t n)
    : config_(config), dt_max_(dt_max), deepest_(check_block_steps(config, dt_max)), n_(n),
      buf_(std::make_unique<Buffers>()) {
  const auto size = static_cast<std::size_t>(n);
  buf_->bins.resize(size);
  for (auto* b : {&buf_->flag, &buf_->position, &buf_->active}) b->resize(size);
  for (auto* b : {&buf_->cax, &buf_->cay, &buf_->caz, &buf_->cpot}) b->resize(size);
  const std::vector<Real> half = half_steps<Real>(dt_max_, deepest_);
  buf_->half.resize(half.size());
  buf_->half.upload(std::span<const Real>(half));
}

template <class Real>
DeviceBlockLeapfrog<Real>::~DeviceBlockLeapfrog() = default;

template <class Real>
std::vector<TimeBin> DeviceBlockLeapfrog<Real>::bins() const {
  if (!has_bins_) return {};
  std::vector<TimeBin> out(static_cast<std::size_t>(n_));
  buf_->bins.download(std::span<TimeBin>(out));
  return out;
}

template <class Real>
void DeviceBlockLeapfrog<Real>::restore_bins(std::vector<TimeBin> bins) {
  BlockLeapfrog<Real> check(config_, dt_max_, n_);
  check.restore_bins(bins);  // the host's checks and messages
  buf_->bins.upload(std::span<const TimeBin>(bins));
  const auto h = check.histogram();
  deepest_occupied_ = 0;
  for (int k = 0; k <= deepest_; ++k)
    if (h[k] > 0) deepest_occupied_ = k;
  has_bins_ = true;
}

template <class Real>
std::vector<std::int64_t> DeviceBlockLeapfrog<Real>::histogram() const {
  std::vector<std::int64_t> h(static_cast<std::size_t>(deepest_) + 1, 0);
  for (TimeBin b : bins()) ++h[b];
  return h;
}

template <class Real>
void DeviceBlockLeapfrog<Real>::update_bins(const DeviceParticleArrays<Real>& s, const std::vector<std::uint64_t>& ids,
                                            std::int64_t m, std::int64_t tick, bool assign, double time,
                                            cuda::StreamHandle stream) {
  Scalars* sc = buf_->scalars.data();
  if (!assign) buf_->parts.start(Part::rebin, stream);
  reset_kernel<<<1, 1, 0, stream>>>(sc, false);
  ORRERY_CUDA_CHECK_LAUNCH("reset_kernel");
  const Real* pot = needs_potential() ? s.potential : nullptr;
  if (m > 0) {
    rebin_kernel<Real><<<blocks_for(m), kThreads, 0, stream>>>(m, assign ? nullptr : buf_->active.data(),
                                                                buf_->bins.data(), s.ax, s.ay, s.az, pot,
                                                                config_.rule, dt_max_, deepest_, tick, sc);
    ORRERY_CUDA_CHECK_LAUNCH("rebin_kernel");
  }
  if (n_ > 0) {
    deepest_kernel<<<blocks_for(n_), kThreads, 0, stream>>>(n_, buf_->bins.data(), sc);
    ORRERY_CUDA_CHECK_LAUNCH("deepest_kernel");
  }
  if (!assign) buf_->parts.stop(Part::rebin, stream);
  // Read back: the failure (the error names the particle) and the deepest
  // occupied bin (the next substep's length, decided on the host).
  Scalars back{};
  cuda::copy_device_to_host(&back, sc, sizeof(Scalars), stream);
  deepest_occupied_ = back.deepest_occupied;
  if (back.failed == kNoFailure) return;
  const auto i = static_cast<std::int64_t>(back.failed);
  const Real ax = element(s.ax, i, stream), ay = element(s.ay, i, stream), az = element(s.az, i, stream);
  const Real phi = pot ? element(s.potential, i, stream) : Real(0);
  throw_step_outside_bins(config_, dt_max_, deepest_, i, ids[static_cast<std::size_t>(i)], time,
                          element(s.x, i, stream), element(s.y, i, stream), element(s.z, i, stream), ax, ay, az,
                          criterion_step(config_.rule, ax, ay, az, phi));
}

template <class Real>
void DeviceBlockLeapfrog<Real>::assign_bins(const DeviceParticleArrays<Real>& s, const std::vector<std::uint64_t>& ids,
                                            double time, cuda::StreamHandle stream) {
  update_bins(s, ids, n_, 0, true, time, stream);
  has_bins_ = true;
}

template <class Real>
std::uint64_t DeviceBlockLeapfrog<Real>::step(const DeviceParticleArrays<Real>& s,
                                              const std::vector<std::uint64_t>& ids,
                                              gravity::GpuTreeSolver<Real>& solver, bool potential,
                                              double time_at_start, std::int64_t block_step,
                                              cuda::StreamHandle stream) {
  if (!has_bins_) assign_bins(s, ids, time_at_start, stream);
  const std::int64_t n = n_;
  const std::int64_t end = std::int64_t{1} << deepest_;
  const double tick_dt = std::ldexp(dt_max_, -deepest_);
  Buffers& b = *buf_;
  Scalars* sc = b.scalars.data();
  PartTimers& parts = b.parts;
  const SourcesView<Real> sources{n, s.x, s.y, s.z, s.mass};
  std::uint64_t interactions = 0;
  if (n > 0) {
    kick_kernel<Real><<<blocks_for(n), kThreads, 0, stream>>>(n, nullptr, s.vx, s.vy, s.vz, s.ax, s.ay, s.az,
                                                              b.bins.data(), b.half.data());
    ORRERY_CUDA_CHECK_LAUNCH("kick_kernel");
  }
  std::size_t temp_bytes = 0;
  ORRERY_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, b.flag.data(), b.position.data(), n, stream));
  if (b.scan_temp.size() < temp_bytes) b.scan_temp.resize(temp_bytes);
  std::int64_t tick = 0;
  while (tick < end && n > 0) {
    Substep record;
    const auto t_start = Clock::now();
    record.block_step = block_step + 1;
    record.particles = n;
    // The deepest occupied bin was read back by the last update_bins.
    const std::int64_t next = tick + bin_ticks(deepest_occupied_, deepest_);
    record.dt = tick_dt * static_cast<double>(next - tick);  // exact, as on the host
    parts.clear();
    parts.start(Part::drift, stream);
    drift_kernel<Real><<<blocks_for(n), kThreads, 0, stream>>>(n, s.x, s.y, s.z, s.vx, s.vy, s.vz,
                                                               static_cast<Real>(record.dt));
    ORRERY_CUDA_CHECK_LAUNCH("drift_kernel");
    parts.stop(Part::drift, stream);
    tick = next;
    record.time = time_at_start + tick_dt * static_cast<double>(tick);
    parts.start(Part::find_active, stream);
    reset_kernel<<<1, 1, 0, stream>>>(sc, true);
    ORRERY_CUDA_CHECK_LAUNCH("reset_kernel");
    flag_kernel<Real><<<blocks_for(n), kThreads, 0, stream>>>(n, b.bins.data(), tick, deepest_, b.flag.data(), s.ax,
                                                              s.ay, s.az, sc);
    ORRERY_CUDA_CHECK_LAUNCH("flag_kernel");
    ORRERY_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(b.scan_temp.data(), temp_bytes, b.flag.data(), b.position.data(),
                                                    n, stream));
    compact_kernel<<<blocks_for(n), kThreads, 0, stream>>>(n, b.flag.data(), b.position.data(), b.active.data(), sc);
    ORRERY_CUDA_CHECK_LAUNCH("compact_kernel");
    parts.stop(Part::find_active, stream);
    // Read back: the active count (the TargetSet's count and the launches')
    // and the relative floor (a host field of SolveOptions).
    Scalars back{};
    cuda::copy_device_to_host(&back, sc, sizeof(Scalars), stream);
    const std::int64_t m = back.active;
    double largest = 0;
    std::memcpy(&largest, &back.largest_bits, sizeof largest);
    record.active = m;
    const bool with_potential = (potential && tick == end) || needs_potential();
    gravity::SolveOptions options;
    options.potential = with_potential;
    options.previous_accelerations = true;  // every particle's latest evaluation is in s.ax/ay/az
    SolverReport report;
    if (m == n) {
      // Everyone ends here: the solve of every target, as the host's.
      const auto t_solve = Clock::now();
      report = solver.solve_device(sources, {n, s.ax, s.ay, s.az, with_potential ? s.potential : nullptr}, options);
      record.solve_seconds = seconds_since(t_solve);
    } else if (m > 0) {
      Real* cpot = with_potential ? b.cpot.data() : nullptr;
      parts.start(Part::gather, stream);
      gather_kernel<Real><<<blocks_for(m), kThreads, 0, stream>>>(m, b.active.data(), false, b.cax.data(),
                                                                  b.cay.data(), b.caz.data(), nullptr, s.ax, s.ay,
                                                                  s.az, nullptr);
      ORRERY_CUDA_CHECK_LAUNCH("gather_kernel");
      parts.stop(Part::gather, stream);
      cuda::synchronize(stream);  // the solver runs on its own stream
      options.largest_previous_acceleration = largest;
      const auto t_solve = Clock::now();  // the gather is bookkeeping (its events), not the solve
      report = solver.solve_device(sources, gravity::TargetSet<Real>::of_sources(m, b.active.data()),
                                   {m, b.cax.data(), b.cay.data(), b.caz.data(), cpot}, options);
      record.solve_seconds = seconds_since(t_solve);
      parts.start(Part::scatter, stream);
      gather_kernel<Real><<<blocks_for(m), kThreads, 0, stream>>>(m, b.active.data(), true, s.ax, s.ay, s.az,
                                                                  with_potential ? s.potential : nullptr,
                                                                  b.cax.data(), b.cay.data(), b.caz.data(), cpot);
      ORRERY_CUDA_CHECK_LAUNCH("gather_kernel");
      parts.stop(Part::scatter, stream);
    }
    for (const auto& [name, sec] : report.phase_seconds) (is_walk_phase(name) ? record.walk_seconds : record.build_seconds) += sec;
    record.solver_phases = std::move(report.phase_seconds);
    interactions += report.total.particle_interactions + report.total.cell_interactions;
    evaluations_ += static_cast<std::uint64_t>(m);
    if (m > 0) {
      parts.start(Part::closing_kick, stream);
      kick_kernel<Real><<<blocks_for(m), kThreads, 0, stream>>>(m, b.active.data(), s.vx, s.vy, s.vz, s.ax, s.ay,
                                                                s.az, b.bins.data(), b.half.data());
      ORRERY_CUDA_CHECK_LAUNCH("kick_kernel");
      parts.stop(Part::closing_kick, stream);
    }
    update_bins(s, ids, m, tick, false, record.time, stream);
    if (tick < end && m > 0) {
      // The next step of each active particle opens here (at the block
      // step's end, with the next block step), as on the host.
      parts.start(Part::opening_kick, stream);
      kick_kernel<Real><<<blocks_for(m), kThreads, 0, stream>>>(m, b.active.data(), s.vx, s.vy, s.vz, s.ax, s.ay,
                                                                s.az, b.bins.data(), b.half.data());
      ORRERY_CUDA_CHECK_LAUNCH("kick_kernel");
      parts.stop(Part::opening_kick, stream);
    }
    cuda::synchronize(stream);
    record.seconds = seconds_since(t_start);
    // Every event has passed (the synchronisation above): reading them waits for nothing.
    record.drift_seconds = parts.seconds(Part::drift);
    record.kick_seconds = parts.seconds(Part::closing_kick) + parts.seconds(Part::opening_kick);
    record.bookkeeping_seconds = parts.seconds(Part::find_active) + parts.seconds(Part::gather) +
                                 parts.seconds(Part::scatter) + parts.seconds(Part::rebin);
    if (on_substep) on_substep(record);
  }
  return interactions;
}

template class DeviceBlockLeapfrog<float>;
template class DeviceBlockLeapfrog<double>;

}  // namespace orrery::integrate
