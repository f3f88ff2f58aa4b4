#pragma once
// Particle IDs unique over the ranks, each holding a block of them (a run's
// initial snapshot read by hyperslab, docs/adr/0012 decision 14), checked in
// O(N/K) per rank: every ID goes to rank (ID mod K), where a duplicate meets
// its twin. The smallest duplicated ID, agreed by every rank, is named by
// every rank's InputError, so all stop together with the same message, the
// one validate_particles gives for a whole file.
#include <cstdint>
#include <span>
#include <string>

#include "orrery/mpi/communicator.hpp"

namespace orrery::mpi {

/// A collective. InputError "<context>: ParticleIDs (all types): ID <id> occurs more than once (IDs must be unique)".
void require_unique_ids(std::span<const std::uint64_t> mine, const Communicator& comm, const std::string& context);

}  // namespace orrery::mpi
