// orrery._core: the compiled half of the orrery package. Errors keep the
// library's messages (the CLI prints the same text): InputError becomes
// ValueError, RuntimeFailure becomes RuntimeError, and EnergyErrorExceeded
// (an InputError) orrery.EnergyErrorExceeded, a ValueError of its own.
#include <nanobind/nanobind.h>

#include "bindings.hpp"
#include "orrery/core/energy_error_exceeded.hpp"
#include "orrery/core/error.hpp"

namespace nb = nanobind;

NB_MODULE(_core, m) {
  m.doc() = "Orrery's C++ core; use the orrery package, not this module directly.";
  m.attr("__version__") = ORRERY_VERSION;  // the CMake project's version (orrery_io's definition)
  // The module holds the type for the life of the process (the translator's payload).
  PyObject* energy = PyErr_NewExceptionWithDoc(
      "orrery.EnergyErrorExceeded",
      "A run stopped because a diagnostics row's |dE/E| passed max_energy_error: the step is too large for "
      "the system. A ValueError; the message names the step, the time and the error.",
      PyExc_ValueError, nullptr);
  m.attr("EnergyErrorExceeded") = nb::handle(energy);
  nb::register_exception_translator(
      [](const std::exception_ptr& p, void* energy_type) {
    try {
      std::rethrow_exception(p);
    } catch (const orrery::EnergyErrorExceeded& e) {
      PyErr_SetString(static_cast<PyObject*>(energy_type), e.what());
    } catch (const orrery::InputError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const orrery::RuntimeFailure& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
      },
      energy);
  orrery::python::bind_units(m);
  orrery::python::bind_config(m);
  orrery::python::bind_forces(m);
  orrery::python::bind_simulation(m);
  orrery::python::bind_files(m);
  orrery::python::bind_ic(m);
  orrery::python::bind_run_config(m);
  orrery::python::bind_driver(m);
}
