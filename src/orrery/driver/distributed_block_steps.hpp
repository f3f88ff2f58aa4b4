#pragma once
// Block (power-of-two) time steps over a distributed tree
// (integration.kind = "block" with gravity.mpi_layout = "distributed"):
// integrate::BlockLeapfrog's operations in its order, so that every rank
// count integrates with one process's bits (docs/block_steps.md).
//
// What BlockLeapfrog does to one particle at a time (the half kicks, the
// drift, the choice of the next bin) each rank does to the particles it
// holds: element-wise, the same bits. Its bins travel with the particles
// (mpi::RankParticles::bin; each solve migrates them). What it decides from
// every particle is a collective of exact integers: the deepest occupied bin
// (a maximum), the active count (a sum), the histogram (sums), and the
// particle whose step the bins do not hold (the smallest index of one
// process's arrays: the one BlockLeapfrog's in-order scan meets first). Each
// substep's solve is mpi::DistributedTree's subset solve of the active
// particles (every particle a source) -- one process's TreeSolver subset
// solve target by target -- or, where every particle is active (the block
// step's end), its whole solve, as BlockLeapfrog's.
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "orrery/core/error.hpp"
#include "orrery/integrate/block_leapfrog.hpp"
#include "orrery/integrate/leapfrog.hpp"
#include "orrery/mpi/distributed_tree.hpp"

namespace orrery::driver {

template <class Real>
class DistributedBlockLeapfrog {
 public:
  /// `n`: every rank's particles together (N). dt_max: the run's longest step.
  DistributedBlockLeapfrog(integrate::BlockStepConfig config, double dt_max, std::int64_t n)
      : config_(config), dt_max_(dt_max), deepest_(integrate::check_block_steps(config, dt_max)), n_(n) {}

  /// One block step of dt_max (integrate::BlockLeapfrog::step, over the
  /// particles every rank holds). s.a: every particle's accelerations (and
  /// potentials for the dynamical criterion) at the current positions,
  /// an evaluation the relative opening reads. Collective; returns the
  /// interactions of every rank's solves.
  std::uint64_t step(mpi::RankParticles<Real>& s, mpi::DistributedTree<Real>& tree, const mpi::Communicator& comm,
                     bool potential, double time_at_start, std::int64_t block_step, integrate::PhaseTimers& timers) {
    using Clock = std::chrono::steady_clock;
    const auto since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
    if (!has_bins_) assign_bins(s, comm, time_at_start);
    const std::int64_t end = std::int64_t{1} << deepest_;
    const double tick_dt = std::ldexp(dt_max_, -deepest_);
    const std::vector<Real> half = integrate::half_steps<Real>(dt_max_, deepest_);
    std::uint64_t interactions = 0;
    list_.resize(static_cast<std::size_t>(s.size()));
    for (std::int64_t k = 0; k < s.size(); ++k) list_[k] = k;
    {
      auto timer = timers.scope("kick");
      integrate::kick_listed(s.p, s.a, list_.data(), s.size(), s.bin.data(), half.data());
    }
    std::int64_t tick = 0;
    while (tick < end) {
      integrate::Substep record;
      const auto t_start = Clock::now();
      record.block_step = block_step + 1;
      record.particles = n_;
      int mine = 0;
      for (const auto b : s.bin) mine = b > mine ? b : mine;
      const int shortest = comm.max(mine);  // the deepest occupied bin
      const std::int64_t next = tick + integrate::bin_ticks(shortest, deepest_);
      record.dt = tick_dt * static_cast<double>(next - tick);
      {
        auto timer = timers.scope("drift");
        const auto t = Clock::now();
        integrate::drift(s.p, static_cast<Real>(record.dt));
        record.drift_seconds = since(t);
      }
      tick = next;
      record.time = time_at_start + tick_dt * static_cast<double>(tick);
      auto t = Clock::now();
      std::vector<std::uint64_t> active = {0};
      for (std::int64_t k = 0; k < s.size(); ++k) {
        s.active[k] = integrate::bin_ends_at(s.bin[k], tick, deepest_) ? 1 : 0;
        active[0] += s.active[k];
      }
      comm.sum(active);
      record.active = static_cast<std::int64_t>(active[0]);
      const bool with_potential = (potential && tick == end) || needs_potential();
      gravity::SolveOptions options;
      options.potential = with_potential;
      options.previous_accelerations = true;  // s.a holds every particle's latest evaluation
      record.bookkeeping_seconds += since(t);
      SolverReport report;
      const auto t_solve = Clock::now();
      {
        auto timer = timers.scope("force");
        // Everyone ends here: the solve of every target, as the global step's.
        report = tree.solve(s, options, false, record.active != n_);
      }
      record.solve_seconds = since(t_solve);
      for (const auto& [name, sec] : report.phase_seconds)
        (integrate::is_walk_phase(name) ? record.walk_seconds : record.build_seconds) += sec;
      record.solver_phases = std::move(report.phase_seconds);
      interactions += report.total.particle_interactions + report.total.cell_interactions;
      evaluations_ += static_cast<std::uint64_t>(record.active);
      // The solve moved the particles: the active ones, in their new places.
      t = Clock::now();
      std::int64_t m = 0;
      list_.resize(static_cast<std::size_t>(s.size()));
      for (std::int64_t k = 0; k < s.size(); ++k)
        if (s.active[k] != 0) list_[m++] = k;
      record.bookkeeping_seconds += since(t);
      {
        auto timer = timers.scope("kick");
        t = Clock::now();
        integrate::kick_listed(s.p, s.a, list_.data(), m, s.bin.data(), half.data());
        record.kick_seconds += since(t);
      }
      t = Clock::now();
      rebin(s, comm, list_.data(), m, record.time, [&](int old_bin, int wanted) {
        return integrate::next_bin(old_bin, wanted, tick, deepest_);
      });
      record.bookkeeping_seconds += since(t);
      if (tick < end) {
        // The next step of each active particle opens here (BlockLeapfrog's).
        auto timer = timers.scope("kick");
        t = Clock::now();
        integrate::kick_listed(s.p, s.a, list_.data(), m, s.bin.data(), half.data());
        record.kick_seconds += since(t);
      }
      record.seconds = since(t_start);
      if (on_substep) on_substep(record);
    }
    return interactions;
  }

  /// Bins from the accelerations (and potentials) at the current positions,
  /// each particle's wanted bin (BlockLeapfrog::assign_bins). Collective.
  void assign_bins(mpi::RankParticles<Real>& s, const mpi::Communicator& comm, double time) {
    list_.resize(static_cast<std::size_t>(s.size()));
    for (std::int64_t k = 0; k < s.size(); ++k) list_[k] = k;
    rebin(s, comm, list_.data(), s.size(), time, [](int, int wanted) { return wanted; });
    has_bins_ = true;
  }

  /// The bins in s.bin are a checkpoint's: InputError naming the first
  /// (by index) outside [0, deepest()], on every rank. Collective.
  void restore_bins(const mpi::RankParticles<Real>& s, const mpi::Communicator& comm) {
    std::vector<std::uint64_t> first = {kNone};
    for (std::int64_t k = 0; k < s.size(); ++k)
      if (s.bin[k] < 0 || s.bin[k] > deepest_) first[0] = std::min<std::uint64_t>(first[0], s.index[k]);
    comm.min(first);
    if (first[0] != kNone)
      throw InputError("time bins: particle " + std::to_string(first[0]) + " is in a bin outside [0, " +
                       std::to_string(deepest_) + "]; accepted: a bin the bins integration.dt_max and " +
                       "integration.dt_min allow");
    has_bins_ = true;
  }

  bool has_bins() const { return has_bins_; }
  int deepest() const { return deepest_; }
  bool needs_potential() const { return config_.rule.criterion == integrate::StepCriterion::dynamical; }
  /// Particles per bin 0..deepest() over every rank (zeros before the first step). Collective.
  std::vector<std::int64_t> histogram(const mpi::RankParticles<Real>& s, const mpi::Communicator& comm) const {
    std::vector<std::uint64_t> h(static_cast<std::size_t>(deepest_) + 1, 0);
    if (has_bins_)
      for (const auto b : s.bin) ++h[static_cast<std::size_t>(b)];
    comm.sum(h);
    return {h.begin(), h.end()};
  }
  std::uint64_t target_evaluations() const { return evaluations_; }

  /// Called after every substep on every rank, e.g. for the substep log.
  std::function<void(const integrate::Substep&)> on_substep;

 private:
  static constexpr std::uint64_t kNone = std::numeric_limits<std::uint64_t>::max();

  /// s.bin[k] = choose(old, wanted) for the listed particles, wanted from
  /// their criterion at `time`; where one asks for a step the bins do not
  /// hold, every rank stops: the rank holding the first such particle (by
  /// index) names it as BlockLeapfrog does, the others say they stop.
  template <class Choose>
  void rebin(mpi::RankParticles<Real>& s, const mpi::Communicator& comm, const std::int64_t* list, std::int64_t m,
             double time, Choose&& choose) {
    std::vector<std::uint64_t> first = {kNone};
    std::int64_t bad = -1;
    for (std::int64_t j = 0; j < m; ++j) {
      const std::int64_t k = list[j];
      const Real phi = needs_potential() ? s.a.potential[k] : Real(0);
      const int wanted = integrate::wanted_bin_of(config_.rule, s.a.ax[k], s.a.ay[k], s.a.az[k], phi, dt_max_, deepest_);
      if (wanted >= 0 && wanted <= deepest_) {
        s.bin[k] = static_cast<std::int8_t>(choose(s.bin[k], wanted));
      } else if (s.index[k] < first[0]) {
        first[0] = s.index[k];
        bad = k;
      }
    }
    const std::uint64_t mine = first[0];
    comm.min(first);
    if (first[0] == kNone) return;
    if (mine == first[0]) {
      const Real phi = needs_potential() ? s.a.potential[bad] : Real(0);
      integrate::throw_step_outside_bins(config_, dt_max_, deepest_, static_cast<std::int64_t>(mine), s.p.id[bad], time,
                                         s.p.x[bad], s.p.y[bad], s.p.z[bad], s.a.ax[bad], s.a.ay[bad], s.a.az[bad],
                                         integrate::criterion_step(config_.rule, s.a.ax[bad], s.a.ay[bad], s.a.az[bad], phi));
    }
    throw InputError("rank " + std::to_string(comm.rank()) + " stops: particle " + std::to_string(first[0]) +
                     " asks for a step the time bins do not hold (its rank names it)");
  }

  integrate::BlockStepConfig config_;
  double dt_max_;
  int deepest_;
  std::int64_t n_;
  bool has_bins_ = false;
  std::uint64_t evaluations_ = 0;
  std::vector<std::int64_t> list_;  // scratch: the particles kicked and rebinned
};

}  // namespace orrery::driver
