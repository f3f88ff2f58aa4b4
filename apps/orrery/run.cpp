// orrery run [CONFIG.toml] [--set section.key=value ...]
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "orrery/integrate/run.hpp"
#include "orrery/io/config.hpp"
#include "progress.hpp"

namespace orrery::cli {

namespace {
struct RunOptions {
  std::string config_file;
  std::vector<std::string> overrides;
};

void run_command(const RunOptions& o) {
  const io::Config config = io::Config::load(o.config_file, o.overrides);
  ProgressLine progress;
  const auto summary = integrate::run(config.run_config(), [&](const integrate::Progress& p) {
    progress.update(p.step, p.total_steps, p.time, p.wall_seconds);
  });
  progress.finish();
  if (progress.enabled()) {
    std::printf("%s: %lld steps to t = %g in %.1f s, relative energy error %.3g; diagnostics in %s\n",
                summary.solver.c_str(), static_cast<long long>(summary.steps), summary.time, summary.wall_seconds,
                summary.relative_energy_error, summary.diagnostics.string().c_str());
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
  run->callback([options] { run_command(*options); });
}

}  // namespace orrery::cli
