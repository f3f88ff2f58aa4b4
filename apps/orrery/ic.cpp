// orrery ic CONFIG.toml -o FILE.h5 [--set section.key=value ...]
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "orrery/driver/setup.hpp"
#include "orrery/gravity/dispatch.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/io/config.hpp"
#include "orrery/io/snapshot.hpp"

namespace orrery::cli {

namespace {
struct IcOptions {
  std::string config_file;
  std::string output;
  std::vector<std::string> overrides;
};

void ic_command(const IcOptions& o) {
  const io::Config config = io::Config::load(o.config_file, o.overrides);
  const auto run_config = config.run_config();
  const auto initial = driver::initial_state(run_config);
  auto info = driver::snapshot_info(run_config, "none (initial conditions)", config.to_toml());
  info.time = initial.time;
  // In the run's precision, so `run` from this file starts from the same bits as from the generator.
  gravity::with_precision(run_config.gravity.precision, [&](auto real) {
    io::write_snapshot(o.output, ic::to_precision<decltype(real)>(initial.particles), info);
  });
  std::printf("%s: %lld particles (%s) written\n", o.output.c_str(), static_cast<long long>(initial.particles.size()),
              run_config.initial_conditions.kind.c_str());
}
}  // namespace

void add_ic_command(CLI::App& app) {
  auto o = std::make_shared<IcOptions>();
  auto* cmd = app.add_subcommand("ic", "Generate initial conditions into an HDF5 snapshot (GADGET-4 layout)");
  cmd->add_option("config", o->config_file, "TOML configuration; its [initial_conditions] and [units] are used")
      ->check(CLI::ExistingFile);
  cmd->add_option("-o,--output", o->output, "Snapshot to write (an existing file is replaced atomically)")->required();
  cmd->add_option("--set", o->overrides, "Override a key: --set section.key=value (repeatable)")->type_name("KEY=VALUE");
  cmd->footer(
      "Examples:\n"
      "  orrery ic examples/hernquist_halo.toml -o halo.h5\n"
      "  orrery ic --set initial_conditions.kind=cold_sphere --set initial_conditions.count=10000 -o cold.h5\n"
      "  orrery run --set initial_conditions.kind=file --set initial_conditions.path=halo.h5");
  cmd->callback([o] { ic_command(*o); });
}

}  // namespace orrery::cli
