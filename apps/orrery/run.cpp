// orrery run [CONFIG.toml] [--restart CHECKPOINT] [--set section.key=value ...]
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "mpi_launch.hpp"
#include "orrery/driver/run.hpp"
#include "orrery/io/config.hpp"
#include "progress.hpp"

namespace orrery::cli {

namespace {
struct RunOptions {
  std::string config_file;
  std::vector<std::string> overrides;
  std::string restart;
  bool mpi = false;
};

void run_command(const RunOptions& o) {
  driver::RunOptions options;
  options.mpi = mpi_wanted(o.mpi);
  if (options.mpi) start_mpi();  // main ends it: finalised, or every rank aborted after an error
  const io::Config config = driver::run_configuration(o.config_file, o.overrides, o.restart);
  options.config_toml = config.to_toml();
  options.restart = o.restart;
  ProgressLine progress;
  options.on_warning = [&](const std::string& w) {
    progress.finish();  // the warning gets a line of its own; the progress line starts again after it
    std::fprintf(stderr, "orrery: warning: %s\n", w.c_str());
  };
  const auto s = driver::run(config.run_config(), options, [&](const integrate::Progress& p) {
    progress.update(p.step, p.total_steps, p.time, p.wall_seconds);
  });
  progress.finish();
  if (!prints()) return;  // rank 0 of an MPI job speaks for all
  const auto& summary = s.run;
  // Always said, also in batch logs (only the progress line is for terminals): what ran, how well energy was
  // conserved (the final error can be small after a large excursion, so the worst is said too), how to continue.
  std::printf("%s: %lld steps to t = %g in %.1f s; |dE/E| final %.3g, worst %.3g; diagnostics in %s\n",
              summary.solver.c_str(), static_cast<long long>(summary.steps), summary.time, summary.wall_seconds,
              std::abs(summary.relative_energy_error), s.worst_relative_energy_error,
              summary.diagnostics.string().c_str());
  if (!s.stopped_by.empty()) {
    std::printf("stopped by %s at t = %g; continue with: orrery run --restart %s\n", s.stopped_by.c_str(), summary.time,
                s.checkpoint.string().c_str());
  }
}
}  // namespace

void add_run_command(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  auto* run = app.add_subcommand("run", "Run a simulation (without CONFIG.toml: the embedded default, a Plummer sphere)");
  run->add_option("config", options->config_file, "TOML configuration file (docs/config.md)");
  run->add_option("--set", options->overrides, "Override a key: --set section.key=value (repeatable)")
      ->type_name("KEY=VALUE")
      ->take_last()
      ->allow_extra_args(false);
  run->add_option("--restart", options->restart,
                  "Continue from a checkpoint (its own configuration unless CONFIG is given; --set may change "
                  "integration.t_end, integration.wall_limit_minutes, output.*; README, Restarting a run)")
      ->check(CLI::ExistingFile);
  run->add_flag("--mpi", options->mpi,
                "Run as one rank of an MPI job (implied under mpirun/mpiexec): every rank holds all particles and "
                "walks its share of the targets (docs/adr/0013), or with gravity.mpi_layout = distributed only its "
                "domain's (docs/adr/0012); results are bit-identical to one process");
  run->footer(
      "Examples:\n"
      "  orrery run examples/plummer_equilibrium.toml\n"
      "  orrery run --set gravity.solver=tree --set initial_conditions.count=100000\n"
      "  orrery run --restart orrery-out/checkpoint_000000001280.orrck --set integration.t_end=40\n"
      "  mpirun -np 4 orrery run examples/plummer_equilibrium.toml   # the same bits, 4 ranks\n"
      "  touch orrery-out/STOP     # a running job checkpoints and stops (so does SIGINT/SIGTERM)");
  run->callback([options] { run_command(*options); });
}

}  // namespace orrery::cli
