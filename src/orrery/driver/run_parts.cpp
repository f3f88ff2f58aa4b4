#include "orrery/driver/run_parts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <new>
#include <random>
#include <stdexcept>

#include "orrery/core/error.hpp"
#include "orrery/core/os_error.hpp"
#include "orrery/driver/restart.hpp"
#include "orrery/driver/setup.hpp"
#include "orrery/integrate/block_step_logs.hpp"
#include "orrery/integrate/diagnostics_output.hpp"
#include "orrery/integrate/step_count.hpp"
#include "orrery/io/config.hpp"

namespace orrery::driver::parts {

void check(const integrate::RunConfig& c) {
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

std::int64_t new_run_id() {
  std::random_device entropy;
  const std::uint64_t id = (std::uint64_t{entropy()} << 32) ^ entropy();
  return static_cast<std::int64_t>(id >> 1);
}

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

std::int64_t snapshot_number(const integrate::Schedule& schedule, std::int64_t step, double dt,
                             std::int64_t& next_index) {
  // The forced one at the end of a run, off the schedule, takes the next number rather than
  // overwriting the last scheduled snapshot; and never below the next number the run (or the leg it
  // continues, through its checkpoint) has not used, so no leg overwrites an earlier leg's snapshot.
  const auto index = std::max(next_index, schedule.index(step, dt) + (schedule.due(step, dt) ? 0 : 1));
  next_index = index + 1;
  return index;
}

void check_checkpoint(const io::BuildFingerprint& build, const io::BuildFingerprint& this_build,
                      const std::string& saved_toml,
                      const std::map<std::string, std::int64_t>& saved_counters, const integrate::RunConfig& config,
                      const RunOptions& options, const std::filesystem::path& checkpoint) {
  io::require_same_build(build, this_build, checkpoint);
  const auto saved = io::Config::from_string(saved_toml, "checkpoint '" + checkpoint.string() + "'");
  require_same_physics(saved.run_config(), config, checkpoint);
  // Only a run's checkpoint (it has a run identity) says how its particles were made:
  // orrery.Simulation.save_checkpoint records the gravity settings and dt, the rest at defaults.
  if (!options.config_toml.empty() && saved_counters.contains(io::kRunIdCounter))
    require_same_start(saved, io::Config::from_string(options.config_toml, "this run's configuration"), checkpoint);
}

std::map<std::string, std::int64_t> start_counters(const Ranks& ranks,
                                                   const std::map<std::string, std::int64_t>* checkpoint) {
  std::map<std::string, std::int64_t> counters{{io::kRunIdCounter, ranks.from_writer(new_run_id())}, {kNextSnapshot, 0}};
  if (checkpoint != nullptr)
    for (const auto& [name, value] : *checkpoint)
      if (counters.contains(name)) counters[name] = value;
  return counters;
}

void create_output_directory(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw_os_error("output.directory = '" + dir.string() + "': cannot be created", ec.value(),
                   "accepted: a directory that exists or can be created, and is writable");
}

std::shared_ptr<diag::CsvLog> diagnostics_log(const integrate::RunConfig& config, const RunOptions& options,
                                              const Ranks& ranks, std::int64_t step, RunSummary& summary) {
  const std::filesystem::path dir = config.output.directory;
  summary.run.diagnostics =
      dir / (options.restart.empty() ? std::string("diagnostics.csv") : fmt::format("diagnostics_from_{}.csv", step));
  return ranks.writes() ? std::make_shared<diag::CsvLog>(summary.run.diagnostics, integrate::diagnostics_phases())
                        : nullptr;
}

std::vector<std::shared_ptr<diag::CsvFile>> block_step_logs(const integrate::RunConfig& config,
                                                            const RunOptions& options, const Ranks& ranks,
                                                            std::int64_t step, int deepest_bin) {
  if (!ranks.writes()) return {};
  const std::filesystem::path dir = config.output.directory;
  const auto name = [&](const char* stem) {
    return dir / (options.restart.empty() ? fmt::format("{}.csv", stem) : fmt::format("{}_from_{}.csv", stem, step));
  };
  return {std::make_shared<diag::CsvFile>(name("substeps"), integrate::substep_header(), "substep log"),
          std::make_shared<diag::CsvFile>(name("time_bins"), integrate::time_bins_header(deepest_bin), "time-bin log")};
}

Watch::Watch(const integrate::RunConfig& c, const RunOptions& o, const Ranks& r, RunSummary& s)
    : config(&c), options(&o), ranks(&r), summary(&s), rule(integrate::watched_rule(c.gravity.softening)) {}

void Watch::row(const diag::Diagnostics& d, double dt, bool block_steps,
                const std::function<integrate::SmallestStep()>& smallest) {
  summary->run.relative_energy_error = d.relative_energy_error;
  summary->worst_relative_energy_error = std::max(summary->worst_relative_energy_error, std::abs(d.relative_energy_error));
  if (!energy_stop) energy_stop = integrate::energy_error_excess(d, config->integration.max_energy_error);
  // Once a run: the first time says it. Block steps take each particle's
  // step from the criterion itself (dt_min reached is an error), so
  // there is no global step to warn about.
  if (warned || block_steps) return;
  if (const auto w = integrate::step_warning(dt, rule, smallest(), d.time, d.step)) {
    warned = true;
    if (options->on_warning && ranks->writes()) options->on_warning(*w);
  }
}

}  // namespace orrery::driver::parts
