#pragma once
// What a Python orrery.Simulation holds: the library's Simulation<Real> and
// the GravityConfig its solver was made from (for snapshots, checkpoints and
// repr). The simulation is made as the CLI's is (driver::make_simulation):
// with backend = "cuda" the particles stay on the device between the reads
// of the Python caller.
//
// Work on a simulation runs with the GIL released, so two Python threads
// could reach the same simulation at once: claim() makes the second one fail
// with a clear error instead of racing on the particle arrays.
#include <mutex>
#include <utility>

#include "orrery/core/error.hpp"

#include "orrery/driver/make_simulation.hpp"
#include "orrery/gravity/gravity_config.hpp"
#include "orrery/integrate/simulation.hpp"

namespace orrery::python {

template <class Real>
class SimulationHandle {
 public:
  SimulationHandle(Particles<Real> particles, const gravity::GravityConfig& gravity,
                   const integrate::SimulationState& state)
      : gravity_(gravity), sim_(driver::make_simulation<Real>(std::move(particles), gravity, state)) {}

  integrate::Simulation<Real>& sim() { return sim_; }
  const integrate::Simulation<Real>& sim() const { return sim_; }
  const gravity::GravityConfig& gravity() const { return gravity_; }

  /// Exclusive use while the GIL is released; RuntimeFailure when another thread has it.
  [[nodiscard]] std::unique_lock<std::mutex> claim() {
    std::unique_lock<std::mutex> lock(busy_, std::try_to_lock);
    if (!lock.owns_lock()) {
      throw RuntimeFailure("orrery.Simulation is in use by another thread (stepping, solving or writing); "
                           "use one simulation from one thread at a time");
    }
    return lock;
  }

 private:
  std::mutex busy_;
  gravity::GravityConfig gravity_;
  integrate::Simulation<Real> sim_;
};

}  // namespace orrery::python
