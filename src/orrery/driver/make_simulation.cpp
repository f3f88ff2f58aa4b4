#include "orrery/driver/make_simulation.hpp"

#include <memory>
#include <utility>

#include "orrery/gravity/solver_factory.hpp"
#if defined(ORRERY_HAVE_CUDA)
#include "orrery/integrate/device_simulation_stepper.hpp"
#endif

namespace orrery::driver {

template <class Real>
integrate::Simulation<Real> make_simulation(Particles<Real> particles, const gravity::GravityConfig& gravity,
                                            const integrate::SimulationState& state) {
#if defined(ORRERY_HAVE_CUDA)
  if (auto device = gravity::make_device_solver<Real>(gravity)) {
    return integrate::Simulation<Real>(std::move(particles), integrate::make_device_stepper<Real>(std::move(device)),
                                       state);
  }
#endif
  return integrate::Simulation<Real>(std::move(particles), gravity::make_solver<Real>(gravity), state);
}

template integrate::Simulation<float> make_simulation(Particles<float>, const gravity::GravityConfig&,
                                                      const integrate::SimulationState&);
template integrate::Simulation<double> make_simulation(Particles<double>, const gravity::GravityConfig&,
                                                       const integrate::SimulationState&);

}  // namespace orrery::driver
