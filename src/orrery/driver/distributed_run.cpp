#include "orrery/driver/distributed_run.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "orrery/core/error.hpp"
#include "orrery/driver/distributed_outputs.hpp"
#include "orrery/driver/distributed_steps.hpp"
#include "orrery/driver/run_parts.hpp"
#include "orrery/driver/setup.hpp"
#include "orrery/gravity/dispatch.hpp"
#include "orrery/gravity/tree_solver.hpp"
#include "orrery/integrate/block_step_logs.hpp"
#include "orrery/integrate/diagnostics_output.hpp"
#include "orrery/integrate/run.hpp"
#include "orrery/integrate/step_count.hpp"
#include "orrery/io/checkpoint.hpp"
#include "orrery/io/snapshot.hpp"
#include "orrery/mpi/unique_ids.hpp"

namespace orrery::driver {
namespace {

/// The run's engine for parts::run_steps: integrate::Simulation's steps and
/// outputs (due by the same schedules, each once a step, the potentials
/// solved with the step that wants them) over a DistributedSteps.
template <class Real>
class DistributedRun {
 public:
  struct Output {
    std::string name;
    integrate::Schedule schedule;
    bool needs_potential = true;
    std::function<void()> write;
  };

  DistributedRun(DistributedSteps<Real> steps, integrate::SimulationState state)
      : steps_(std::move(steps)), state_(state) {}

  void add_output(Output o) { outputs_.push_back(std::move(o)); }
  void step() {
    bool potential = false;
    for (const auto& o : outputs_) potential |= o.needs_potential & o.schedule.due(state_.step + 1, state_.dt);
    steps_.step(potential, time(), state_.step);
    ++state_.step;
    run_outputs(false);
  }
  void write_all_outputs() { run_outputs(true); }
  std::int64_t steps_until(double t_end) const { return integrate::step_count(t_end - time(), state_.dt); }
  double time() const { return state_.time_origin + static_cast<double>(state_.step) * state_.dt; }
  std::int64_t step_count() const { return state_.step; }
  integrate::SimulationState& state() { return state_; }
  DistributedSteps<Real>& steps() { return steps_; }

 private:
  void run_outputs(bool force_all) {
    last_written_.resize(outputs_.size(), -1);
    for (std::size_t k = 0; k < outputs_.size(); ++k) {
      auto& o = outputs_[k];
      if (!(force_all || o.schedule.due(state_.step, state_.dt)) || last_written_[k] == state_.step) continue;
      auto timer = steps_.timers().scope(o.name);
      o.write();
      last_written_[k] = state_.step;
    }
  }

  DistributedSteps<Real> steps_;
  integrate::SimulationState state_;
  std::vector<Output> outputs_;
  std::vector<std::int64_t> last_written_;
};

template <class Real>
RunSummary run_distributed_in(const integrate::RunConfig& config, const RunOptions& options,
                              const std::function<void(const integrate::Progress&)>& on_progress) {
  Ranks::require_distributed(config.gravity);
  const std::filesystem::path dir = config.output.directory;
  const Ranks ranks = Ranks::world();
  const mpi::Communicator& comm = ranks.comm();
  RunSummary summary;
  // Everything that can be refused is checked before the first output.
  mpi::RankParticles<Real> mine;
  integrate::SimulationState state;
  state.dt = config.integration.step();
  std::map<std::string, std::int64_t> counters;
  io::ParticleTypes types;
  std::int64_t n = 0;
  bool restored = false;
  bool restored_bins = false;  // a checkpoint's time bins (block steps) are in mine.bin
  if (!options.restart.empty()) {
    // Every rank verifies the file (reading it in pieces) and reads its block of rows.
    io::verify_checkpoint(options.restart);
    io::read_checkpoint_rows<Real>(options.restart, 0, 0, n);
    const auto [b, e] = rank_block(comm.rank(), comm.size(), n);
    auto c = io::read_checkpoint_rows<Real>(options.restart, b, e, n);
    parts::check_checkpoint(c.build, io::BuildFingerprint::current<Real>(), c.config, c.counters, config, options,
                            options.restart);
    mine.p = std::move(c.particles);
    state = c.state;
    counters = parts::start_counters(ranks, &c.counters);
    types = io::types_from(c.counters);
    const auto rows = static_cast<std::size_t>(e - b);
    // Accelerations are stored for every row or for none: a rank of no rows asks the others.
    restored = comm.max(c.accelerations.ax.empty() ? 0 : 1) == 1;
    mine.a = restored ? std::move(c.accelerations) : Accelerations<Real>(rows);
    mine.a.potential.assign(rows, Real(0));
    mine.index.resize(rows);
    for (std::size_t k = 0; k < rows; ++k) mine.index[k] = static_cast<std::uint64_t>(b) + k;
    mine.work.assign(rows, 0);
    // Bins, like accelerations, are stored for every row or for none.
    restored_bins = comm.max(c.time_bins.empty() ? 0 : 1) == 1;
    mine.bin = restored_bins ? std::move(c.time_bins) : std::vector<std::int8_t>(rows, 0);
    mine.active.assign(rows, 0);
  } else {
    // This rank's block alone: a generator run over every particle keeping these rows, or a
    // snapshot's rows read by hyperslab (docs/adr/0012 decision 14); the IDs of a file checked
    // unique over the ranks.
    auto initial = parts::initial_particles<Real>(config, comm.rank(), comm.size());
    if (config.initial_conditions.kind == "file")
      mpi::require_unique_ids(initial.particles.id, comm, "file '" + config.initial_conditions.path + "'");
    n = initial.total;
    const std::int64_t b = initial.first, rows = initial.particles.size();
    mine.resize(static_cast<std::size_t>(rows));
    mpi::for_each_field([&](auto& v) { std::fill(v.begin(), v.end(), 0); }, mine);
    mine.p = std::move(initial.particles);
    for (std::int64_t k = 0; k < rows; ++k) mine.index[k] = static_cast<std::uint64_t>(b + k);
    state.time_origin = initial.time;
    types = initial.types;
    counters = parts::start_counters(ranks, nullptr);
  }
  const auto tree = gravity::tree_solver_config(config.gravity);
  mpi::DistributedOptions budget;
  budget.max_held_particles = config.gravity.max_particles_per_rank;
  budget.budget_key = "gravity.max_particles_per_rank";
  const std::shared_ptr<mpi::LetWalk<Real>> walk = ranks.let_walk<Real>(config.gravity);
  DistributedRun<Real> sim(DistributedSteps<Real>(std::move(mine), tree, comm, state.dt, restored, budget, walk), state);
  const bool block = config.integration.block();
  if (block) sim.steps().use_block_steps(integrate::block_step_config(config), restored_bins);
  const mpi::RankParticles<Real>& particles = sim.steps().particles();
  summary.first_step = sim.step_count();
  // One process's tree solver's name (its bits): the snapshots store it.
  summary.run.solver = "tree/" + walk->backend() + "/" + std::string(to_string(tree.tree.multipole));
  // A new run's first solve (its first outputs want the potentials): here, so that a rank past its
  // budget stops the run before anything is written.
  if (options.restart.empty()) sim.steps().potentials();
  parts::create_output_directory(dir);
  const auto log = parts::diagnostics_log(config, options, ranks, sim.step_count(), summary);
  parts::Watch watch(config, options, ranks, summary);
  const std::int64_t piece = options.output_piece > 0 ? options.output_piece : io::kColumnPiece;
  // Block steps: the substep and time-bin logs of one process (integrate/block_step_logs.hpp), from rank 0.
  std::vector<std::shared_ptr<diag::CsvFile>> block_logs;
  if (block) {
    block_logs = parts::block_step_logs(config, options, ranks, sim.step_count(), sim.steps().block_steps()->deepest());
    if (!block_logs.empty()) sim.steps().block_steps()->on_substep = integrate::substep_writer(block_logs[0]);
  }
  const auto start = std::chrono::steady_clock::now();
  sim.add_output({"diagnostics", {config.output.diagnostics_interval}, true, [&] {
                    sim.steps().potentials();
                    const mpi::IndexOrder order(particles.index, comm);
                    auto& st = sim.state();
                    const auto d = distributed_measure(particles, order, sim.time(), sim.step_count(), st.initial_energy,
                                                       piece);
                    if (std::isnan(st.initial_energy)) st.initial_energy = d.total;
                    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                    if (log) log->write(d, sim.steps().timers().totals(), wall);
                    watch.row(d, st.dt, block, [&] { return distributed_smallest_step(watch.rule, particles, comm); });
                  }});
  if (block)
    sim.add_output({"diagnostics", {config.output.diagnostics_interval}, false, [&] {
                      const auto& steps = sim.steps();
                      const auto histogram = steps.block_steps()->histogram(particles, comm);
                      // None before the first block step, which assigns the bins.
                      if (!steps.block_steps()->has_bins() || block_logs.empty()) return;
                      block_logs[1]->row(integrate::time_bins_row(sim.time(), sim.step_count(), histogram),
                                         "the row of step " + std::to_string(sim.step_count()));
                    }});
  if (config.output.snapshot_interval > 0) {
    auto info = snapshot_info(config, summary.run.solver, options.config_toml);
    info.types = types;
    const integrate::Schedule schedule{config.output.snapshot_interval};
    sim.add_output({"snapshot", schedule, true, [&, info, schedule]() mutable {
                      sim.steps().potentials();
                      const auto index = parts::snapshot_number(schedule, sim.step_count(), sim.state().dt,
                                                                counters[parts::kNextSnapshot]);
                      info.time = sim.time();
                      info.step = sim.step_count();
                      const mpi::IndexOrder order(particles.index, comm);
                      const auto cube = distributed_bounding_cube(particles, order, piece);
                      io::write_snapshot_in_pieces<Real>(dir / fmt::format("snapshot_{:04}.h5", index), order.total(),
                                                         info, cube, true, index_order_source(particles, order),
                                                         ranks.writes(), piece);
                      ++summary.snapshots;
                    }});
  }
  // The checkpoint's counters: the run identity and next snapshot number (above) and the type counts.
  io::put_types(types.resolved(static_cast<std::uint64_t>(n), "run"), counters);
  const auto write_checkpoint = [&] {
    sim.steps().accelerations();  // the evaluation its next step would make, when there is none yet
    io::Checkpoint<Real> head;
    head.config = options.config_toml;
    head.state = sim.state();
    head.counters = counters;
    const mpi::IndexOrder order(particles.index, comm);
    const auto path = io::write_rotating_checkpoint_in_pieces<Real>(
        dir, head, order.total(), true, sim.steps().block_steps() && sim.steps().block_steps()->has_bins(),
        index_order_source(particles, order),
        static_cast<int>(config.output.checkpoint_keep), ranks.writes(), piece);
    if (ranks.writes()) summary.checkpoint = path;
  };
  parts::run_steps(sim, config, options, ranks, watch, log, write_checkpoint, on_progress);
  for (const auto& file : block_logs) file->close();
  return summary;
}

}  // namespace

RunSummary run_distributed(const integrate::RunConfig& config, const RunOptions& options,
                           const std::function<void(const integrate::Progress&)>& on_progress) {
  return gravity::with_precision(config.gravity.precision,
                                 [&](auto real) { return run_distributed_in<decltype(real)>(config, options, on_progress); });
}

}  // namespace orrery::driver
