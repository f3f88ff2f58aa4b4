#pragma once
// What a Python orrery.Simulation holds: the library's Simulation<Real> and
// the GravityConfig its solver was made from (for snapshots, checkpoints and
// repr). The solver comes from the same factory as the CLI's.
#include <utility>

#include "orrery/gravity/gravity_config.hpp"
#include "orrery/gravity/solver_factory.hpp"
#include "orrery/integrate/simulation.hpp"

namespace orrery::python {

template <class Real>
class SimulationHandle {
 public:
  SimulationHandle(Particles<Real> particles, const gravity::GravityConfig& gravity,
                   const integrate::SimulationState& state)
      : gravity_(gravity), sim_(std::move(particles), gravity::make_solver<Real>(gravity), state) {}

  integrate::Simulation<Real>& sim() { return sim_; }
  const integrate::Simulation<Real>& sim() const { return sim_; }
  const gravity::GravityConfig& gravity() const { return gravity_; }

 private:
  gravity::GravityConfig gravity_;
  integrate::Simulation<Real> sim_;
};

}  // namespace orrery::python
