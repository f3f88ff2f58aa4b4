#include "orrery/driver/run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <utility>

#include "orrery/core/error.hpp"
#include "orrery/driver/make_simulation.hpp"
#include "orrery/driver/restart.hpp"
#include "orrery/driver/setup.hpp"
#include "orrery/gravity/dispatch.hpp"
#include "orrery/gravity/solver_factory.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/integrate/diagnostics_output.hpp"
#include "orrery/io/checkpoint.hpp"
#include "orrery/io/config.hpp"
#include "orrery/io/run_control.hpp"
#include "orrery/io/snapshot.hpp"

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
  if (c.output.checkpoint_keep < 1)
    fail("output.checkpoint_keep", static_cast<double>(c.output.checkpoint_keep), "an integer >= 1");
  unit_system(c.units);
}

template <class Real>
Output<Real> snapshot_output(const std::filesystem::path& dir, double interval, io::SnapshotInfo info, int& count) {
  Output<Real> out;
  out.name = "snapshot";
  out.schedule.interval = interval;
  out.needs_potential = true;
  out.write = [dir, info = std::move(info), &count, schedule = out.schedule](Simulation<Real>& sim) mutable {
    sim.potentials();  // computed into the accelerations' potential array
    // Numbered by intervals elapsed, a pure function of the step, so a restarted run continues the
    // numbering. The forced one at the end of a run, off the schedule, takes the next number rather than
    // overwriting the last scheduled snapshot.
    const auto step = sim.step_count();
    const double dt = sim.state().dt;
    const auto index = schedule.index(step, dt) + (schedule.due(step, dt) ? 0 : 1);
    info.time = sim.time();
    info.step = sim.step_count();
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
  RunSummary summary;
  // Everything that can be refused is checked before the first output.
  Particles<Real> particles;
  integrate::SimulationState state;
  state.dt = config.integration.dt;
  Accelerations<Real> accelerations;  // a checkpoint's, when it stores them
  io::ParticleTypes types;            // PartType0..5 counts, kept from the initial snapshot to the last output
  if (!options.restart.empty()) {
    auto c = io::read_checkpoint<Real>(options.restart);
    io::require_same_build(c.build, io::BuildFingerprint::current<Real>(), options.restart);
    require_same_physics(io::Config::from_string(c.config, "checkpoint '" + options.restart.string() + "'").run_config(),
                         config, options.restart);
    particles = std::move(c.particles);
    state = c.state;
    accelerations = std::move(c.accelerations);
    types = io::types_from(c.counters);
  } else {
    auto initial = initial_state(config);
    particles = ic::to_precision<Real>(initial.particles);
    state.time_origin = initial.time;
    types = initial.types;
  }
  Simulation<Real> sim = make_simulation<Real>(std::move(particles), config.gravity, state);
  if (!accelerations.ax.empty()) sim.restore_accelerations(std::exchange(accelerations, {}));  // sim keeps a copy
  summary.first_step = sim.step_count();
  summary.run.solver = sim.solver_name();
  io::RunControl control({config.output.checkpoint_minutes, config.integration.wall_limit_minutes, dir / "STOP"});
  std::filesystem::create_directories(dir);

  summary.run.diagnostics =
      dir / (options.restart.empty() ? std::string("diagnostics.csv") : fmt::format("diagnostics_from_{}.csv", sim.step_count()));
  auto log = std::make_shared<diag::CsvLog>(summary.run.diagnostics, integrate::diagnostics_phases());
  sim.add_output(integrate::diagnostics_output<Real>(
      log, config.output.diagnostics_interval,
      [&](const diag::Diagnostics& d) {
        summary.run.relative_energy_error = d.relative_energy_error;
        summary.worst_relative_energy_error = std::max(summary.worst_relative_energy_error, std::abs(d.relative_energy_error));
      }));
  if (config.output.snapshot_interval > 0) {
    auto info = snapshot_info(config, summary.run.solver, options.config_toml);
    info.types = types;
    sim.add_output(snapshot_output<Real>(dir, config.output.snapshot_interval, std::move(info), summary.snapshots));
  }
  std::map<std::string, std::int64_t> counters;
  io::put_types(types.resolved(static_cast<std::uint64_t>(sim.particles().size()), "run"), counters);
  const auto write_checkpoint = [&] {
    summary.checkpoint = io::write_rotating_checkpoint(dir, io::checkpoint_of(sim, options.config_toml, counters),
                                                       static_cast<int>(config.output.checkpoint_keep));
  };

  if (options.handle_signals) {
    io::RunControl::set_signal_flag(false);  // a signal that stopped an earlier run in this process is spent
    io::RunControl::install_signal_handlers();
  }
  const auto start = std::chrono::steady_clock::now();
  const auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  integrate::Progress progress;
  progress.total_steps = sim.steps_until(config.integration.t_end);
  // A new run writes every output at its first step; a restarted one wrote them before it stopped.
  if (options.restart.empty()) sim.write_all_outputs();
  for (std::int64_t k = 0; k < progress.total_steps; ++k) {
    sim.step();
    if (on_progress) {
      progress.step = k + 1;
      progress.time = sim.time();
      progress.wall_seconds = seconds();
      on_progress(progress);
    }
    const auto action = control.poll();
    if (action == io::RunControl::Action::none) continue;
    write_checkpoint();
    if (action == io::RunControl::Action::checkpoint_and_stop) {
      summary.stopped_by = control.reason();
      break;
    }
  }
  if (summary.stopped_by.empty()) {
    sim.write_all_outputs();
    write_checkpoint();
  }
  log->close();
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
