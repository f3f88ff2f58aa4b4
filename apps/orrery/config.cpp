// orrery config [--dump | --markdown] [CONFIG.toml] [--set section.key=value ...]
#include "orrery/io/config.hpp"

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "orrery/core/os_error.hpp"
#include "orrery/core/write_fault.hpp"

namespace orrery::cli {

namespace {
struct ConfigOptions {
  std::string config_file;
  std::vector<std::string> overrides;
  bool markdown = false;
  bool dump = false;
};

/// The dump is usually redirected to a file (`> my_run.toml`): a full disk
/// must not leave a truncated configuration behind an exit status of 0.
void print(const std::string& text) {
  const int e = write_and_flush(stdout, text);
  if (e != 0) throw_os_error("standard output: the configuration could not be written", e);
}
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
      print(io::schema_markdown());
      return;
    }
    print(io::Config::load(o->config_file, o->overrides).to_toml());
  });
}

}  // namespace orrery::cli
