#include "orrery/driver/run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <random>
#include <stdexcept>
#include <utility>

#include "orrery/core/energy_error_exceeded.hpp"
#include "orrery/core/error.hpp"
#include "orrery/core/os_error.hpp"
#include "orrery/driver/make_simulation.hpp"
#include "orrery/driver/ranks.hpp"
#include "orrery/driver/run_parts.hpp"
#if defined(ORRERY_HAVE_MPI)
#include "orrery/driver/distributed_run.hpp"
#endif
#include "orrery/driver/restart.hpp"
#include "orrery/driver/setup.hpp"
#include "orrery/gravity/dispatch.hpp"
#include "orrery/gravity/solver_factory.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/integrate/block_step_logs.hpp"
#include "orrery/integrate/diagnostics_output.hpp"
#include "orrery/integrate/run_watch.hpp"
#include "orrery/integrate/step_count.hpp"
#include "orrery/io/checkpoint.hpp"
#include "orrery/io/config.hpp"
#include "orrery/io/run_control.hpp"
#include "orrery/io/snapshot.hpp"
#include "orrery/io/validate_particles.hpp"

namespace orrery::driver {
namespace {

using integrate::Output;
using integrate::RunConfig;
using integrate::Simulation;

using parts::kNextSnapshot;

/// `write`: this process writes the files (rank 0 of an MPI run); the others
/// take part in the solve of the potentials and count alike.
template <class Real>
Output<Real> snapshot_output(const std::filesystem::path& dir, double interval, io::SnapshotInfo info, int& count,
                             std::int64_t& next_index, bool write) {
  Output<Real> out;
  out.name = "snapshot";
  out.schedule.interval = interval;
  out.needs_potential = true;
  out.write = [dir, info = std::move(info), &count, &next_index, write, schedule = out.schedule](Simulation<Real>& sim) mutable {
    sim.potentials();  // computed into the accelerations' potential array (collective in an MPI run)
    const auto index = parts::snapshot_number(schedule, sim.step_count(), sim.state().dt, next_index);
    info.time = sim.time();
    info.step = sim.step_count();
    if (write)
      io::write_snapshot(dir / fmt::format("snapshot_{:04}.h5", index), sim.particles(), info,
                         io::SnapshotFields<Real>{&sim.accelerations()});
    ++count;
  };
  return out;
}

template <class Real>
RunSummary run_in(const RunConfig& config, const RunOptions& options,
                  const std::function<void(const integrate::Progress&)>& on_progress) {
  const std::filesystem::path dir = config.output.directory;
  const Ranks ranks = options.mpi ? Ranks::world() : Ranks();
  RunSummary summary;
  // Everything that can be refused is checked before the first output.
  Particles<Real> particles;
  integrate::SimulationState state;
  state.dt = config.integration.step();
  Accelerations<Real> accelerations;  // a checkpoint's, when it stores them
  std::vector<integrate::TimeBin> time_bins;  // a checkpoint's, with block steps
  std::map<std::string, std::int64_t> counters;
  io::ParticleTypes types;            // PartType0..5 counts, kept from the initial snapshot to the last output
  if (!options.restart.empty()) {
    auto c = io::read_checkpoint<Real>(options.restart);
    parts::check_checkpoint(c.build, io::BuildFingerprint::current<Real>(), c.config, c.counters, config, options,
                            options.restart);
    particles = std::move(c.particles);
    state = c.state;
    accelerations = std::move(c.accelerations);
    time_bins = std::move(c.time_bins);
    counters = parts::start_counters(ranks, &c.counters);
    types = io::types_from(c.counters);
  } else {
    auto initial = parts::initial_particles<Real>(config);
    particles = std::move(initial.particles);
    state.time_origin = initial.time;
    types = initial.types;
    counters = parts::start_counters(ranks, nullptr);
  }
  // The softening per type applies to the particles' types (gravity_config.hpp).
  gravity::GravityConfig gravity = config.gravity;
  gravity.type_counts = types.resolved(static_cast<std::uint64_t>(particles.size()), "run").count;
  Simulation<Real> sim = ranks.distributed()
                             ? Simulation<Real>(std::move(particles), ranks.solver<Real>(gravity), state)
                             : make_simulation<Real>(std::move(particles), gravity, state,
                                                     config.integration.block());
  integrate::configure_steps(sim, config);
  if (!accelerations.ax.empty()) sim.restore_accelerations(std::exchange(accelerations, {}));  // sim keeps a copy
  if (!time_bins.empty()) sim.restore_time_bins(std::move(time_bins));
  summary.first_step = sim.step_count();
  summary.run.solver = sim.solver_name();
  parts::create_output_directory(dir);
  const auto log = parts::diagnostics_log(config, options, ranks, sim.step_count(), summary);
  // The run watch (integrate/run_watch.hpp), at every diagnostics row: the accelerations and
  // potentials of the row's step are at hand there, so it costs no force evaluation. Every rank
  // sees the same rows, so every rank stops at the same step.
  parts::Watch watch(config, options, ranks, summary);
  sim.add_output(integrate::diagnostics_output<Real>(log, config.output.diagnostics_interval, [&](const diag::Diagnostics& d) {
    watch.row(d, sim.state().dt, sim.has_block_steps(),
              [&] { return integrate::smallest_step(watch.rule, sim.accelerations(), sim.potentials()); });
  }));
  // Block steps: the substep and time-bin logs (integrate/block_step_logs.hpp), named like the diagnostics log.
  std::vector<std::shared_ptr<diag::CsvFile>> block_logs;
  if (sim.has_block_steps() && ranks.writes()) {
    block_logs = parts::block_step_logs(config, options, ranks, sim.step_count(), sim.deepest_time_bin());
    integrate::log_substeps(sim, block_logs[0]);
    sim.add_output(integrate::time_bins_output<Real>(block_logs[1], config.output.diagnostics_interval));
  }
  if (config.output.snapshot_interval > 0) {
    auto info = snapshot_info(config, summary.run.solver, options.config_toml);
    info.types = types;
    sim.add_output(snapshot_output<Real>(dir, config.output.snapshot_interval, std::move(info), summary.snapshots,
                                         counters[kNextSnapshot], ranks.writes()));
  }
  // The checkpoint's counters: the run identity and next snapshot number (above) and the type counts.
  io::put_types(types.resolved(static_cast<std::uint64_t>(sim.particles().size()), "run"), counters);
  const auto write_checkpoint = [&] {
    const auto checkpoint = io::checkpoint_of(sim, options.config_toml, counters);
    if (ranks.writes())
      summary.checkpoint = io::write_rotating_checkpoint(dir, checkpoint, static_cast<int>(config.output.checkpoint_keep));
  };
  parts::run_steps(sim, config, options, ranks, watch, log, write_checkpoint, on_progress);
  for (const auto& file : block_logs) file->close();
  return summary;
}

}  // namespace

io::Config run_configuration(const std::string& file, const std::vector<std::string>& overrides,
                             const std::string& restart) {
  if (restart.empty() || !file.empty()) return io::Config::load(file, overrides);
  io::Config c = io::Config::from_string(checkpoint_toml(restart), "checkpoint " + restart);
  for (const auto& assignment : overrides) c.set(assignment);
  return c;
}

std::string checkpoint_toml(const std::filesystem::path& checkpoint) {
  // In pieces: every rank of an MPI run asks, and none holds every particle here.
  io::verify_checkpoint(checkpoint);
  return io::checkpoint_config(checkpoint);
}

RunSummary run(const RunConfig& config, const RunOptions& options,
               const std::function<void(const integrate::Progress&)>& on_progress) {
  parts::check(config);
#if defined(ORRERY_HAVE_MPI)
  // Each rank holds its domain's particles alone (docs/adr/0012).
  if (options.mpi && config.gravity.mpi_layout == gravity::RankLayout::distributed)
    return run_distributed(config, options, on_progress);
#endif
  return gravity::with_precision(config.gravity.precision,
                                 [&](auto real) { return run_in<decltype(real)>(config, options, on_progress); });
}

}  // namespace orrery::driver
