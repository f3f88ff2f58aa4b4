#pragma once
// Turning a RunConfig into the pieces of a run that are not the integrator:
// the unit system, the initial particles (a generator or a snapshot file),
// and the metadata written into snapshots.
#include <string>

#include "orrery/core/particles.hpp"
#include "orrery/core/units.hpp"
#include "orrery/integrate/run_config.hpp"
#include "orrery/io/snapshot.hpp"

namespace orrery::driver {

/// [units]: InputError naming units.system / units.length_kpc / units.mass_msun.
UnitSystem unit_system(const integrate::UnitsConfig& units);

struct InitialState {
  Particles<double> particles;
  double time = 0;  // a snapshot's Header.Time, else 0
  io::ParticleTypes types;  // a snapshot's PartType0..5 counts; none set (all PartType1) for a generator
};

/// initial_conditions.kind = "file": the snapshot at initial_conditions.path
/// (validated, any precision); otherwise the named generator with
/// initial_conditions.mass converted from configuration to code units.
InitialState initial_state(const integrate::RunConfig& config);

/// The number of particles initial_state makes (a generator's, checked; a
/// snapshot's, from its header), nothing generated or read.
std::int64_t initial_count(const integrate::RunConfig& config);

/// Rows [begin, end) of initial_state's particles, the same bits, in the
/// memory of end - begin rows (a rank's block of a run whose ranks hold the
/// particles apart: a generator runs over every particle and keeps these, a
/// snapshot's are read by hyperslab), 0 <= begin <= end <= initial_count.
/// A snapshot's IDs are checked unique among these rows only.
InitialState initial_state_rows(const integrate::RunConfig& config, std::int64_t begin, std::int64_t end);

/// The /Parameters metadata of this run's snapshots (time and step are filled per snapshot).
io::SnapshotInfo snapshot_info(const integrate::RunConfig& config, const std::string& solver_name,
                               const std::string& config_toml);

}  // namespace orrery::driver
