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

void check(const RunConfig& c) {
  integrate::check_run_config(c);
  const auto fail = [](const char* key, double v, const char* accepted) {
    throw InputError(std::string(key) + " = " + fmt::format("{}", v) + "; accepted: " + accepted);
  };
  if (!(c.output.snapshot_interval >= 0) || !std::isfinite(c.output.snapshot_interval))
    fail("output.snapshot_interval", c.output.snapshot_interval, "a number >= 0 (0: no snapshots)");
  if (c.output.snapshot_interval > 0 && c.integration.t_end / c.output.snapshot_interval > integrate::kMaxSteps)
    fail("output.snapshot_interval", c.output.snapshot_interval,
         "a number >= integration.t_end / 2^53 (the snapshot count must fit; 0: no snapshots)");
  if (c.output.directory.empty()) throw InputError("output.directory is empty; accepted: a directory path");
  if (c.output.checkpoint_keep < 1)
    fail("output.checkpoint_keep", static_cast<double>(c.output.checkpoint_keep), "an integer >= 1");
  unit_system(c.units);
}

// Checkpoint counters of the run loop (io::Checkpoint::counters).
constexpr const char* kNextSnapshot = "snapshot.next";

/// A new run's identity (io::kRunIdCounter): random, so that runs sharing a
/// directory do not share it; >= 0 so it reads the same as any int64.
std::int64_t new_run_id() {
  std::random_device entropy;
  const std::uint64_t id = (std::uint64_t{entropy()} << 32) ^ entropy();
  return static_cast<std::int64_t>(id >> 1);
}

/// Rethrows the exception being handled with `note` appended to its message,
/// as the same class: the CLI's exit status depends on the class.
[[noreturn]] void rethrow_noting(const std::string& note) {
  try {
    throw;
  } catch (const EnergyErrorExceeded& e) {
    throw EnergyErrorExceeded(e.what() + note);
  } catch (const InputError& e) {
    throw InputError(e.what() + note);
  } catch (const EnvironmentError& e) {
    throw EnvironmentError(e.what() + note);
  } catch (const RuntimeFailure& e) {
    throw RuntimeFailure(e.what() + note);
  } catch (const std::bad_alloc&) {
    throw;  // its own message, and no memory to spare for a longer one
  } catch (const std::exception& e) {
    throw std::runtime_error(e.what() + note);  // a bug: exit status 1 all the same
  }
}

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
    // Numbered by intervals elapsed, a pure function of the step, so a restarted run continues the
    // numbering. The forced one at the end of a run, off the schedule, takes the next number rather than
    // overwriting the last scheduled snapshot; and never below the next number the run (or the leg it
    // continues, through its checkpoint) has not used, so no leg overwrites an earlier leg's snapshot.
    const auto step = sim.step_count();
    const double dt = sim.state().dt;
    const auto index = std::max(next_index, schedule.index(step, dt) + (schedule.due(step, dt) ? 0 : 1));
    next_index = index + 1;
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
  std::map<std::string, std::int64_t> counters{{io::kRunIdCounter, ranks.from_writer(new_run_id())}, {kNextSnapshot, 0}};
  io::ParticleTypes types;            // PartType0..5 counts, kept from the initial snapshot to the last output
  if (!options.restart.empty()) {
    auto c = io::read_checkpoint<Real>(options.restart);
    io::require_same_build(c.build, io::BuildFingerprint::current<Real>(), options.restart);
    const auto saved = io::Config::from_string(c.config, "checkpoint '" + options.restart.string() + "'");
    require_same_physics(saved.run_config(), config, options.restart);
    // Only a run's checkpoint (it has a run identity) says how its particles were made:
    // orrery.Simulation.save_checkpoint records the gravity settings and dt, the rest at defaults.
    if (!options.config_toml.empty() && c.counters.contains(io::kRunIdCounter))
      require_same_start(saved, io::Config::from_string(options.config_toml, "this run's configuration"),
                         options.restart);
    particles = std::move(c.particles);
    state = c.state;
    accelerations = std::move(c.accelerations);
    time_bins = std::move(c.time_bins);
    // A checkpoint of an earlier version has no run identity: the restart then starts a new one.
    for (const auto& [name, value] : c.counters)
      if (counters.contains(name)) counters[name] = value;
    types = io::types_from(c.counters);
  } else {
    auto initial = initial_state(config);
    const auto& ic_config = config.initial_conditions;
    if (ic_config.kind == "file")
      io::validate_range<Real>(initial.particles, "file '" + ic_config.path + "'");
    else
      io::validate_range<Real>(initial.particles, "initial conditions (kind = " + ic_config.kind + ")",
                               {"positions", "velocities", "masses", "ids"});
    particles = ic::to_precision<Real>(initial.particles);
    state.time_origin = initial.time;
    types = initial.types;
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
  // Rank 0 keeps the clocks and looks for the STOP file; every rank sees its own signals (agreed after each step).
  io::RunControl control(ranks.writes() ? io::RunControlOptions{config.output.checkpoint_minutes,
                                                                config.integration.wall_limit_minutes, dir / "STOP"}
                                        : io::RunControlOptions{});
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw_os_error("output.directory = '" + dir.string() + "': cannot be created", ec.value(),
                   "accepted: a directory that exists or can be created, and is writable");

  summary.run.diagnostics =
      dir / (options.restart.empty() ? std::string("diagnostics.csv") : fmt::format("diagnostics_from_{}.csv", sim.step_count()));
  auto log = ranks.writes() ? std::make_shared<diag::CsvLog>(summary.run.diagnostics, integrate::diagnostics_phases())
                            : nullptr;
  // The run watch (integrate/run_watch.hpp), at every diagnostics row: the accelerations and
  // potentials of the row's step are at hand there, so it costs no force evaluation. Every rank
  // sees the same rows, so every rank stops at the same step.
  std::optional<std::string> energy_stop;
  bool warned = false;
  const integrate::StepRule watch = integrate::watched_rule(config.gravity.softening);
  sim.add_output(integrate::diagnostics_output<Real>(
      log, config.output.diagnostics_interval,
      [&](const diag::Diagnostics& d) {
        summary.run.relative_energy_error = d.relative_energy_error;
        summary.worst_relative_energy_error = std::max(summary.worst_relative_energy_error, std::abs(d.relative_energy_error));
        if (!energy_stop) energy_stop = integrate::energy_error_excess(d, config.integration.max_energy_error);
        // Once a run: the first time says it. Block steps take each particle's
        // step from the criterion itself (dt_min reached is an error), so
        // there is no global step to warn about.
        if (warned || sim.has_block_steps()) return;
        const auto smallest = integrate::smallest_step(watch, sim.accelerations(), sim.potentials());
        if (const auto w = integrate::step_warning(sim.state().dt, watch, smallest, d.time, d.step)) {
          warned = true;
          if (options.on_warning && ranks.writes()) options.on_warning(*w);
        }
      }));
  // Block steps: the substep and time-bin logs (integrate/block_step_logs.hpp), named like the diagnostics log.
  std::vector<std::shared_ptr<diag::CsvFile>> block_logs;
  if (sim.has_block_steps() && ranks.writes()) {
    const auto name = [&](const char* stem) {
      return dir / (options.restart.empty() ? fmt::format("{}.csv", stem)
                                            : fmt::format("{}_from_{}.csv", stem, sim.step_count()));
    };
    block_logs.push_back(std::make_shared<diag::CsvFile>(name("substeps"), integrate::substep_header(), "substep log"));
    block_logs.push_back(std::make_shared<diag::CsvFile>(
        name("time_bins"), integrate::time_bins_header(sim.deepest_time_bin()), "time-bin log"));
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
  if (options.handle_signals) {
    io::RunControl::set_signal_flag(false);  // a signal that stopped an earlier run in this process is spent
    io::RunControl::install_signal_handlers();
  }
  // A row past integration.max_energy_error: the state it is in is checkpointed, then the run fails.
  const auto stop_if_energy_exceeded = [&] {
    if (!energy_stop) return;
    write_checkpoint();
    throw EnergyErrorExceeded(*energy_stop);
  };
  const auto start = std::chrono::steady_clock::now();
  const auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  integrate::Progress progress;
  try {
    progress.total_steps = sim.steps_until(config.integration.t_end);
    // A new run writes every output at its first step; a restarted one wrote them before it stopped.
    if (options.restart.empty()) sim.write_all_outputs();
    for (std::int64_t k = 0; k < progress.total_steps; ++k) {
      sim.step();
      ranks.fail_if_injected(sim.step_count());
      stop_if_energy_exceeded();
      if (on_progress && ranks.writes()) {
        progress.step = k + 1;
        progress.time = sim.time();
        progress.wall_seconds = seconds();
        on_progress(progress);
      }
      const auto mine = control.poll();
      const auto action = ranks.agree(mine);
      if (action == io::RunControl::Action::none) continue;
      write_checkpoint();
      if (action == io::RunControl::Action::checkpoint_and_stop) {
        summary.stopped_by = mine == action ? control.reason() : "a signal (SIGINT or SIGTERM) to another rank";
        break;
      }
    }
    if (summary.stopped_by.empty()) {
      sim.write_all_outputs();
      stop_if_energy_exceeded();
      write_checkpoint();
    }
  } catch (const std::exception&) {
    // The log stays under its .partial name (an earlier complete log is not replaced): say where.
    rethrow_noting((log ? "; this run's diagnostics so far are in '" + log->partial_path().string() + "'" : std::string()) +
                   (summary.checkpoint.empty() ? std::string()
                                               : "; the last checkpoint is '" + summary.checkpoint.string() + "'"));
  }
  if (log) log->close();
  for (const auto& file : block_logs) file->close();
  summary.run.steps = sim.step_count();
  summary.run.time = sim.time();
  summary.run.wall_seconds = seconds();
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
  return io::checkpoint_precision(checkpoint) == "double" ? io::read_checkpoint<double>(checkpoint).config
                                                          : io::read_checkpoint<float>(checkpoint).config;
}

RunSummary run(const RunConfig& config, const RunOptions& options,
               const std::function<void(const integrate::Progress&)>& on_progress) {
  check(config);
  return gravity::with_precision(config.gravity.precision,
                                 [&](auto real) { return run_in<decltype(real)>(config, options, on_progress); });
}

}  // namespace orrery::driver
