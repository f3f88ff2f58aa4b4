// orrery._core: the compiled half of the orrery package. Errors keep the
// library's messages (the CLI prints the same text): InputError becomes
// ValueError, RuntimeFailure becomes RuntimeError.
#include <nanobind/nanobind.h>

#include "bindings.hpp"
#include "orrery/core/error.hpp"

namespace nb = nanobind;

NB_MODULE(_core, m) {
  m.doc() = "Orrery's C++ core; use the orrery package, not this module directly.";
  m.attr("__version__") = ORRERY_VERSION;  // the CMake project's version (orrery_io's definition)
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const orrery::InputError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const orrery::RuntimeFailure& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
  orrery::python::bind_units(m);
  orrery::python::bind_config(m);
  orrery::python::bind_forces(m);
  orrery::python::bind_simulation(m);
  orrery::python::bind_files(m);
  orrery::python::bind_ic(m);
  orrery::python::bind_run_config(m);
  orrery::python::bind_driver(m);
}
