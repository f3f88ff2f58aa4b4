#pragma once
// The parts of the orrery._core module, one registration function per file.
// Precision-dependent parts are registered once per Real under names ending
// in _float32 / _float64; the Python layer picks one from `precision`.
#include <string>

#include <nanobind/nanobind.h>

#include "orrery/core/particles.hpp"
#include "orrery/gravity/gravity_config.hpp"
#include "orrery/core/solver_report.hpp"

namespace orrery::python {

namespace nb = nanobind;

void bind_config(nb::module_& m);     // config.cpp: GravityConfig, the build's solvers
void bind_forces(nb::module_& m);     // forces.cpp: one-shot force evaluation
void bind_simulation(nb::module_& m);  // simulation.cpp: Simulation_float32/64
void bind_files(nb::module_& m);      // files.cpp: snapshots and checkpoints
void bind_ic(nb::module_& m);         // ic.cpp: initial-condition generators
void bind_run_config(nb::module_& m);  // run_config.cpp: the TOML run configuration
void bind_driver(nb::module_& m);     // driver.cpp: a whole run, as `orrery run`
void bind_units(nb::module_& m);      // units.cpp: unit systems

/// The report as a dict: solver, node_visits, cell_interactions,
/// particle_interactions, seconds, phase_seconds {name: s}.
nb::dict report_dict(const SolverReport& report, const std::string& solver);

/// positions, velocities (N,3), masses, ids (N,) as new numpy arrays (files.cpp).
template <class Real>
nb::dict particle_arrays(Particles<Real>&& p);

/// The numpy dtype name of Real ("float32" / "float64").
template <class Real>
constexpr const char* dtype_suffix() {
  return sizeof(Real) == 4 ? "_float32" : "_float64";
}

}  // namespace orrery::python
