#include "orrery/driver/make_simulation.hpp"

#include <memory>
#include <string>
#include <utility>

#include "orrery/gravity/solver_factory.hpp"
#if defined(ORRERY_HAVE_CUDA)
#include "orrery/core/memory.hpp"
#include "orrery/cuda/device.hpp"
#include "orrery/integrate/device_simulation_stepper.hpp"
#endif

namespace orrery::driver {

template <class Real>
integrate::Simulation<Real> make_simulation(Particles<Real> particles, const gravity::GravityConfig& gravity,
                                            const integrate::SimulationState& state, bool block_steps) {
#if defined(ORRERY_HAVE_CUDA)
  std::unique_ptr<gravity::DeviceForceSolver<Real>> device;
  // Only the tree solves a subset of targets on the device (what block steps' substeps need).
  if (!block_steps || gravity.solver == "tree") device = gravity::make_device_solver<Real>(gravity);
  if (device) {
    // Refused before the upload, as the host refuses a count that cannot fit: what the device
    // certainly holds per particle (7 values, an ID, accelerations and potentials; the tree adds more).
    require_fits(static_cast<double>(particles.size()) * (11 * sizeof(Real) + 8),
                 static_cast<double>(cuda::memory_info().free_bytes),
                 std::to_string(particles.size()) + " particles on the GPU", "GPU memory",
                 "fewer particles, or gravity.backend = \"cpu\"");
    return integrate::Simulation<Real>(std::move(particles), integrate::make_device_stepper<Real>(std::move(device)),
                                       state);
  }
#endif
  return integrate::Simulation<Real>(std::move(particles), gravity::make_solver<Real>(gravity), state);
}

template integrate::Simulation<float> make_simulation(Particles<float>, const gravity::GravityConfig&,
                                                      const integrate::SimulationState&, bool);
template integrate::Simulation<double> make_simulation(Particles<double>, const gravity::GravityConfig&,
                                                       const integrate::SimulationState&, bool);

}  // namespace orrery::driver
