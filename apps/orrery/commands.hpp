#pragma once
// The subcommands of `orrery`, one per file. Each adds itself to the app; its
// callback throws orrery::InputError for bad input (main prints one line and
// exits 2) and returns normally on success.
namespace CLI {
class App;
}

namespace orrery::cli {

void add_run_command(CLI::App& app);     // run.cpp
void add_config_command(CLI::App& app);  // config.cpp
void add_ic_command(CLI::App& app);      // ic.cpp
void add_info_command(CLI::App& app);    // info.cpp
void add_render_command(CLI::App& app);  // render.cpp
void add_compare_command(CLI::App& app);  // compare.cpp

}  // namespace orrery::cli
