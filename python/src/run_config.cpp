// The run configuration stored in snapshots and checkpoints, written and
// read by the CLI's own io::Config: the text Python stores is what
// `orrery config --dump` would print for the same settings, and a
// checkpoint the CLI wrote is read back with the CLI's schema and messages.
#include <cstdio>
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

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);  // reads back bit-identically
  return buf;
}

/// The TOML text of the defaults with these gravity settings, dt and the
/// `extra` "section.key=value" assignments. Gravity keys the schema does not
/// have (yet) are left out rather than invented.
std::string config_toml(const gravity::GravityConfig& g, double dt, const std::vector<std::string>& extra) {
  io::Config config = io::Config::defaults();
  const auto put = [&config](const std::string& key, const std::string& value) {
    if (io::find_key(key) != nullptr) config.set(key + "=" + value);
  };
  put("gravity.solver", g.solver);
  put("gravity.backend", g.backend);
  put("gravity.precision", std::string(to_string(g.precision)));
  put("gravity.softening", number(g.softening));
  put("gravity.softening_kernel", std::string(to_string(g.softening_kernel)));
  put("gravity.math", std::string(to_string(g.math)));
  put("gravity.theta", number(g.theta));
  put("gravity.leaf_capacity", std::to_string(g.leaf_capacity));
  put("gravity.multipole", g.multipole_order == 2 ? "quadrupole" : "monopole");
  put("gravity.opening", std::string(to_string(g.opening)));
  put("gravity.tolerance", number(g.tolerance));
  put("gravity.traversal", g.traversal);
  put("gravity.group_width", std::to_string(g.group_width));
  put("integration.dt", number(dt));
  for (const auto& assignment : extra) config.set(assignment);
  return config.to_toml();
}

/// The gravity settings, dt and unit system of a configuration's TOML text.
std::tuple<gravity::GravityConfig, double, UnitSystem> run_settings(const std::string& toml, const std::string& source) {
  const auto run = io::Config::from_string(toml, source).run_config();
  return {run.gravity, run.integration.dt, driver::unit_system(run.units)};
}

}  // namespace

void bind_run_config(nb::module_& m) {
  m.def("config_toml", &config_toml, nb::arg("gravity"), nb::arg("dt"), nb::arg("extra"));
  m.def("run_settings", &run_settings, nb::arg("toml"), nb::arg("source"));
}

}  // namespace orrery::python
