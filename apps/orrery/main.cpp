// orrery: the command-line program. Exit status: 0 success, 2 bad input
// (one line on stderr naming what was wrong), 1 any other failure.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <set>
#include <string>

#include "commands.hpp"
#include "orrery/core/error.hpp"
#include "orrery/gravity/solver_factory.hpp"

namespace {

/// "orrery 0.9.0 (backends: cpu, cuda)": the version and what this build can run on.
std::string version_line() {
  std::set<std::string> backends;
  for (const auto& pair : orrery::gravity::available_solvers()) backends.insert(pair.substr(pair.find('/') + 1));
  std::string list;
  for (const auto& b : backends) list += (list.empty() ? "" : ", ") + b;
  return std::string("orrery ") + ORRERY_VERSION + " (backends: " + list + ")";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Orrery: gravitational N-body simulation (direct and Barnes-Hut, CPU and CUDA)", "orrery"};
  app.require_subcommand(1);
  app.set_version_flag("--version", version_line(), "Print the version and the build's backends, then exit");
  orrery::cli::add_run_command(app);
  orrery::cli::add_config_command(app);
  orrery::cli::add_ic_command(app);
  orrery::cli::add_info_command(app);
  orrery::cli::add_render_command(app);
  orrery::cli::add_compare_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "orrery: error: %s (orrery --help lists the commands)\n", e.what());
    return 2;
  } catch (const orrery::InputError& e) {
    std::fprintf(stderr, "orrery: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "orrery: failure: %s\n", e.what());
    return 1;
  }
  return 0;
}
