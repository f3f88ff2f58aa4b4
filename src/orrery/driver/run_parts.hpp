#pragma once
// The parts of driver::run (run.cpp) that a run whose particles the ranks
// hold apart (distributed_run.cpp) shares with every other: the checks
// before the first output, a checkpoint's checks against this run, the
// snapshot numbers, the run watch at each diagnostics row, and the step
// loop with its run control. Internal to driver/.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "orrery/core/energy_error_exceeded.hpp"
#include "orrery/diag/csv_file.hpp"
#include "orrery/diag/csv_log.hpp"
#include "orrery/diag/diagnostics.hpp"
#include "orrery/driver/ranks.hpp"
#include "orrery/driver/run.hpp"
#include "orrery/driver/setup.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/integrate/run_watch.hpp"
#include "orrery/integrate/schedule.hpp"
#include "orrery/io/checkpoint.hpp"
#include "orrery/io/run_control.hpp"
#include "orrery/io/validate_particles.hpp"

namespace orrery::driver::parts {

/// InputError for a configuration a run refuses (naming the key).
void check(const integrate::RunConfig& c);

/// A new run's identity (io::kRunIdCounter): random, >= 0.
std::int64_t new_run_id();

/// Rethrows the exception being handled with `note` appended, as the same class.
[[noreturn]] void rethrow_noting(const std::string& note);

/// The checkpoint counter of the next snapshot's number.
inline constexpr const char* kNextSnapshot = "snapshot.next";

/// The number of the snapshot written at `step`: intervals elapsed (a pure
/// function of the step, so a restarted run continues the numbering), the
/// next one for a forced snapshot off the schedule, and never below
/// next_index, which it advances.
std::int64_t snapshot_number(const integrate::Schedule& schedule, std::int64_t step, double dt,
                             std::int64_t& next_index);

/// The checks of a checkpoint against this run: the same build, physics
/// and (for a run's checkpoint) start. InputError naming the field.
void check_checkpoint(const io::BuildFingerprint& build, const io::BuildFingerprint& this_build,
                      const std::string& saved_toml,
                      const std::map<std::string, std::int64_t>& saved_counters, const integrate::RunConfig& config,
                      const RunOptions& options, const std::filesystem::path& checkpoint);

/// The counters a run starts with: a new identity and snapshot 0, or those
/// of the checkpoint it continues (an old one without an identity starts a new one).
std::map<std::string, std::int64_t> start_counters(const Ranks& ranks,
                                                   const std::map<std::string, std::int64_t>* checkpoint);

/// A new run's particles in the run's precision (a generator's or a
/// snapshot's, validated for Real), their start time and types: every one,
/// or rank r of K's block (rank_block) alone, made or read in its memory
/// (setup.hpp: initial_state_rows).
template <class Real>
struct InitialParticles {
  Particles<Real> particles;
  double time = 0;
  io::ParticleTypes types;
  std::int64_t total = 0;  // N
  std::int64_t first = 0;  // the row of N that is particles' first
};
template <class Real>
InitialParticles<Real> initial_particles(const integrate::RunConfig& config, int rank = 0, int ranks = 1) {
  const std::int64_t n = initial_count(config);
  const auto [b, e] = rank_block(rank, ranks, n);
  auto initial = initial_state_rows(config, b, e);
  const auto& ic_config = config.initial_conditions;
  if (ic_config.kind == "file")
    io::validate_range<Real>(initial.particles, "file '" + ic_config.path + "'", {}, b);
  else
    io::validate_range<Real>(initial.particles, "initial conditions (kind = " + ic_config.kind + ")",
                             {"positions", "velocities", "masses", "ids"}, b);
  return {ic::to_precision<Real>(initial.particles), initial.time, initial.types, n, b};
}

/// output.directory, created when missing (EnvironmentError or InputError naming it otherwise).
void create_output_directory(const std::filesystem::path& dir);

/// The diagnostics log of this run (null on the ranks that do not write).
std::shared_ptr<diag::CsvLog> diagnostics_log(const integrate::RunConfig& config, const RunOptions& options,
                                              const Ranks& ranks, std::int64_t step, RunSummary& summary);

/// Block steps' substep and time-bin logs (integrate/block_step_logs.hpp),
/// named like the diagnostics log; none on the ranks that do not write.
std::vector<std::shared_ptr<diag::CsvFile>> block_step_logs(const integrate::RunConfig& config,
                                                            const RunOptions& options, const Ranks& ranks,
                                                            std::int64_t step, int deepest_bin);

/// What a run watches at each diagnostics row (integrate/run_watch.hpp): the
/// energy error, and once the step against the criterion's smallest.
struct Watch {
  const integrate::RunConfig* config;
  const RunOptions* options;
  const Ranks* ranks;
  RunSummary* summary;
  integrate::StepRule rule;
  std::optional<std::string> energy_stop;
  bool warned = false;

  Watch(const integrate::RunConfig& c, const RunOptions& o, const Ranks& r, RunSummary& s);
  /// A row; `smallest` gives the smallest step of the row's evaluation
  /// (asked only while a warning may still come; never with block steps).
  void row(const diag::Diagnostics& d, double dt, bool block_steps,
           const std::function<integrate::SmallestStep()>& smallest);
};

/// The step loop of a run (Engine: integrate::Simulation or the
/// distributed run): every output at the first step of a new run, the
/// steps with the injected failure, the energy stop, the progress and the
/// run control agreed over the ranks, the outputs and a checkpoint at the
/// end; a failure rethrown naming the partial log and the last checkpoint.
template <class Engine>
void run_steps(Engine& sim, const integrate::RunConfig& config, const RunOptions& options, const Ranks& ranks,
               Watch& watch, const std::shared_ptr<diag::CsvLog>& log, const std::function<void()>& write_checkpoint,
               const std::function<void(const integrate::Progress&)>& on_progress) {
  RunSummary& summary = *watch.summary;
  const std::filesystem::path dir = config.output.directory;
  // Rank 0 keeps the clocks and looks for the STOP file; every rank sees its own signals (agreed after each step).
  io::RunControl control(ranks.writes() ? io::RunControlOptions{config.output.checkpoint_minutes,
                                                                config.integration.wall_limit_minutes, dir / "STOP"}
                                        : io::RunControlOptions{});
  if (options.handle_signals) {
    io::RunControl::set_signal_flag(false);  // a signal that stopped an earlier run in this process is spent
    io::RunControl::install_signal_handlers();
  }
  // A row past integration.max_energy_error: the state it is in is checkpointed, then the run fails.
  const auto stop_if_energy_exceeded = [&] {
    if (!watch.energy_stop) return;
    write_checkpoint();
    throw EnergyErrorExceeded(*watch.energy_stop);
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
  summary.run.steps = sim.step_count();
  summary.run.time = sim.time();
  summary.run.wall_seconds = seconds();
}

}  // namespace orrery::driver::parts
