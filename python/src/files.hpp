#pragma once
// Snapshots and checkpoints from Python, through the same readers and
// writers as the CLI (io/snapshot.hpp, io/checkpoint.hpp), so the files are
// interchangeable both ways.
#include <array>
#include <cstdint>
#include <map>
#include <string>

#include "orrery/io/snapshot.hpp"
#include "simulation_handle.hpp"

namespace orrery::python {

/// Writes the simulation's particles (and, with `fields`, accelerations and
/// potentials at the current positions), with the metadata the CLI's run
/// writes for the run configuration `config` (TOML).
/// `types`: the PartType0..5 counts of the particles in order (all zero: all PartType1).
template <class Real>
void save_snapshot(SimulationHandle<Real>& h, const std::string& path, const std::string& config, bool fields,
                   const std::array<std::uint64_t, io::kParticleTypes>& types);

/// Writes a checkpoint of the simulation: particles, accelerations, state,
/// `config` (the run's TOML text) and `counters`.
template <class Real>
void save_checkpoint(SimulationHandle<Real>& h, const std::string& path, const std::string& config,
                     const std::map<std::string, std::int64_t>& counters);

}  // namespace orrery::python
