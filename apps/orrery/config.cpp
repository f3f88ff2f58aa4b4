// orrery config [--dump | --markdown] [CONFIG.toml] [--set section.key=value ...]
#include "orrery/io/config.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"

namespace orrery::cli {

namespace {
struct ConfigOptions {
  std::string config_file;
  std::vector<std::string> overrides;
  bool markdown = false;
  bool dump = false;
};
}  // namespace

void add_config_command(CLI::App& app) {
  auto o = std::make_shared<ConfigOptions>();
  auto* cmd = app.add_subcommand(
      "config", "Check a configuration and print it as TOML with every key documented (default: the embedded one)");
  cmd->add_option("config", o->config_file, "TOML configuration file to check and print");
  cmd->add_option("--set", o->overrides, "Override a key: --set section.key=value (repeatable)")->type_name("KEY=VALUE");
  cmd->add_flag("--dump", o->dump, "Print the configuration as TOML (the default action)");
  cmd->add_flag("--markdown", o->markdown, "Print the reference of every key as Markdown (docs/config.md)");
  cmd->footer(
      "Examples:\n"
      "  orrery config --dump > my_run.toml       # every key with its default and documentation\n"
      "  orrery config examples/cold_collapse.toml --set integration.t_end=20\n"
      "  orrery config --markdown > docs/config.md");
  cmd->callback([o] {
    if (o->markdown) {
      std::fputs(io::schema_markdown().c_str(), stdout);
      return;
    }
    std::fputs(io::Config::load(o->config_file, o->overrides).to_toml().c_str(), stdout);
  });
}

}  // namespace orrery::cli
