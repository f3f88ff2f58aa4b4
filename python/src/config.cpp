// The [gravity] settings from Python keywords, checked and applied by the
// CLI's configuration schema (io/config_schema.hpp): the same accepted
// values, the same conversions (e.g. multipole = "quadrupole" -> order 2)
// and messages in the schema's words. A key added to the schema is a
// keyword here at once. GravityConfig itself is exposed read-only, with
// enumerations as strings.
#include <cstdint>
#include <string>

#include <nanobind/stl/array.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "orrery/core/error.hpp"
#include "orrery/gravity/solver_factory.hpp"
#include "orrery/io/config_schema.hpp"

namespace orrery::python {

namespace {

using gravity::GravityConfig;

/// A Python value as the schema type of `spec`; InputError when it is not one.
io::Value to_value(const io::KeySpec& spec, nb::handle value) {
  const bool is_bool = nb::isinstance<nb::bool_>(value);
  switch (spec.type) {
    case io::ValueType::integer:
      if (nb::isinstance<nb::int_>(value) && !is_bool) return nb::cast<std::int64_t>(value);
      break;
    case io::ValueType::real:
      if ((nb::isinstance<nb::int_>(value) || nb::isinstance<nb::float_>(value)) && !is_bool) {
        return nb::cast<double>(value);
      }
      break;
    case io::ValueType::string:
      if (nb::isinstance<nb::str>(value)) return nb::cast<std::string>(value);
      break;
    case io::ValueType::boolean:
      if (is_bool) return nb::cast<bool>(value);
      break;
  }
  throw InputError(spec.wrong_type(nb::cast<std::string>(nb::repr(value))));
}

/// The defaults with each {name: value} applied as the key gravity.<name>.
GravityConfig gravity_config(const nb::dict& settings) {
  integrate::RunConfig run;
  for (const auto& [name, value] : settings) {
    const std::string key = "gravity." + nb::cast<std::string>(name);
    const io::KeySpec* spec = io::find_key(key);
    if (spec == nullptr) throw InputError("unknown key " + key + "; did you mean " + io::nearest_key(key) + "?");
    const io::Value v = to_value(*spec, value);
    if (!spec->accepts(v)) throw InputError(spec->not_accepted(v));
    spec->apply(v, run);
  }
  return run.gravity;
}

/// The keys of the [gravity] table, without the section; a sub-table's keys
/// (softening_per_type.PartType0..5) as one key, its name. Not
/// gravity.mpi_layout nor gravity.max_particles_per_rank: the package is
/// single-process (docs/python.md), so how MPI ranks share a solve and what
/// each may hold are no settings of its.
std::vector<std::string> gravity_keys() {
  std::vector<std::string> keys;
  for (const auto& spec : io::config_schema()) {
    if (spec.section() != "gravity" || spec.key == "gravity.mpi_layout" || spec.key == "gravity.max_particles_per_rank")
      continue;
    std::string name = spec.key.substr(spec.key.find('.') + 1);
    name = name.substr(0, name.find('.'));
    if (keys.empty() || keys.back() != name) keys.push_back(name);
  }
  return keys;
}

/// The softening of each type that is set ({"PartType2": 0.01, ...}; unset types take `softening`).
nb::dict softening_per_type(const GravityConfig& c) {
  nb::dict out;
  for (int t = 0; t < kSofteningClasses; ++t)
    if (c.softening_per_type[t] != gravity::kUnsetSoftening)
      out[("PartType" + std::to_string(t)).c_str()] = c.softening_per_type[t];
  return out;
}

}  // namespace

void bind_config(nb::module_& m) {
  nb::class_<GravityConfig>(m, "GravityConfig", "The [gravity] table of a run (read-only; see gravity_config).")
      .def_ro("solver", &GravityConfig::solver)
      .def_ro("backend", &GravityConfig::backend)
      .def_prop_ro("precision", [](const GravityConfig& c) { return std::string(to_string(c.precision)); })
      .def_ro("softening", &GravityConfig::softening)
      .def_prop_ro("softening_kernel",
                   [](const GravityConfig& c) { return std::string(to_string(c.softening_kernel)); })
      .def_prop_ro("math", [](const GravityConfig& c) { return std::string(to_string(c.math)); })
      .def_ro("theta", &GravityConfig::theta)
      .def_ro("leaf_capacity", &GravityConfig::leaf_capacity)
      .def_ro("multipole", &GravityConfig::multipole_order)
      .def_prop_ro("opening", [](const GravityConfig& c) { return std::string(to_string(c.opening)); })
      .def_ro("tolerance", &GravityConfig::tolerance)
      .def_ro("relative_cap", &GravityConfig::relative_cap)
      .def_ro("group_opening", &GravityConfig::group_opening)
      .def_ro("list_walk", &GravityConfig::list_walk)
      .def_ro("traversal", &GravityConfig::traversal)
      .def_ro("group_width", &GravityConfig::group_width)
      .def_prop_ro("softening_per_type", &softening_per_type)
      .def_rw("type_counts", &GravityConfig::type_counts,
              "PartType0..5 counts of the particles the softening per type applies to (all 0: every particle "
              "PartType1); set by orrery.Simulation and orrery.forces from their types.");
  m.def("gravity_config", &gravity_config, nb::arg("settings"),
        "A GravityConfig from {key: value} of the [gravity] table (ValueError in the schema's words).");
  m.def("gravity_keys", &gravity_keys, "The keys of the [gravity] table.");
  m.def("available_solvers", &gravity::available_solvers,
        "\"solver/backend\" for every combination compiled into this build.");
  m.def("cuda_compiled", [] {
#if defined(ORRERY_HAVE_CUDA)
    return true;
#else
    return false;
#endif
  });
}

}  // namespace orrery::python
