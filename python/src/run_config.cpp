// The run configuration stored in snapshots and checkpoints, written and
// read by the CLI's own io::Config: the text Python stores is what
// `orrery config --dump` would print for the same settings, and a
// checkpoint the CLI wrote is read back with the CLI's schema and messages.
#include <string>
#include <tuple>
#include <vector>

#include <nanobind/stl/tuple.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "orrery/driver/setup.hpp"
#include "orrery/io/config.hpp"

namespace orrery::python {

namespace {

/// The TOML text of the defaults with these gravity settings, dt and the
/// `extra` "section.key=value" assignments.
std::string config_toml(const gravity::GravityConfig& g, double dt, const std::vector<std::string>& extra) {
  integrate::RunConfig run = io::Config::defaults().run_config();
  run.gravity = g;
  run.integration.dt = dt;
  io::Config config = io::Config::of(run);
  for (const auto& assignment : extra) config.set(assignment);
  return config.to_toml();
}

/// The gravity settings, dt and unit system of a configuration's TOML text.
std::tuple<gravity::GravityConfig, double, UnitSystem> run_settings(const std::string& toml, const std::string& source) {
  const auto run = io::Config::from_string(toml, source).run_config();
  return {run.gravity, run.integration.dt, driver::unit_system(run.units)};
}

/// A configuration's block-step settings: (kind, dt_max, dt_min, criterion, eta).
std::tuple<std::string, double, double, std::string, double> block_settings(const std::string& toml,
                                                                            const std::string& source) {
  const auto i = io::Config::from_string(toml, source).run_config().integration;
  return {i.kind, i.dt_max, i.dt_min, std::string(integrate::to_string(i.criterion)), i.eta};
}

}  // namespace

void bind_run_config(nb::module_& m) {
  m.def("block_settings", &block_settings, nb::arg("toml"), nb::arg("source"));
  m.def("config_toml", &config_toml, nb::arg("gravity"), nb::arg("dt"), nb::arg("extra"));
  m.def("run_settings", &run_settings, nb::arg("toml"), nb::arg("source"));
}

}  // namespace orrery::python
