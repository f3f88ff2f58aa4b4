#include "orrery/integrate/block_leapfrog.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <string>
#include <utility>

#include "orrery/bh/opening_relative.hpp"
#include "orrery/core/error.hpp"
#include "orrery/integrate/leapfrog.hpp"

namespace orrery::integrate {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

}  // namespace

bool is_walk_phase(const std::string& name) {
  return name.find("walk") != std::string::npos || name == "direct";
}

int deepest_bin(double dt_max, double dt_min) {
  if (!(dt_min > 0) || !(dt_min <= dt_max) || !std::isfinite(dt_min))
    throw InputError(fmt::format("integration.dt_min = {}; accepted: a number > 0 and <= the longest step "
                                 "(integration.dt_max = {})",
                                 dt_min, dt_max));
  int deepest = 0;
  double step = dt_max;
  while (step * 0.5 >= dt_min) {
    step *= 0.5;
    if (++deepest > kMaxTimeBins)
      throw InputError(fmt::format("integration.dt_min = {}; accepted: at least integration.dt_max / 2^{} = {} "
                                   "(deeper time bins do not fit the step's 64-bit tick counter)",
                                   dt_min, kMaxTimeBins, std::ldexp(dt_max, -kMaxTimeBins)));
  }
  return deepest;
}

int check_block_steps(const BlockStepConfig& config, double dt_max) {
  const int deepest = deepest_bin(dt_max, config.dt_min);
  if (!(config.rule.eta > 0) || !std::isfinite(config.rule.eta))
    throw InputError(fmt::format("integration.eta = {}; accepted: a finite number > 0", config.rule.eta));
  if (config.rule.criterion == StepCriterion::softening && !(config.rule.softening > 0))
    throw InputError(fmt::format("integration.criterion = \"softening\" with gravity.softening = {}: its step "
                                 "sqrt(2 eta eps / |a|) is 0; accepted: gravity.softening > 0, or "
                                 "integration.criterion = \"dynamical\" (defined without softening)",
                                 config.rule.softening));
  return deepest;
}

template <class Real>
BlockLeapfrog<Real>::BlockLeapfrog(BlockStepConfig config, double dt_max, std::int64_t n)
    : config_(config), dt_max_(dt_max), deepest_(check_block_steps(config, dt_max)), n_(n) {}

template <class Real>
std::vector<Real> half_steps(double dt_max, int deepest) {
  std::vector<Real> half(static_cast<std::size_t>(deepest) + 1);
  for (int k = 0; k <= deepest; ++k) half[k] = static_cast<Real>(0.5 * std::ldexp(dt_max, -k));
  return half;
}

template <class Real>
void throw_step_outside_bins(const BlockStepConfig& config, double dt_max, int deepest, std::int64_t i,
                             std::uint64_t id, double time, Real x, Real y, Real z, Real ax, Real ay, Real az,
                             double dt) {
  const double magnitude = std::sqrt(double(ax) * ax + double(ay) * ay + double(az) * az);
  throw InputError(fmt::format(
      "block time steps: particle {} (id {}) at t = {} (position {}, {}, {}; |a| = {}) asks for a step of {} "
      "(integration.criterion = \"{}\", integration.eta = {}), shorter than the deepest time bin's {} (integration.dt_max "
      "/ 2^{}, the last not below integration.dt_min = {}); accepted: a step the bins hold: a smaller "
      "integration.dt_min, a larger integration.eta, or more softening",
      i, id, time, x, y, z, magnitude, dt, to_string(config.rule.criterion), config.rule.eta,
      std::ldexp(dt_max, -deepest), deepest, config.dt_min));
}

template std::vector<float> half_steps<float>(double, int);
template std::vector<double> half_steps<double>(double, int);
template void throw_step_outside_bins<float>(const BlockStepConfig&, double, int, std::int64_t, std::uint64_t, double,
                                             float, float, float, float, float, float, double);
template void throw_step_outside_bins<double>(const BlockStepConfig&, double, int, std::int64_t, std::uint64_t, double,
                                              double, double, double, double, double, double, double);

template <class Real>
int BlockLeapfrog<Real>::wanted_bin(const Particles<Real>& p, const Accelerations<Real>& a, std::int64_t i,
                                    double time) const {
  const Real phi = needs_potential() ? a.potential[i] : Real(0);
  const int bin = wanted_bin_of(config_.rule, a.ax[i], a.ay[i], a.az[i], phi, dt_max_, deepest_);
  if (bin >= 0 && bin <= deepest_) return bin;
  throw_step_outside_bins(config_, dt_max_, deepest_, i, p.id[i], time, p.x[i], p.y[i], p.z[i], a.ax[i], a.ay[i],
                          a.az[i], criterion_step(config_.rule, a.ax[i], a.ay[i], a.az[i], phi));
}

template <class Real>
void BlockLeapfrog<Real>::set_bin(std::int64_t i, int bin) {
  --occupied_[bins_[i]];
  bins_[i] = static_cast<TimeBin>(bin);
  ++occupied_[bin];
}

template <class Real>
void BlockLeapfrog<Real>::assign_bins(const Particles<Real>& p, const Accelerations<Real>& a, double time) {
  bins_.assign(static_cast<std::size_t>(n_), 0);
  occupied_.assign(static_cast<std::size_t>(deepest_) + 1, 0);
  occupied_[0] = n_;
  for (std::int64_t i = 0; i < n_; ++i) set_bin(i, wanted_bin(p, a, i, time));
}

template <class Real>
void BlockLeapfrog<Real>::restore_bins(std::vector<TimeBin> bins) {
  if (static_cast<std::int64_t>(bins.size()) != n_)
    throw InputError(fmt::format("time bins: {} for {} particles; accepted: one per particle", bins.size(), n_));
  occupied_.assign(static_cast<std::size_t>(deepest_) + 1, 0);
  for (std::size_t i = 0; i < bins.size(); ++i) {
    if (bins[i] < 0 || bins[i] > deepest_)
      throw InputError(fmt::format("time bins: particle {} is in bin {}; accepted: a bin in [0, {}] (the bins "
                                   "integration.dt_max and integration.dt_min allow)",
                                   i, int(bins[i]), deepest_));
    ++occupied_[bins[i]];
  }
  bins_ = std::move(bins);
}

template <class Real>
std::vector<std::int64_t> BlockLeapfrog<Real>::histogram() const {
  return occupied_.empty() ? std::vector<std::int64_t>(static_cast<std::size_t>(deepest_) + 1, 0) : occupied_;
}

template <class Real>
std::uint64_t BlockLeapfrog<Real>::step(Particles<Real>& p, Accelerations<Real>& a, gravity::ForceSolver<Real>& solver,
                                        bool potential, double time_at_start, std::int64_t block_step,
                                        PhaseTimers& timers) {
  if (!has_bins()) assign_bins(p, a, time_at_start);
  const std::int64_t end = std::int64_t{1} << deepest_;
  const double tick_dt = std::ldexp(dt_max_, -deepest_);
  // Each bin's half step, in the arithmetic of the global step (Real(0.5 * dt)).
  const std::vector<Real> half = half_steps<Real>(dt_max_, deepest_);
  std::uint64_t interactions = 0;
  active_.resize(static_cast<std::size_t>(n_));
  for (std::int64_t i = 0; i < n_; ++i) active_[i] = i;
  {
    auto timer = timers.scope("kick");
    kick_listed(p, a, active_.data(), n_, bins_.data(), half.data());
  }
  std::int64_t tick = 0;
  while (tick < end) {
    Substep record;
    const auto t_start = Clock::now();
    record.block_step = block_step + 1;
    record.particles = n_;
    int shortest = deepest_;
    while (shortest > 0 && occupied_[shortest] == 0) --shortest;
    const std::int64_t next = tick + bin_ticks(shortest, deepest_);
    record.dt = tick_dt * static_cast<double>(next - tick);  // a power of two times an integer below 2^61: exact
    {
      auto timer = timers.scope("drift");
      const auto t = Clock::now();
      drift(p, static_cast<Real>(record.dt));
      record.drift_seconds = seconds_since(t);
    }
    tick = next;
    record.time = time_at_start + tick_dt * static_cast<double>(tick);
    auto t = Clock::now();
    std::int64_t m = 0;
    for (std::int64_t i = 0; i < n_; ++i) {
      if (bin_ends_at(bins_[i], tick, deepest_)) active_[m++] = i;
    }
    record.active = m;
    const bool with_potential = (potential && tick == end) || needs_potential();
    gravity::SolveOptions options;
    options.potential = with_potential;
    options.previous_accelerations = true;  // `a` holds every particle's latest evaluation
    SolverReport report;
    record.bookkeeping_seconds += seconds_since(t);
    const double bookkeeping_before = record.bookkeeping_seconds;
    const auto t_solve = Clock::now();
    {
      auto timer = timers.scope("force");
      if (m == n_) {
        // Everyone ends here: the solve of every target, as the global step's.
        report = solver.solve(p.sources(), a.view(with_potential), options);
      } else {
        t = Clock::now();
        compact_.ax.resize(m);
        compact_.ay.resize(m);
        compact_.az.resize(m);
        compact_.potential.resize(m);
        double largest = 0;  // the relative opening's floor, from every particle (force_solver.hpp); max is exact
#pragma omp parallel for schedule(static) reduction(max : largest) if (n_ >= kParallelFrom)
        for (std::int64_t i = 0; i < n_; ++i) {
          const double s = bh::acceleration_magnitude(a.ax[i], a.ay[i], a.az[i]);
          largest = s > largest ? s : largest;
        }
        for (std::int64_t k = 0; k < m; ++k) {
          compact_.ax[k] = a.ax[active_[k]];
          compact_.ay[k] = a.ay[active_[k]];
          compact_.az[k] = a.az[active_[k]];
        }
        options.largest_previous_acceleration = largest;
        record.bookkeeping_seconds += seconds_since(t);
        report = solver.solve(p.sources(), gravity::TargetSet<Real>::of_sources(m, active_.data()),
                              compact_.view(with_potential), options);
        t = Clock::now();
        for (std::int64_t k = 0; k < m; ++k) {
          const std::int64_t i = active_[k];
          a.ax[i] = compact_.ax[k];
          a.ay[i] = compact_.ay[k];
          a.az[i] = compact_.az[k];
          if (with_potential) a.potential[i] = compact_.potential[k];
        }
        record.bookkeeping_seconds += seconds_since(t);
      }
    }
    record.solve_seconds = seconds_since(t_solve) - record.bookkeeping_seconds + bookkeeping_before;
    for (const auto& [name, s] : report.phase_seconds) (is_walk_phase(name) ? record.walk_seconds : record.build_seconds) += s;
    record.solver_phases = std::move(report.phase_seconds);
    interactions += report.total.particle_interactions + report.total.cell_interactions;
    evaluations_ += static_cast<std::uint64_t>(m);
    {
      auto timer = timers.scope("kick");
      t = Clock::now();
      kick_listed(p, a, active_.data(), m, bins_.data(), half.data());
      record.kick_seconds += seconds_since(t);
    }
    t = Clock::now();
    for (std::int64_t k = 0; k < m; ++k) {
      const std::int64_t i = active_[k];
      set_bin(i, next_bin(bins_[i], wanted_bin(p, a, i, record.time), tick, deepest_));
    }
    record.bookkeeping_seconds += seconds_since(t);
    if (tick < end) {
      // The next step of each active particle opens here; at the block
      // step's end it opens with the next block step (the velocities of a
      // synchronisation point are the closing kick's).
      auto timer = timers.scope("kick");
      t = Clock::now();
      kick_listed(p, a, active_.data(), m, bins_.data(), half.data());
      record.kick_seconds += seconds_since(t);
    }
    record.seconds = seconds_since(t_start);
    if (on_substep) on_substep(record);
  }
  return interactions;
}

template class BlockLeapfrog<float>;
template class BlockLeapfrog<double>;

}  // namespace orrery::integrate
