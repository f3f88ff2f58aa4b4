// orrery.run(): `orrery run` from Python, through the same driver
// (driver/run.hpp): the configuration file and overrides, or a checkpoint
// to continue, and every output the CLI writes. Python's on_progress is
// called at most about twice a second (it needs the GIL; steps do not);
// on_warning with each warning of the run (orrery/_driver.py collects them).
#include <chrono>
#include <string>
#include <vector>

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "orrery/driver/run.hpp"
#include "orrery/io/config.hpp"

namespace orrery::python {

namespace {

nb::dict run(const std::string& file, const std::vector<std::string>& overrides, const std::string& restart,
             bool handle_signals, const nb::object& on_progress, const nb::object& on_warning) {
  const io::Config config = driver::run_configuration(file, overrides, restart);
  driver::RunOptions options;
  options.config_toml = config.to_toml();
  options.restart = restart;
  options.handle_signals = handle_signals;
  options.on_warning = [&](const std::string& w) {
    if (on_warning.is_none()) return;
    nb::gil_scoped_acquire acquire;
    on_warning(w);
  };
  using Clock = std::chrono::steady_clock;
  auto next_report = Clock::now();
  driver::RunSummary s;
  {
    nb::gil_scoped_release release;
    s = driver::run(config.run_config(), options, [&](const integrate::Progress& p) {
      if (on_progress.is_none() || (Clock::now() < next_report && p.step < p.total_steps)) return;
      next_report = Clock::now() + std::chrono::milliseconds(500);
      nb::gil_scoped_acquire acquire;
      nb::dict d;
      d["step"] = p.step;
      d["total_steps"] = p.total_steps;
      d["time"] = p.time;
      d["wall_seconds"] = p.wall_seconds;
      on_progress(d);
    });
  }
  nb::dict d;
  d["solver"] = s.run.solver;
  d["steps"] = s.run.steps;
  d["first_step"] = s.first_step;
  d["time"] = s.run.time;
  d["relative_energy_error"] = s.run.relative_energy_error;
  d["worst_relative_energy_error"] = s.worst_relative_energy_error;
  d["wall_seconds"] = s.run.wall_seconds;
  d["diagnostics"] = s.run.diagnostics.string();
  d["stopped_by"] = s.stopped_by;
  d["checkpoint"] = s.checkpoint.string();
  d["snapshots"] = s.snapshots;
  d["config"] = options.config_toml;
  return d;
}

}  // namespace

void bind_driver(nb::module_& m) {
  m.def("run", &run, nb::arg("file"), nb::arg("overrides"), nb::arg("restart"), nb::arg("handle_signals"),
        nb::arg("on_progress").none(), nb::arg("on_warning").none());
}

}  // namespace orrery::python
