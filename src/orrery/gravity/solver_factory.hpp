#pragma once
// Builds a ForceSolver from a GravityConfig: the solver (reference, direct,
// tree) on a backend (cpu, cuda, auto), in the precision Real. The caller
// picks Real from config.precision (with_precision in dispatch.hpp).
//
// The table of what this build provides is in solver_factory.cpp: a new
// solver or backend is one line there (plus, for a backend compiled only
// sometimes, the #if around it).
#include <memory>
#include <string>
#include <vector>

#include "orrery/gravity/device_force_solver.hpp"
#include "orrery/gravity/force_solver.hpp"
#include "orrery/gravity/gravity_config.hpp"

namespace orrery::gravity {

/// Throws InputError naming gravity.solver / gravity.backend, the value and
/// the combinations this build accepts, e.g. "gravity.backend = "cuda" is not
/// available in this build (compiled without CUDA); accepted: cpu, auto".
/// backend "auto" picks the first available of cuda, cpu.
template <class Real>
std::unique_ptr<ForceSolver<Real>> make_solver(const GravityConfig& config);

/// The solver make_solver(config) would choose, as a DeviceForceSolver for a
/// run whose particles stay on the device; null when that choice is a host
/// solver (backend cpu, or auto without a usable device). The same
/// InputErrors as make_solver.
template <class Real>
std::unique_ptr<DeviceForceSolver<Real>> make_device_solver(const GravityConfig& config);

/// "solver/backend" for every combination compiled into this build.
std::vector<std::string> available_solvers();

extern template std::unique_ptr<ForceSolver<float>> make_solver<float>(const GravityConfig&);
extern template std::unique_ptr<ForceSolver<double>> make_solver<double>(const GravityConfig&);
extern template std::unique_ptr<DeviceForceSolver<float>> make_device_solver<float>(const GravityConfig&);
extern template std::unique_ptr<DeviceForceSolver<double>> make_device_solver<double>(const GravityConfig&);

}  // namespace orrery::gravity
