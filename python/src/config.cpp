// GravityConfig as a Python class, with the enumerations as strings, and
// what this build provides. Invalid strings raise ValueError (InputError)
// naming the key as the configuration file spells it.
#include <string>
#include <string_view>

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "orrery/core/error.hpp"
#include "orrery/gravity/solver_factory.hpp"

namespace orrery::python {

namespace {

using gravity::GravityConfig;
using gravity::Precision;

[[noreturn]] void reject(std::string_view key, const std::string& value, std::string_view accepted) {
  throw InputError(std::string(key) + " = \"" + value + "\"; accepted: " + std::string(accepted));
}

Precision parse_precision(const std::string& s) {
  if (s == "single") return Precision::single;
  if (s == "double") return Precision::double_;
  reject("gravity.precision", s, "single, double");
}

SofteningKind parse_kernel(const std::string& s) {
  if (s == "plummer") return SofteningKind::plummer;
  if (s == "spline") return SofteningKind::spline;
  reject("gravity.softening_kernel", s, "plummer, spline");
}

MathMode parse_math(const std::string& s) {
  if (s == "fast") return MathMode::fast;
  if (s == "exact") return MathMode::exact;
  reject("gravity.math", s, "fast, exact");
}

}  // namespace

void bind_config(nb::module_& m) {
  nb::class_<GravityConfig>(m, "GravityConfig", "The [gravity] table of a run: solver, backend and their parameters.")
      .def(nb::init<>())
      .def_rw("solver", &GravityConfig::solver)
      .def_rw("backend", &GravityConfig::backend)
      .def_prop_rw(
          "precision", [](const GravityConfig& c) { return std::string(to_string(c.precision)); },
          [](GravityConfig& c, const std::string& s) { c.precision = parse_precision(s); })
      .def_rw("softening", &GravityConfig::softening)
      .def_prop_rw(
          "softening_kernel", [](const GravityConfig& c) { return std::string(to_string(c.softening_kernel)); },
          [](GravityConfig& c, const std::string& s) { c.softening_kernel = parse_kernel(s); })
      .def_prop_rw(
          "math", [](const GravityConfig& c) { return std::string(to_string(c.math)); },
          [](GravityConfig& c, const std::string& s) { c.math = parse_math(s); })
      .def_rw("theta", &GravityConfig::theta)
      .def_rw("leaf_capacity", &GravityConfig::leaf_capacity)
      .def_rw("multipole", &GravityConfig::multipole_order);

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
