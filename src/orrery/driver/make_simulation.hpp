#pragma once
// The simulation a configuration asks for, for every front end (`orrery run`,
// the Python package): with gravity.backend = "cuda" (or "auto" choosing it)
// and a solver that has a device engine, the particles stay on the device for
// the whole run and are downloaded only when an output or the caller reads
// them; otherwise the host Simulation with the configured ForceSolver.
// Block time steps (`block_steps`) with the tree solver on the device run
// device-resident too (integrate/device_block_leapfrog.hpp: bins, active set
// and kicks on the device); with any other solver on the host Simulation,
// whose substeps solve their active particles through the solver's
// TargetSet overload.
#include "orrery/core/particles.hpp"
#include "orrery/gravity/gravity_config.hpp"
#include "orrery/integrate/simulation.hpp"

namespace orrery::driver {

/// InputError (naming the key) for a configuration the factory rejects;
/// RuntimeFailure when the device cannot be used.
template <class Real>
integrate::Simulation<Real> make_simulation(Particles<Real> particles, const gravity::GravityConfig& gravity,
                                            const integrate::SimulationState& state, bool block_steps = false);

extern template integrate::Simulation<float> make_simulation(Particles<float>, const gravity::GravityConfig&,
                                                             const integrate::SimulationState&, bool);
extern template integrate::Simulation<double> make_simulation(Particles<double>, const gravity::GravityConfig&,
                                                              const integrate::SimulationState&, bool);

}  // namespace orrery::driver
