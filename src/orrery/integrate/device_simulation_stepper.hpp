#pragma once
// The CUDA engine of a device-resident Simulation (gravity.backend = "cuda"):
// a DeviceStepper over DeviceSimulation, whose leapfrog kernels and device
// force solvers (DirectGpuSolver, GpuTreeSolver) do the work. No CUDA header;
// defined in orrery_integrate_gpu, which exists only in builds with CUDA.
#include <memory>

#include "orrery/gravity/device_force_solver.hpp"
#include "orrery/integrate/device_stepper.hpp"

namespace orrery::integrate {

/// A stepper that will run `solver` (non-null, else InputError) on the
/// particles Simulation uploads to it.
template <class Real>
std::unique_ptr<DeviceStepper<Real>> make_device_stepper(std::unique_ptr<gravity::DeviceForceSolver<Real>> solver);

extern template std::unique_ptr<DeviceStepper<float>> make_device_stepper<float>(
    std::unique_ptr<gravity::DeviceForceSolver<float>>);
extern template std::unique_ptr<DeviceStepper<double>> make_device_stepper<double>(
    std::unique_ptr<gravity::DeviceForceSolver<double>>);

}  // namespace orrery::integrate
